"""Shamir secret sharing over a prime field, vectorised in torch int64 (chapter 17).

Implements :prf:ref:`threshold-watermark-def-shamir`,
:prf:ref:`threshold-watermark-thm-shamir` and the reconstruction-free verification of
:prf:ref:`threshold-watermark-lem-verify` (chapter 17, threshold-watermark).

Two families of prime moduli are supported exactly with int64 arithmetic:

- the Mersenne prime ``p = 2**61 - 1`` (:data:`PRIME`), with a split multiplication and
  the folding reduction ``2**61 ≡ 1 (mod p)``, so that products of two field elements never
  overflow;
- any prime ``p < 2**31`` (small fields for exhaustive checks), where a plain product fits.

Every tensor of field elements is an int64 tensor with entries in ``[0, p)``; every function
works on any device. Real numbers enter the field by fixed-point encoding (:func:`encode`)
and leave it by signed decoding (:func:`decode`).

Shamir's secrecy holds only if the polynomial coefficients are uniform *and unpredictable*.
A seeded ``torch.Generator`` (a Mersenne Twister on the CPU) gives uniform, reproducible
coefficients — right for a textbook's experiments — but its future outputs can be computed
from past ones, so shares drawn with it protect nothing against an adversary. A deployment
draws them from the operating system's cryptographically secure generator:
``split(..., secure=True)`` or :func:`random_elements` with ``secure=True``
(``os.urandom``, the source ``secrets`` uses).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import torch

from icml26 import checks

__all__ = [
    "PRIME",
    "addmod",
    "combine",
    "decode",
    "encode",
    "inner_products",
    "is_prime",
    "lagrange_at_zero",
    "mulmod",
    "random_elements",
    "split",
    "summod",
]

#: The Mersenne prime 2^61 − 1, the field of the chapter.
PRIME = (1 << 61) - 1
_M31 = (1 << 31) - 1
_M30 = (1 << 30) - 1
_SMALL = 1 << 31


def is_prime(n: int) -> bool:
    """Deterministic Miller–Rabin primality test, exact for every ``n < 3.3 · 10^24``."""
    n = checks.integer("n", n)
    if n < 2:
        return False
    bases = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for q in bases:
        if n % q == 0:
            return n == q
    if n >= 3_317_044_064_679_887_385_961_981:
        raise ValueError(f"n must be < 3.3e24 for a deterministic test, got {n}")
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in bases:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _modulus(p: object) -> int:
    p = checks.integer("p", p, low=2)
    if not (p == PRIME or p < _SMALL) or not is_prime(p):
        raise ValueError(f"p must be a prime below 2**31 or the Mersenne prime 2**61 - 1, got {p}")
    return p


def _field(name: str, x: object, p: int) -> torch.Tensor:
    x = checks.tensor(name, x, dtype=torch.int64)
    if x.numel() and (int(x.min()) < 0 or int(x.max()) >= p):
        raise ValueError(f"{name} must hold field elements in [0, p)")
    return x


def _reduce61(x: torch.Tensor) -> torch.Tensor:
    """``x mod (2^61 − 1)`` for non-negative int64 ``x`` (``x < 2^63``)."""
    x = (x & PRIME) + (x >> 61)
    return torch.where(x >= PRIME, x - PRIME, x)


def _mulmod(a: torch.Tensor, b: torch.Tensor, p: int) -> torch.Tensor:
    if p < _SMALL:
        return (a * b) % p
    a1, a0 = a >> 31, a & _M31  # a = a1·2^31 + a0, a1 < 2^30
    b1, b0 = b >> 31, b & _M31
    mid = a1 * b0 + a0 * b1  # < 2^62; mid·2^31 = (mid >> 30)·2^61 + (mid & M30)·2^31
    hi = _reduce61(2 * (a1 * b1))  # a1·b1·2^62 ≡ 2·a1·b1
    mid = _reduce61((mid >> 30) + ((mid & _M30) << 31))
    lo = _reduce61(a0 * b0)
    return _reduce61(hi + mid + lo)


def _addmod(a: torch.Tensor, b: torch.Tensor, p: int) -> torch.Tensor:
    s = a + b
    return torch.where(s >= p, s - p, s)


def _summod(x: torch.Tensor, dim: int, p: int) -> torch.Tensor:
    if p < _SMALL:
        return x.sum(dim) % p
    hi, lo = (x >> 31).sum(dim), (x & _M31).sum(dim)  # exact while the length is < 2^32
    two31 = torch.full_like(hi, 1 << 31)
    return _addmod(_mulmod(_reduce61(hi), two31, p), _reduce61(lo), p)


def mulmod(a: torch.Tensor, b: torch.Tensor, p: int = PRIME) -> torch.Tensor:
    """Elementwise ``a · b mod p`` (broadcasting) without overflow."""
    p = _modulus(p)
    return _mulmod(_field("a", a, p), _field("b", b, p), p)


def addmod(a: torch.Tensor, b: torch.Tensor, p: int = PRIME) -> torch.Tensor:
    """Elementwise ``a + b mod p`` (broadcasting)."""
    p = _modulus(p)
    return _addmod(_field("a", a, p), _field("b", b, p), p)


def summod(x: torch.Tensor, dim: int = -1, p: int = PRIME) -> torch.Tensor:
    """``Σ x mod p`` along ``dim`` (exact for up to 2^32 terms)."""
    p = _modulus(p)
    x = _field("x", x, p)
    dim = checks.integer("dim", dim, low=-max(x.ndim, 1), high=max(x.ndim, 1) - 1)
    return _summod(x, dim, p)


def encode(x: torch.Tensor, frac_bits: int, p: int = PRIME) -> torch.Tensor:
    """Fixed point: ``round(2^f · x) mod p`` as int64 field elements (negatives wrap),
    elementwise over ``x`` of any shape.

    Requires ``|x| · 2^f < p / 2`` so that :func:`decode` recovers the sign.
    """
    p = _modulus(p)
    x = checks.tensor("x", x, floating=True)
    checks.finite("x", x)
    f = checks.integer("frac_bits", frac_bits, low=0, high=60)
    v = torch.round(x.to(torch.float64) * 2.0**f)
    if v.numel() and float(v.abs().max()) >= p // 2:
        raise ValueError("x is too large for this field: need |x|·2^frac_bits < p/2")
    v = v.to(torch.int64)
    return torch.where(v < 0, v + p, v)


def decode(v: torch.Tensor, frac_bits: int, p: int = PRIME) -> torch.Tensor:
    """Signed decoding of field elements: ``(v or v − p) / 2^f`` as float64."""
    p = _modulus(p)
    v = _field("v", v, p)
    f = checks.integer("frac_bits", frac_bits, low=0, high=122)
    signed = torch.where(v > p // 2, v - p, v)
    return signed.to(torch.float64) / 2.0**f


def lagrange_at_zero(xs: Sequence[int] | torch.Tensor, p: int = PRIME) -> torch.Tensor:
    """Lagrange weights ``λ_i = Π_{j≠i} x_j / (x_j − x_i) mod p`` of the basis at 0.

    The weights of :eq:`threshold-watermark-eq-lagrange`.
    """
    p = _modulus(p)
    if isinstance(xs, torch.Tensor) and (xs.is_floating_point() or xs.is_complex()):
        raise ValueError(f"xs must hold integers, got dtype {xs.dtype}")
    pts = xs.tolist() if isinstance(xs, torch.Tensor) else list(xs)
    pts = [checks.integer(f"xs[{i}]", x) for i, x in enumerate(pts)]
    if not pts:
        raise ValueError("xs must list at least one evaluation point")
    if any(x % p == 0 for x in pts) or len({x % p for x in pts}) != len(pts):
        raise ValueError("xs must be distinct and non-zero modulo p")
    lam = []
    for i, xi in enumerate(pts):
        num, den = 1, 1
        for j, xj in enumerate(pts):
            if j != i:
                num, den = num * xj % p, den * (xj - xi) % p
        lam.append(num * pow(den, -1, p) % p)
    return torch.tensor(lam, dtype=torch.int64)


def _secure_uniform(n: int, p: int) -> np.ndarray:
    """``n`` integers uniform on ``[0, p)`` from ``os.urandom`` (rejection sampling)."""
    bits = p.bit_length()
    out = np.empty(0, dtype=np.int64)
    while out.size < n:
        need = n - out.size
        words = np.frombuffer(os.urandom(8 * (need + need // 2 + 8)), dtype=np.uint64)
        words = words >> np.uint64(64 - bits)  # the top `bits` bits of each word
        out = np.concatenate([out, words[words < np.uint64(p)].astype(np.int64)])
    return out[:n]


def random_elements(
    shape: Sequence[int],
    p: int = PRIME,
    *,
    generator: torch.Generator | None = None,
    secure: bool = False,
) -> torch.Tensor:
    """Field elements drawn uniformly from ``[0, p)``, an int64 tensor of ``shape``.

    From ``generator`` (reproducible and predictable: for experiments only), or with
    ``secure=True`` from ``os.urandom``, the operating system's cryptographically secure
    generator (rejection sampling, so every element is exactly uniform).
    """
    p = _modulus(p)
    shape = tuple(checks.integer(f"shape[{i}]", n, low=0) for i, n in enumerate(shape))
    if not isinstance(secure, bool):
        raise ValueError(f"secure must be a bool, got {secure!r}")
    if secure and generator is not None:
        raise ValueError("give a generator or secure=True, not both")
    if secure:
        n = 1
        for d in shape:
            n *= d
        return torch.as_tensor(_secure_uniform(n, p)).view(shape)
    return torch.randint(0, p, shape, generator=generator, dtype=torch.int64)


def split(
    secret: torch.Tensor,
    n_shares: int,
    threshold: int,
    *,
    p: int = PRIME,
    generator: torch.Generator | None = None,
    secure: bool = False,
) -> torch.Tensor:
    """Shamir shares ``f(1), …, f(n)`` of every coordinate of ``secret`` (shape ``(n, *secret)``).

    ``f(x) = s + a_1 x + … + a_{t−1} x^{t−1}`` with coefficients drawn uniformly from the
    field, independently per coordinate, by :func:`random_elements`: from ``generator``
    (reproducible, for experiments) or, with ``secure=True``, from the operating system's
    cryptographically secure generator, as a deployment must.
    """
    p = _modulus(p)
    secret = _field("secret", secret, p)
    n = checks.integer("n_shares", n_shares, low=1, high=p - 1)
    t = checks.integer("threshold", threshold, low=1, high=n)
    coef = random_elements((t - 1, *secret.shape), p, generator=generator, secure=secure)
    coef = coef.to(secret.device)
    x = torch.arange(1, n + 1, dtype=torch.int64, device=secret.device)
    x = x.view(n, *([1] * secret.ndim))
    y = torch.zeros((n, *secret.shape), dtype=torch.int64, device=secret.device)
    for j in range(t - 2, -1, -1):  # Horner: y ← y·x + a_{j+1}
        y = _addmod(_mulmod(y, x.expand_as(y), p), coef[j].expand_as(y), p)
    return _addmod(_mulmod(y, x.expand_as(y), p), secret.expand_as(y), p)


def combine(shares: torch.Tensor, xs: Sequence[int] | torch.Tensor, p: int = PRIME) -> torch.Tensor:
    """``Σ_i λ_i y_i mod p``: the polynomial's value at 0 from the shares at points ``xs``.

    With ``len(xs) >= t`` shares of a degree-``(t−1)`` sharing this is the secret; applied to
    share statistics ``r_i = ⟨v, y_i⟩`` it gives ``⟨v, secret⟩``
    (:prf:ref:`threshold-watermark-lem-verify`).
    """
    p = _modulus(p)
    shares = _field("shares", shares, p)
    if shares.ndim < 1:
        raise ValueError("shares must have a leading axis of shares")
    lam = lagrange_at_zero(xs, p).to(shares.device)
    if lam.shape[0] != shares.shape[0]:
        raise ValueError(f"xs must give one point per share ({shares.shape[0]}), got {len(lam)}")
    lam = lam.view(-1, *([1] * (shares.ndim - 1)))
    return _summod(_mulmod(lam.expand_as(shares), shares, p), 0, p)


def inner_products(v: torch.Tensor, shares: torch.Tensor, p: int = PRIME) -> torch.Tensor:
    """``r_i = ⟨v, y_i⟩ mod p`` for every share ``y_i`` (rows of ``shares``, last axis summed).

    The members' scalars of :eq:`threshold-watermark-eq-verify`.
    """
    p = _modulus(p)
    v, shares = _field("v", v, p), _field("shares", shares, p)
    if shares.ndim < 1 or v.shape[-1:] != shares.shape[-1:]:
        raise ValueError(
            f"v and shares must share their last axis, got {tuple(v.shape)}, {tuple(shares.shape)}"
        )
    prod = _mulmod(v.expand_as(shares) if v.ndim < shares.ndim else v, shares, p)
    return _summod(prod, -1, p)
