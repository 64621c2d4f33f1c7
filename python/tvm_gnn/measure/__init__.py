# Licensed under the Apache License, Version 2.0.
"""Measuring on this machine: hardware naming, the builder, runners, candidate sampling, and the
programs measured (real networks, synthetic operator families, built-in workloads).

Nothing is imported here: MetaSchedule's build workers import :mod:`tvm_gnn.measure.builder`
and must start fast.
"""
