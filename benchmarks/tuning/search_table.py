# Licensed under the Apache License, Version 2.0.
"""What each archived ``tune_tasks.py`` run measured, as the search table of ``docs/tuning.md``.

Per run, over its first :data:`WINDOW` trials (fewer in a report of shorter runs), read from the
run's gzipped database, whose lines are in the order the programs were measured:

- **distinct decision values**: for each sampling decision of the trace (keyed by the
  instruction's index and kind, so that two sketches' decisions are not mixed), the number of
  distinct values among the measured programs, summed over decisions. A search that measures
  near-copies of a few programs has few;
- **late median / best**: the median latency of the programs measured in the window's second
  half (:func:`late_batch`: trials 65-128) over the run's best in the window (failed runs left
  out). A search still measuring far from its best has a high one;
- **top tenth's drawing weight**: over the run's ``predict`` calls (``run.json``'s
  ``score_calls``, recorded from issue 85 on; :mod:`tvm_gnn.cost_models.score_log`), the median
  share of MetaSchedule's drawing weights (scores clipped at 0) held by the best-scored tenth of
  the call's candidates, and the median share of scores <= 0, which are never parents. The
  run's first call, shown beside them, scores the search's first population (random samples of
  the space, nothing measured yet): the population the issue's 14-30% share <= 0 was read on.
  Later calls score generations bred from the favourites, which the model ranks high.

Per model: the mean over runs of the first, the geometric mean of the second, and the median of
the third over the runs that recorded it.
"""

from __future__ import annotations

import gzip
import json
import math
import statistics
from pathlib import Path

from tvm_gnn.costs import run_cost

#: trials of a run the table reads: the development set's whole runs, the test's first half
WINDOW = 128


def late_batch(window: int) -> tuple[int, int]:
    """The late batch of a window of ``window`` trials: its second half (1-based, inclusive)."""
    return window // 2 + 1, window


def run_search(folder: Path, calls=(), window: int = WINDOW) -> dict | None:
    """One run's numbers (see the module docstring) from its database in ``folder`` and its
    recorded ``score_calls``, or None if its database is not archived."""
    path = folder / "database_tuning_record.json.gz"
    if not path.is_file():
        return None
    values: dict[tuple, set] = {}
    costs = []
    with gzip.open(path, "rt") as f:
        for line in f:
            if len(costs) == window:
                break
            _, (trace, run_secs, *_) = json.loads(line)
            insts, decisions = trace
            for index, value in decisions:
                values.setdefault((index, insts[index][0]), set()).add(json.dumps(value))
            costs.append(run_cost(run_secs))
    measured = [c for c in costs if c is not None]
    first, last = late_batch(window)
    tail = [c for c in costs[first - 1 : last] if c is not None]
    out = {
        "trials": len(costs),
        "values": sum(len(v) for v in values.values()),
        "late": statistics.median(tail) / min(measured) if tail else None,
    }
    if calls:
        shares = [s for _, s, _ in calls if s is not None]
        out["top_tenth"] = statistics.median(shares) if shares else None
        out["nonpositive"] = statistics.median(z for _, _, z in calls)
        _, out["first_top"], out["first_nonpositive"] = calls[0]
    return out


def search_rows(runs_root: Path, runs: list[dict], models, window: int = WINDOW) -> list[dict]:
    """Per model of ``models`` (in order), the table's numbers over its ``runs`` (``run.json``
    contents of :func:`tune_tasks.read_runs`) that have their database in ``runs_root``, each
    read over its first ``window`` trials."""
    rows = []
    for model in models:
        per = [
            run_search(
                runs_root / r["task"] / model / f"seed{r['seed']}", r.get("score_calls"), window
            )
            for r in runs
            if r["model"] == model
        ]
        per = [p for p in per if p is not None]
        if not per:
            continue
        late = [p["late"] for p in per if p["late"]]
        logged = [p for p in per if p.get("top_tenth") is not None]
        rows.append(
            {
                "model": model,
                "runs": len(per),
                "values": statistics.mean(p["values"] for p in per),
                "late": math.exp(statistics.mean(map(math.log, late))) if late else None,
                "logged": len(logged),
                "top_tenth": statistics.median(p["top_tenth"] for p in logged) if logged else None,
                **{
                    k: _median_of(logged, k)
                    for k in ("nonpositive", "first_top", "first_nonpositive")
                },
            }
        )
    return rows


def _median_of(per: list[dict], key: str) -> float | None:
    vals = [p[key] for p in per if p.get(key) is not None]
    return statistics.median(vals) if vals else None


def render_search(rows: list[dict], command: str, machines: str, window: int = WINDOW) -> str:
    """The markdown of the search table of runs read over ``window`` trials."""
    first, last = late_batch(window)
    lines = [
        f"Command: `{command}`; {machines}. First {window} trials of each archived run "
        "(`benchmarks/tuning/search_table.py` says how each number is read).",
        "",
        "| model | runs | distinct decision values (mean per run) | median latency of trials "
        f"{first}-{last} / the run's best (geometric mean) | top tenth's share of the "
        "drawing weight, first call / all calls (median; runs that recorded it) | scores <= 0, "
        "first call / all calls (median) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        late = f"{r['late']:.2f}" if r["late"] else "–"
        if r["logged"]:
            first_top = "–" if r["first_top"] is None else f"{r['first_top']:.2f}"
            share = f"{first_top} / {r['top_tenth']:.2f} ({r['logged']} runs)"
            zero = f"{r['first_nonpositive']:.0%} / {r['nonpositive']:.0%}"
        else:
            share, zero = "not recorded", "–"
        lines.append(
            f"| {r['model']} | {r['runs']} | {r['values']:.0f} | {late} | {share} | {zero} |"
        )
    return "\n".join(lines) + "\n"
