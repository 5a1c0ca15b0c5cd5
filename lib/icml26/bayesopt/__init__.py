"""Part IV, Bayesian optimisation: prior-data fitted networks and entropy search (chapter 06)."""
