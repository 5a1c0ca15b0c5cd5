"""Part II, sequential decisions under hidden state (chapters 02-04)."""
