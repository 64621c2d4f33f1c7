# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn collect``: measure candidate schedules of real network tasks into MetaSchedule
databases.

For each task of a network, ``trials_per_task`` candidates are measured:

1. a ``uniform_fraction`` of them sampled uniformly from MetaSchedule's design space (random
   decisions, post-processed), from the slowest programs to the fastest;
2. the rest proposed by MetaSchedule's evolutionary search. Its XGBModel is new to each search and
   scores at random until it has trained on 100 measured programs (TVM's warm-up), more than a
   task's search measures, so in latency these records are another uniform sample
   (``benchmarks/data/search_half.py``); ``uniform_fraction=1`` measures uniform draws only, with no
   search;
3. if the task is still short (repeated draws, failed records, a search that ran out),
   ``EXHAUST_DRAWS`` more uniform draws: they measure the programs missing, or, finding too few
   unrecorded, mark the design space exhausted (a small space's search keeps re-proposing
   recorded programs and never proves it is done).

With ``wide_spread`` set, a task whose first ``trials_per_task`` valid latencies spread by at
least that ratio (90th percentile over 10th, :func:`config.latency_spread`) is measured the same
way up to ``wide_spread_trials``, from seeds of its own (``CollectConfig.task_target``);
:mod:`tvm_gnn.collect.plan` says what a setting would add to a dataset before any of it is measured.
With ``skip_shared``, a task whose workload another network's folder already has
``trials_per_task`` valid records of is left to it (listed in the folder's ``shared.json``), so a
network that shares most of its operators with the dataset costs only its new ones.

Records go into one standard JSON database per network and hardware
(``OUT/<hardware>/<network>/database_*.json``, loadable by ``ms.database.JSONDatabase``), committed
after every measured batch. Killed at any point and run again with the same arguments, it resumes:
measured records are never lost, and never recorded twice: uniform samples are deterministic and
skipped when already recorded, and a program the evolutionary search proposes again is measured but
not recorded (:func:`tvm_gnn.collect.recording._commit_new_class`). One run writes a folder at a
time (:func:`tvm_gnn.lock.one_writer`); a packed folder, whose ``.gz`` files raw ones would hide,
is refused (:func:`~.network.check_raw`), and ``tasks.json`` lists every task the network has
even when ``max_tasks`` measures fewer.
"""

from .config import CollectConfig, provenance
from .network import (
    check_raw,
    check_same_cpu,
    collect_network,
    network_tasks,
    refuse_packed,
    task_manifest,
)
from .task import EVOLUTION_ROUNDS, EXHAUST_DRAWS, collect_task, unrecorded_draws

__all__ = [
    "EVOLUTION_ROUNDS",
    "EXHAUST_DRAWS",
    "CollectConfig",
    "check_raw",
    "check_same_cpu",
    "collect_network",
    "collect_task",
    "network_tasks",
    "provenance",
    "refuse_packed",
    "task_manifest",
    "unrecorded_draws",
]
