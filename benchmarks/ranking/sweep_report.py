# Licensed under the Apache License, Version 2.0.
"""The validation sweep's report (``benchmarks/ranking/validation_sweep.py``): its table of runs,
the paired
gain over the first variant, and the runs JSON that keeps every finished run's numbers."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import numpy as np


def table(results: list[dict], seeds: list[int], describe) -> str:
    """The runs' table: a row a variant (``describe(variant)``: its changes), a column a seed."""
    by = {(r["variant"], r["seed"]): r for r in results}
    variants = list(dict.fromkeys(r["variant"] for r in results))
    head = ["variant", "changes to BASE"]
    head += [f"pairwise seed {s}" for s in seeds] + ["**mean pairwise**"]
    head += [f"top-1 seed {s}" for s in seeds] + ["**mean top-1**", "median train (s)"]
    if len(variants) > 1:
        head.append(f"pairwise gain over {variants[0]}: mean (paired t)")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 2)]

    def cell(v, s, key):  # a run not finished (under --report-only) shows as a dash
        return f"{by[(v, s)][key]:.4f}" if (v, s) in by else "-"

    for v in variants:
        rows = [by[(v, s)] for s in seeds if (v, s) in by]
        acc = [r["val_pairwise_acc"] for r in rows]
        top1 = [r["val_top1"] for r in rows]
        both = [s for s in seeds if (v, s) in by and (variants[0], s) in by]
        gain = [
            by[(v, s)]["val_pairwise_acc"] - by[(variants[0], s)]["val_pairwise_acc"] for s in both
        ]
        opts = describe(v)
        cells = [
            v,
            f"`{opts}`",
            *(cell(v, s, "val_pairwise_acc") for s in seeds),
            f"**{np.mean(acc):.4f}**",
            *(cell(v, s, "val_top1") for s in seeds),
            f"**{np.mean(top1):.4f}**",
            f"{np.median([r['train_seconds'] for r in rows]):.0f}",
        ]
        if len(variants) > 1:
            seeds_note = "" if len(both) == len(seeds) else f", {len(both)} seed(s)"
            cells.append("" if v == variants[0] else paired(gain) + seeds_note)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def paired(gain) -> str:
    """Mean of per-seed gains and its paired t statistic (mean / standard error)."""
    gain = np.asarray(gain, dtype=float)
    se = gain.std(ddof=1) / np.sqrt(len(gain)) if len(gain) > 1 else 0.0
    t = f"{gain.mean() / se:.1f}" if se > 0 else "n/a"
    return f"{gain.mean():+.4f} ({t})"


def render(results, seeds, command: str, machine: str, base: str, describe) -> str:
    """The generated section: the split, the table, and how it was made (``base``: what every
    variant starts from)."""
    first = results[0]
    if first.get("device", "cpu") == "cpu":
        repeat = "the accuracies repeat exactly for a seed and torch thread count."
    else:  # CUDA's scatter kernels add in no fixed order
        repeat = (
            "on a GPU the accuracies of a seed differ a little from run to run (CUDA adds "
            "in no fixed order), so differences within one seed's spread are noise."
        )
    val = ", ".join(
        f"seed {r['seed']}: {r['val_workloads']}"
        for r in results
        if r["variant"] == first["variant"]
    )
    return "\n".join(
        [
            f"Validation split of the training networks ({', '.join(first['train_networks'])}); "
            f"held-out networks never read. Validation workloads per seed: {val}.",
            "",
            table(results, seeds, describe),
            "",
            f"Machine: {machine}. Command: `{command}` ({datetime.date.today().isoformat()}). "
            f"Every run starts from the library's configs with `{base}` (BASE) and "
            "changes its variant's fields. "
            "Each cell is the validation metric at the epoch early stopping chose (on pairwise "
            "accuracy); top-1 is `tvm_gnn.nn.metrics.mean_top1`. Training seconds are timings "
            "and vary "
            f"from run to run; {repeat}",
        ]
    )


def earlier_runs(path) -> list[dict]:
    """The runs already in the sweep JSON at ``path`` (none if it is missing), read before
    training so that a file it cannot keep stops the sweep at once, not after hours of runs."""
    try:
        old = json.loads(Path(path).read_text())
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as err:
        raise SystemExit(
            f"{path} is not a sweep's JSON ({err}); move it aside or pass --json"
        ) from None
    if not isinstance(old, list) or not all(
        isinstance(r, dict) and "variant" in r and "seed" in r for r in old
    ):
        raise SystemExit(
            f"{path} is not a sweep's JSON (a list of runs); move it aside or pass --json"
        )
    return old


def merged(earlier: list[dict], results: list[dict]) -> list[dict]:
    """``earlier`` runs this sweep did not redo, then ``results``: a sweep of one new variant
    adds its rows instead of dropping the numbers docs/validation.md reads back."""
    redone = {(r["variant"], r["seed"]) for r in results}
    return [r for r in earlier if (r["variant"], r["seed"]) not in redone] + results
