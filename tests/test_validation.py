"""Bad input gets a clear ValueError naming the argument (the gaps found in review)."""

import numpy as np
import pytest
import torch

from icml26 import checks, stats
from icml26.dynamics import animal
from icml26.retrieval import retrievers
from icml26.sequential import bandits, hmm

DT = torch.float64


@pytest.mark.parametrize(
    ("p", "q", "match"),
    [
        (torch.tensor([0.5, 0.5, 0.0], dtype=DT), torch.full((3,), 1 / 3, dtype=DT), "p must"),
        (torch.full((3,), 1 / 3, dtype=DT), torch.tensor([0.6, -0.1, 0.5], dtype=DT), "q must"),
        (torch.full((3,), 1 / 3, dtype=DT), torch.full((2,), 0.5, dtype=DT), "same non-empty"),
        (np.full(3, 1 / 3), torch.full((3,), 1 / 3, dtype=DT), "p must be a torch.Tensor"),
    ],
)
def test_hilbert_distance_rejects_non_positive_or_mismatched_vectors(p, q, match):
    with pytest.raises(ValueError, match=match):
        hmm.hilbert_distance(p, q)


def test_kmeans_init_needs_a_batch_of_sequences():
    with pytest.raises(ValueError, match="x must have 3 dimensions"):
        hmm.kmeans_init(torch.randn(50, 2, dtype=DT), 3)
    with pytest.raises(ValueError, match="iters"):
        hmm.kmeans_init(torch.randn(1, 50, 2, dtype=DT), 3, iters=-1)


def test_fit_contraction_rate_needs_a_tensor():
    with pytest.raises(ValueError, match=r"dist must be a torch\.Tensor"):
        hmm.fit_contraction_rate(np.ones((2, 10)))
    with pytest.raises(ValueError, match="dist must have 2 dimensions"):
        hmm.fit_contraction_rate(torch.ones(10, dtype=DT))


def test_loglog_slope_names_its_arguments_instead_of_an_index_error():
    reg = torch.ones(2, 10, dtype=DT)
    with pytest.raises(ValueError, match="t_max"):
        bandits.loglog_slope(reg, 1, t_max=50)
    with pytest.raises(ValueError, match="t_min"):
        bandits.loglog_slope(reg, 10)
    with pytest.raises(ValueError, match="cum_regret"):
        bandits.loglog_slope(reg[0], 1)


def test_unicycle_positions_checks_the_last_dimension_and_heading():
    with pytest.raises(ValueError, match=r"speed_turn must have shape \(\.\.\., T, 2\)"):
        animal.unicycle_positions(torch.ones(4, 10, 3), 0.1)
    with pytest.raises(ValueError, match="heading0 must have shape"):
        animal.unicycle_positions(torch.ones(4, 10, 2), 0.1, heading0=torch.zeros(3))
    assert animal.unicycle_positions(torch.ones(4, 10, 2), 0.1).shape == (4, 11, 2)


def test_train_bow_encoder_needs_a_boolean_relevance():
    with pytest.raises(ValueError, match=r"relevance must have dtype torch\.bool"):
        retrievers.train_bow_encoder(
            ["a b", "c d"], ["a"], torch.ones(1, 2), 2, generator=torch.Generator()
        )


@pytest.mark.parametrize(
    ("x", "y", "match"),
    [
        ([1.0], [1.0], "length >= 2"),
        ([1.0, 2.0], [1.0, 0.0], "y must be positive"),
        ([1.0, 1.0], [1.0, 2.0], "distinct"),
        ([1.0, np.inf], [1.0, 2.0], "x must contain only finite"),
    ],
)
def test_loglog_fit_validates(x, y, match):
    with pytest.raises(ValueError, match=match):
        stats.loglog_fit(x, y)


def test_streams_of_distinct_pairs_are_distinct_and_reproducible():
    draws = {
        (s, k): torch.rand(4, generator=stats.stream(s, k)) for s in range(6) for k in range(6)
    }
    assert torch.equal(draws[3, 1], torch.rand(4, generator=stats.stream(3, 1)))
    values = torch.stack(list(draws.values()))
    assert torch.unique(values[:, 0]).numel() == len(draws)  # no two pairs share a stream
    assert not torch.equal(draws[3, 1], draws[4, 0])  # a sum seed + offset made them equal
    with pytest.raises(ValueError, match="offset"):
        stats.stream(3, -1)


def test_one_thread():
    n = torch.get_num_threads()
    with stats.one_thread():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == n
    assert stats.one_thread(lambda: torch.get_num_threads())() == 1


def test_checks_tensor():
    with pytest.raises(ValueError, match=r"x must be a torch\.Tensor"):
        checks.tensor("x", [1.0])
    with pytest.raises(ValueError, match="x must be a floating-point"):
        checks.tensor("x", torch.ones(2, dtype=torch.long), floating=True)
    assert checks.tensor("x", torch.ones(2), ndim=1).shape == (2,)
