"""The chapter registry: one entry per chapter, the single place a new chapter is declared.

It drives the table-of-contents test, the claims page and ``make bench`` (which benchmark
module times it). ``make notebooks --changed`` does not read ``modules``: it follows the
chapter's imports through the library
(``icml26.pipeline.notebooks.library_dependencies``), which also catches indirect imports.
Adding a chapter is one :class:`Chapter` entry here, its notebook pair, its library module(s)
under the part's subpackage, and its paper's entry in ``book/references.bib`` (``bib``). The
book's table of contents, its Library reference pages and the README's chapter table are
generated from this registry (``python -m icml26.pipeline.book sync``; ``make book`` does it).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "BOOK_BUDGET_S",
    "BUDGET_S",
    "CHAPTERS",
    "FORTHCOMING",
    "PARTS",
    "SOURCES",
    "TARGET_S",
    "Chapter",
    "by_slug",
]

#: The chapter standard's run-time budget: each notebook at ``ci`` scale on two quiet CPU
#: cores (``make bench`` measures it; nbval flags a chapter over it), the target, and the
#: whole book.
BUDGET_S, TARGET_S, BOOK_BUDGET_S = 60.0, 30.0, 15 * 60.0

#: The book's parts: subpackage of ``icml26`` → caption in ``book/_toc.yml``.
PARTS: dict[str, str] = {
    "retrieval": "I. Geometry of retrieval",
    "sequential": "II. Sequential decisions under hidden state",
    "dynamics": "III. Stochastic dynamics",
    "bayesopt": "IV. Bayesian optimisation",
    "games": "V. Games and preferences",
    "generative": "VI. Generative models",
    "agents": "VII. Agents",
    "trust": "VIII. Trust: robustness, provenance, interpretability",
    "neuro": "IX. Neural signals",
}


#: What a chapter was written from, shown under its title and on the landing page: the
#: paper's full text, or only its abstract with the authors' released code, or with
#: secondary summaries of the paper (talks, reviews, third-party notes), or nothing more.
SOURCES: tuple[str, ...] = (
    "full paper",
    "abstract and released code",
    "abstract and secondary summaries",
    "abstract only",
)


@dataclass(frozen=True)
class Chapter:
    """One chapter: ``notebooks/{number}-{slug}.py`` and what it builds on.

    ``title`` is the chapter's one title (the book's sidebar, its page heading, the landing
    page, the README); ``sources`` what it was written from (:data:`SOURCES`); ``bib`` the
    key of the paper it teaches in ``book/references.bib`` (its page shows how to cite it).
    """

    number: str
    slug: str
    part: str
    title: str
    modules: tuple[str, ...]
    bench: str | None = None
    sources: str = "abstract only"
    bib: str = ""
    #: Why the chapter's printed figures move under another numeric configuration (a training
    #: run whose discrete outcomes follow the last bits); empty when they do not. Such a
    #: chapter is compared on its claim verdicts only by ``make test-portable``.
    figures_vary: str = ""

    def __post_init__(self) -> None:
        if len(self.number) != 2 or not self.number.isdigit():
            raise ValueError(f"number must be two digits, got {self.number!r}")
        if self.part not in PARTS:
            raise ValueError(f"part must be one of {sorted(PARTS)}, got {self.part!r}")
        if self.sources not in SOURCES:
            raise ValueError(f"sources must be one of {SOURCES}, got {self.sources!r}")
        if self.bib and not self.bib.replace("_", "").replace("-", "").isalnum():
            raise ValueError(f"bib must be a key of book/references.bib, got {self.bib!r}")
        for m in self.modules:
            if not m.startswith("icml26."):
                raise ValueError(f"modules must be icml26 modules, got {m!r}")

    @property
    def stem(self) -> str:
        """``NN-slug``, the notebook's file stem."""
        return f"{self.number}-{self.slug}"


CHAPTERS: tuple[Chapter, ...] = (
    Chapter(
        "01",
        "med",
        "retrieval",
        "Minimal Embeddable Dimension: exact and robust top-k retrieval capacity",
        (
            "icml26.retrieval.med.constructions",
            "icml26.retrieval.med.margins",
            "icml26.retrieval.med.optimisation",
            "icml26.retrieval.limit",
            "icml26.retrieval.retrievers",
        ),
        bench="bench_01_med",
        sources="abstract and released code",
        bib="wang2026med",
    ),
    Chapter(
        "02",
        "hmm-bandits",
        "sequential",
        "Linear contextual bandits driven by a hidden Markov chain",
        ("icml26.sequential.hmm", "icml26.sequential.categorical", "icml26.sequential.bandits"),
        bench="bench_02_hmm_bandits",
        sources="abstract and secondary summaries",
        bib="li2026direct",
    ),
    Chapter(
        "03",
        "informed-critic",
        "sequential",
        "Informed asymmetric actor-critic: privileged signals for the critic",
        (
            "icml26.sequential.critic",
            "icml26.sequential.critic_envs",
            "icml26.sequential.informativeness",
            "icml26.sequential.a2c",
        ),
        bench="bench_03_informed_critic",
        sources="abstract and secondary summaries",
        bib="ebi2026informed",
    ),
    Chapter(
        "04",
        "clarification",
        "sequential",
        "Goal-oriented clarification with an information-gain reward",
        (
            "icml26.sequential.clarify.world",
            "icml26.sequential.clarify.policies",
            "icml26.sequential.clarify.training",
            "icml26.grpo",
        ),
        bench="bench_04_clarification",
        sources="abstract and secondary summaries",
        bib="deng2026clarification",
    ),
    Chapter(
        "05",
        "cogsde",
        "dynamics",
        "CogSDE: controlled SDEs for motion under latent decision uncertainty",
        (
            "icml26.dynamics.sde",
            "icml26.dynamics.animal",
            "icml26.dynamics.switching",
            "icml26.dynamics.stacked",
            "icml26.dynamics.motion",
            "icml26.resume",
        ),
        bench="bench_05_cogsde",
        sources="abstract and released code",
        bib="cogsde2026controlled",
    ),
    Chapter(
        "06",
        "alpha-pfn",
        "bayesopt",
        "Amortized entropy search with prior-data fitted networks",
        (
            "icml26.bayesopt.pfn.bars",
            "icml26.bayesopt.pfn.gp",
            "icml26.bayesopt.pfn.entropy",
            "icml26.bayesopt.pfn.network",
            "icml26.bayesopt.pfn.prior_nd",
            "icml26.bayesopt.pfn.benchmarks",
        ),
        bench="bench_06_alpha_pfn",
        sources="abstract and released code",
        bib="rakotoarison2026alphapfn",
    ),
    Chapter(
        "07",
        "safety-game",
        "games",
        "Black-box safety alignment as a zero-sum game",
        ("icml26.games.zerosum", "icml26.games.budgeted"),
        bench="bench_07_safety_game",
        sources="abstract and secondary summaries",
        bib="nguyen2026safetygame",
    ),
    Chapter(
        "08",
        "hrc-dsppo",
        "games",
        "Transitive and cyclic preferences: HRC decomposition and dynamic self-play",
        (
            "icml26.games.preferences.heads",
            "icml26.games.preferences.training",
            "icml26.games.preferences.selfplay",
            "icml26.games.zerosum",
        ),
        bench="bench_08_hrc_dsppo",
        sources="full paper",
        bib="huang2026transitivity",
    ),
    Chapter(
        "09",
        "t3-unlearning",
        "generative",
        "Temper-then-tilt: unlearning a generative model by tempering and classifier guidance",
        (
            "icml26.generative.unlearning.densities",
            "icml26.generative.unlearning.t3",
            "icml26.generative.unlearning.metrics",
            "icml26.generative.unlearning.classifier",
            "icml26.generative.unlearning.sweep",
        ),
        bench="bench_09_t3_unlearning",
        sources="abstract and secondary summaries",
        bib="block2026temper",
    ),
    Chapter(
        "10",
        "asir",
        "generative",
        "Antipodal sampling and iterative recovery: "
        "provably secure steganography in diffusion noise",
        (
            "icml26.generative.stego.kde",
            "icml26.generative.stego.embedding",
            "icml26.generative.stego.transmission",
            "icml26.generative.stego.codec",
            "icml26.generative.stego.steganalysis",
            "icml26.generative.diffusion",
        ),
        bench="bench_10_asir",
        sources="abstract only",
        bib="asir2026",
    ),
    Chapter(
        "11",
        "any2any",
        "generative",
        "Any-to-any translation through a shared latent",
        (
            "icml26.generative.sceneworld",
            "icml26.generative.stacked_nets",
            "icml26.generative.stacked_training",
            "icml26.generative.gaussian_twin",
            "icml26.generative.vae_dit",
            "icml26.generative.diffusion",
        ),
        bench="bench_11_any2any",
        sources="abstract and released code",
        bib="chen2026any2any",
    ),
    Chapter(
        "12",
        "agent-jit",
        "agents",
        "Just-in-time compilation for computer-use agents: plans, cost models and scheduling",
        (
            "icml26.agents.jit.tools",
            "icml26.agents.jit.plans",
            "icml26.agents.jit.execution",
            "icml26.agents.jit.planner",
            "icml26.agents.jit.latency",
        ),
        bench="bench_12_agent_jit",
        sources="abstract and secondary summaries",
        bib="winston2026agent",
    ),
    Chapter(
        "13",
        "v-abs",
        "agents",
        "Action-observer driven beam search for dynamic visual reasoning",
        ("icml26.agents.beam.world", "icml26.agents.beam.search"),
        bench="bench_13_v_abs",
        sources="abstract and released code",
        bib="ning2026vabs",
    ),
    Chapter(
        "14",
        "polia",
        "agents",
        "Object-level intrinsic advantage in group-based RL for grounded reasoning",
        (
            "icml26.agents.polia",
            "icml26.agents.grounding.policy",
            "icml26.agents.grounding.methods",
            "icml26.agents.grounding.training",
            "icml26.grpo",
        ),
        bench="bench_14_polia",
        sources="full paper",
        bib="zeng2026polia",
    ),
    Chapter(
        "15",
        "scale",
        "agents",
        "Self-uncertainty conditioned adaptive looking and execution for VLA models",
        (
            "icml26.agents.uncertainty",
            "icml26.agents.forkreach",
            "icml26.agents.tinyvla",
            "icml26.agents.decoding",
        ),
        bench="bench_15_scale",
        sources="abstract and released code",
        bib="choi2026scale",
    ),
    Chapter(
        "16",
        "debiasing",
        "trust",
        "Debiasing for robustness to prompt perturbations",
        ("icml26.trust.debias",),
        bench="bench_16_debiasing",
        sources="abstract and secondary summaries",
        bib="zhou2026harnessing",
    ),
    Chapter(
        "17",
        "threshold-watermark",
        "trust",
        "(t, K)-threshold watermarking in federated learning",
        (
            "icml26.trust.watermark",
            "icml26.trust.federated",
            "icml26.trust.shamir",
            "icml26.trust.adamw",
        ),
        bench="bench_17_threshold_watermark",
        sources="abstract and released code",
        bib="bakr2026collaborative",
    ),
    Chapter(
        "18",
        "explaind",
        "trust",
        "ExPLAIND: AdamW training as a kernel machine, and what it explains",
        (
            "icml26.trust.flatmodels",
            "icml26.trust.pathkernel.trajectory",
            "icml26.trust.pathkernel.features",
            "icml26.trust.pathkernel.decomposition",
            "icml26.trust.adamw",
        ),
        bench="bench_18_explaind",
        sources="abstract and released code",
        bib="eichin2026explaind",
    ),
    Chapter(
        "19",
        "rector",
        "neuro",
        "RECTOR: masked region-channel-temporal modeling of EEG",
        (
            "icml26.neuro.montage",
            "icml26.neuro.simulate",
            "icml26.neuro.connectivity",
            "icml26.neuro.attention",
            "icml26.neuro.encoder",
            "icml26.neuro.partition",
            "icml26.neuro.pretrain",
            "icml26.neuro.probe",
        ),
        bench="bench_19_rector",
        sources="abstract and secondary summaries",
        bib="liu2026rector",
    ),
)


#: The book's remaining papers (number → part, title), listed as forthcoming until their
#: chapter lands; a chapter's entry then moves from here to ``CHAPTERS``.
FORTHCOMING: dict[str, tuple[str, str]] = {}


def by_slug(stem_or_slug: str) -> Chapter:
    """The chapter whose slug or ``NN-slug`` stem is ``stem_or_slug``."""
    for c in CHAPTERS:
        if stem_or_slug in (c.slug, c.stem):
            return c
    raise ValueError(f"no chapter with slug {stem_or_slug!r}")
