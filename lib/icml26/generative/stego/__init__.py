"""Steganography in the injected noise of a diffusion sampler: antipodal sampling and iterative
recovery (chapter 10, asir).

The sampler is the shared DDIM step of :mod:`icml26.generative.diffusion`; this package adds
what chapter 10 needs around it, one concern per module (every public name is re-exported
here, so ``stego.invert_finish`` keeps working):

- :mod:`icml26.generative.stego.kde` — the digits and the exact posterior-mean denoiser of a
  Gaussian kernel density on them: a nonlinear diffusion model that needs no training;
- :mod:`icml26.generative.stego.embedding` — the embedding step and its inverse, which reads
  the injected noise back from an image, a whole batch in one pass, and iterative recovery
  (:prf:ref:`asir-def-ir`);
- :mod:`icml26.generative.stego.transmission` — the antipodal and independent embedders
  (:prf:ref:`asir-def-antipodal`), the channel, nearest-hypothesis decoding and its per-cell
  margin, and the closed-form bit error rates of :prf:ref:`asir-thm-ber`;
- :mod:`icml26.generative.stego.codec` — a PCA encoder and a small MLP decoder for the latent
  variant;
- :mod:`icml26.generative.stego.steganalysis` — a steganalyser.

Everything is batched over images and cells; tensors may live on any device.
"""

from __future__ import annotations

from icml26.generative.stego.codec import LatentCodec, fit_latent_codec
from icml26.generative.stego.embedding import (
    embed_batch,
    embedding_mean,
    embedding_point,
    finish,
    invert_finish,
    invert_finish_rows,
    iterative_recovery,
)
from icml26.generative.stego.kde import digits_pm1, kde_eps_model, kde_posterior_mean
from icml26.generative.stego.steganalysis import median_residual, steganalyser_auc
from icml26.generative.stego.transmission import (
    antipodal_noise,
    ber_antipodal,
    ber_independent,
    channel,
    decoding_margin,
    independent_noise,
    nearest_hypothesis,
    quantise,
)

__all__ = [
    "LatentCodec",
    "antipodal_noise",
    "ber_antipodal",
    "ber_independent",
    "channel",
    "decoding_margin",
    "digits_pm1",
    "embed_batch",
    "embedding_mean",
    "embedding_point",
    "finish",
    "fit_latent_codec",
    "independent_noise",
    "invert_finish",
    "invert_finish_rows",
    "iterative_recovery",
    "kde_eps_model",
    "kde_posterior_mean",
    "median_residual",
    "nearest_hypothesis",
    "quantise",
    "steganalyser_auc",
]
