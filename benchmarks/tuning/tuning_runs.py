# Licensed under the Apache License, Version 2.0.
"""What the tuning benchmarks share (``tune_networks.py``, its report, ``network_seeds.py``): the
committed archive of finished runs, the order of cost models in a table, and the numbers read
off a run's log (the scheduler's estimate at a budget, the trials to reach a latency, the cost
model's share of wall-clock, the machine)."""

from __future__ import annotations

import datetime
import json
import math
from pathlib import Path

import numpy as np

from tvm_gnn import atomic
from tvm_gnn.nn import scratch
from tvm_gnn.tune import cost_model_seconds

MODEL_ORDER = ("gnn", "gnn-head", "xgb", "xgb-pretrained", "random")

#: what the archive keeps of a run: its logs, and its databases gzipped
ARCHIVED = (
    "tune_log.json",
    "budgets.json",
    "database_workload.json",
    "database_tuning_record.json",
)


def this_machines_archive() -> Path:
    """The committed archive of this machine's hardware: ``benchmarks/tuning-runs/HARDWARE``."""
    from tvm_gnn.measure.hardware import hardware_name
    from tvm_gnn.measure.sampling import target_from

    root = Path(__file__).resolve().parents[2]
    return root / "benchmarks" / "tuning-runs" / hardware_name(target_from("llvm", None))


def model_order(label: str) -> tuple:
    """Sort key for cost models (or ``model/seedN`` labels): MODEL_ORDER, then others by name."""
    model = label.split("/")[0]
    return (MODEL_ORDER.index(model) if model in MODEL_ORDER else len(MODEL_ORDER), label)


def log_interval(ratios: list[float], level: float = 0.95) -> tuple[float, float, float]:
    """Geometric mean of ``ratios`` and its t-interval over seeds (on the log ratios; the ends
    are nan with one seed)."""
    from scipy import stats

    logs = np.log(ratios)
    mean = float(np.mean(logs))
    if len(logs) < 2:
        return math.exp(mean), math.nan, math.nan
    half = stats.t.ppf(0.5 + level / 2, len(logs) - 1) * np.std(logs, ddof=1) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def archive(work: Path, dest: Path) -> None:
    """Copy a finished run's logs (and its databases, gzipped) into the committed archive, each
    file whole or not at all (:mod:`tvm_gnn.atomic`); an archived database that holds the same
    bytes is left as it is."""
    from tvm_gnn.dataset.archive import gzip_bytes
    from tvm_gnn.dataset.layout import gunzip

    for name in ARCHIVED:
        src = work / name
        if not src.exists():
            continue
        if name.startswith("database_"):
            kept = dest / f"{name}.gz"
            if not (kept.exists() and gunzip(kept) == src.read_bytes()):
                atomic.write_bytes(kept, gzip_bytes(src, name))
        else:
            atomic.write_bytes(dest / name, src.read_bytes())


def restore(kept: Path, work: Path) -> bool:
    """Unpack an archived run into ``work`` (a new machine of the same hardware resumes from the
    archive instead of tuning again). Returns whether there was a finished run to restore."""
    from tvm_gnn.dataset.layout import gunzip

    if not (kept / "tune_log.json").exists():
        return False
    for name in (n for n in ARCHIVED if n != "tune_log.json"):
        if (kept / name).exists():
            atomic.write_bytes(work / name, (kept / name).read_bytes())
        elif (kept / f"{name}.gz").exists():
            atomic.write_bytes(work / name, gunzip(kept / f"{name}.gz"))
    # the log last: it is what marks the run finished
    atomic.write_bytes(work / "tune_log.json", (kept / "tune_log.json").read_bytes())
    return True


def seed_ratios(times: dict[str, list[float]], model: str) -> dict[int, tuple[float, int, int]]:
    """Per seed that both ``model`` and ``xgb`` ran: (median latency over rounds of ``model``'s
    network / XGBModel's, rounds where ``model``'s was faster, rounds). Runs of one seed share
    the search's seed and were timed in the same rounds."""
    out = {}
    for label, mine in times.items():
        name, _, seed = label.partition("/")
        theirs = times.get(f"xgb/{seed}")
        if name != model or theirs is None:
            continue
        ratio = float(np.median(mine) / np.median(theirs))
        out[int(seed.removeprefix("seed"))] = (
            ratio,
            sum(a < b for a, b in zip(mine, theirs)),
            len(mine),
        )
    return dict(sorted(out.items()))


def estimate_at(curve: list[dict], trials: int) -> float:
    """The scheduler's estimate (s) after ``trials`` measured trials (inf before all tasks ran)."""
    best = math.inf
    for point in curve:
        if point["trials"] > trials:
            break
        if point["estimated_latency_s"] is not None:
            best = point["estimated_latency_s"]
    return best


def trials_to_reach(curve: list[dict], target_s: float) -> int | None:
    """The first trial count whose estimate is at most ``target_s`` (None: never reached)."""
    for point in curve:
        est = point["estimated_latency_s"]
        if est is not None and est <= target_s:
            return point["trials"]
    return None


def cost_model_share(log: dict) -> float:
    """The share of a run's tuning wall-clock spent in the cost model (MetaSchedule's scopes)."""
    prof = log["profile_seconds"]
    total = prof.get("Total") or log["tuning_seconds"]
    return cost_model_seconds(prof) / total


def machine(log: dict) -> str:
    """The hardware a run was tuned on, as its log records it (older logs name no device)."""
    from tvm_gnn.measure.hardware import cpu_model

    cpu = f"{log.get('cpu', cpu_model())}, {log['cpu_count']} cores"
    device = log.get("device")
    return cpu if device in (None, log.get("cpu")) else f"{device} (host: {cpu})"


def kept_per_network(
    args, logs: list[dict], budget: int, filename: str, stamp: dict, labels_in, compute
) -> dict[str, dict]:
    """Per network: ``compute(runs)`` over every run that reached ``budget``, kept in the archive.

    ``runs`` is ``{label: work_dir}``. The result, with ``stamp`` added, is kept in
    ``ARCHIVE/<network>/<filename>`` and redone only when ``stamp`` or the set of runs
    (``labels_in(saved)``) changed; ``--report-only`` only reads it.
    """
    from tvm_gnn.measure.hardware import cpu_model

    out = {}
    for net in sorted({lg["network"] for lg in logs}):
        runs = {
            f"{lg['cost_model']}/seed{lg['seed']}": lg["work_dir"]
            for lg in logs
            if lg["network"] == net and lg["trials"] >= budget
        }
        path = Path(args.archive) / net / filename
        saved = json.loads(path.read_text()) if path.exists() else None
        fresh = (
            saved
            and all(saved.get(k) == v for k, v in stamp.items())
            and sorted(labels_in(saved)) == sorted(runs)
        )
        if not fresh and not args.report_only and len(runs) >= 2:
            saved = {
                **stamp,
                **compute(runs),
                "cpu": cpu_model(),
                "date": str(datetime.date.today()),
            }
            if not args.no_write:
                atomic.write_json(path, saved)
            fresh = True
        if fresh:
            out[net] = saved
    return out


def head_to_head_all(args, logs: list[dict], budget: int) -> dict[str, dict]:
    """Per network: every run's network after ``budget`` trials, timed in turn in one process
    (``ARCHIVE/<network>/head_to_head.json``; redone when the runs, the budget or the compile
    version changed)."""
    from tvm_gnn.tune.budgets import head_to_head
    from tvm_gnn.tune.compile import COMPILE_VERSION

    return kept_per_network(
        args,
        logs,
        budget,
        "head_to_head.json",
        {"budget": budget, "compile_version": COMPILE_VERSION},
        lambda saved: saved["times"],
        lambda runs: {
            "rounds": args.rounds,
            "times": head_to_head(runs, budget, rounds=args.rounds),
        },
    )


def remeasure_all(args, logs: list[dict], budget: int) -> dict[str, dict]:
    """Per network: every run's best schedules after ``budget`` trials, timed again warm and cold
    (``ARCHIVE/<network>/remeasured.json``; redone when the runs or the budget changed)."""
    from tvm_gnn.tune.remeasure import remeasure_best

    return kept_per_network(
        args,
        logs,
        budget,
        "remeasured.json",
        {"budget": budget},
        lambda saved: saved["runs"],
        lambda runs: {"runs": sorted(runs), "tasks": remeasure_best(runs, budget)},
    )


def archived_logs(folder: Path, net: str, model: str) -> dict[int, dict]:
    """``{seed: tune_log}`` of ``net``'s ``model`` runs under ``folder`` (an archive)."""
    out = {}
    for path in sorted((folder / net / model).glob("seed*/tune_log.json")):
        log = json.loads(path.read_text())
        out[int(log["seed"])] = log
    return out


def task_map(folder: Path, net: str, target: str) -> dict[str, dict]:
    """``{workload hash: {"name", "weight"}}`` of ``net``'s tuning tasks, as the runs' databases
    key them; extracted with TVM once and kept in ``folder/<net>/tasks.json``."""
    path = folder / net / "tasks.json"
    if path.exists():
        return json.loads(path.read_text())
    import tvm
    from tvm.s_tir.meta_schedule.database import Workload

    from tvm_gnn.measure.networks import extract_tasks

    out = {
        # the hash as a JSON database writes it
        str(Workload(t.dispatched[0]).as_json()[0]): {
            "name": t.task_name,
            "weight": float(t.weight),
        }
        for t in extract_tasks(net, tvm.target.Target(target))
    }
    atomic.write_json(path, out)
    return out


def best_per_task(work_dir: Path, trials: int) -> tuple[dict[str, float], dict[str, int]]:
    """Each workload's best measured latency (s) in a run's first ``trials`` records, and how many
    of them it got; workloads keyed by hash, as in :func:`task_map`."""
    from tvm_gnn.dataset.dbfile import read_records
    from tvm_gnn.dataset.layout import open_db_folder

    folder = open_db_folder(Path(work_dir))  # the archive keeps the databases gzipped
    scan = read_records(folder)
    hashes = scan.workload_hashes
    best: dict[str, float] = {}
    spent: dict[str, int] = {}
    for record in scan.records[:trials]:
        key = hashes[record.workload]
        spent[key] = spent.get(key, 0) + 1
        if not record.failed:  # a task with failures only has no best: its gap stays NaN
            best[key] = min(best.get(key, math.inf), record.latency)
    return best, spent


def quiet_console() -> None:
    """What the offline screens print and nothing else: torch's deprecation notice on importing
    PyTorch Geometric and the library's per-candidate warnings stay off the console."""
    import logging

    scratch.quiet_torch_notices()
    logging.disable(logging.WARNING)


def saved_report(path: Path | None) -> dict:
    """The JSON a screen wrote with ``--json FILE``, for its ``--report-only``; a clear exit
    where there is none."""
    if not (path and path.is_file()):
        raise SystemExit("--report-only reads the rows from --json FILE, which must exist")
    return json.loads(path.read_text())
