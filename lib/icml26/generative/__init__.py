"""Part VI, generative models: unlearning, diffusion, steganography, translation (09-11)."""
