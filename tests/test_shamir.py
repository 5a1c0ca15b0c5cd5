"""Tests of icml26.trust.shamir (chapter 17): field arithmetic, sharing, verification, bad input."""

from __future__ import annotations

import itertools
import random

import pytest
import shamirs
import torch
from Crypto.Protocol.SecretSharing import Shamir as PyCryptoShamir
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.pipeline.notebooks import notebook_functions
from icml26.trust import shamir

P = shamir.PRIME
_REF = notebook_functions(
    "17-threshold-watermark", "shamir_split_reference", "shamir_combine_reference"
)
split_reference = _REF["shamir_split_reference"]
combine_reference = _REF["shamir_combine_reference"]
field = st.integers(min_value=0, max_value=P - 1)


def t64(values) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.int64)


# --- primality and the field ---------------------------------------------------------------


def test_is_prime_known_values() -> None:
    assert shamir.is_prime(P) and shamir.is_prime(2**31 - 1) and shamir.is_prime(13)
    assert not shamir.is_prime(2**53 - 1)  # the released code's modulus
    assert (2**53 - 1) == 6361 * 69431 * 20394401
    assert [n for n in range(30) if shamir.is_prime(n)] == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
    assert not shamir.is_prime(3215031751)  # a strong pseudoprime to bases 2, 3, 5, 7


@settings(max_examples=200, deadline=None)
@given(field, field)
def test_mulmod_and_addmod_match_python_integers(a: int, b: int) -> None:
    assert int(shamir.mulmod(t64([a]), t64([b]))[0]) == a * b % P
    assert int(shamir.addmod(t64([a]), t64([b]))[0]) == (a + b) % P


def test_mulmod_extremes_and_small_field() -> None:
    edge = t64([0, 1, 2**31 - 1, 2**31, 2**60, P - 2, P - 1])
    got = shamir.mulmod(edge[:, None], edge[None, :])
    want = [[int(x) * int(y) % P for y in edge] for x in edge]
    assert got.tolist() == want
    a = torch.arange(13)
    assert shamir.mulmod(a[:, None], a[None, :], 13).tolist() == [
        [i * j % 13 for j in range(13)] for i in range(13)
    ]


@settings(max_examples=50, deadline=None)
@given(st.lists(field, min_size=1, max_size=40))
def test_summod(values: list[int]) -> None:
    assert int(shamir.summod(t64(values), 0)) == sum(values) % P


@settings(max_examples=100, deadline=None)
@given(st.floats(min_value=-1000, max_value=1000, allow_nan=False))
def test_encode_decode_roundtrip(x: float) -> None:
    v = shamir.encode(torch.tensor([x], dtype=torch.float64), 20)
    assert abs(float(shamir.decode(v, 20)[0]) - x) <= 2.0**-21 + 1e-12


# --- sharing -------------------------------------------------------------------------------


def test_lagrange_weights_are_the_basis_at_zero() -> None:
    xs = [1, 3, 4, 9]
    lam = shamir.lagrange_at_zero(xs)
    for k in range(len(xs)):  # interpolating x^k at 0 gives 1 for k = 0, else 0
        vals = t64([pow(x, k, P) for x in xs])
        assert int(shamir.summod(shamir.mulmod(lam, vals), 0)) == (1 if k == 0 else 0)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 9), st.data())
def test_every_t_subset_reconstructs(n: int, data) -> None:
    t = data.draw(st.integers(1, n))
    secret = t64(data.draw(st.lists(field, min_size=1, max_size=5)))
    gen = torch.Generator().manual_seed(data.draw(st.integers(0, 2**31)))
    Y = shamir.split(secret, n, t, generator=gen)
    assert Y.shape == (n, len(secret))
    for T in itertools.combinations(range(n), t):
        assert torch.equal(shamir.combine(Y[list(T)], [i + 1 for i in T]), secret)


def test_fewer_than_t_shares_do_not_reconstruct() -> None:
    secret = torch.randint(0, P, (200,), generator=torch.Generator().manual_seed(0))
    Y = shamir.split(secret, 10, 4, generator=torch.Generator().manual_seed(1))
    assert int((shamir.combine(Y[[0, 4, 7]], [1, 5, 8]) == secret).sum()) == 0


def test_perfect_secrecy_exhaustive_f7() -> None:
    p, counts = 7, {}
    lam = shamir.lagrange_at_zero([1, 2, 3], p)  # the sharing is invertible over F_7
    assert sorted(lam.tolist()) == sorted([3, -3 % p, 1])
    for s, a1, a2 in itertools.product(range(p), repeat=3):
        key = (s, (s + a1 + a2) % p, (s + 2 * a1 + 4 * a2) % p)
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == p**3 and set(counts.values()) == {1}


def test_kernel_agrees_with_the_notebook_reference() -> None:
    rnd = random.Random(3)
    secrets = [rnd.randrange(P) for _ in range(8)]
    shares = [split_reference(s, 6, 3, P, rnd) for s in secrets]
    Y = t64(shares).T
    assert shamir.combine(Y[[1, 2, 5]], [2, 3, 6]).tolist() == secrets
    Yk = shamir.split(t64(secrets), 6, 3, generator=torch.Generator().manual_seed(0))
    for c, s in enumerate(secrets):
        assert combine_reference([(x, int(Yk[x - 1, c])) for x in (1, 4, 5)], P) == s


def test_reconstruction_free_inner_product() -> None:
    gen = torch.Generator().manual_seed(5)
    secret = torch.randint(0, P, (50,), generator=gen)
    v = torch.randint(0, P, (50,), generator=gen)
    Y = shamir.split(secret, 7, 3, generator=gen)
    r = shamir.inner_products(v, Y[[0, 3, 6]])
    assert int(shamir.combine(r, [1, 4, 7])) == int(shamir.inner_products(v, secret))
    want = sum(int(a) * int(b) for a, b in zip(v, secret, strict=True)) % P
    assert int(shamir.inner_products(v, secret)) == want


# --- cross-checks with established libraries -----------------------------------------------


def test_cross_check_shamirs() -> None:
    gen = torch.Generator().manual_seed(2)
    secrets = torch.randint(0, P, (5,), generator=gen)
    ours = shamir.split(secrets, 6, 4, generator=gen)
    for c, s in enumerate(secrets.tolist()):
        lib = shamirs.shares(s, 6, modulus=P, threshold=4)
        assert int(shamir.combine(t64([x.value for x in lib[:4]]), [x.index for x in lib[:4]])) == s
        assert (
            shamirs.interpolate([shamirs.share(i + 1, int(ours[i, c]), P) for i in (1, 2, 4, 5)])
            == s
        )


def test_cross_check_pycryptodome_behaviour() -> None:
    secret = bytes(range(16))
    shares = PyCryptoShamir.split(3, 5, secret)
    assert PyCryptoShamir.combine(shares[:3]) == secret
    assert PyCryptoShamir.combine(shares[:2]) != secret
    as_int = int.from_bytes(secret, "big") % P
    Y = shamir.split(t64([as_int]), 5, 3, generator=torch.Generator().manual_seed(0))
    assert int(shamir.combine(Y[[0, 2, 4]], [1, 3, 5])[0]) == as_int


# --- bad input -----------------------------------------------------------------------------


def test_bad_modulus() -> None:
    for p in (15, 2**53 - 1, 2**40 + 15, 1):
        with pytest.raises(ValueError, match="p must"):
            shamir.mulmod(t64([1]), t64([1]), p)
    with pytest.raises(ValueError, match="p must"):
        shamir.mulmod(t64([1]), t64([1]), 13.0)


def test_bad_field_elements() -> None:
    with pytest.raises(ValueError, match="a must"):
        shamir.mulmod(t64([P]), t64([1]))
    with pytest.raises(ValueError, match="b must"):
        shamir.addmod(t64([1]), t64([-1]))
    with pytest.raises(ValueError, match="a must"):
        shamir.mulmod(torch.tensor([1.0]), t64([1]))
    with pytest.raises(ValueError, match="x must"):
        shamir.summod(t64([P + 1]))
    with pytest.raises(ValueError, match="dim must"):
        shamir.summod(t64([1, 2]), dim=3)


def test_bad_split_and_combine_arguments() -> None:
    s = t64([1, 2])
    with pytest.raises(ValueError, match="n_shares"):
        shamir.split(s, 0, 1)
    with pytest.raises(ValueError, match="threshold"):
        shamir.split(s, 3, 4)
    with pytest.raises(ValueError, match="n_shares"):
        shamir.split(t64([1]), 13, 2, p=13)  # points 1..13 include 0 mod 13
    with pytest.raises(ValueError, match="secret"):
        shamir.split(t64([P]), 3, 2)
    Y = shamir.split(s, 3, 2)
    with pytest.raises(ValueError, match="xs must be distinct"):
        shamir.combine(Y[:2], [1, 1])
    with pytest.raises(ValueError, match="xs must be distinct"):
        shamir.lagrange_at_zero([0, 2])
    with pytest.raises(ValueError, match="xs must give one point"):
        shamir.combine(Y[:2], [1, 2, 3])
    with pytest.raises(ValueError, match="xs must list"):
        shamir.lagrange_at_zero([])
    with pytest.raises(ValueError, match=r"xs\[0\]"):
        shamir.lagrange_at_zero([1.5, 2])  # int() truncated it to 1 before
    with pytest.raises(ValueError, match="xs must hold integers"):
        shamir.combine(Y[:2], torch.tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="shares must have a leading"):
        shamir.combine(t64(5), [1])
    with pytest.raises(ValueError, match="v and shares"):
        shamir.inner_products(t64([1, 2, 3]), Y)


def test_bad_encode_decode() -> None:
    with pytest.raises(ValueError, match="x is too large"):
        shamir.encode(torch.tensor([1e20]), 20)
    with pytest.raises(ValueError, match="x must"):
        shamir.encode(torch.tensor([float("nan")]), 20)
    with pytest.raises(ValueError, match="x must be a floating"):
        shamir.encode(t64([1]), 20)
    with pytest.raises(ValueError, match="frac_bits"):
        shamir.encode(torch.tensor([1.0]), -1)
    with pytest.raises(ValueError, match="frac_bits"):
        shamir.decode(t64([1]), 200)
    with pytest.raises(ValueError, match="n must"):
        shamir.is_prime(2.5)


def test_secure_random_elements_are_uniform_and_fresh() -> None:
    """The CSPRNG path: elements in [0, p), roughly uniform, different on every call."""
    small = shamir.random_elements((6000,), 13, secure=True)
    assert small.dtype == torch.int64 and int(small.min()) >= 0 and int(small.max()) < 13
    counts = torch.bincount(small, minlength=13).double()
    chi2 = float(((counts - 6000 / 13) ** 2 / (6000 / 13)).sum())
    assert chi2 < 40  # 12 degrees of freedom: P(chi2 > 40) < 1e-4
    big = shamir.random_elements((2, 50), secure=True)
    assert big.shape == (2, 50) and int(big.max()) < P
    assert not torch.equal(big, shamir.random_elements((2, 50), secure=True))
    assert shamir.random_elements((0, 3), secure=True).shape == (0, 3)


def test_secure_split_reconstructs() -> None:
    secret = t64([5, 0, P - 1])
    shares = shamir.split(secret, 5, 3, secure=True)
    for xs in itertools.combinations(range(5), 3):
        got = shamir.combine(shares[list(xs)], [x + 1 for x in xs])
        assert torch.equal(got, secret)


def test_bad_random_elements_arguments() -> None:
    with pytest.raises(ValueError, match="not both"):
        shamir.random_elements((3,), secure=True, generator=torch.Generator())
    with pytest.raises(ValueError, match="secure"):
        shamir.random_elements((3,), secure="yes")
    with pytest.raises(ValueError, match="shape"):
        shamir.random_elements((-1,))
    with pytest.raises(ValueError, match="not both"):
        shamir.split(t64([1]), 3, 2, secure=True, generator=torch.Generator())
