"""Part V, games and preferences: zero-sum games, MWU, preference models (chapters 07-08)."""
