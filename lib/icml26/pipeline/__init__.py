"""The book's build tooling: executing paired notebooks, checking them, building the book."""
