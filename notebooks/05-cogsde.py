# %% [markdown]
# # 05 · cogsde — Controlled SDEs for instruction-driven latent decision dynamics
#
# ## Overview
#
# An animal told to "go", "turn" or "stop" does not execute the command like a robot: whether
# it complies depends on an internal decision state — engaged, distracted, hesitant — that we
# never observe and that changes at random. Predicting its motion far into the future under a
# known sequence of commands is therefore a problem about *latent decision uncertainty*: a good
# model must (i) let the commands steer the latent state, (ii) represent the randomness of the
# decision process, and (iii) stay well behaved when rolled out much longer than the windows it
# was trained on. CogSDE {cite}`cogsde2026controlled` answers with a *controlled stochastic
# differential equation* for the latent state: a drift in which the command acts through two
# channels (an additive shift and a multiplicative gate), a state-dependent diffusion, and a
# dissipativity condition that bounds the second moment of the latent state uniformly in time.
#
# This chapter builds the mathematics and the code from the ground up. We state the controlled
# SDE, prove the mean-square bound with Itô's formula, construct a parameterisation that is
# dissipative *by construction* and compute its certified constants $(\alpha, \beta)$ from the
# weights, and analyse the Euler–Maruyama scheme that every neural SDE uses in practice
# {cite}`kloeden1992numerical,higham2001algorithmic`, including when the discrete scheme keeps
# the bound. We then train a small latent SDE (encoder → controlled SDE → decoder, in the spirit
# of {cite}`li2020scalable`) on a synthetic command-driven "animal" and compare it, far beyond
# its training horizon, with deterministic baselines of the same size.
#
# At the end you will be able to write a batched, device-agnostic Euler–Maruyama solver for
# controlled SDEs that agrees with `torchsde` path by path, certify the mean-square boundedness
# of a neural drift/diffusion pair, measure the strong order of a scheme, and evaluate
# probabilistic long-horizon forecasts with CRPS, band coverage and a command-alignment score.
#
# ## Setting and notation
#
# Time is $t \in [0, T]$. The latent decision state is $z_t \in \mathbb{R}^d$; the command is
# $u_t \in \mathbb{R}^c$ (here one-hot over $c = 3$ commands *go / turn / stop*), a
# deterministic, piecewise-constant, bounded signal with $U^2 := \sup_t \lVert u_t \rVert^2$
# ($U^2 = 1$ for one-hot commands). $W_t$ is an $m$-dimensional standard Brownian motion; the
# drift is $f : \mathbb{R}^d \times \mathbb{R}^c \to \mathbb{R}^d$ and the diffusion
# $G : \mathbb{R}^d \to \mathbb{R}^{d \times m}$, with Frobenius norm $\lVert G \rVert_F$. We write
# $m_t := \mathbb{E}\lVert z_t \rVert^2$ for the second moment. $\sigma(x) = 1/(1+e^{-x})$ is the
# logistic function, $\odot$ the entrywise product, $\lambda_{\min}(S)$ the smallest eigenvalue of
# a symmetric matrix and $\lVert B \rVert_2$ the spectral norm. Numerically, $h$ is the step,
# $t_k = k h$, $\Delta W_k = W_{t_{k+1}} - W_{t_k} \sim \mathcal{N}(0, h I_m)$, and $u_k = u_{t_k}$.
# In code, tensors are time-major as in `torchsde`: paths `(n_steps + 1, N, d)`, commands
# `(n_steps, N, c)` or `(n_steps, c)` when shared by the $N$ paths.
#
# The observation model of the experiments: an agent in the plane has a body-frame speed
# $v_t \ge 0$ and turn rate $\omega_t$; its heading is $\theta_t = \int_0^t \omega_s\,ds$ and its
# position $p_t = \int_0^t v_s (\cos\theta_s, \sin\theta_s)\,ds$. A hidden decision state
# $e_t \in \{\text{engaged}, \text{distracted}\}$ (a Markov chain) decides whether the agent
# follows the command.
#
# ## Theory
#
# ```{prf:definition} Controlled latent SDE with dual-channel modulation
# :label: cogsde-def-controlled
#
# The latent decision state solves the Itô SDE
#
# $$
# dz_t = f(z_t, u_t)\,dt + G(z_t)\,dW_t, \qquad z_0 \text{ independent of } W,
# \quad \mathbb{E}\lVert z_0\rVert^2 < \infty.
# $$ (cogsde-eq-sde)
#
# The drift has *dual-channel control modulation*: the command enters once **additively**,
# shifting the drift, and once **multiplicatively**, gating a state-dependent nonlinearity,
#
# $$
# f(z, u) = A z + \underbrace{\sigma(W_g u + b_g)}_{\text{gate } \in (0,1)^d}
# \odot\, \phi(z) + \underbrace{B u + b_0}_{\text{shift}},
# $$
#
# and the diffusion is a *state-dependent* operator $G(z)$. The paper's abstract specifies these
# three ingredients (two control channels in the drift, a state-dependent diffusion,
# dissipativity); its full text was not available to us, so the concrete gate
# $\sigma(W_g u + b_g)$ and shift $Bu + b_0$ above are the closest faithful form we could build
# (a FiLM-style modulation), not a transcription of the paper's equations.
# ```
#
# ```{prf:definition} Dissipativity
# :label: cogsde-def-dissipative
#
# The pair $(f, G)$ is *$(\alpha, \beta)$-dissipative* if for some $\alpha > 0$, $\beta \ge 0$ and
# all $z \in \mathbb{R}^d$, $u \in \mathbb{R}^c$,
#
# $$
# 2\langle z, f(z, u)\rangle + \lVert G(z)\rVert_F^2 \le -\alpha \lVert z\rVert^2 +
# \beta\,(1 + \lVert u\rVert^2).
# $$ (cogsde-eq-dissipative)
#
# The left-hand side is $\mathcal{L}V(z)$, the Itô generator of {eq}`cogsde-eq-sde` applied to
# $V(z) = \lVert z\rVert^2$: {eq}`cogsde-eq-dissipative` says that $V$ is a Lyapunov function outside a ball whose radius
# grows with the command.
# ```
#
# ```{prf:theorem} Mean-square boundedness
# :label: cogsde-thm-ms
#
# Let $f, G$ be continuous and locally Lipschitz in $z$, uniformly over $u$ in bounded sets, and
# $(\alpha, \beta)$-dissipative, and let $u$ be measurable with
# $\sup_t \lVert u_t\rVert^2 \le U^2$. Then {eq}`cogsde-eq-sde` has a unique global solution and for all
# $t \ge 0$
#
# $$
# \mathbb{E}\lVert z_t\rVert^2 \le e^{-\alpha t}\,\mathbb{E}\lVert z_0\rVert^2 +
# \frac{\beta}{\alpha}\,(1 + U^2)\,\bigl(1 - e^{-\alpha t}\bigr).
# $$
#
# In particular $\sup_t \mathbb{E}\lVert z_t\rVert^2 \le \max\{\mathbb{E}\lVert z_0\rVert^2,
# \beta(1+U^2)/\alpha\}$ and $\limsup_{t\to\infty} \mathbb{E}\lVert z_t\rVert^2 \le
# \beta(1+U^2)/\alpha$, whatever the horizon.
# ```
#
# ```{prf:proof}
# *Local solution and localisation.* Locally Lipschitz coefficients give a unique solution up to
# the explosion time; let $\tau_R = \inf\{t : \lVert z_t\rVert \ge R\}$. *Itô's formula* for
# $Y_t = e^{\alpha t} V(z_t)$ with $V(z) = \lVert z\rVert^2$ ($\nabla V = 2z$,
# $\nabla^2 V = 2I$) gives
#
# $$
# dY_t = e^{\alpha t}\bigl(\alpha \lVert z_t\rVert^2 + 2\langle z_t, f(z_t,u_t)\rangle +
# \lVert G(z_t)\rVert_F^2\bigr)\,dt + 2 e^{\alpha t} z_t^\top G(z_t)\,dW_t .
# $$
#
# By {eq}`cogsde-eq-dissipative` the $dt$ term is at most $e^{\alpha t}\beta(1 + U^2)$. Integrate from $0$ to
# $t \wedge \tau_R$ and take expectations: the stochastic integral is a martingale with mean zero
# because its integrand is bounded on $[0, \tau_R]$, so
#
# $$
# \mathbb{E}\bigl[e^{\alpha (t\wedge\tau_R)}\lVert z_{t\wedge\tau_R}\rVert^2\bigr]
# \le \mathbb{E}\lVert z_0\rVert^2 + \beta(1+U^2)\,\frac{e^{\alpha t} - 1}{\alpha} =: C_t .
# $$
#
# *No explosion.* On $\{\tau_R \le t\}$ the left integrand is at least $R^2$, hence
# $\mathbb{P}(\tau_R \le t) \le C_t / R^2 \to 0$: $\tau_R \to \infty$ almost surely and the
# solution is global. *Conclusion.* Let $R \to \infty$; by Fatou's lemma
# $e^{\alpha t}\,\mathbb{E}\lVert z_t\rVert^2 \le C_t$, and multiplying by $e^{-\alpha t}$ is the
# claim. This is Grönwall's comparison argument for $m_t' \le -\alpha m_t + \beta(1+U^2)$, with
# the integrating factor $e^{\alpha t}$ applied *before* taking expectations; working with $Y_t$
# avoids having to show first that $m_t$ is finite and differentiable. This is the classical
# Lyapunov-function argument of Khasminskii {cite}`khasminskii2012stochastic` and Mao
# {cite}`mao2007stochastic`; the only step we do not spell out is the standard local existence
# for locally Lipschitz coefficients.
# ```
#
# The theorem is only useful if we can *check* {eq}`cogsde-eq-dissipative` for a neural network. The next result builds
# the check into the architecture: the linear part is negative definite up to a rotation, the
# nonlinearity and the diffusion are bounded.
#
# ```{prf:proposition} A parameterisation that is dissipative by construction
# :label: cogsde-prop-param
#
# Let $A = -(\varepsilon I + M M^\top) + (N - N^\top)$ with $\varepsilon > 0$ and free
# $M, N \in \mathbb{R}^{d\times d}$;
# $\phi(z) = s \odot \tanh\bigl(W_2 \tanh(W_1 z + c_1) + c_2\bigr)$ with $s \in \mathbb{R}^d_{>0}$;
# and $G(z) = \operatorname{diag}\bigl(\varsigma \odot
# \sigma(W_s z + b_s)\bigr)$ with $\varsigma \in \mathbb{R}^d_{>0}$. Then the CogSDE pair
#
# $$
# f(z,u) = A z + \sigma(W_g u + b_g) \odot \phi(z) + B u + b_0,\qquad G(z) \text{ as above},
# $$ (cogsde-eq-param)
#
# is $(\alpha, \beta)$-dissipative with
#
# $$
# \alpha = \lambda := \lambda_{\min}(\varepsilon I + M M^\top) \ge \varepsilon, \qquad
# \beta = \max\Bigl\{\tfrac{2a^2}{\lambda} + \lVert\varsigma\rVert^2,\;
# \tfrac{2 b^2}{\lambda}\Bigr\}, \quad a = \lVert s\rVert + \lVert b_0\rVert,\
# b = \lVert B\rVert_2 .
# $$
#
# Moreover $\lVert f(z,u)\rVert^2 \le 2L^2\lVert z\rVert^2 + K(1 + \lVert u\rVert^2)$ with
# $L = \lVert A\rVert_2$ and $K = 4\max\{a^2, b^2\}$.
# ```
#
# ```{prf:proof}
# The skew part does not contribute to the quadratic form: $\langle z, (N - N^\top) z\rangle = 0$,
# so $\langle z, A z\rangle = -z^\top(\varepsilon I + MM^\top) z \le -\lambda\lVert z\rVert^2$, and
# $\lambda \ge \varepsilon > 0$ because $MM^\top \succeq 0$. The gate lies in $(0,1)^d$ and
# $\lvert\tanh\rvert < 1$, so the remaining drift is bounded by
# $\lVert \sigma(\cdot)\odot\phi(z) + Bu + b_0\rVert \le \lVert s\rVert + \lVert b_0\rVert +
# b\lVert u\rVert = a + b\lVert u\rVert$. Young's inequality $2xy \le \lambda x^2 + y^2/\lambda$
# gives
#
# $$
# 2\langle z, f\rangle \le -2\lambda\lVert z\rVert^2 + \lambda\lVert z\rVert^2 +
# \frac{(a + b\lVert u\rVert)^2}{\lambda}
# \le -\lambda\lVert z\rVert^2 + \frac{2a^2 + 2b^2\lVert u\rVert^2}{\lambda}.
# $$
#
# The diffusion is diagonal with entries in $(0, \varsigma_i)$, so
# $\lVert G(z)\rVert_F^2 \le \lVert\varsigma\rVert^2$. Adding the two and bounding
# $c_0 + c_1\lVert u\rVert^2 \le \max\{c_0, c_1\}(1+\lVert u\rVert^2)$ gives {eq}`cogsde-eq-dissipative` with the stated
# $(\alpha, \beta)$. For the growth bound,
# $\lVert f\rVert \le L\lVert z\rVert + a + b\lVert u\rVert$ and $(x + y)^2 \le 2x^2 + 2y^2$ twice.
# ```
#
# The certificate is conservative — Young's inequality spends half of the contraction and the
# bounds on $\tanh$ and $\sigma$ are attained only asymptotically — so we expect the Monte-Carlo
# second moment to sit well below the bound. {ref}`cogsde-ex-tight` shows a case where the
# bound is an equality.
#
# In practice {eq}`cogsde-eq-sde` is simulated with the Euler–Maruyama scheme
#
# $$
# z_{k+1} = z_k + f(z_k, u_k)\,h + G(z_k)\,\Delta W_k, \qquad
# \Delta W_k \sim \mathcal{N}(0, h I_m) \text{ i.i.d.}
# $$ (cogsde-eq-em)
#
# ```{prf:theorem} Strong order 1/2 of Euler–Maruyama
# :label: cogsde-thm-strong
#
# If $f$ and $G$ are globally Lipschitz in $z$ (uniformly in $u$) and of linear growth, and the
# command is constant on each step (its switching times lie on the grid), the Euler–Maruyama
# approximation $z^h$ driven by the same Brownian path satisfies
# $\mathbb{E}\lVert z_T - z^h_T\rVert \le C\,h^{1/2}$ for a constant $C$ that depends on $T$ but not
# on $h$ {cite}`kloeden1992numerical`. When the noise is additive ($G$ constant) and $f$ is in
# addition twice continuously differentiable in $z$ with bounded derivatives, the order
# improves to $1$.
# ```
#
# ```{prf:proof}
# *Sketch.* Write the exact solution over one step by Itô–Taylor expansion:
# $z_{t_{k+1}} = z_{t_k} + f h + G\Delta W_k + \sum_{j,l} (\partial G_{\cdot l}\, G_{\cdot j})
# I_{(j,l)} + R_k$, where $I_{(j,l)} = \int_{t_k}^{t_{k+1}}\int_{t_k}^{s} dW^j_r\, dW^l_s$ are the
# double Itô integrals and $R_k$ collects terms with mean $O(h^{2})$ and mean square $O(h^{3})$.
# Euler–Maruyama drops the double-integral term, which has mean zero and mean square
# $O(h^2)$. The local errors are martingale increments, so their mean squares add up over the
# $T/h$ steps: $O(h^2)\cdot T/h = O(h)$; a discrete Grönwall argument, using the Lipschitz
# constants, propagates this to $\mathbb{E}\lVert z_T - z_T^h\rVert^2 = O(h)$, and Jensen's
# inequality gives the first absolute moment $O(h^{1/2})$. With additive noise $\partial G = 0$,
# the dropped term vanishes and the leading local error is $O(h^{3/2})$ in mean square root,
# giving order $1$. The full proof (Theorem 10.2.2 of {cite}`kloeden1992numerical`) handles the
# remainders carefully; we only sketch it.
# ```
#
# The continuous-time bound does not automatically survive discretisation: the explicit scheme
# can blow up when $h$ is large compared with the stiffness $L$. The next result makes the
# step-size condition explicit.
#
# ```{prf:proposition} Euler–Maruyama keeps the bound for small steps
# :label: cogsde-prop-em
#
# Under the hypotheses of {prf:ref}`cogsde-prop-param`, let $h < \alpha/(2L^2)$ and
# $\rho = 1 - h\alpha + 2h^2L^2 \in (0, 1)$. Then the iterates of {eq}`cogsde-eq-em` satisfy
#
# $$
# \mathbb{E}\lVert z_k\rVert^2 \le \rho^k\,\mathbb{E}\lVert z_0\rVert^2 +
# \frac{(\beta + hK)(1 + U^2)}{\alpha - 2hL^2}\,\bigl(1 - \rho^k\bigr),
# $$
#
# which tends to the bound of {prf:ref}`cogsde-thm-ms` as $h \to 0$ (since
# $\rho^{t/h} \to e^{-\alpha t}$).
# ```
#
# ```{prf:proof}
# $\Delta W_k$ is independent of $z_k$ with mean zero and covariance $hI$, so expanding the square,
# $\mathbb{E}\lVert z_{k+1}\rVert^2 = \mathbb{E}\bigl[\lVert z_k\rVert^2 + 2h\langle z_k, f\rangle +
# h^2\lVert f\rVert^2 + h\lVert G(z_k)\rVert_F^2\bigr]$ (the cross terms with $\Delta W_k$
# vanish). By {eq}`cogsde-eq-dissipative` and the growth bound,
# $m_{k+1} \le (1 - h\alpha + 2h^2L^2)\,m_k + h(\beta + hK)(1 + U^2)$. Since $\alpha \le \lambda \le
# L$, $\rho \ge 1 - h\alpha + 2h^2\alpha^2 > 0$, and $\rho < 1$ exactly when $h < \alpha/(2L^2)$.
# Unrolling the linear recursion, $m_k \le \rho^k m_0 + h(\beta+hK)(1+U^2)(1-\rho^k)/(1-\rho)$ with
# $1 - \rho = h(\alpha - 2hL^2)$. Finiteness of every $m_k$ follows by induction from the growth
# bound.
# ```

# %% tags=["hide-input"]
import math
import time

import matplotlib.pyplot as plt
import numpy as np
import torch
import torchsde
from torch.nn import functional as F

import icml26
from icml26.dynamics import sde

SEED = 5
rng = icml26.seed_everything(SEED)
icml26.plotting.use_book_style()
DEVICE = icml26.device()
# The tensors of this chapter are small: one intra-op thread avoids synchronisation overhead.
torch.set_num_threads(1)

# %% tags=["parameters", "hide-input"]
# Mean-square bound (cogsde-thm-ms) and the unconstrained baseline
LATENT_DIM = icml26.pick(ci=6, paper=16)
HIDDEN = icml26.pick(ci=16, paper=64)
N_PATHS = icml26.pick(ci=4096, paper=16384)
N_STEPS = icml26.pick(ci=1000, paper=2000)
STEP = 0.02  # h, seconds; horizon N_STEPS * STEP
T_END = N_STEPS * STEP
SAVE_EVERY = icml26.pick(ci=10, paper=20)
N_FREE = icml26.pick(ci=8, paper=32)  # random unconstrained drifts
FREE_PATHS = icml26.pick(ci=256, paper=4096)
# Strong order of Euler–Maruyama (cogsde-thm-strong)
ORDER_PATHS = icml26.pick(ci=4096, paper=65536)
ORDER_FINE = icml26.pick(ci=2**10, paper=2**14)  # steps of the finest Brownian grid on [0, 1]
ORDER_LEVELS = icml26.pick(ci=(3, 4, 5, 6, 7, 8), paper=(4, 5, 6, 7, 8, 9, 10, 11))
# Animal task
DT = 0.1  # seconds per observation
TRAIN_AGENTS = icml26.pick(ci=256, paper=2048)
TRAIN_LEN = icml26.pick(ci=400, paper=2000)
TEST_AGENTS = icml26.pick(ci=128, paper=1024)
CONTEXT = 5  # observed steps before a prediction
WINDOW = 20  # training window: 2 s
HORIZON = icml26.pick(ci=200, paper=600)  # evaluation rollout: 10x (paper: 30x) the window
MODEL_DIM = icml26.pick(ci=8, paper=16)
MODEL_HIDDEN = icml26.pick(ci=16, paper=64)
GRU_HIDDEN = icml26.pick(ci=10, paper=24)  # GRU state size: about as many parameters as CogSDE
TRAIN_ITERS = icml26.pick(ci=200, paper=3000)
BATCH = icml26.pick(ci=32, paper=128)
TRAIN_SAMPLES = icml26.pick(ci=4, paper=16)
EVAL_SAMPLES = icml26.pick(ci=64, paper=256)
LR = 1e-2

# %% [markdown]
# The model at a glance: an encoder turns the recent past into the latent state $z_0$; the
# controlled SDE carries it forward under the commands and its own noise; a decoder reads the
# motion out of the latent path. Many noise draws give an ensemble of futures.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The CogSDE pipeline: the past gives the initial latent state, the commands drive the latent SDE through its drift, the diffusion adds the agent's variability, and a decoder maps the latent path to motion. Sampling the Brownian path gives an ensemble of predicted futures.", "name": "05-fig-model"}}
fig, ax = plt.subplots(figsize=(7.2, 3.0))
icml26.plotting.diagram(
    ax,
    {
        "past": (0.1, 0.75, "past motion\nand commands"),
        "enc": (0.33, 0.75, "encoder"),
        "sde": (0.6, 0.5, "latent SDE\n$dz = f(z, u)\\,dt + G(z)\\,dW$"),
        "u": (0.22, 0.2, "command $u_t$"),
        "dw": (0.6, 0.13, "noise $dW_t$"),
        "dec": (0.9, 0.75, "decoder"),
        "out": (0.9, 0.3, "predicted\nmotion"),
    },
    [
        ("past", "enc", ""),
        ("enc", "sde", "$z_0$"),
        ("u", "sde", "drift"),
        ("dw", "sde", ""),
        ("sde", "dec", "$z_t$"),
        ("dec", "out", ""),
    ],
    colors={"past": 0, "enc": 2, "sde": 1, "u": 0, "dw": 3, "dec": 2, "out": 0},
)
ax.set_title("From commands to an ensemble of predicted futures")
plt.show()


# %% [markdown]
# ## Implementation
#
# The readable reference is {eq}`cogsde-eq-em` written literally: one path at a time, one step at a time.


# %% tags=["reference"]
def em_reference(drift, diffusion, z0, h, u, dW):
    """Euler–Maruyama, path by path: z_{k+1} = z_k + f(z_k, u_k) h + diag(G(z_k)) dW_k."""
    n_steps, n_paths = dW.shape[0], z0.shape[0]
    out = torch.empty(n_steps + 1, *z0.shape, dtype=z0.dtype)
    for i in range(n_paths):
        z = z0[i : i + 1]
        out[0, i] = z[0]
        for k in range(n_steps):
            z = z + drift(z, u[k : k + 1]) * h + diffusion(z) * dW[k, i : i + 1]
            out[k + 1, i] = z[0]
    return out


# %% [markdown]
# The kernel `icml26.dynamics.sde.euler_maruyama` advances all $N$ paths together, takes the
# command grid
# and optional pre-drawn increments, validates its arguments (positive step, command grid as
# long as the time grid, matching shapes) and never leaves the device. `icml26.dynamics.sde.CogSDE`
# is
# the parameterisation {eq}`cogsde-eq-param`; its `certificate()` returns $(\alpha, \beta, L, K)$ of
# {prf:ref}`cogsde-prop-param`, computed from the weights.

# %%
torch.manual_seed(SEED)
cog_small = sde.CogSDE(4, 3, 8, sigma=0.4).double()
g = torch.Generator().manual_seed(SEED)
u_small = F.one_hot(torch.randint(0, 3, (25,), generator=g), 3).double()
z0_small = torch.randn(7, 4, generator=g, dtype=torch.float64)
dW_small = math.sqrt(0.05) * torch.randn(25, 7, 4, generator=g, dtype=torch.float64)
with torch.no_grad():
    slow = em_reference(cog_small.drift, cog_small.diffusion, z0_small, 0.05, u_small, dW_small)
    fast = sde.euler_maruyama(
        cog_small.drift, cog_small.diffusion, z0_small, 0.05, u=u_small, dW=dW_small
    )
gap = (slow - fast).abs().max().item()
assert gap < 1e-12, gap
print(f"reference loop and batched kernel agree to 1e-12: {gap < 1e-12}")

# %% [markdown]
# ## Experiments
#
# ### The mean-square bound holds over a long horizon (claim 05.1)
#
# *Claim (the paper's theory).* A dissipative CogSDE has a second moment bounded uniformly in
# time by the certified $(\alpha, \beta)$; an unconstrained drift of the same architecture
# carries no such guarantee. We draw a CogSDE with random weights (the additive command channel
# scaled up so that the command matters), compute its certificate, and simulate `N_PATHS` paths
# for `N_STEPS` steps ($T = 20$ s at the default scale) under a random piecewise-constant command
# sequence shared by all paths. We compare the Monte-Carlo estimate $\hat m_t$ (with its
# standard error) with {prf:ref}`cogsde-thm-ms` and with the discrete bound of
# {prf:ref}`cogsde-prop-em`. The unconstrained baseline `UnconstrainedSDE` has the same layers
# and the same diffusion, but a free Gaussian matrix $A$ in place of
# $-(\varepsilon I + MM^\top) + (N - N^\top)$.

# %%
torch.manual_seed(SEED)
cog = sde.CogSDE(LATENT_DIM, 3, HIDDEN, eps=0.5, sigma=0.5).to(DEVICE)
with torch.no_grad():
    cog.shift.weight.mul_(2.0)
cert = cog.certificate()
h_max = cert.alpha / (2 * cert.lipschitz**2)
print(
    f"certificate: alpha = {cert.alpha:.3f}, beta = {cert.beta:.2f}, L = {cert.lipschitz:.2f}; "
    f"EM step h = {STEP} < alpha / (2 L^2) = {h_max:.3f}: {STEP < h_max}"
)

g = torch.Generator().manual_seed(SEED + 1)
segments = torch.randint(0, 3, (N_STEPS // 50,), generator=g).repeat_interleave(50)
commands = F.one_hot(segments, 3).float().to(DEVICE)  # (N_STEPS, 3), shared by every path
z0 = (2.0 * torch.randn(N_PATHS, LATENT_DIM, generator=g)).to(DEVICE)
dW = (math.sqrt(STEP) * torch.randn(N_STEPS, N_PATHS, LATENT_DIM, generator=g)).to(DEVICE)
with torch.no_grad():
    t0 = time.perf_counter()
    path = sde.euler_maruyama(
        cog.drift, cog.diffusion, z0, STEP, u=commands, dW=dW, save_every=SAVE_EVERY
    )
    em_seconds = time.perf_counter() - t0
sq = path.pow(2).sum(-1).double()
m_hat, m_se = sq.mean(1), sq.std(1) / math.sqrt(N_PATHS)
times = torch.arange(path.shape[0], dtype=torch.float64, device=DEVICE) * STEP * SAVE_EVERY
m0 = m_hat[0].item()
bound = sde.mean_square_bound(times, cert.alpha, cert.beta, m0, 1.0)
bound_em = sde.em_mean_square_bound(times / STEP, STEP, cert, m0, 1.0) if STEP < h_max else None
ratio = (m_hat / bound)[1:]  # at t = 0 the bound equals the empirical m_0 by definition
allowance = (3 * m_se / bound)[1:]
print(
    f"max_t m_hat/bound = {ratio.max().item():.3f}; at T: m_hat = {m_hat[-1].item():.3f}, "
    f"bound = {bound[-1].item():.1f} (stationary level beta/alpha = {cert.beta / cert.alpha:.1f})"
)

# %% [markdown]
# Whether an *unconstrained* drift diverges depends on its random draw: it does whenever its
# free matrix $A$ has an eigenvalue with positive real part, which for a Gaussian $6\times 6$
# matrix happens in most draws but not all. So we draw `N_FREE` unconstrained models (same
# layers, same diffusion, same commands and noise, `FREE_PATHS` paths each) and count how many
# exceed the CogSDE bound a thousandfold by $T$.

# %%
m_free, free_eigs = [], []
for r in range(N_FREE):
    torch.manual_seed(SEED + 100 + r)
    free = sde.UnconstrainedSDE(LATENT_DIM, 3, HIDDEN, sigma=0.5).to(DEVICE)
    with torch.no_grad():
        free.shift.weight.copy_(cog.shift.weight)
        p_free = sde.euler_maruyama(
            free.drift,
            free.diffusion,
            z0[:FREE_PATHS],
            STEP,
            u=commands,
            dW=dW[:, :FREE_PATHS],
            save_every=SAVE_EVERY,
        )
    m_free.append(p_free.pow(2).sum(-1).double().mean(1).clamp(max=1e30))
    free_eigs.append(torch.linalg.eigvals(free.linear().detach().cpu().double()).real.max().item())
m_free = torch.stack(m_free)  # (N_FREE, n_saved)
diverged = (m_free[:, -1] > 1e3 * bound[-1]).double()
print(f"largest real part of an eigenvalue of each free A: {[round(e, 2) for e in free_eigs]}")
print(f"unconstrained draws exceeding 1000x the bound at T: {int(diverged.sum())} of {N_FREE}")

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The dissipative CogSDE stays under its certified mean-square bound over 20 s (claim 05.1); unconstrained drifts of the same form explode.", "name": "05-fig-bound"}}
fig, ax = plt.subplots()
tt = times.cpu().numpy()
ax.plot(tt, bound.cpu(), color=icml26.plotting.color(1), label="Theorem bound")
if bound_em is not None:
    ax.plot(tt, bound_em.cpu(), "--", color=icml26.plotting.color(4), label="EM bound (Prop.)")
lo, hi = (m_hat - 3 * m_se).cpu(), (m_hat + 3 * m_se).cpu()
ax.fill_between(tt, lo, hi, color=icml26.plotting.color(0), alpha=0.3)
ax.plot(tt, m_hat.cpu(), color=icml26.plotting.color(0), label="CogSDE, Monte Carlo ±3 s.e.")
for r in range(N_FREE):
    ax.plot(
        tt,
        m_free[r].cpu(),
        color=icml26.plotting.color(7),
        lw=0.8,
        alpha=0.7,
        label="unconstrained drifts (random draws)" if r == 0 else None,
    )
ax.set_yscale("log")
ax.set_ylim(1e-1, 1e6)
ax.set_xlabel("time t (s)")
ax.set_ylabel(r"$\mathbb{E}\|z_t\|^2$ (latent units$^2$)")
ax.set_title("Dissipative CogSDE stays under its certified bound; free drifts mostly explode")
ax.legend(loc="upper left")
plt.show()

# %% [markdown]
# The Monte-Carlo second moment first decays with the initial condition, then settles at a
# level far below the bound's stationary value $\beta(1+U^2)/\alpha$: the certificate is valid
# but conservative (Young's inequality and the worst-case bounds on $\tanh$ and $\sigma$). The
# discrete bound of {prf:ref}`cogsde-prop-em` is slightly above the continuous one, as it should
# be for $h = 0.02$. The unconstrained draws leave the plot within a few seconds: in this run every one of them
# has an eigenvalue of $A$ with positive real part (printed above), and nothing in their
# parameterisation rules that out.

# %% tags=["claim"]
# fails if: the certified drift were not dissipative (or the bound's constants wrong): the
# Monte-Carlo second moment would exceed the bound by more than its sampling allowance
icml26.claim(
    "05.1",
    f"max_t MC E‖z_t‖² / mean-square bound, T = {T_END:g} s",
    ratio.max().item(),
    at_most=1.0 + allowance.max().item(),
    kind="theorem",
)

# %%
# A demonstration, not a claim: unconstrained drifts of the same form are free to explode.
frac = diverged.mean().item()
print(f"{frac:.0%} of {N_FREE} free drifts end above 1000× the CogSDE bound at T = {T_END:g} s")

# %% [markdown]
# ### Euler–Maruyama has strong order 1/2 (claim 05.3)
#
# *Claim (background the paper relies on).* On an SDE with a known solution, the pathwise error
# of Euler–Maruyama driven by the same Brownian path decays like $h^{1/2}$
# ({prf:ref}`cogsde-thm-strong`). We use geometric Brownian motion
# $dX = \mu X\,dt + \varsigma X\,dW$, whose solution is
# $X_T = X_0\exp\bigl((\mu - \varsigma^2/2)T + \varsigma W_T\bigr)$; its noise is multiplicative,
# so the order is $1/2$ and not $1$. We draw the increments on the finest grid and sum them to
# coarser grids, so every step size sees the same Brownian path.

# %%
mu, vol, horizon_gbm = 0.5, 1.0, 1.0
g = torch.Generator().manual_seed(SEED + 2)
dW_fine = torch.randn(ORDER_FINE, ORDER_PATHS, 1, generator=g, dtype=torch.float64)
dW_fine = (dW_fine * math.sqrt(horizon_gbm / ORDER_FINE)).to(DEVICE)
x0 = torch.ones(ORDER_PATHS, 1, dtype=torch.float64, device=DEVICE)
exact = x0 * torch.exp((mu - vol**2 / 2) * horizon_gbm + vol * dW_fine.sum(0))
steps, errors = [], []
for level in ORDER_LEVELS:
    n = 2**level
    dW_n = dW_fine.reshape(n, ORDER_FINE // n, ORDER_PATHS, 1).sum(1)
    x = sde.euler_maruyama(lambda z, u: mu * z, lambda z: vol * z, x0, horizon_gbm / n, dW=dW_n)
    steps.append(horizon_gbm / n)
    errors.append((x[-1] - exact).abs().mean().item())
slope, intercept = icml26.stats.loglog_fit(steps, errors)
print(f"strong errors: {[f'{e:.4f}' for e in errors]}; fitted log-log slope {slope:.3f}")

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Halving the step shrinks the pathwise Euler–Maruyama error by about $\\sqrt 2$: strong order ½ (claim 05.3).", "name": "05-fig-order"}}
fig, ax = plt.subplots()
hs = np.array(steps)
ax.loglog(hs, errors, "o", color=icml26.plotting.color(0), label="Euler–Maruyama, GBM")
ax.loglog(
    hs,
    np.exp(intercept) * hs**slope,
    color=icml26.plotting.color(0),
    alpha=0.6,
    label=f"fit: slope {slope:.2f}",
)
ax.loglog(
    hs,
    errors[-1] * (hs / hs[-1]) ** 1.0,
    ":",
    color=icml26.plotting.color(7),
    label="slope 1 (additive noise)",
)
ax.set_xlabel("step size h (s)")
ax.set_ylabel(r"strong error $\mathbb{E}|X_T - X^h_T|$")
ax.set_title("Halving h shrinks the pathwise error by about √2: strong order 1/2")
ax.legend()
plt.show()

# %% tags=["claim"]
# fails if: the Euler–Maruyama step used the wrong Brownian increment scale (order ≠ ½)
icml26.claim(
    "05.3",
    "Euler–Maruyama strong error on GBM: log-log slope in h",
    slope,
    between=(0.4, 0.6),
    kind="theorem",
)

# %% [markdown]
# ### Long-horizon, command-driven prediction of a synthetic animal (claims 05.4–05.5)
#
# *Claim (the paper's experiments).* CogSDE improves long-horizon prediction under commands, and
# its predicted trajectories stay aligned with the commands over extended horizons.
#
# **The task.** `icml26.dynamics.sde.simulate_animal` generates agents in the plane. Commands
# switch at
# random (2 % per step of 0.1 s) between *go* (target speed 1, no turning), *turn* (speed 0.6,
# turn rate 1.2 rad/s) and *stop*. A hidden decision state switches from engaged to distracted
# (2 % per step) and back (6 %); engaged, the body-frame speed and turn rate relax towards the
# command's target, distracted they relax towards a slow wander with three times the noise. We
# observe speed and turn rate; positions follow by integrating the unicycle kinematics.
#
# **The models.** All share an encoder (the last 5 observations and commands → initial state), a
# linear decoder (state → speed, turn rate) and the kinematic integration, and all have
# 1.6–1.7 k trainable parameters:
# - **CogSDE**: the dissipative controlled SDE {eq}`cogsde-eq-param`, trained with `TRAIN_SAMPLES` sampled futures;
# - **neural ODE** (a deterministic baseline of the same size): `UnconstrainedSDE` without
#   diffusion, the same layers with a free linear part $A$, initialised small (`gain=0.1`, so
#   $A$ starts with eigenvalues of modulus $\approx 0.1$/s, the usual near-neutral start of a
#   neural ODE);
# - **neural ODE, gain 1**: the same model with $A$ initialised as a standard Gaussian matrix
#   scaled by $1/\sqrt{d}$ (the default of `UnconstrainedSDE`). It starts unstable, and training
#   on 2-s windows does not cure it: it is kept to show that failure, *not* as a fair baseline;
# - **GRU** (a recurrent baseline of the same size): `GRUBaseline`, a `GRUCell` driven by the
#   command with a state of size `GRU_HIDDEN`, same encoder and decoder;
# - **dissipative ODE** (an ablation): the CogSDE drift with the diffusion switched off.
#
# **Training** uses windows of 2 s only, and minimises the CRPS {cite}`gneiting2007strictly` of
# the predicted speed/turn rate and of the positions within the window. The CRPS is a proper
# scoring rule: for an ensemble it rewards both accuracy and correct spread, and for a single
# deterministic prediction it reduces to the absolute error, so one loss serves all three
# models. (This replaces the ELBO of latent SDEs {cite}`li2020scalable`, which needs a posterior
# SDE; see Limits.) **Evaluation** rolls out 20 s at the default scale — ten times the training window
# — on fresh agents, under their future commands.

# %%
g_data = torch.Generator().manual_seed(SEED + 3)
train = sde.simulate_animal(TRAIN_AGENTS, TRAIN_LEN, DT, generator=g_data)
test = sde.simulate_animal(TEST_AGENTS, CONTEXT + HORIZON, DT, generator=g_data)


def windows(data, batch, gen):
    """Random (context, future commands, future observations) windows of the training agents."""
    i = torch.randint(0, data.commands.shape[0], (batch,), generator=gen)
    start = torch.randint(0, data.commands.shape[1] - CONTEXT - WINDOW, (batch,), generator=gen)
    idx = start[:, None] + torch.arange(CONTEXT + WINDOW)
    obs, cmd = data.speed_turn[i[:, None], idx], data.commands[i[:, None], idx]
    past = torch.cat([obs[:, :CONTEXT], cmd[:, :CONTEXT]], dim=-1)
    return past, cmd[:, CONTEXT:], obs[:, CONTEXT:]


def fit(model, n_samples, stochastic, seed):
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    for _ in icml26.progress(range(TRAIN_ITERS), desc="training"):
        past, cmd, future = windows(train, BATCH, gen)
        pred = model(past, cmd, DT, n_samples=n_samples, generator=gen, stochastic=stochastic)
        pos_pred = sde.unicycle_positions(pred, DT)
        pos_true = sde.unicycle_positions(future, DT)
        loss = sde.crps_ensemble(pred, future).mean() + sde.crps_ensemble(pos_pred, pos_true).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


torch.manual_seed(SEED)
models = {
    "CogSDE": sde.LatentSDEModel(sde.CogSDE(MODEL_DIM, 3, MODEL_HIDDEN, eps=0.5), 2, CONTEXT),
    "neural ODE, gain 1": sde.LatentSDEModel(
        sde.UnconstrainedSDE(MODEL_DIM, 3, MODEL_HIDDEN, stochastic=False, gain=1.0), 2, CONTEXT
    ),
    "dissipative ODE": sde.LatentSDEModel(
        sde.CogSDE(MODEL_DIM, 3, MODEL_HIDDEN, eps=0.5), 2, CONTEXT
    ),
    "neural ODE": sde.LatentSDEModel(
        sde.UnconstrainedSDE(MODEL_DIM, 3, MODEL_HIDDEN, stochastic=False, gain=0.1), 2, CONTEXT
    ),
    "GRU": sde.GRUBaseline(GRU_HIDDEN, 2, 3, CONTEXT),
}
stochastic = {name: name == "CogSDE" for name in models}
for k, (name, model) in enumerate(models.items()):
    n_par = sum(p.numel() for p in model.parameters() if p.requires_grad)
    samples = TRAIN_SAMPLES if stochastic[name] else 1
    last = fit(model, samples, stochastic[name], SEED + 10 + k)
    print(f"{name:>18}: {n_par} trainable parameters, final training loss {last:.2f}")
for name in ("neural ODE, gain 1", "neural ODE"):
    a_eig = torch.linalg.eigvals(models[name].dynamics.linear().detach().double()).real.max()
    print(f"{name:>18}: largest real part of an eigenvalue of the trained A = {a_eig:.2f} /s")

# %%
past = torch.cat([test.speed_turn[:, :CONTEXT], test.commands[:, :CONTEXT]], dim=-1)
cmd_future, obs_future = test.commands[:, CONTEXT:], test.speed_turn[:, CONTEXT:]
pos_future = sde.unicycle_positions(obs_future, DT)  # (B, H+1, 2), agent frame at t = 0
g_eval = torch.Generator().manual_seed(SEED + 4)
late = slice(HORIZON // 2 + 1, HORIZON + 1)  # ci: 10 s to 20 s, 5x to 10x the training window
LATE = f"{HORIZON * DT / 2:g}-{HORIZON * DT:g} s"
preds, results = {}, {}
with torch.no_grad():
    for name, model in models.items():
        s = EVAL_SAMPLES if stochastic[name] else 1
        obs = model(
            past, cmd_future, DT, n_samples=s, generator=g_eval, stochastic=stochastic[name]
        )
        pos = sde.unicycle_positions(obs, DT)
        preds[name] = (obs, pos)
        err = (pos.mean(0) - pos_future).norm(dim=-1)  # (B, H+1)
        cmd_rep = cmd_future.unsqueeze(0).expand(s, -1, -1, -1)
        results[name] = {
            "ADE": err[:, late].mean().item(),
            "CRPS": sde.crps_ensemble(pos, pos_future)[:, late].mean().item(),
            "coverage": sde.band_coverage(pos[:, :, late], pos_future[:, late]).item()
            if s > 1
            else 0.0,
            "alignment": sde.command_alignment(
                obs[:, :, HORIZON // 2 :], cmd_rep[:, :, HORIZON // 2 :]
            ).item(),
        }
truth_alignment = sde.command_alignment(
    obs_future[:, HORIZON // 2 :], cmd_future[:, HORIZON // 2 :]
).item()
# the trivial forecast "the agent stands still": its ADE and (per-coordinate) CRPS
still_ade = pos_future[:, late].norm(dim=-1).mean().item()
still_crps = pos_future[:, late].abs().mean().item()
print(f"{'late horizon ' + LATE:>22} | {'ADE (m)':>8} | {'CRPS (m)':>8} | {'90% cov.':>8} | align.")
for name, r in results.items():
    cov = f"{r['coverage']:8.2f}" if stochastic[name] else f"{'-':>8}"
    print(f"{name:>22} | {r['ADE']:8.2f} | {r['CRPS']:8.2f} | {cov} | {r['alignment']:.2f}")
print(f"{'ground truth':>22} | {'':>8} | {'':>8} | {'':>8} | {truth_alignment:.2f}")
print(f"{'stand still':>22} | {still_ade:8.2f} | {still_crps:8.2f} |")
for name in ("neural ODE", "dissipative ODE", "GRU"):
    ratio_n = results["CogSDE"]["ADE"] / results[name]["ADE"]
    print(f"late-horizon ADE, CogSDE / {name}: {ratio_n:.2f}")

# %% [markdown]
# Positions are in the agent's frame at the start of the prediction, in metres if the speed unit
# is 1 m/s. **ADE** is the mean distance between the (ensemble-mean) predicted and the true
# position, **CRPS** the per-coordinate CRPS of the predicted position distribution (equal to the
# absolute error for a deterministic model), **coverage** the fraction of true coordinates inside
# the central 90 % band of the samples, all averaged over the late half of the rollout.
#
# **Command alignment.** We decode the command from the motion itself: each step's (speed, turn
# rate) is assigned to the nearest of the three engaged targets, and the score is the fraction
# of steps whose decoded command is the issued one. It needs no model of the agent, it is
# $\approx 1/3$ for motion unrelated to the commands, and the ground truth itself scores below 1
# because distracted agents ignore the command. A prediction "stays aligned" if its score over
# the late horizon is at least 90 % of the ground truth's (reported after claim 05.5); a score
# well *above* the truth's means the model follows the commands more faithfully than the agent.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "20-s rollouts of three test agents, ten times the training window: truth coloured by the command, CogSDE samples and the deterministic baselines.", "name": "05-fig-rollouts"}}
fig, axes = plt.subplots(1, 3, figsize=(7.5, 3.3))
obs_cog, pos_cog = preds["CogSDE"]
for ax, b in zip(axes, (0, 1, 2), strict=True):
    p = pos_cog[:, b].numpy()
    for s_ in range(16):
        ax.plot(p[s_, :, 0], p[s_, :, 1], color="0.6", lw=0.6, alpha=0.6)
    lo, hi = np.quantile(p, [0.05, 0.95], axis=0)
    truth = pos_future[b].numpy()
    cmd_id = cmd_future[b].argmax(-1).numpy()
    for c, name in enumerate(sde.COMMANDS):
        mask = np.r_[cmd_id == c, False]
        ax.scatter(
            truth[mask, 0],
            truth[mask, 1],
            s=6,
            color=icml26.plotting.color(c),
            label=f"truth: {name}",
            zorder=3,
        )
    ax.plot(p.mean(0)[:, 0], p.mean(0)[:, 1], color="k", lw=1.2, label="CogSDE mean")
    gru = preds["GRU"][1][0, b].numpy()
    ax.plot(gru[:, 0], gru[:, 1], "--", color=icml26.plotting.color(3), lw=1.2, label="GRU")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_title(f"test agent {b}")
axes[0].legend(fontsize=7.5, loc="best")
fig.suptitle(
    f"{HORIZON * DT:g} s rollouts ({HORIZON // WINDOW}x the training window): truth coloured by "
    "command, 16 CogSDE samples in grey"
)
plt.show()

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Error against the horizon: the gain-1 neural ODE diverges, the bounded models do not (claim 05.4); CogSDE's band is informative but too narrow (claim 05.5).", "name": "05-fig-horizon"}}
t_axis = np.arange(HORIZON + 1) * DT
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(7.5, 3.3))
for k, (name, (obs, pos)) in enumerate(preds.items()):
    crps_t = sde.crps_ensemble(pos, pos_future).mean((0, 2)).numpy()
    ax1.plot(t_axis, crps_t, color=icml26.plotting.color(k), label=name)
    if obs.shape[0] > 1:
        q = torch.tensor([0.05, 0.95])
        lo_, hi_ = torch.quantile(pos, q, dim=0)
        cov_t = ((pos_future >= lo_) & (pos_future <= hi_)).float().mean((0, 2)).numpy()
        ax2.plot(t_axis[1:], cov_t[1:], color=icml26.plotting.color(k), label=f"{name}: 90 % band")
ax1.axvline(WINDOW * DT, color="0.5", ls=":", label="training window")
ax1.set_yscale("log")
ax1.set_xlabel("prediction horizon (s)")
ax1.set_ylabel("position CRPS (m)")
ax1.set_title("Error vs horizon: the gain-1 neural ODE diverges, the others stay bounded")
ax1.legend()
ax2.axhline(0.9, color="0.5", ls=":", label="nominal 0.9")
ax2.axvline(WINDOW * DT, color="0.5", ls="--", lw=0.8)
ax2.set_ylim(0, 1)
ax2.set_xlabel("prediction horizon (s)")
ax2.set_ylabel("coverage of true position")
ax2.set_title("CogSDE's band is informative but too narrow")
ax2.legend()
plt.show()

# %% [markdown]
# What the toy shows, honestly (seed 5; seeds 1–5 at the default scale show which
# conclusions are robust):
#
# 1. **The gain-1 neural ODE is a straw man.** Its trained $A$ keeps an eigenvalue with real part
#    $\approx 0.8$/s (printed above): over a 2-s window that is a factor $e^{1.6}$ that the
#    decoder can absorb, over 20 s a factor $e^{16}$. Its late-horizon error is hundreds of metres,
#    far worse than the trivial "stand still" forecast (it diverged in 4 of the 5 seeds). Beating
#    it says only that a model that does not explode beats one that does, so it is *not* the
#    baseline of claim 05.4.
# 2. **Against fair deterministic baselines of the same size the accuracy advantage is mixed.**
#    CogSDE's ensemble mean beats the small-initialised neural ODE (ADE ratio 0.63–0.80 over
#    seeds 1–5), but **not the GRU** (claim 05.4, not reproduced): the GRU's late-horizon ADE is
#    lower in every
#    seed we ran (CogSDE / GRU between 1.03 and 1.43). Against the dissipative ODE ablation the
#    ratio ranged from 0.65 to 1.36, i.e. no robust difference. The paper's "consistently improves
#    predictive accuracy" is therefore **not reproduced** by this toy against its strongest
#    deterministic baseline; the bounded models (dissipative ODE, GRU) are about equally accurate.
# 3. **The noise pays off in calibration.** CogSDE's position CRPS is the lowest of all models in
#    this run (claim 05.5): a point forecast cannot represent the spread of the agent's future.
#    The margin over the GRU is real but not large (CRPS ratio 0.73–1.00 over seeds 1–5: in one
#    seed a tie). Its 90 % band **under-covers** at the late horizon (table above; 0.70–0.82
#    over seeds 1–5, against the nominal 0.90), because training on 2-s windows does not see how
#    far the uncertainty grows over 20 s.
# 4. **Command alignment.** All bounded models stay aligned with the commands to the end of the
#    rollout. The deterministic ones are *over*-aligned (they never reproduce distraction, so
#    they score above the ground truth); CogSDE's samples are closest to the ground truth's score
#    (printed after claim 05.5); the gain-1 neural ODE loses the commands as it diverges (towards
#    chance).

# %% tags=["claim"]
# fails if: a deterministic baseline of the same size predicts the late horizon more accurately
fair = ("neural ODE", "dissipative ODE", "GRU")  # ratios to each printed above
best_ade = min(results[name]["ADE"] for name in fair)
icml26.claim(
    "05.4",
    f"late ADE ({LATE}), CogSDE / best same-size deterministic model",
    results["CogSDE"]["ADE"] / best_ade,
    at_most=1.0,
)

# %% tags=["claim"]
# fails if: the SDE's noise did not describe the spread of the future (a point forecast would
# then score a CRPS as low)
best_det = min(r["CRPS"] for name, r in results.items() if not stochastic[name])
crps_ratio = results["CogSDE"]["CRPS"] / best_det
icml26.claim(
    "05.5",
    f"late position CRPS ({LATE}), CogSDE / best deterministic model",
    crps_ratio,
    at_most=1.0,
)

# %%
# Command alignment, reported (every bounded model passes a 90 % bar, so it is not a claim)
align_ratio = results["CogSDE"]["alignment"] / truth_alignment
print(
    f"command alignment of CogSDE samples at {LATE} / of the true trajectories: {align_ratio:.2f}"
)

# %% [markdown]
# ## Cross-check
#
# **`torchsde`.** `torchsde.sdeint(method="euler")` {cite}`li2020scalable` implements the same
# scheme {eq}`cogsde-eq-em`. It accepts any object implementing its `BaseBrownian` interface as `bm`; the
# solver asks it for the increment over each step $[t_k, t_{k+1}]$, so a ten-line class that
# returns our pre-drawn $\Delta W_k$ (`sde.FixedIncrements`) lets both solvers integrate the
# *same* Brownian path. `sde.TorchsdeAdapter` presents the model as a torchsde SDE, reading the
# command grid from the step index inside the drift, as `sde.euler_maruyama` does.


# %%
h_x, n_x, N_x = 2.0**-6, 128, 256
g = torch.Generator().manual_seed(SEED + 5)
grid_x = F.one_hot(torch.randint(0, 3, (n_x,), generator=g), 3).double()
z0_x = torch.randn(N_x, 4, generator=g, dtype=torch.float64)
dW_x = math.sqrt(h_x) * torch.randn(n_x, N_x, 4, generator=g, dtype=torch.float64)
ts = torch.arange(n_x + 1, dtype=torch.float64) * h_x
with torch.no_grad():
    ours = sde.euler_maruyama(cog_small.drift, cog_small.diffusion, z0_x, h_x, u=grid_x, dW=dW_x)
    theirs = torchsde.sdeint(
        sde.TorchsdeAdapter(cog_small, grid_x, h_x),
        z0_x,
        ts,
        bm=sde.FixedIncrements(dW_x, h_x),
        method="euler",
        dt=h_x,
    )
gap_torchsde = (ours - theirs).abs().max().item()
assert gap_torchsde < 1e-6
print(
    f"icml26 EM and torchsde.sdeint(method='euler') on the same increments agree to 1e-6: "
    f"{gap_torchsde < 1e-6} (the gap is at rounding level, < 1e-12: {gap_torchsde < 1e-12})"
)

# %% [markdown]
# **Ornstein–Uhlenbeck moments.** For $dX = -\vartheta X\,dt + \varsigma\,dW$ the law at time $t$
# is Gaussian with mean $x_0 e^{-\vartheta t}$ and variance
# $\frac{\varsigma^2}{2\vartheta}(1 - e^{-2\vartheta t})$. We check the kernel's Monte-Carlo
# moments against these closed forms, allowing four standard errors plus the $O(h)$ weak bias of
# the scheme.

# %%
theta, vol_ou, x0_ou, h_ou, n_ou, N_ou = 1.5, 0.8, 2.0, 0.01, 200, N_PATHS
g = torch.Generator().manual_seed(SEED + 6)
dW_ou = (math.sqrt(h_ou) * torch.randn(n_ou, N_ou, 1, generator=g, dtype=torch.float64)).to(DEVICE)
x_ou = sde.euler_maruyama(
    lambda z, u: -theta * z,
    lambda z: torch.full_like(z, vol_ou),
    torch.full((N_ou, 1), x0_ou, dtype=torch.float64, device=DEVICE),
    h_ou,
    dW=dW_ou,
)[-1, :, 0]
t_ou = n_ou * h_ou
mean_cf = x0_ou * math.exp(-theta * t_ou)
var_cf = vol_ou**2 / (2 * theta) * (1 - math.exp(-2 * theta * t_ou))
mean_gap, var_gap = abs(x_ou.mean().item() - mean_cf), abs(x_ou.var().item() - var_cf)
assert mean_gap < 4 * math.sqrt(var_cf / N_ou) + 2 * h_ou
assert var_gap < 4 * var_cf * math.sqrt(2 / N_ou) + 2 * h_ou
print(
    f"OU at t = {t_ou:g}: mean {x_ou.mean().item():.4f} vs {mean_cf:.4f}, "
    f"variance {x_ou.var().item():.4f} vs {var_cf:.4f} (within 4 s.e. + O(h))"
)

# %% [markdown]
# **Performance.** The batched kernel advanced 4096 paths × 1000 steps in the bound experiment
# above; its wall time on this machine (the `make bench` page compares it with `torchsde` and
# with the per-path loop):

# %% tags=["nbval-ignore-output"]
print(f"EM, {N_PATHS} paths x {N_STEPS} steps, d = {LATENT_DIM}: elapsed {em_seconds:.2f} s")

# %% [markdown]
# ## Limits of this reproduction
#
# - **The paper's equations.** We only had the abstract: the dual-channel gate/shift and the
#   diagonal logistic diffusion are our faithful reading of "dual-channel control modulation"
#   and "state-dependent operator", not the paper's exact layers, and our certificate is our own
#   derivation of a dissipativity-based bound of the kind the abstract announces.
# - **Data and scale.** A synthetic 2-D agent with a two-state hidden decision process replaces
#   the paper's biological motion data; models have about 1.6 k parameters and train for
#   `TRAIN_ITERS` = 200 steps at the default scale.
# - **Training objective.** We fit by minimising a sampled CRPS, not the ELBO of a latent SDE with
#   a posterior SDE and a KL term {cite}`li2020scalable`; the encoder gives a point estimate of
#   $z_0$.
# - **Accuracy is not reproduced against the strongest baseline.** A GRU of the same size
#   predicts the late-horizon position *more* accurately than CogSDE's ensemble mean (ADE ratio
#   CogSDE / GRU 1.03–1.43 over seeds 1–5), and the dissipative ODE ablation is about as accurate
#   (0.65–1.36), so claim 05.4 is printed NOT REPRODUCED. CogSDE beats the small-initialised
#   neural ODE in every seed we ran; the neural ODE with the default gain-1 initialisation
#   diverges and is shown only as a failure mode. We do not test a Transformer.
# - **Calibration.** The 90 % band under-covers at long horizons: its late-horizon coverage is
#   0.70–0.82 over seeds 1–5 (this run: table above), against the nominal 0.90, because the
#   model is trained on 2-s windows only; the toy does not reproduce
#   well-calibrated long-horizon uncertainty. CogSDE's CRPS advantage over the GRU is modest and
#   in one of five seeds a tie.
# - **Bound.** The certified bound is valid but loose by one to two orders of magnitude at
#   stationarity; it proves boundedness, not a sharp prediction of the spread.

# %% [markdown]
# ## Exercises
#
# ````{exercise} When is the bound an equality?
# :label: cogsde-ex-tight
#
# Take the Ornstein–Uhlenbeck SDE $dz = -\lambda z\,dt + \varsigma\,dW$ in $\mathbb{R}^d$
# (no command). Find the best $(\alpha, \beta)$ in {eq}`cogsde-eq-dissipative`, and show that
# {prf:ref}`cogsde-thm-ms` then holds with equality. Predict what the ratio of claim 05.1
# becomes, and check it with `sde.euler_maruyama`.
# ````
#
# ````{solution} cogsde-ex-tight
# :class: dropdown
#
# $2\langle z, -\lambda z\rangle + \lVert\varsigma I\rVert_F^2 = -2\lambda\lVert z\rVert^2 +
# d\varsigma^2$, so $\alpha = 2\lambda$ and $\beta(1 + 0) = d\varsigma^2$ (with $u = 0$). Itô's
# formula gives $m_t' = -2\lambda m_t + d\varsigma^2$ *exactly* (the inequality in the proof is an
# equality), whose solution is $m_t = e^{-2\lambda t}m_0 + \frac{d\varsigma^2}{2\lambda}
# (1 - e^{-2\lambda t})$ — the bound. The Monte-Carlo ratio is $1$ up to sampling error and the
# $O(h)$ bias of Euler–Maruyama (the scheme's stationary second moment is
# $d\varsigma^2 h / (1 - (1-\lambda h)^2) = \frac{d\varsigma^2}{\lambda(2 - \lambda h)}$, slightly
# above the SDE's). For example
# `sde.euler_maruyama(lambda z, u: -lam * z, lambda z: torch.full_like(z, s), z0, h, n_steps=n)`.
# ````
#
# ````{exercise} Change the noise and predict the slope
# :label: cogsde-ex-slope
#
# Replace geometric Brownian motion in claim 05.3 by the Ornstein–Uhlenbeck SDE
# $dX = -X\,dt + dW$, whose solution driven by the same path you can compute exactly on the fine
# grid. Predict the log-log slope before you run it, then measure it.
# ````
#
# ````{solution} cogsde-ex-slope
# :class: dropdown
#
# The noise is additive, so the double Itô integral dropped by Euler–Maruyama has coefficient
# $\partial G\, G = 0$ and the scheme coincides with the Milstein scheme: the slope is about
# $1$ ({prf:ref}`cogsde-thm-strong`). A convenient "exact" reference is Euler–Maruyama on the
# finest grid (or the exact discretisation $X_{k+1} = e^{-h}X_k + \int e^{-(t_{k+1}-s)}dW_s$);
# the measured slope lies close to 1, against 0.5 for GBM.
# ````
#
# ````{exercise} Break the step-size condition
# :label: cogsde-ex-step
#
# For the CogSDE of claim 05.1, compute $h^\star = \alpha/(2L^2)$ and the explicit-Euler
# stability limit of the linear part, $h_{\mathrm{lin}} = \min_\mu 2\operatorname{Re}\mu /
# \lvert\mu\rvert^2$ over the eigenvalues $\mu$ of $-A$. Run Euler–Maruyama over 20 s with $h$
# equal to $h^\star/2$, $2h^\star$, $0.9\,h_{\mathrm{lin}}$ and $1.5\,h_{\mathrm{lin}}$. Which
# runs stay bounded, and is {prf:ref}`cogsde-prop-em` sharp?
# ````
#
# ````{solution} cogsde-ex-step
# :class: dropdown
#
# For the model of claim 05.1 (seed 5) $h^\star \approx 0.079$ s and $h_{\mathrm{lin}} \approx
# 1.4$ s. The runs with $h^\star/2$, $2h^\star$ and even $0.9\,h_{\mathrm{lin}}$ stay bounded
# ($\mathbb{E}\lVert z_T\rVert^2$ of order 2–4), while $1.5\,h_{\mathrm{lin}}$ explodes (order
# $10^6$ after 20 s). The proposition is therefore only sufficient, and far from sharp: $2L^2$
# bounds $\lVert Az\rVert^2/\lVert z\rVert^2$ in the worst direction and Young's inequality
# wastes half the contraction. What does break the scheme is the instability of explicit Euler on
# the linear part: $z \mapsto (I + hA)z$ expands along an eigenvector once
# $\lvert 1 - h\mu\rvert > 1$, i.e. $h > 2\operatorname{Re}\mu/\lvert\mu\rvert^2$, and the
# bounded nonlinearity cannot stop a linear blow-up — although the SDE itself is dissipative.
# ````
#
# ````{exercise} Why does the gain-1 neural ODE diverge, and what keeps the GRU bounded?
# :label: cogsde-ex-gru
#
# The "neural ODE, gain 1" of the animal experiment fits the 2-s training windows about as well
# as the other models, yet its 20-s rollout leaves the plot. (a) Using the printed largest real
# part $r$ of an eigenvalue of its trained $A$, estimate by what factor a perturbation of the
# latent state grows over one training window and over the evaluation horizon. (b) Why does the
# CRPS loss on 2-s windows barely penalise $r > 0$? (c) Which property of the GRU plays the role
# of dissipativity? Retrain the neural ODE with `gain=1` and the penalty
# $\lambda\,\max\bigl(0, \lambda_{\max}((A + A^\top)/2)\bigr)^2$ added to the loss (a
# differentiable upper bound on $r$), and compare its late-horizon ADE with the table.
# ````
#
# ````{solution} cogsde-ex-gru
# :class: dropdown
#
# (a) The bounded nonlinearity cannot stop a linear instability, so the state grows roughly like
# $e^{rt}$: with $r \approx 0.8$/s that is $e^{1.6} \approx 5$ over 2 s and
# $e^{16} \approx 10^7$ over 20 s. (b) Within a window the growth is moderate, and the encoder and
# the linear decoder can place $z_0$ and read out $z_t$ so that the unstable direction is barely
# excited or barely visible; the loss never sees $t > 2$ s, so nothing pushes $r$ below 0. A
# penalty on $r$ (or, better, a parameterisation such as {eq}`cogsde-eq-param` that makes $r < 0$ impossible)
# removes the failure; the penalised model then behaves like the dissipative ODE. (c) A GRU's
# state is a convex combination of the previous state and a $\tanh$ candidate, so it stays in
# $[-1, 1]^d$ for ever whatever the weights: it is bounded by construction — the discrete-time
# analogue of the certificate of {prf:ref}`cogsde-prop-param`, though without a moment bound
# on a stochastic state.
# ````
#
# ## Summary
#
# - CogSDE models a latent decision state by a controlled SDE whose drift is steered by commands
#   through an additive and a multiplicative channel, with a state-dependent diffusion.
# - Dissipativity {eq}`cogsde-eq-dissipative` bounds $\mathbb{E}\lVert z_t\rVert^2$ uniformly in time (Itô + Grönwall);
#   a negative-definite-plus-skew linear part with bounded nonlinearities certifies $(\alpha,
#   \beta)$ from the weights, and Euler–Maruyama keeps a bound for $h < \alpha/(2L^2)$.
# - The batched kernel matches `torchsde`'s Euler path by path (to rounding error) and shows strong
#   order $1/2$ on GBM.
# - On a synthetic command-driven animal, CogSDE stays bounded and command-aligned over 10× the
#   training horizon and has the lowest CRPS; in accuracy it beats a neural ODE of the same size
#   but not a GRU, and a dissipative ODE is about as accurate — the paper's accuracy claim is not
#   reproduced against the strongest deterministic baseline.
# - Its long-horizon bands are too narrow in our toy: calibration over long horizons is not
#   reproduced.
