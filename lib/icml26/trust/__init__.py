"""Part VIII, trust: robustness, provenance and interpretability (chapters 16-18)."""
