"""Closed-loop decoding of the tiny VLA on ForkReach (chapter 15, scale): greedy, sampling,
top-k, top-p, best-of-N and SCALE, as a table of decoding rules, and the rollout that records
success, uncertainties, temperatures and forward passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from icml26 import checks
from icml26.agents.forkreach import ForkReach, detokenize, fork_mask, render, reset, step
from icml26.agents.tinyvla import TinyVLA
from icml26.agents.uncertainty import (
    History,
    action_temperature,
    attention_temperature,
    sample_tokens,
    self_uncertainty,
)
from icml26.stats import stream

__all__ = [
    "ACT_STREAM",
    "DECODING",
    "ENV_STREAM",
    "GREEDY_BELOW",
    "METHODS",
    "OBS_STREAM",
    "TOP_K",
    "TOP_K_TAU",
    "TOP_P",
    "DecodingRule",
    "Rollout",
    "rollout",
]

#: Action temperature below which the arg-max is taken (the released code's threshold).
GREEDY_BELOW = 1e-3
#: The top-k baseline: the ``TOP_K`` most probable bins, sampled at temperature ``TOP_K_TAU``.
TOP_K, TOP_K_TAU = 5, 0.7
#: The top-p (nucleus) baseline: the smallest prefix of mass ``TOP_P``, at temperature 1.
TOP_P = 0.9
#: Offsets of a rollout seed's three random streams (:func:`icml26.stats.stream`): initial
#: states, observation noise and sampling noise, independent of each other and of the seed.
ENV_STREAM, OBS_STREAM, ACT_STREAM = 0, 1, 2


@dataclass(frozen=True)
class DecodingRule:
    """How one decoding method turns token logits into tokens.

    ``adaptive``: SCALE's per-token temperature ``T0*sigmoid(u)``; otherwise the constant
    ``temperature`` (0: the arg-max). ``top_k`` / ``top_p`` restrict the support first.
    ``look``: the vision encoder's attention is tempered by ``gamma_t`` from the uncertainty
    history. ``best_of``: ``n_best`` chunks, each from its own forward pass, the most likely
    one under the policy kept.
    """

    adaptive: bool = False
    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None
    look: bool = False
    best_of: bool = False

    def tau(self, u: torch.Tensor, t0: float) -> torch.Tensor:
        """The action temperature of every token whose self-uncertainty is ``u``."""
        if self.adaptive:
            return action_temperature(u, t0=t0)
        return torch.full_like(u, self.temperature)


#: The decoding methods :func:`rollout` understands, and their rules.
DECODING: dict[str, DecodingRule] = {
    "greedy": DecodingRule(temperature=0.0),
    "T=1": DecodingRule(),
    "top-k": DecodingRule(temperature=TOP_K_TAU, top_k=TOP_K),
    "top-p": DecodingRule(top_p=TOP_P),
    "SCALE": DecodingRule(adaptive=True, look=True),
    "SCALE (action only)": DecodingRule(adaptive=True),
    "SCALE (looking only)": DecodingRule(temperature=0.0, look=True),
    "best-of-N": DecodingRule(best_of=True),
}
#: Decoding methods understood by :func:`rollout`.
METHODS = tuple(DECODING)


@dataclass
class Rollout:
    """What :func:`rollout` records: success per episode, per-step traces, forward calls."""

    success: torch.Tensor
    pos: torch.Tensor  # (T+1, E, 2)
    u: torch.Tensor  # (T, E, 2) self-uncertainty per action token
    tau: torch.Tensor  # (T, E, 2) action temperature used (0 = arg-max)
    gamma: torch.Tensor  # (T, E)
    fork: torch.Tensor  # (T, E) the agent was at the fork
    active: torch.Tensor  # (T, E) the episode was still running
    encoder_calls: int
    decoder_calls: int
    steps: int
    states: dict = field(repr=False, default_factory=dict)


def _decode_chunk(
    policy: TinyVLA,
    rule: DecodingRule,
    h: torch.Tensor,
    gen: torch.Generator,
    *,
    t0: float,
    eps: float,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """One action chunk from the context ``h``: tokens, log-likelihood, ``u`` and ``tau``."""
    prev, toks, us, taus, ll = None, [], [], [], 0.0
    for k in range(2):
        lg = policy.logits(h, k, prev).double()
        u = self_uncertainty(lg, eps=eps)
        tau = rule.tau(u, t0)
        tok = sample_tokens(
            lg, tau, gen, top_k=rule.top_k, top_p=rule.top_p, greedy_below=GREEDY_BELOW
        )
        ll = ll + torch.log_softmax(lg, -1).gather(1, tok[:, None])[:, 0]
        toks.append(tok)
        us.append(u)
        taus.append(torch.where(tau < GREEDY_BELOW, torch.zeros_like(tau), tau))
        prev = tok
    return torch.stack(toks, -1), ll, torch.stack(us, -1), torch.stack(taus, -1)


def _decode_step(
    policy: TinyVLA,
    rule: DecodingRule,
    img: torch.Tensor,
    sub: dict[str, torch.Tensor],
    gamma: torch.Tensor,
    gen: torch.Generator,
    *,
    t0: float,
    eps: float,
    n_best: int,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Tokens, ``u`` and ``tau`` of the running episodes ``sub`` at one control step.

    One encoder pass (``n_best`` for best-of-N, keeping the most likely chunk); ``u`` and
    ``tau`` are those of the first chunk.
    """
    dt = img.dtype
    cand, score, first = [], [], None
    for _ in range(n_best if rule.best_of else 1):
        h = policy.encode(img, sub["colour"], sub["pos"].to(dt), gamma.to(dt))
        toks, ll, u, tau = _decode_chunk(policy, rule, h, gen, t0=t0, eps=eps)
        cand.append(toks)
        score.append(ll)
        first = (u, tau) if first is None else first
    best = torch.stack(score).argmax(0)
    return torch.stack(cand)[best, torch.arange(best.numel())], *first


def rollout(
    policy: TinyVLA,
    cfg: ForkReach,
    method: str,
    *,
    episodes: int,
    seed: int,
    t0: float = 1.0,
    kappa: float = 2.0,
    s: float = 0.3,
    alpha: float = 0.8,
    eps: float = 1e-12,
    n_best: int = 4,
) -> Rollout:
    """Closed-loop evaluation of one decoding ``method`` (a key of :data:`DECODING`).

    The episodes, observation noise and sampling noise come from three independent streams of
    ``seed`` (:data:`ENV_STREAM`, :data:`OBS_STREAM`, :data:`ACT_STREAM`), so the initial
    states are identical across methods. Images and inputs take the policy's precision (a
    float64 policy makes the closed loop independent of the last bits of its arithmetic).
    SCALE computes ``gamma_t`` from the history *before* the step's single encoder pass,
    then per token ``u``, ``tau = T0*sigmoid(u)`` and a draw at ``tau``. Best-of-N draws
    ``n_best`` chunks at ``T = 1``, each from its own forward pass, and keeps the one of
    highest log-likelihood under the policy.
    """
    if method not in DECODING:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    rule = DECODING[method]
    checks.integer("n_best", n_best, low=1)
    seed = checks.integer("seed", seed, low=0)
    gen_env, gen_obs, gen_act = (
        stream(seed, offset) for offset in (ENV_STREAM, OBS_STREAM, ACT_STREAM)
    )
    st = reset(cfg, episodes, gen_env)
    hist = History(episodes, 2, alpha)
    e0, d0 = policy.encoder_calls, policy.decoder_calls
    dt = next(policy.parameters()).dtype
    P, U, TAU, G, FK, ACT = [st["pos"]], [], [], [], [], []
    steps = 0
    with torch.no_grad():
        for _ in range(cfg.horizon):
            live = ~st["done"]
            if not bool(live.any()):
                break
            steps += 1
            idx = live.nonzero()[:, 0]  # decode only the episodes still running
            sub = {key: val[idx] for key, val in st.items()}
            img = render(cfg, sub, gen_obs, dtype=dt)
            gamma = torch.ones(episodes, dtype=torch.float64)
            if rule.look:
                gamma = attention_temperature(hist.delta(), kappa=kappa, s=s)
            tok_l, u_l, tau_l = _decode_step(
                policy, rule, img, sub, gamma[idx], gen_act, t0=t0, eps=eps, n_best=n_best
            )
            tokens = torch.full((episodes, 2), cfg.bins // 2, dtype=torch.long)
            us = torch.zeros(episodes, 2, dtype=torch.float64)
            taus = torch.zeros(episodes, 2, dtype=torch.float64)
            tokens[idx], us[idx], taus[idx] = tok_l, u_l, tau_l
            U.append(us)
            TAU.append(taus)
            G.append(gamma)
            FK.append(fork_mask(cfg, st) & live)
            ACT.append(live)
            hist.update(us, live)
            st = step(cfg, st, detokenize(cfg, tokens))
            P.append(st["pos"])
    return Rollout(
        success=st["success"],
        pos=torch.stack(P),
        u=torch.stack(U),
        tau=torch.stack(TAU),
        gamma=torch.stack(G),
        fork=torch.stack(FK),
        active=torch.stack(ACT),
        encoder_calls=policy.encoder_calls - e0,
        decoder_calls=policy.decoder_calls - d0,
        steps=steps,
        states=st,
    )
