# Licensed under the Apache License, Version 2.0.
"""Tuning with a cost model: one workload (:mod:`~.workload`, ``tvm-gnn demo``), a whole network
(:mod:`~.network`, ``tvm-gnn tune``), its compilation and check (:mod:`~.compile`), the network
as it stood at smaller budgets (:mod:`~.budgets`) and its best kernels timed again
(:mod:`~.remeasure`).
"""
