"""Part VII, agents: planning, search and test-time control (chapters 12-15)."""
