"""Chapter 17 (threshold-watermark): batched federated clients, and vectorised Shamir sharing.

- Case 1: one FedAvg round with a shared watermark at K = 128 clients on the digits data
  (11 examples per shard, the chapter's MLP, float32): all clients' local AdamW steps as one
  batched computation (``icml26.trust.federated.fedavg``) against the notebook's readable
  client loop with ``torch.optim.AdamW`` (``fedavg_round_reference``).
  Why the ratio stays below 20× (measured on the 2-core CPU, process time): a round has to
  touch all 128 × 17,226 client parameters about fifteen times (AdamW moments and update,
  update norms, embedding, weighted average) — 4.9 ms for the batched AdamW step alone and
  5.4 ms for the batched forward/backward pass; the loop's ``torch.optim.AdamW`` does the same
  elementwise work with the same multi-tensor kernels and adds about 0.6 ms of Python and
  autograd overhead per client. Batching removes only that overhead, so the ratio is bounded by
  (overhead + arithmetic) / arithmetic: about 3× for a single one-round call (which also pays
  the set-up of the batched state) and about 7× per round inside a 150-round run
  (13–16 ms against 104 ms). A larger model or more local steps would raise it.
- Case 2: Shamir sharing of 64 field elements among 128 clients with threshold 32, then one
  reconstruction from 32 shares, over p = 2^61 − 1: the int64 kernel against the notebook's
  Python-integer reference and against the ``shamirs`` package. The kernel emulates each
  122-bit modular product with about twenty int64 passes (torch has no 128-bit product), while
  Python multiplies 61-bit integers natively, so the ratio to the reference levels off near
  14× (see ``benchmarks/explanations.md``).
"""

from __future__ import annotations

import random

import shamirs
import torch

from benchmarks.registry import register, register_scaling
from icml26.pipeline.notebooks import notebook_functions
from icml26.trust import federated, shamir, watermark

_ref = notebook_functions(
    "17-threshold-watermark",
    "fedavg_round_reference",
    "shamir_split_reference",
    "shamir_combine_reference",
)
_round_reference = _ref["fedavg_round_reference"]
_split_reference = _ref["shamir_split_reference"]
_combine_reference = _ref["shamir_combine_reference"]

_gen = torch.Generator().manual_seed(0)
X, y, _, _ = federated.digits_data()
INIT = watermark.init_mlp(generator=_gen)
KEY = watermark.random_keys(INIT, generator=_gen)
SHARDS = federated.iid_partition(len(y), 128, generator=_gen)
SHARD_LIST = list(SHARDS)


def _kernel_round():
    return federated.fedavg(X, y, SHARDS, None, INIT, rounds=1, lr=3e-3, strength=1.0, key=KEY)


register(
    name="one FedAvg round with a shared watermark, K = 128 clients (MLP on digits, float32): "
    "batched clients vs a client loop",
    kernel=_kernel_round,
    reference=lambda: _round_reference(INIT, X, y, SHARD_LIST, KEY, 1.0, 3e-3, 0.01),
)

SECRETS = torch.randint(0, shamir.PRIME, (64,), generator=_gen)
SECRET_LIST = [int(s) for s in SECRETS]
COALITION = list(range(1, 129, 4))  # 32 clients


def _kernel_shamir():
    Y = shamir.split(SECRETS, 128, 32, generator=_gen)
    return shamir.combine(Y[[i - 1 for i in COALITION]], COALITION)


def _reference_shamir():
    rnd = random.Random(0)
    out = []
    for s in SECRET_LIST:
        ys = _split_reference(s, 128, 32, shamir.PRIME, rnd)
        out.append(_combine_reference([(i, ys[i - 1]) for i in COALITION], shamir.PRIME))
    return out


def _library_shamir():
    out = []
    for s in SECRET_LIST:
        sh = shamirs.shares(s, 128, modulus=shamir.PRIME, threshold=32)
        out.append(shamirs.interpolate([sh[i - 1] for i in COALITION]))
    return out


register(
    name="Shamir over 2^61 − 1: share 64 secrets among 128 clients (t = 32), reconstruct once",
    kernel=_kernel_shamir,
    reference=_reference_shamir,
    library=_library_shamir,
    library_name="shamirs (pure-Python prime-field Shamir)",
)


def _round_at(clients: int):
    shards = federated.iid_partition(len(y), clients, generator=torch.Generator().manual_seed(1))
    return lambda: federated.fedavg(
        X, y, shards, None, INIT, rounds=1, lr=3e-3, strength=1.0, key=KEY
    )


register_scaling(
    "one FedAvg round with a shared watermark (MLP on digits), all clients batched",
    make=_round_at,
    sizes=(4, 16, 64, 256),
    size_label="clients",
)
