"""Part II, sequential decisions under hidden state: HMM filtering, bandits, critics, clarification (chapters 02-04)."""
