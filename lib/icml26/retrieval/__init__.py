"""Part I, geometry of retrieval: minimal embeddable dimension and LIMIT (chapter 01)."""
