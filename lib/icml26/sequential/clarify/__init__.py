"""Goal-oriented clarification with an information-gain reward (chapter 04).

The "τ-toy retail" environment of chapter 04, batched over tasks, on any torch device:

- a goal is a tuple of ``K`` attributes with ``V`` values each (``G = V**K`` goals) with a
  Zipf prior (:func:`make_env`); a task reveals a random subset of the attributes of its hidden
  goal ``G*`` in the instruction ``x`` (:func:`sample_tasks`, :func:`initial_belief`);
- the clarifier's actions are ``ask(k)`` for every attribute, ``vague`` ("anything else?"),
  ``confirm`` (the current most probable goal, yes/no) and ``no-ask``; a strict simulated user
  answers truthfully except with probability ``eps`` (:func:`answer`,
  :func:`likelihood_matrix`);
- the belief is the exact Bayesian posterior over goals (:func:`update`), the reward is the
  paper's information gain ``R = log P(G*|x,Q,A) − log P(G*|x)`` (:func:`ig_reward`,
  :prf:ref:`clarification-def-ig`), and :func:`eig` gives its expectation in closed form for every
  action (:prf:ref:`clarification-thm-eig`), :func:`mutual_information` by enumerating answers;
- agents of different competence commit to a goal by sampling the tempered belief
  (:func:`commit`; temperature 0 is the MAP);
- a linear-softmax clarifier (:func:`features`, :func:`softmax_policy`) is trained with
  group-normalised policy gradients (:prf:ref:`clarification-def-grpo`) on the IG reward or on the
  sparse success reward (:func:`train_clarifier`), and compared with the oracle greedy-EIG
  clarifier (:func:`oracle_policy`) and a random-question one (:func:`random_policy`) by
  :func:`rollout` and :func:`evaluate`.
"""

from __future__ import annotations

from icml26.sequential.clarify.policies import (
    Policy,
    Rollout,
    evaluate,
    features,
    n_features,
    no_ask_policy,
    oracle_policy,
    random_policy,
    rollout,
    softmax_policy,
)
from icml26.sequential.clarify.training import train_clarifier
from icml26.sequential.clarify.world import (
    RetailEnv,
    Tasks,
    action_names,
    answer,
    commit,
    eig,
    ig_reward,
    initial_belief,
    likelihood_matrix,
    make_env,
    marginals,
    mutual_information,
    sample_tasks,
    update,
)

__all__ = [
    "Policy",
    "RetailEnv",
    "Rollout",
    "Tasks",
    "action_names",
    "answer",
    "commit",
    "eig",
    "evaluate",
    "features",
    "ig_reward",
    "initial_belief",
    "likelihood_matrix",
    "make_env",
    "marginals",
    "mutual_information",
    "n_features",
    "no_ask_policy",
    "oracle_policy",
    "random_policy",
    "rollout",
    "sample_tasks",
    "softmax_policy",
    "train_clarifier",
    "update",
]
