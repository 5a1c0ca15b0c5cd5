"""Part III, stochastic dynamics: controlled SDEs (chapter 05)."""
