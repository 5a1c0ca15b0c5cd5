"""Chapter 15 (scale): SCALE token decoding vs the notebook's loop; one pass vs best-of-N.

- Case 1: SCALE's decoding of 2,048 token distributions over 33 bins
  (:prf:ref:`scale-def-uncertainty`, :prf:ref:`scale-def-action-temp`): self-uncertainty,
  temperature and a draw per row. Kernel: ``vla.self_uncertainty`` + ``vla.action_temperature``
  + ``vla.sample_tokens`` (batched); reference: the notebook's ``scale_decode_reference``
  (a loop over rows, inverse-CDF draws from given uniforms).
- Case 2: tempered attention of one head over 64 observations × 16 patches
  (:prf:ref:`scale-prop-attn`). Kernel: batched ``softmax(QK^T s/γ) V``; reference: the
  notebook's ``tempered_attention_reference`` per observation; library:
  ``torch.nn.functional.scaled_dot_product_attention(scale=...)`` per observation.
- Case 3: one closed-loop control step of an (untrained) tiny VLA for 512 episodes with
  SCALE (one encoder pass; the kernel) and with best-of-4 (four passes; in the "library"
  column): the cost of test-time scaling by sampling, at equal policy. There is no readable
  reference for this case; the ratio is the price of best-of-N.
"""

from __future__ import annotations

import torch

from benchmarks.registry import register, register_scaling
from icml26.agents import vla
from icml26.pipeline.notebooks import notebook_functions

_fns = notebook_functions(
    "15-scale",
    "self_uncertainty_reference",
    "scale_decode_reference",
    "tempered_attention_reference",
)
_dec_ref, _att_ref = _fns["scale_decode_reference"], _fns["tempered_attention_reference"]

_gen = torch.Generator().manual_seed(15)
ROWS = 2048
LOGITS = torch.randn(ROWS, 33, generator=_gen, dtype=torch.float64) * 2
UNIF = torch.rand(ROWS, generator=_gen, dtype=torch.float64)
_ll, _ul = LOGITS.tolist(), UNIF.tolist()


def _scale_tokens(logits: torch.Tensor) -> torch.Tensor:
    tau = vla.action_temperature(vla.self_uncertainty(logits))
    return vla.sample_tokens(logits, tau, _gen)


register(
    name=f"SCALE token decoding, {ROWS} distributions × 33 bins",
    kernel=lambda: _scale_tokens(LOGITS),
    reference=lambda: _dec_ref(_ll, _ul),
)

Q, KK, V = torch.randn(3, 64, 1, 16, 16, generator=_gen, dtype=torch.float64).unbind(0)
GAM = torch.linspace(0.5, 2.0, 64, dtype=torch.float64)
_qn, _kn, _vn = Q[:, 0].numpy(), KK[:, 0].numpy(), V[:, 0].numpy()


def _batched_attention():
    s = (Q @ KK.transpose(-1, -2)) * (16**-0.5 / GAM).view(64, 1, 1, 1)
    return torch.softmax(s, -1) @ V


register(
    name="tempered attention, 64 observations × 16 patches, one γ each",
    kernel=_batched_attention,
    reference=lambda: [_att_ref(_qn[i], _kn[i], _vn[i], float(GAM[i])) for i in range(64)],
    library=lambda: [
        torch.nn.functional.scaled_dot_product_attention(
            Q[i : i + 1], KK[i : i + 1], V[i : i + 1], scale=16**-0.5 / float(GAM[i])
        )
        for i in range(64)
    ],
    library_name="torch SDPA(scale=…)",
)

CFG = vla.ForkReach()
torch.manual_seed(15)
POLICY = vla.TinyVLA(CFG).eval()
STATE = vla.reset(CFG, 512, _gen)
IMG = vla.render(CFG, STATE, _gen)


def _control_step(n: int, img=IMG, state=STATE):
    with torch.no_grad():
        tok = None
        for _ in range(n):
            h = POLICY.encode(img, state["colour"], state["pos"].float())
            tx = _scale_tokens(POLICY.logits(h, 0, None).double())
            tok = _scale_tokens(POLICY.logits(h, 1, tx).double())
        return tok


register(
    name="one control step of 512 episodes: SCALE (1 pass) vs best-of-4 (4 passes)",
    kernel=lambda: _control_step(1),
    library=lambda: _control_step(4),
    library_name="best-of-4 decoding, same policy",
)


def _decode_at(n: int):
    x = torch.randn(n, 33, generator=_gen, dtype=torch.float64)
    return lambda: _scale_tokens(x)


register_scaling(
    "SCALE token decoding (u, τ, draw), 33 bins",
    make=_decode_at,
    sizes=(1_000, 10_000, 100_000),
    size_label="token distributions",
)
