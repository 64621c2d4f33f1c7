# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn tune``: tune a whole network with MetaSchedule, compile it, check it, time it.

The network comes from its PyTorch definition through Relax (:mod:`tvm_gnn.measure.networks`);
the task scheduler splits the trial budget over its tasks; the tuned network is compiled with the
database, its output is compared with PyTorch's (a mismatch is an error), and its end-to-end
latency is the median of repeated runs. The JSON log records, after every measured batch, the
task scheduler's estimate of end-to-end latency (sum over tasks of weight x best latency so far)
by trials and by wall-clock time, and MetaSchedule's profile of where tuning time went.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tvm.ir.utils import derived_object
from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback

from .. import atomic, space
from ..cost_models.factory import GNN_KINDS, make_cost_model
from ..costs import result_cost
from ..errors import DiskFullError
from ..measure import networks
from ..measure.builder import make_builder
from ..measure.hardware import cpu_identity, cpu_model, device_model
from ..measure.runner import COLD_MEASURE, EPS_GREEDY, SEARCH_POPULATION, make_runner
from ..nn.checkpoint import read_info
from ..resources import PRETRAINED
from .compile import COMPILE_VERSION, compile_check_time
from .workload import metaschedule_console_level, metaschedule_logger_ready, search_strategy

logger = logging.getLogger(__name__)


@derived_object
class CurveCallback(PyMeasureCallback):
    """Records the estimated end-to-end latency after each measured batch; drives a progress bar."""

    def __init__(self, weights: dict[int, float], total: int, progress: bool = True):
        from tqdm import tqdm

        self.weights = weights
        self.best: dict[int, float] = {}
        self.start = time.perf_counter()
        self.trials = 0
        self.errors = 0
        self.curve: list[dict] = []
        self.bar = tqdm(total=total, desc="tune", unit="trial", disable=not progress)
        self.records: Path | None = None  # the database's records file, watched for a full disk
        self.full: Exception | None = None  # the DiskFullError that stopped the run

    def estimate(self) -> float:
        if len(self.best) < len(self.weights):
            return math.inf
        return sum(w * self.best[t] for t, w in self.weights.items())

    def apply(self, task_scheduler, task_id, measure_candidates, builder_results, runner_results):
        if self.records is not None:  # after AddToDatabase: a full disk stops the run at once
            try:
                space.stop_if_full(
                    self.records,
                    f"the {_lines(self.records)} records measured before it filled are kept "
                    f"in {self.records}; free some space and tune again",
                )
            except DiskFullError as err:
                self.full = err
                raise
        for b, r in zip(builder_results, runner_results):
            lat = result_cost(b, r)
            if lat is None:
                self.errors += 1
                continue
            self.best[task_id] = min(self.best.get(task_id, math.inf), lat)
        self.trials += len(runner_results)
        est = self.estimate()
        self.curve.append(
            {
                "trials": self.trials,
                "seconds": time.perf_counter() - self.start,
                "estimated_latency_s": est if math.isfinite(est) else None,
            }
        )
        self.bar.update(len(runner_results))
        if math.isfinite(est):
            self.bar.set_postfix(estimate=f"{est * 1e3:.3f} ms", errors=self.errors)


def _lines(path: Path) -> int:
    """The whole lines of a records file (a line cut by the full disk is not one)."""
    try:
        return path.read_bytes().count(b"\n")
    except OSError:
        return 0


# What a run leaves in its work directory. MetaSchedule's JSON database appends to existing files,
# so a new run into the same directory would start from (and mix in) the last run's records.
RUN_FILES = (
    "database_workload.json",
    "database_tuning_record.json",
    "tune_log.json",
    "budgets.json",
    "logs",
)


def set_aside_previous_run(work_dir: Path) -> Path | None:
    """Move a previous (finished or killed) run's files out of the way; nothing is deleted.
    Returns the folder they went to, or None if ``work_dir`` held no run."""
    found = [work_dir / n for n in RUN_FILES if (work_dir / n).exists()]
    if not found:
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    dest, n = work_dir / f"previous-{stamp}", 1
    while dest.exists():
        dest, n = work_dir / f"previous-{stamp}-{n}", n + 1
    dest.mkdir()
    for path in found:
        os.replace(path, dest / path.name)
    logger.warning(
        "%s held an earlier run; its files were moved to %s and this run starts fresh",
        work_dir,
        dest,
    )
    return dest


@dataclass
class TuneResult:
    network: str
    cost_model: str
    trials: int
    latency_ms_median: float
    latency_ms_runs: list[float]
    tuning_seconds: float
    log_path: str


@dataclass(frozen=True)
class TuneSettings:
    """How :func:`tune_network` searches, checks and times (the defaults are ``tvm-gnn tune``'s).

    ``strategy`` is MetaSchedule's search strategy: ``evolutionary`` (what tuning uses) or
    ``replay-trace`` (random sampling, no search: quick checks); ``population`` is the
    evolutionary search's population (:data:`~tvm_gnn.measure.runner.SEARCH_POPULATION` by default;
    smaller searches faster and worse: tests and smoke runs; ``None`` in the log of a
    ``replay-trace`` run, which has none), ``eps_greedy`` its share of random picks, ``diverse``
    the width of a batch chosen for diversity (GNN models; :mod:`.diverse`). ``cache_flush``
    times every candidate cold, the CPU cache flushed before each of :data:`COLD_MEASURE`'s runs,
    instead of MetaSchedule's warm default, closer to how a kernel runs inside the network
    (:mod:`tvm_gnn.tune.remeasure`). ``repeats`` end-to-end runs time the compiled network,
    whose output must be allclose (``rtol``, ``atol``) to PyTorch's.
    """

    seed: int = 0
    trials_per_iter: int = 32
    strategy: str = "evolutionary"
    population: int | None = SEARCH_POPULATION
    eps_greedy: float = EPS_GREEDY
    diverse: int = 0
    cache_flush: bool = False
    repeats: int = 10
    rtol: float = 1e-3
    atol: float = 1e-4
    progress: bool = True


def tune_network(
    network: str,
    cost_model: str,
    trials: int,
    target,
    work_dir,
    settings: TuneSettings = TuneSettings(),  # noqa: B008 (frozen: one shared default is safe)
    *,
    checkpoint=None,
    data="data",
) -> TuneResult:
    """Tune, compile, check and time one network; write ``work_dir/tune_log.json``.

    ``settings`` (:class:`TuneSettings`) says how it searches, checks and times; ``checkpoint`` is
    the GNN's weights (the shipped ones by default), ``data`` what ``xgb-pretrained`` trains on.

    Every run starts from an empty database: files an earlier run left in ``work_dir`` are moved
    to ``work_dir/previous-<time>/`` (:func:`set_aside_previous_run`).

    Raises
    ------
    OutputMismatchError
        If the compiled network's output is not allclose to PyTorch's.
    """
    from tvm.s_tir import meta_schedule as ms

    st = settings
    if st.cache_flush and target.kind.name != "llvm":
        raise ValueError(f"cache_flush flushes the CPU cache; target {target.kind.name} has none")
    work_dir = Path(work_dir)
    mod, example, expected = reference_network(network, st.seed)
    tasks = ms.relax_integration.extract_tasks(mod, target)
    weights = {i: float(t.weight) for i, t in enumerate(tasks)}
    logger.info("%s: %d tasks", network, len(tasks))
    cm = make_cost_model(cost_model, seed=st.seed, checkpoint=checkpoint, data=data)  # fails first
    gnn_weights = weights_provenance(cost_model, checkpoint)  # the file as tuning starts from it
    work_dir.mkdir(parents=True, exist_ok=True)
    set_aside_previous_run(work_dir)
    curve = CurveCallback(weights, trials, st.progress)
    curve.records = work_dir / "database_tuning_record.json"
    # replay-trace has no population; the log says so
    population = st.population if st.strategy == "evolutionary" else None
    start = time.perf_counter()
    database, profile = _tune_relax(mod, target, work_dir, cm, curve, trials, st, population)
    tuning_seconds = time.perf_counter() - start
    curve.bar.close()
    runs, untuned = compile_check_time(
        database,
        mod,
        target,
        example,
        expected,
        repeats=st.repeats,
        rtol=st.rtol,
        atol=st.atol,
        what=network,
    )
    result = TuneResult(
        network,
        cost_model,
        trials,
        float(np.median(runs)),
        runs,
        tuning_seconds,
        str(work_dir / "tune_log.json"),
    )
    run = {
        "target": target,
        "seed": st.seed,
        "tasks": len(tasks),
        "cache_flush": st.cache_flush,
        "strategy": st.strategy,
        "population": population,
        "eps_greedy": st.eps_greedy if population is not None else None,
        "diverse": st.diverse if population is not None else None,
        "untuned": untuned,
        "weights": gnn_weights,
    }
    _write_log(work_dir, result, run, curve, profile)
    return result


def _tune_relax(mod, target, work_dir: Path, cost_model, curve, trials: int, st: TuneSettings,
                population: int | None):  # fmt: skip
    """MetaSchedule's ``tune_relax`` on ``mod``; the database and the profiler's seconds by
    scope. A disk that filled while recording raises its :class:`~tvm_gnn.errors.DiskFullError`."""
    from tvm.s_tir import meta_schedule as ms

    search = st.strategy  # replay-trace has no population
    if population is not None:
        search = search_strategy(cost_model, population, st.eps_greedy, st.diverse, st.seed)
    metaschedule_console_level()
    builder = make_builder()
    with ms.Profiler() as profiler, metaschedule_logger_ready():
        try:
            database = ms.relax_integration.tune_relax(
                mod=mod, params={}, target=target, work_dir=str(work_dir),
                max_trials_global=trials, num_trials_per_iter=st.trials_per_iter,
                builder=builder, cost_model=cost_model,
                runner=make_runner(COLD_MEASURE) if st.cache_flush else "local",
                measure_callbacks=[*ms.measure_callback.MeasureCallback.create("default"), curve],
                seed=st.seed, strategy=search,
            )  # fmt: skip
        except Exception:
            if curve.full is not None:  # raised in the callback, through TVM as a RuntimeError
                raise curve.full from None
            raise
        finally:
            builder.close()
    return database, {k: float(v) for k, v in profiler.get().items()}


def _write_log(work_dir: Path, result: TuneResult, run: dict, curve, profile: dict) -> None:
    """``work_dir/tune_log.json``: the result, the run's settings, its curve and profile, and
    the machine."""
    import tvm

    target = run["target"]
    log = {
        **result.__dict__,
        "target": str(target),
        "seed": run["seed"],
        "tasks": run["tasks"],
        "cache_flush": run["cache_flush"],
        "strategy": run["strategy"],
        "population": run["population"],
        "eps_greedy": run["eps_greedy"],
        "diverse": run["diverse"],
        "failed_trials": curve.errors,
        "untuned_functions": run["untuned"],
        "curve": curve.curve,
        "profile_seconds": profile,
        "compile_version": COMPILE_VERSION,
        "cpu_count": os.cpu_count(),
        "cpu": cpu_model(),
        "cpu_id": cpu_identity(),
        "device": device_model(target),
        "tvm_version": tvm.__version__,
        "weights": run["weights"],
    }
    atomic.write_json(work_dir / "tune_log.json", log)


#: the cost models whose runs depend on the GNN weights (the others use none)
WEIGHTED_COST_MODELS = (*GNN_KINDS, "xgb-pretrained")


def weights_provenance(cost_model, checkpoint=None) -> dict | None:
    """Which GNN weights a run started from: path, SHA-256 and the networks they were trained on.

    The GNN's kinds (``gnn``, ``gnn-head``, ...) start from them and ``xgb-pretrained`` trains on
    their training networks' records, so a run's log must say which weights it used: the shipped
    weights change as the dataset grows. None for cost models that use no weights.
    """
    if cost_model not in WEIGHTED_COST_MODELS:
        return None
    path = Path(checkpoint or PRETRAINED)
    info = read_info(path)
    return {
        "path": str(path),
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "hardware": info.get("hardware"),
        "train_networks": info.get("train_networks"),
    }


def reference_network(network: str, seed: int):
    """The network as Relax (fused, what tasks come from), an input, and PyTorch's output for it."""
    import torch

    model, example = networks.get_torch(network, seed=seed)
    with torch.no_grad():
        expected = model(example).numpy()
    return networks.to_relax(model, example), example, expected
