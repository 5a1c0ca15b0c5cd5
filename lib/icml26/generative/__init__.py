"""Part VI, generative models: unlearning, diffusion sampling, steganography, translation (chapters 09-11)."""
