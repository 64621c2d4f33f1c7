# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn tune``: tune a whole network with MetaSchedule, compile it, check it, time it.

The network comes from its PyTorch definition through Relax (:mod:`tvm_gnn.networks`); the task
scheduler splits the trial budget over its tasks; the tuned network is compiled with the database,
its output is compared with PyTorch's (a mismatch is an error), and its end-to-end latency is the
median of repeated runs. The JSON log records, after every measured batch, the task scheduler's
estimate of end-to-end latency (sum over tasks of weight x best latency so far) by trials and by
wall-clock time, and MetaSchedule's profile of where tuning time went.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tvm.ir.utils import derived_object
from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback

from .collect import SEARCH_POPULATION, MeasureConfig, cpu_model, device_model, make_runner
from .tune import measured_latency

logger = logging.getLogger(__name__)

# Bumped when how a tuned network is compiled changes; budgets.json from another version is redone.
# 2: the database is applied to the tuned (already fused) functions, not to a re-fused module.
COMPILE_VERSION = 2

#: How ``cache_flush=True`` times a candidate: one run per timing, 10 timings, the CPU cache
#: flushed before each (MetaSchedule's ``enable_cpu_cache_flush``, which flushes before every
#: timing, not every run, hence one run each).
COLD_MEASURE = MeasureConfig(number=1, repeat=10, min_repeat_ms=0, cache_flush=True)


class OutputMismatchError(RuntimeError):
    """The tuned network's output differs from PyTorch's."""


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

    def estimate(self) -> float:
        if len(self.best) < len(self.weights):
            return math.inf
        return sum(w * self.best[t] for t, w in self.weights.items())

    def apply(self, task_scheduler, task_id, measure_candidates, builder_results, runner_results):
        for b, r in zip(builder_results, runner_results):
            lat = measured_latency(b, r)
            if lat is None:
                self.errors += 1
                continue
            self.best[task_id] = min(self.best.get(task_id, math.inf), lat)
        self.trials += len(runner_results)
        est = self.estimate()
        self.curve.append({"trials": self.trials, "seconds": time.perf_counter() - self.start,
                           "estimated_latency_s": est if math.isfinite(est) else None})
        self.bar.update(len(runner_results))
        if math.isfinite(est):
            self.bar.set_postfix(estimate=f"{est * 1e3:.3f} ms", errors=self.errors)


# What a run leaves in its work directory. MetaSchedule's JSON database appends to existing files,
# so a new run into the same directory would start from (and mix in) the last run's records.
RUN_FILES = ("database_workload.json", "database_tuning_record.json", "tune_log.json",
             "budgets.json", "logs")


def set_aside_previous_run(work_dir: Path) -> Path | None:
    """Move a previous (finished or killed) run's files out of the way; nothing is deleted.

    Returns the folder they went to, or None if ``work_dir`` held no run.
    """
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
    logger.warning("%s held an earlier run; its files were moved to %s and this run starts fresh",
                   work_dir, dest)
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


def tune_network(network: str, cost_model: str, trials: int, target, work_dir, *, seed: int = 0,
                 checkpoint=None, trials_per_iter: int = 32, repeats: int = 10,
                 rtol: float = 1e-3, atol: float = 1e-4, progress: bool = True,
                 strategy: str = "evolutionary", population: int = SEARCH_POPULATION, data="data",
                 cache_flush: bool = False) -> TuneResult:  # fmt: skip
    """Tune, compile, check and time one network; write ``work_dir/tune_log.json``.

    ``strategy`` is MetaSchedule's search strategy: ``evolutionary`` (what tuning uses) or
    ``replay-trace`` (random sampling, no search: quick checks); ``population`` is the
    evolutionary search's population (:data:`~tvm_gnn.collect.SEARCH_POPULATION` by default;
    smaller searches faster and worse: tests and smoke runs; ``None`` in the log of a
    ``replay-trace`` run, which has none). ``data`` is the dataset that
    ``xgb-pretrained`` trains on. ``cache_flush`` times every candidate cold, the CPU cache
    flushed before each of :data:`COLD_MEASURE`'s runs, instead of MetaSchedule's default (warm:
    3 runs in a row on cached data), closer to how a kernel runs inside the network
    (:mod:`tvm_gnn.remeasure`).

    Every run starts from an empty database: files an earlier run left in ``work_dir`` are moved
    to ``work_dir/previous-<time>/`` (:func:`set_aside_previous_run`).

    Raises
    ------
    OutputMismatchError
        If the compiled network's output is not allclose to PyTorch's.
    """
    import tvm
    from tvm.s_tir import meta_schedule as ms

    from .builder import make_builder
    from .tune import make_cost_model

    if cache_flush and target.kind.name != "llvm":
        raise ValueError(f"cache_flush flushes the CPU cache; target {target.kind.name} has none")
    work_dir = Path(work_dir)
    mod, example, expected = reference_network(network, seed)
    tasks = ms.relax_integration.extract_tasks(mod, target)
    weights = {i: float(t.weight) for i, t in enumerate(tasks)}
    logger.info("%s: %d tasks", network, len(tasks))
    cm = make_cost_model(cost_model, seed=seed, checkpoint=checkpoint, data=data)  # fails first
    gnn_weights = weights_provenance(cost_model, checkpoint)  # the file as tuning starts from it
    work_dir.mkdir(parents=True, exist_ok=True)
    set_aside_previous_run(work_dir)
    curve = CurveCallback(weights, trials, progress)
    if strategy != "evolutionary":
        population = None  # replay-trace has no population; the log says so
    search = ms.search_strategy.EvolutionarySearch(population_size=population) \
        if population is not None else strategy  # fmt: skip
    start = time.perf_counter()
    with ms.Profiler() as profiler:
        database = ms.relax_integration.tune_relax(
            mod=mod, params={}, target=target, work_dir=str(work_dir), max_trials_global=trials,
            num_trials_per_iter=trials_per_iter, builder=make_builder(), cost_model=cm,
            runner=make_runner(COLD_MEASURE) if cache_flush else "local",
            measure_callbacks=[*ms.measure_callback.MeasureCallback.create("default"), curve],
            seed=seed, strategy=search,
        )  # fmt: skip
    tuning_seconds = time.perf_counter() - start
    curve.bar.close()
    runs, untuned = compile_check_time(database, mod, target, example, expected, repeats=repeats,
                                       rtol=rtol, atol=atol, what=network)  # fmt: skip
    result = TuneResult(network, cost_model, trials, float(np.median(runs)), runs, tuning_seconds,
                        str(work_dir / "tune_log.json"))  # fmt: skip
    profile = {k: float(v) for k, v in profiler.get().items()}
    log = {**result.__dict__, "target": str(target), "seed": seed, "tasks": len(tasks),
           "cache_flush": cache_flush, "strategy": strategy,
           "population": population,
           "failed_trials": curve.errors,
           "untuned_functions": untuned, "curve": curve.curve, "profile_seconds": profile,
           "compile_version": COMPILE_VERSION, "cpu_count": os.cpu_count(), "cpu": cpu_model(),
           "device": device_model(target), "tvm_version": tvm.__version__,
           "weights": gnn_weights}  # fmt: skip
    tmp = work_dir / "tune_log.json.tmp"
    tmp.write_text(json.dumps(log, indent=1))
    os.replace(tmp, work_dir / "tune_log.json")
    return result


#: the cost models whose runs depend on the GNN weights (the others use none)
WEIGHTED_COST_MODELS = ("gnn", "xgb-pretrained")


def weights_provenance(cost_model, checkpoint=None) -> dict | None:
    """Which GNN weights a run started from: path, SHA-256 and the networks they were trained on.

    ``gnn`` starts from them and ``xgb-pretrained`` trains on their training networks' records, so
    a run's log must say which weights it used: the shipped weights change as the dataset grows.
    None for cost models that use no weights.
    """
    if cost_model not in WEIGHTED_COST_MODELS:
        return None
    import hashlib

    from . import checkpoint as ckpt
    from .cost_model import PRETRAINED

    path = Path(checkpoint or PRETRAINED)
    info = ckpt.load(path)[2]
    return {"path": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "hardware": info.get("hardware"), "train_networks": info.get("train_networks")}


def reference_network(network: str, seed: int):
    """The network as Relax (fused, what tasks come from), an input, and PyTorch's output for it."""
    import torch

    from . import networks

    model, example = networks.get_torch(network, seed=seed)
    with torch.no_grad():
        expected = model(example).numpy()
    return networks.to_relax(model, example), example, expected


def compile_with_database(database, mod, target):
    """Build the fused Relax module ``mod`` with every PrimFunc replaced by its tuned schedule.

    ``mod`` is what :func:`tvm_gnn.networks.to_relax` returns: already legalized and fused (the
    ``zero`` pipeline), and the tasks were extracted from it. TVM's ``compile_relax`` would
    legalize and fuse it a second time, which merges a convolution's fused function with the
    elementwise one after it into functions that were never tuned (ResNet-18 then runs as if
    untuned). Like TVM's ``static_shape_tuning`` pipeline, the database is applied to the very
    functions that were tuned, then the module is lowered and finalized.

    Returns
    -------
    executable, untuned : relax.VMExecutable, list[str]
        The build, and the PrimFuncs the database had no record for (left unscheduled).
    """
    import tvm
    from tvm import relax, tirx
    from tvm.relax import pipeline as rp

    with target, database, tvm.transform.PassContext(opt_level=3):
        applied = relax.transform.MetaScheduleApplyDatabase(enable_warning=False)(mod)
    untuned = sorted(gv.name_hint for gv, f in applied.functions.items()
                     if isinstance(f, tirx.PrimFunc)
                     and not (f.attrs and f.attrs.get("tirx.is_scheduled")))  # fmt: skip
    gpu = "gpu" in target.keys
    if untuned:
        logger.warning("no tuning record for %d function(s), left %s: %s", len(untuned),
                       "to dlight's fallback GPU schedule" if gpu else "unscheduled",
                       ", ".join(untuned))  # fmt: skip
        if gpu:  # a GPU kernel needs its threads bound to build at all
            from tvm.s_tir import dlight

            with target:
                applied = dlight.ApplyDefaultSchedule(dlight.gpu.Fallback())(applied)
    try:
        passes = [*rp.dataflow_lower_passes(target), *rp.finalize_passes(target)]
    except AttributeError:  # apache-tvm 0.26.0's backend packages do not re-export them
        import importlib

        name = {"llvm": "cpu_generic", "cuda": "cuda"}.get(target.kind.name, "gpu_generic")
        backend = importlib.import_module(f"tvm.relax.backend.{name}.pipeline")
        passes = [*backend.dataflow_lower_passes(target), *backend.finalize_passes(target)]
    lower = tvm.transform.Sequential(passes)
    with target, tvm.transform.PassContext(opt_level=3):
        executable = relax.build(applied, target=target, relax_pipeline=lower)
    return executable, untuned


def compile_checked(database, mod, target, example, expected, *, rtol: float = 1e-3,
                    atol: float = 1e-4, what: str = "network"):
    """Compile ``mod`` with ``database`` and check its output against ``expected``.

    Returns
    -------
    vm, inp, untuned : relax.VirtualMachine, tvm.runtime.Tensor, list[str]
        The compiled network, its input on the device, and the functions the database had no
        record for.

    Raises
    ------
    OutputMismatchError
        If the compiled network's output is not allclose to ``expected``.
    """
    import tvm
    from tvm import relax

    executable, untuned = compile_with_database(database, mod, target)
    dev = tvm.cpu() if target.kind.name == "llvm" else tvm.device(target.kind.name)
    vm = relax.VirtualMachine(executable, dev)
    inp = tvm.runtime.tensor(example.numpy(), dev)
    out = vm["main"](inp)
    got = (out[0] if isinstance(out, (list, tuple)) or hasattr(out, "__getitem__")
           and not hasattr(out, "numpy") else out).numpy()  # fmt: skip
    if got.shape != expected.shape or not np.allclose(got, expected, rtol=rtol, atol=atol):
        diff = float(np.max(np.abs(got - expected))) if got.shape == expected.shape else math.nan
        raise OutputMismatchError(
            f"{what}: tuned output differs from PyTorch's (shape {got.shape} vs "
            f"{expected.shape}, max abs diff {diff:.3g}, rtol={rtol}, atol={atol})"
        )
    return vm, inp, untuned


def time_network(vm, inp, repeats: int) -> list[float]:
    """Milliseconds per run of the compiled network, ``repeats`` times (each at least 50 ms)."""
    timer = vm.time_evaluator("main", inp.device, number=1, repeat=repeats, min_repeat_ms=50)
    return [float(t) * 1e3 for t in timer(inp).results]


def compile_check_time(database, mod, target, example, expected, *, repeats: int = 10,
                       rtol: float = 1e-3, atol: float = 1e-4, what: str = "network"):
    """Compile ``mod`` with ``database``, check it against ``expected``, time it.

    Returns
    -------
    runs, untuned : list[float], list[str]
        Milliseconds per timed run, and the functions the database had no record for.

    Raises
    ------
    OutputMismatchError
        If the compiled network's output is not allclose to ``expected``.
    """
    vm, inp, untuned = compile_checked(database, mod, target, example, expected, rtol=rtol,
                                       atol=atol, what=what)  # fmt: skip
    return time_network(vm, inp, repeats), untuned


def read_budgets(work_dir) -> dict:
    """``work_dir/budgets.json`` as ``{budget: result}``; empty if absent or from an older build."""
    path = Path(work_dir) / "budgets.json"
    if not path.exists():
        return {}
    saved = json.loads(path.read_text())
    if saved.get("compile_version") != COMPILE_VERSION:
        return {}
    return {int(k): v for k, v in saved["budgets"].items()}


def latency_at_budgets(work_dir, budgets, *, repeats: int = 10, progress: bool = True) -> dict:
    """Measured end-to-end latency of a finished run as if it had stopped after each budget.

    MetaSchedule's JSON database appends one line per measured trial, failures included, in the
    order they were measured; the first ``b`` lines are the database a ``b``-trial run would have
    left. Each budget's network is compiled with those, checked against PyTorch and timed.
    Results are stored in ``work_dir/budgets.json`` and budgets already there are not redone.

    Returns
    -------
    dict
        ``{budget: {"latency_ms_median": ..., "latency_ms_runs": [...], "records": n}}``.
    """
    import tvm
    from tqdm import tqdm

    work_dir = Path(work_dir)
    log = json.loads((work_dir / "tune_log.json").read_text())
    out_path = work_dir / "budgets.json"
    done = read_budgets(work_dir)
    todo = [b for b in sorted(set(budgets)) if b not in done and b <= log["trials"]]
    if not todo:
        return done
    target = tvm.target.Target(log["target"])
    mod, example, expected = reference_network(log["network"], log["seed"])
    run_database = read_run_database(work_dir)  # once, not per budget

    for b in tqdm(todo, desc=f"{log['network']}/{log['cost_model']} budgets", disable=not progress):
        with database_at(run_database, b) as (db, records):
            runs, untuned = compile_check_time(db, mod, target, example, expected,
                                               repeats=repeats,
                                               what=f"{log['network']} after {b} trials")
        done[b] = {"latency_ms_median": float(np.median(runs)), "latency_ms_runs": runs,
                   "records": records, "untuned_functions": len(untuned)}
        tmp_out = out_path.with_suffix(".json.tmp")
        tmp_out.write_text(json.dumps({"compile_version": COMPILE_VERSION,
                                       "budgets": {str(k): v for k, v in sorted(done.items())}},
                                      indent=1))  # fmt: skip
        os.replace(tmp_out, out_path)
    return done


def read_run_database(work_dir) -> tuple[str, list[str]]:
    """A run's workload file (text) and its tuning records (lines, in measurement order)."""
    work_dir = Path(work_dir)
    records = (work_dir / "database_tuning_record.json").read_text().splitlines()
    return ((work_dir / "database_workload.json").read_text(),
            [ln for ln in records if ln.strip()])  # fmt: skip


@contextlib.contextmanager
def database_at(run_database: tuple[str, list[str]], budget: int):
    """A database of a run's first ``budget`` measured trials (and its record count), while open.

    ``run_database`` is what :func:`read_run_database` returns. MetaSchedule's JSON database
    appends one line per measured trial, failures included, in the order they were measured: the
    first ``budget`` lines are what a ``budget``-trial run would have left.
    """
    import tempfile

    from tvm.s_tir import meta_schedule as ms

    workloads, records = run_database[0], run_database[1][:budget]
    with tempfile.TemporaryDirectory() as tmp:
        wl, tr = Path(tmp) / "database_workload.json", Path(tmp) / "database_tuning_record.json"
        wl.write_text(workloads)
        tr.write_text("".join(ln + "\n" for ln in records))
        db = ms.database.JSONDatabase(path_workload=str(wl), path_tuning_record=str(tr))
        yield db, len(records)


def head_to_head(work_dirs: dict, budget: int, *, rounds: int = 10,
                 progress: bool = True) -> dict[str, list[float]]:
    """Time several runs' networks (each as it stood after ``budget`` trials) in turn, one process.

    Latencies timed minutes or hours apart drift with the machine's state (a shared 2-core
    machine: other jobs, frequency, memory placement) by more than their own spread. Here every
    network is compiled and checked first, then timed one repeat at a time, round after round,
    the order rotated every round, so that drift hits all of them alike and their ratio is a
    comparison inside one run.

    Parameters
    ----------
    work_dirs
        ``{label: work_dir}`` of finished runs of one network and target.

    Returns
    -------
    dict
        ``{label: [ms per round]}``.
    """
    import tvm
    from tqdm import tqdm

    logs = {k: json.loads((Path(w) / "tune_log.json").read_text()) for k, w in work_dirs.items()}
    kinds = {(lg["network"], lg["target"]) for lg in logs.values()}
    if len(kinds) != 1:
        raise ValueError(f"head_to_head compares runs of one network and target, got {kinds}")
    (network, target_str), = kinds
    target = tvm.target.Target(target_str)
    compiled = {}
    references: dict[int, tuple] = {}
    for label, w in tqdm(work_dirs.items(), desc=f"{network} compile @ {budget}",
                         disable=not progress):  # fmt: skip
        seed = logs[label]["seed"]
        if seed not in references:
            references[seed] = reference_network(network, seed)
        mod, example, expected = references[seed]
        with database_at(read_run_database(w), budget) as (db, _):
            vm, inp, _ = compile_checked(db, mod, target, example, expected,
                                         what=f"{network} ({label}) after {budget} trials")
        compiled[label] = (vm, inp)
    labels = list(compiled)
    times: dict[str, list[float]] = {k: [] for k in labels}
    for r in tqdm(range(rounds), desc=f"{network} time in turn", disable=not progress):
        shift = r % len(labels)
        for label in labels[shift:] + labels[:shift]:
            times[label] += time_network(*compiled[label], repeats=1)
    return times
