# Licensed under the Apache License, Version 2.0.
"""Tuning with a cost model: one workload (:mod:`~.workload`, ``tvm-gnn demo``), a whole network
(:mod:`~.end_to_end`, ``tvm-gnn tune``), its compilation and check (:mod:`~.compile`), the network
as it stood at smaller budgets (:mod:`~.budgets`) and its best kernels timed again
(:mod:`~.remeasure`).
"""

#: MetaSchedule profiler scopes where the cost model spends tuning time: scoring candidates in
#: the evolutionary search, embedding its proposals for a diverse batch (:mod:`~.diverse`), and
#: learning from the measured ones.
COST_MODEL_SCOPES = (
    "EvoSearch/Evolve/PredictNormalizedScore",
    "DiverseSearch/Embed",
    "MeasureCallback/UpdateCostModel",
)


def cost_model_seconds(profile: dict) -> float:
    """Seconds of a tuning run's profile (``ms.Profiler.get()``) spent in the cost model."""
    return sum(profile.get(k, 0.0) for k in COST_MODEL_SCOPES)
