"""Chapter 01 (med): the icml26 kernels against the notebook's readable references and libraries."""

from __future__ import annotations

import numpy as np
import scipy.optimize
import torch
from sklearn.metrics import recall_score

from benchmarks.registry import register, register_scaling
from icml26.pipeline.notebooks import notebook_functions
from icml26.retrieval import med

_gen = torch.Generator().manual_seed(0)

# --- normalised-centroid margins over all pairs (Gram-matrix kernel vs plain loops)
_X = med.gaussian_unit(40, 32, generator=_gen)
_S = med.all_subsets(40, 2)
_Xn, _Sl = _X.numpy(), _S.tolist()


# The chapter's readable reference (one subset, plain loops), loaded from the notebook.
_reference_one = notebook_functions("01-med", "reference_centroid_margin")[
    "reference_centroid_margin"
]


def _reference_centroid_margins():
    return [_reference_one(_Xn, s) for s in _Sl]


register(
    name="centroid_margins (m=40, d=32, all 780 pairs)",
    kernel=lambda: med.centroid_margins(_X, _S),
    reference=_reference_centroid_margins,
)

register(
    name="min_pair_centroid_margin (m=40, d=32, k=2 fast path)",
    kernel=lambda: med.min_pair_centroid_margin(_X),
    reference=lambda: min(_reference_centroid_margins()),
)

# --- exact retrievability: one block-diagonal LP per chunk vs one linprog call per subset
_XL = torch.randn(20, 4, generator=_gen, dtype=torch.float64)
_SL = med.all_subsets(20, 2)
_XLn, _SLl = _XL.numpy(), _SL.tolist()


def _per_subset_linprog():
    m, d = _XLn.shape
    out = []
    for s in _SLl:
        sign = np.ones(m)
        sign[s] = -1.0
        A = np.hstack([sign[:, None] * _XLn, -sign[:, None], np.ones((m, 1))])
        c = np.zeros(d + 2)
        c[-1] = -1.0
        res = scipy.optimize.linprog(
            c,
            A_ub=A,
            b_ub=np.zeros(m),
            bounds=[(-1, 1)] * d + [(None, None), (None, 1)],
            method="highs",
        )
        out.append(-res.fun)
    return out


register(
    name="lp_margins (m=20, d=4, all 190 pairs)",
    kernel=lambda: med.lp_margins(_XL, _SL),
    library=_per_subset_linprog,
    library_name="scipy linprog, one call per subset",
)

# --- recall@k: torch topk kernel vs scikit-learn's recall_score
_scores = torch.randn(1000, 46, generator=_gen, dtype=torch.float64)
_rel = torch.zeros(1000, 46, dtype=torch.bool)
_rel[torch.arange(1000), torch.randint(0, 46, (1000,), generator=_gen)] = True
_rel[torch.arange(1000), torch.randint(0, 46, (1000,), generator=_gen)] = True
_sn, _rn = _scores.numpy(), _rel.numpy()


def _sklearn_recall():
    top = np.argsort(-_sn, axis=1)[:, :10]
    pred = np.zeros_like(_rn)
    np.put_along_axis(pred, top, True, axis=1)
    return recall_score(_rn.T, pred.T, average="macro", zero_division=0)


def _reference_recall():
    vals = []
    for s, r in zip(_sn, _rn, strict=True):
        top = set(np.argsort(-s)[:10].tolist())
        rel = set(np.flatnonzero(r).tolist())
        vals.append(len(top & rel) / len(rel))
    return float(np.mean(vals))


register(
    name="recall_at_k (1000 queries x 46 docs, k=10)",
    kernel=lambda: med.recall_at_k(_scores, _rel, 10),
    reference=_reference_recall,
    library=_sklearn_recall,
    library_name="scikit-learn recall_score",
)


def _centroid_margins_at(m: int):
    X = med.gaussian_unit(m, 32, generator=torch.Generator().manual_seed(m))
    S = med.all_subsets(m, 2)
    return lambda: med.centroid_margins(X, S)


register_scaling(
    "centroid_margins, d = 32, all pairs",
    make=_centroid_margins_at,
    sizes=(10, 20, 40, 80, 160, 320),
    size_label="objects m (pairs grow like m²)",
)
