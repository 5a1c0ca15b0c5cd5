"""Part V, games and preferences: zero-sum games, multiplicative weights, preference models (chapters 07-08)."""
