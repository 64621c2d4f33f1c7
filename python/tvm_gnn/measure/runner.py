# Licensed under the Apache License, Version 2.0.
"""How candidates are timed: MetaSchedule's evaluator settings and runners (local or RPC)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MeasureConfig:
    """How each candidate is timed (MetaSchedule's EvaluatorConfig) and how long it may take."""

    number: int = 3  # runs per measurement
    repeat: int = 1  # measurements per candidate (each the mean of `number` runs)
    min_repeat_ms: int = 40  # grow `number` until one measurement takes at least this long
    cache_flush: bool = False  # flush the CPU cache before each run
    build_timeout_sec: float = 30.0
    run_timeout_sec: float = 30.0


#: MetaSchedule's default evolutionary-search population; `collect` and `tune` default to it.
SEARCH_POPULATION = 512


#: How ``cache_flush=True`` times a candidate: one run per timing, 10 timings, the CPU cache
#: flushed before each (MetaSchedule's ``enable_cpu_cache_flush``, which flushes before every
#: timing, not every run, hence one run each).
COLD_MEASURE = MeasureConfig(number=1, repeat=10, min_repeat_ms=0, cache_flush=True)


def evaluator_config(measure: MeasureConfig):
    """MetaSchedule's ``EvaluatorConfig`` for ``measure``."""
    from tvm.s_tir import meta_schedule as ms

    return ms.runner.EvaluatorConfig(
        number=measure.number,
        repeat=measure.repeat,
        min_repeat_ms=measure.min_repeat_ms,
        enable_cpu_cache_flush=measure.cache_flush,
    )


def make_runner(
    measure: MeasureConfig,
    rpc_tracker: str | None = None,
    rpc_key: str | None = None,
    rpc_workers: int = 1,
):
    """A LocalRunner, or an RPCRunner through TVM's tracker when ``rpc_tracker`` is HOST:PORT."""
    from tvm.s_tir import meta_schedule as ms

    evaluator = evaluator_config(measure)
    if rpc_tracker is None:
        return ms.runner.LocalRunner(
            timeout_sec=measure.run_timeout_sec, evaluator_config=evaluator
        )
    host, _, port = rpc_tracker.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"--rpc-tracker must be HOST:PORT, got {rpc_tracker!r}")
    if not rpc_key:
        raise ValueError("--rpc-tracker needs --rpc-key")
    config = ms.runner.RPCConfig(
        tracker_host=host,
        tracker_port=int(port),
        tracker_key=rpc_key,
        session_timeout_sec=int(measure.run_timeout_sec * 4),
    )
    return ms.runner.RPCRunner(
        rpc_config=config, evaluator_config=evaluator, max_workers=rpc_workers
    )
