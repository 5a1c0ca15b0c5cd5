"""Chapter 08 (hrc-dsppo): batched SPPO/DSPPO self-play vs a loop of LPs vs the notebook's loop.

"Equal accuracy" is stated, not assumed: an LP per game (HiGHS) returns the Nash equilibrium
to ~1e-9, while self-play returns an averaged policy whose duality gap under the true
preference (chapter 08, hrc-dsppo-lem-gap) is *certified* by one matrix-vector product. The cases:

- Case 1: 1000 random 8 × 8 preference games (generator G1: reward scale 0.5, cyclic scale 2),
  DSPPO with λ = 1 for T = 1600 iterations in float64 — every game's gap is certified
  ≤ 0.09 (printed by the notebook) — against one ``scipy.optimize.linprog`` (HiGHS) call per game.
- Case 2: the same in float32 (roundoff ~1e-7, far below the gaps reached).
- Case 3: 64 of the games, T = 1600: the batched kernel vs the notebook's readable one-game
  loop ``dsppo_reference`` (the same iterates) vs the LP loop.
- Case 4: the transitive–cyclic decomposition of 1000 tournaments of 12 items, batched, vs the
  notebook's loop ``decompose_reference``.
"""

from __future__ import annotations

import torch

from benchmarks.registry import register, register_scaling
from icml26.games import preferences as pref
from icml26.pipeline.notebooks import notebook_functions

T_BENCH = 1600
_gen = torch.Generator().manual_seed(0)
ST, SC = pref.random_tournament(8, batch=1000, reward_scale=0.5, cyclic_scale=2.0, generator=_gen)
P_LIST = list(torch.sigmoid(ST + SC))
ST32, SC32 = ST.float(), SC.float()
ST_NP, SC_NP = ST[:64].numpy(), SC[:64].numpy()
S_DEC = sum(pref.random_tournament(12, batch=1000, generator=_gen))
S_DEC_NP = list(S_DEC.numpy())

_ref = notebook_functions("08-hrc-dsppo", "dsppo_reference", "decompose_reference")
_dsppo_reference, _decompose_reference = _ref["dsppo_reference"], _ref["decompose_reference"]


def _lp_loop(n: int) -> list:
    return [pref.preference_equilibrium(P) for P in P_LIST[:n]]


register(
    name=f"1000 preference games (K=8): batched DSPPO (float64, T={T_BENCH}, gap ≤ 0.09) "
    "vs one LP per game",
    kernel=lambda: pref.self_play(ST, SC, T_BENCH, lam=1.0).average,
    library=lambda: _lp_loop(1000),
    library_name="scipy linprog (HiGHS), one call per game",
)

register(
    name=f"1000 preference games (K=8): batched DSPPO (float32, T={T_BENCH}) vs one LP per game",
    kernel=lambda: pref.self_play(ST32, SC32, T_BENCH, lam=1.0).average,
    library=lambda: _lp_loop(1000),
    library_name="scipy linprog (HiGHS), one call per game",
)

register(
    name=f"64 preference games: batched DSPPO (T={T_BENCH}) vs per-game loop vs LP loop",
    kernel=lambda: pref.self_play(ST[:64], SC[:64], T_BENCH, lam=1.0).average,
    reference=lambda: [
        _dsppo_reference(a, b, T_BENCH, 1.0) for a, b in zip(ST_NP, SC_NP, strict=True)
    ],
    library=lambda: _lp_loop(64),
    library_name="scipy linprog (HiGHS), one call per game",
)

register(
    name="transitive-cyclic decomposition of 1000 tournaments (n=12)",
    kernel=lambda: pref.decompose(S_DEC).cyclic,
    reference=lambda: [_decompose_reference(S) for S in S_DEC_NP],
)


def _dsppo_at(games: int):
    g = torch.Generator().manual_seed(games)
    st, sc = pref.random_tournament(8, batch=games, reward_scale=0.5, cyclic_scale=2.0, generator=g)
    return lambda: pref.self_play(st, sc, 256, lam=1.0).average


register_scaling(
    "batched DSPPO self-play, 8 × 8 preference games, T = 256",
    make=_dsppo_at,
    sizes=(16, 64, 256, 1024, 4096),
    size_label="games",
)
