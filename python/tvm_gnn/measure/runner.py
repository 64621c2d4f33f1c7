# Licensed under the Apache License, Version 2.0.
"""How candidates are timed: MetaSchedule's evaluator settings and runners (local or RPC)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import MeasureServiceError


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
#: MetaSchedule's share of each round's picks that its evolutionary search takes at random from
#: the unmeasured initial population instead of its best-scored (``tvm-gnn tune --eps-greedy``)
EPS_GREEDY = 0.05


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
    host, port = tracker_address(rpc_tracker)
    if not rpc_key:
        raise ValueError("--rpc-tracker needs --rpc-key")
    check_tracker(host, port, rpc_key)
    config = ms.runner.RPCConfig(
        tracker_host=host,
        tracker_port=port,
        tracker_key=rpc_key,
        session_timeout_sec=int(measure.run_timeout_sec * 4),
    )
    return ms.runner.RPCRunner(
        rpc_config=config, evaluator_config=evaluator, max_workers=rpc_workers
    )


def tracker_address(text: str) -> tuple[str, int]:
    """``(host, port)`` of ``HOST:PORT``; ``ValueError`` unless the port is in 1-65535."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--rpc-tracker must be HOST:PORT with a port in 1-65535, got {text!r}")
    return host, int(port)


#: How long :func:`check_tracker` waits for a device to register under the key.
REGISTER_WAIT_S = 10.0


def check_tracker(host: str, port: int, key: str, wait_s: float = REGISTER_WAIT_S) -> None:
    """:class:`~tvm_gnn.errors.MeasureServiceError` unless the RPC tracker at ``host:port``
    answers and has a device under ``key`` (waiting up to ``wait_s`` for one to register): an
    outage must stop a run at once, not turn every candidate into a failed record after a
    minute of TVM's retries."""
    import socket
    import time

    from tvm.rpc.client import TrackerSession

    where = f"the RPC tracker at {host}:{port}"
    try:
        socket.create_connection((host, port), timeout=5).close()
        tracker = TrackerSession((host, port))
    except (OSError, RuntimeError) as err:
        raise MeasureServiceError(
            f"cannot reach {where} ({err}); start it (`python -m tvm.exec.rpc_tracker --port "
            f"{port}`) or correct --rpc-tracker; nothing was measured"
        ) from None
    deadline = time.monotonic() + wait_s
    while True:
        keys = tracker.summary().get("queue_info", {})
        if key in keys or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    tracker.close()
    if key not in keys:
        raise MeasureServiceError(
            f"{where} has no device under key {key!r} (keys there: {', '.join(keys) or 'none'});"
            " start one (`python -m tvm.exec.rpc_server --tracker "
            f"{host}:{port} --key {key}`) or correct --rpc-key; nothing was measured"
        )


#: What TVM's RPC runner says when the tracker or every device of the key is gone: the service
#: failed, not the program (``tvm/rpc/base.py``, ``tvm/rpc/client.py``)
_SERVICE_DOWN = ("Failed to connect to server", "Cannot connect to tracker", "Cannot request ")


def service_down(result) -> bool:
    """Whether a ``RunnerResult`` failed because the measuring service is unreachable."""
    msg = result.error_msg or ""
    return any(s in msg for s in _SERVICE_DOWN)


def outage(why: str):
    """The error that stops a run whose measuring service went away mid-run."""
    last = why.strip().splitlines()[-1] if why.strip() else "no answer"
    return MeasureServiceError(
        f"the measuring service stopped answering ({last}); the batch was not recorded, every "
        "record before it is kept: the same command resumes once the service is back"
    )
