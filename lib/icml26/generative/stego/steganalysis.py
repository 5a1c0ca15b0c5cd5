"""A steganalyser for chapter 10 (asir).

The 3×3-median denoising residual (:func:`median_residual`) and the cross-validated ROC AUC of a
logistic-regression detector (:func:`steganalyser_auc`).
"""

from __future__ import annotations

import numpy as np
import torch

from icml26 import checks
from icml26.generative.stego.kde import _float_matrix

__all__ = [
    "median_residual",
    "steganalyser_auc",
]


def median_residual(images: torch.Tensor, side: int = 8) -> torch.Tensor:
    """The denoising residual of a steganalyser: each image minus its 3×3 median filter
    (edges replicated); ``images`` has one flattened ``side × side`` image per row."""
    x = _float_matrix("images", images)
    s = checks.integer("side", side, low=1)
    if x.shape[1] != s * s:
        raise ValueError(f"images must have side**2 = {s * s} columns, got {x.shape[1]}")
    img = x.reshape(-1, 1, s, s)
    pad = torch.nn.functional.pad(img, (1, 1, 1, 1), mode="replicate")
    patches = torch.nn.functional.unfold(pad, 3)  # (B, 9, s*s)
    return x - patches.median(dim=1).values


def steganalyser_auc(
    cover: torch.Tensor,
    stego: torch.Tensor,
    *,
    folds: int = 5,
    C: float = 0.1,
    squared: bool = False,
    seed: int = 0,
) -> float:
    """Cross-validated ROC AUC of a logistic-regression steganalyser (standardised features:
    pixels and the 3×3-median residual, optionally its square), cover = 0, stego = 1."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    c = _float_matrix("cover", cover)
    s = _float_matrix("stego", stego)
    if c.shape[1] != s.shape[1]:
        raise ValueError("stego must have as many columns as cover")
    k = checks.integer("folds", folds, low=2, high=min(c.shape[0], s.shape[0]))
    cc = checks.real("C", C, low=0.0, strict=True)
    x = torch.cat([c, s]).to(torch.float64)
    res = median_residual(x)
    feats = [x, res] + ([res**2] if squared else [])
    X = torch.cat(feats, 1).cpu().numpy()
    y = np.r_[np.zeros(c.shape[0]), np.ones(s.shape[0])]
    clf = make_pipeline(StandardScaler(), LogisticRegression(C=cc, max_iter=2000))
    cv = StratifiedKFold(k, shuffle=True, random_state=checks.integer("seed", seed, low=0))
    p = cross_val_predict(clf, X, y, cv=cv, method="predict_proba")[:, 1]
    return float(roc_auc_score(y, p))
