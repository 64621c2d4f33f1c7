# Licensed under the Apache License, Version 2.0.
"""GNN variants compared on the validation split: the table that decides what `tvm-gnn train` ships.

Each variant is a set of ``tvm-gnn train`` options. Every (variant, seed) trains once on the
dataset's training networks (held-out networks are never read) and keeps, at the epoch early
stopping chose, the validation split's pairwise accuracy and top-1 (``metrics.mean_top1``: the
model's pick's share of each workload's best throughput, averaged over workloads). Each seed
draws its own validation split (15% of the training workloads) as well as its own
initialization, so compare rows within a seed's column, and means across seeds.

Every run writes ``RUNS/<variant>-seed<k>.json`` (and its checkpoint and loss curve beside it);
a run whose JSON matches the dataset's contents (with ``--records-of``, those of the networks it
reads), the featurizer version and the variant's options is not repeated, so the sweep resumes
after a kill (a run killed halfway starts over). The table goes into
``docs/results.md`` (a generated section) and the runs' numbers into
``benchmarks/results/validation_sweep.json``, where they replace the same (variant, seed) and
keep every other run's.

    .venv/bin/python benchmarks/validation_sweep.py --seeds 0 1 2
    .venv/bin/python benchmarks/validation_sweep.py --variants default lambdarank --jobs 8
    python benchmarks/validation_sweep.py --device cuda --jobs 2    # two runs share one GPU

Training itself needs no TVM once the graph cache holds the dataset (the cache is keyed by the
database files' contents, so it can be copied to a GPU machine along with the dataset).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from tvm_gnn import report
from tvm_gnn.cli import build_parser, train_featurizer
from tvm_gnn.measure.hardware import usable_cores
from tvm_gnn.nn.schema import FeaturizerConfig

ROOT = Path(__file__).resolve().parent.parent
SECTION = "validation-sweep"

#: the options every variant starts from: `tvm-gnn train`'s defaults when the sweep began
#: (GraphConv, RankNet, no comparing). The defaults now follow the shipped weights, so the sweep
#: passes these first, and each variant's options (the runs' key) keep their recorded meaning.
BASE = ["--conv", "graph", "--loss", "ranknet", "--no-compare"]

#: variant name -> `tvm-gnn train` options (on top of BASE, which "default" keeps)
VARIANTS = {
    "default": [],
    "no-topk": ["--no-topk"],
    "topk-every-0.5": ["--topk-at", "every", "--pool-ratio", "0.5"],
    "learned-emb": ["--embedding", "learned"],
    "lambdarank": ["--loss", "lambdarank"],
    "ranking-only": ["--mse-weight", "0"],
    "hidden-64": ["--hidden", "64"],
    # LambdaRank (what the shipped weights use) combined with the open questions above
    "lambdarank-no-topk": ["--loss", "lambdarank", "--no-topk"],
    "lambdarank-learned-emb": ["--loss", "lambdarank", "--embedding", "learned"],
    "lambdarank-hidden-64": ["--loss", "lambdarank", "--hidden", "64"],
    # issue 28's directions on top of the shipped recipe (LambdaRank)
    "lambdarank-relational": ["--loss", "lambdarank", "--conv", "relational"],
    "lambdarank-layers-6-residual": ["--loss", "lambdarank", "--layers", "6", "--residual"],
    "lambdarank-compare": ["--loss", "lambdarank", "--compare"],
    "lambdarank-relational-compare": ["--loss", "lambdarank", "--conv", "relational", "--compare"],
    "lambdarank-relational-layers-6-residual": [
        "--loss",
        "lambdarank",
        "--conv",
        "relational",
        "--layers",
        "6",
        "--residual",
    ],
    # the relational design's ablations and capacity (issue 28's direction 5)
    "lambdarank-relational-learned-emb": [
        "--loss",
        "lambdarank",
        "--conv",
        "relational",
        "--embedding",
        "learned",
    ],
    "lambdarank-relational-no-topk": ["--loss", "lambdarank", "--conv", "relational", "--no-topk"],
    "lambdarank-relational-hidden-64": [
        "--loss",
        "lambdarank",
        "--conv",
        "relational",
        "--hidden",
        "64",
    ],
    # the same two ablations of relational message passing with candidates compared
    "lambdarank-relational-compare-learned-emb": [
        "--loss",
        "lambdarank",
        "--conv",
        "relational",
        "--compare",
        "--embedding",
        "learned",
    ],
    "lambdarank-relational-compare-no-topk": [
        "--loss",
        "lambdarank",
        "--conv",
        "relational",
        "--compare",
        "--no-topk",
    ],
    # issue 28's direction 4a: XGBModel's per-store features as a second training target
    "lambdarank-relational-aux": [
        "--loss",
        "lambdarank",
        "--conv",
        "relational",
        "--aux-store-features",
        "0.5",
    ],
    "lambdarank-epochs-100": ["--loss", "lambdarank", "--epochs", "100"],
    # pair targets softened by the measurement noise benchmarks/noise_ceiling.py estimates
    "lambdarank-label-noise": ["--loss", "lambdarank", "--label-noise", "0.17"],
    # the buffer accesses' footprint and reuse columns (featurizer version 3)
    "lambdarank-reuse": ["--loss", "lambdarank", "--reuse-features"],
}


def featurizer_of(options: list[str]) -> FeaturizerConfig:
    """The featurizer `tvm-gnn train` uses with these options (parsed as it parses them)."""
    return train_featurizer(build_parser().parse_args(["train", *BASE, *options]))


def data_fingerprint(data: Path, folders: list[str] | None = None) -> str:
    """sha256 over the dataset's files (paths and contents): a run is reused only on the data it
    was trained on. ``folders`` (``HARDWARE/NETWORK`` paths): only the files under them."""
    h = hashlib.sha256()
    for f in sorted(p for p in data.rglob("*") if p.is_file()):
        rel = f.relative_to(data)
        if folders is not None and "/".join(rel.parts[:2]) not in folders:
            continue
        h.update(str(rel).encode() + b"\0")
        h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def records_of_info(args) -> dict | None:
    """The training record of the ``--records-of`` checkpoint in the train options (None
    without one): the records every run trains on."""
    from tvm_gnn.nn.checkpoint import read_info

    records_of = build_parser().parse_args(["train", *args.train_args]).records_of
    return read_info(records_of) if records_of else None


def runs_hardware(args) -> str:
    """The hardware folder the runs train on, resolved as ``tvm-gnn train`` resolves it from
    the same options (``--hardware`` in the train options, else the ``--records-of``
    checkpoint's, else the only folder or this machine's). ``ValueError`` where there is none."""
    from tvm_gnn import dataset as data

    chosen = build_parser().parse_args(["train", *args.train_args]).hardware
    info = records_of_info(args)
    return data.resolve_hardware(args.data, chosen, info.get("hardware") if info else None)


def runs_fingerprint(args) -> str:
    """What the runs' data is keyed by. With ``--records-of CHECKPOINT`` in the train options,
    the folders of the networks that checkpoint was trained on (the runs read nothing else), so
    that ``collect`` adding other networks leaves the finished runs valid; else all of it."""
    info = records_of_info(args)
    if info is None:
        return data_fingerprint(Path(args.data))
    return data_fingerprint(
        Path(args.data), [f"{info['hardware']}/{net}" for net in info["train_records"]]
    )


def train_command(args, variant: str, seed: int, runs: Path) -> list[str]:
    stem = runs / f"{variant}-seed{seed}"
    return [
        sys.executable,
        "-m",
        "tvm_gnn.cli",
        "train",
        "--data",
        str(args.data),
        "--seed",
        str(seed),
        "--out",
        f"{stem}.pt",
        "--plot",
        f"{stem}-loss.png",
        "--cache-dir",
        args.cache_dir,
        "--device",
        args.device,
        "-q",
        *BASE,
        *VARIANTS[variant],
        *args.train_args,
    ]


def finished(
    args, variant: str, seed: int, runs: Path, fingerprint: str, earlier=()
) -> dict | None:
    """The result of (variant, seed) if a run on the same data, featurizer, options and device
    finished (in ``runs``, else among ``earlier`` results, a sweep JSON's), else None."""
    out = runs / f"{variant}-seed{seed}.json"
    options = [*VARIANTS[variant], *args.train_args]
    want = (variant, seed, fingerprint, featurizer_of(options).version(), options, args.device)
    found = [json.loads(out.read_text())] if out.exists() else []
    for old in [*found, *earlier]:
        data = old.get("data")
        # a run checked to have trained on the same records as this data gives: `data_checked`
        # lists such fingerprints, `data_checked_by` says how it was checked
        if fingerprint in old.get("data_checked", []):
            data = fingerprint
        got = (old.get("variant"), old.get("seed"), data, old.get("featurizer"))
        if (*got, old.get("options"), old.get("device", "cpu")) == want:
            return old
    return None


def run_one(
    args, variant: str, seed: int, runs: Path, fingerprint: str, threads: int, where: str
) -> dict:
    """Train one (variant, seed) unless its result is already there; return the result."""
    old = finished(args, variant, seed, runs, fingerprint)
    if old is not None:
        return old
    out = runs / f"{variant}-seed{seed}.json"
    options = [*VARIANTS[variant], *args.train_args]
    cmd = train_command(args, variant, seed, runs)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    from tvm_gnn.nn import checkpoint

    _, _, info = checkpoint.load(runs / f"{variant}-seed{seed}.pt")
    best = info["best_epoch"]
    result = {
        "variant": variant,
        "seed": seed,
        "options": options,
        "data": fingerprint,
        "featurizer": featurizer_of(options).version(),
        "val_pairwise_acc": info["val_pairwise_acc"][best],
        "val_top1": info["val_top1"][best],
        "best_epoch": best + 1,
        "epochs": len(info["train_loss"]),
        "train_seconds": info["train_seconds"],
        "threads": threads,
        "device": args.device,
        "machine": where,
        "train_networks": info["train_networks"],
        "train_graphs": info["train_graphs"],
        "val_graphs": info["val_graphs"],
        "val_workloads": info["val_workloads"],
    }
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(result, indent=1) + "\n")
    os.replace(tmp, out)
    print(
        f"{variant} seed {seed}: pairwise {result['val_pairwise_acc']:.4f}, top-1 "
        f"{result['val_top1']:.4f} ({result['train_seconds']:.0f} s)",
        flush=True,
    )
    return result


def machine(args) -> str:
    """Where the runs train: this CPU, and the GPU for ``--device cuda``."""
    from tvm_gnn.measure.hardware import cpu_model

    text = f"{cpu_model()}, {usable_cores()} cores, {args.jobs} run(s) at a time"
    if args.device != "cpu":
        import torch

        text += f", trained on {torch.cuda.get_device_name(torch.device(args.device))}"
    return text


def warm_cache(args) -> None:
    """Featurize the training networks into the graph cache the runs share (as `tvm-gnn train`
    reads them), so that parallel runs do not each featurize the same programs."""
    from tvm_gnn import dataset as data
    from tvm_gnn.measure.networks import HELD_OUT

    hardware = args.hardware  # resolved once, by main
    nets = data.training_networks(args.data, hardware, set(HELD_OUT))
    info = records_of_info(args)
    snapshot = info["train_records"] if info else None
    if snapshot:
        nets = sorted(snapshot)
    for config in {featurizer_of([*VARIANTS[v], *args.train_args]) for v in args.variants}:
        data.load_graphs(
            args.data,
            config,
            cache_dir=args.cache_dir,
            progress=True,
            hardware=hardware,
            networks=nets,
            snapshot=snapshot,
        )
    if any("--aux-store-features" in [*VARIANTS[v], *args.train_args] for v in args.variants):
        data.load_store_features(args.data, args.cache_dir, True, hardware, nets, snapshot)


def sweep(args) -> list[dict]:
    runs = Path(args.runs)
    runs.mkdir(parents=True, exist_ok=True)
    fingerprint = runs_fingerprint(args)
    todo = [(v, s) for v in args.variants for s in args.seeds]
    if args.report_only:  # the finished runs only: nothing trained, nothing featurized
        found = [finished(args, v, s, runs, fingerprint, args.earlier) for v, s in todo]
        return [r for r in found if r is not None]
    cores = usable_cores()
    threads = max(1, cores // args.jobs)
    where = machine(args)
    from tqdm import tqdm

    warm_cache(args)  # featurized once here, read by every run
    bar = tqdm(total=len(todo), desc="validation sweep", unit="run")
    results = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [
            pool.submit(run_one, args, v, s, runs, fingerprint, threads, where) for v, s in todo
        ]
        for f in futures:
            results.append(f.result())
            bar.update()
    bar.close()
    return results


def table(results: list[dict], seeds: list[int]) -> str:
    by = {(r["variant"], r["seed"]): r for r in results}
    variants = list(dict.fromkeys(r["variant"] for r in results))
    head = ["variant", "options"]
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
        opts = " ".join(rows[0]["options"]) or "(defaults)"
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


def render(results: list[dict], seeds: list[int], command: str, machine: str) -> str:
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
            table(results, seeds),
            "",
            f"Machine: {machine}. Command: `{command}` ({datetime.date.today().isoformat()}). "
            f"Every run starts from `{' '.join(BASE)}` and adds its variant's options. "
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
    adds its rows instead of dropping the numbers docs/results.md reads back."""
    redone = {(r["variant"], r["seed"]) for r in results}
    return [r for r in earlier if (r["variant"], r["seed"]) not in redone] + results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--data", default=str(ROOT / "data"), help="dataset (default: data/)")
    parser.add_argument(
        "--variants",
        nargs="+",
        default=list(VARIANTS),
        choices=list(VARIANTS),
        help="variants to train (default: all)",
    )
    parser.add_argument(
        "--seeds", nargs="+", type=int, default=[0, 1, 2], help="seeds (default: 0 1 2)"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="runs trained at once (default: 1); each gets cores / jobs torch threads",
    )
    parser.add_argument(
        "--runs",
        default=str(ROOT / ".cache" / "validation-sweep"),
        help="checkpoints and per-run JSON (default: .cache/validation-sweep)",
    )
    parser.add_argument(
        "--cache-dir",
        default=str(ROOT / ".cache" / "graphs"),
        help="featurized-graph cache (default: .cache/graphs)",
    )
    parser.add_argument(
        "--device",
        default="cpu",
        help="`tvm-gnn train --device` of every run: cpu (default) or cuda; "
        "runs share the GPU, and more than a few at once are slower than "
        "one after another (docs/benchmarks.md)",
    )
    parser.add_argument(
        "--train-args",
        nargs=argparse.REMAINDER,
        default=[],
        help="more `tvm-gnn train` options for every run (last on the line)",
    )
    parser.add_argument(
        "--doc",
        default=str(ROOT / "docs" / "results.md"),
        help="markdown file whose generated section gets the table",
    )
    parser.add_argument(
        "--json",
        default=str(ROOT / "benchmarks" / "results" / "validation_sweep.json"),
        help="every run's numbers (default: benchmarks/results/validation_sweep.json)",
    )
    parser.add_argument(
        "--section",
        default=SECTION,
        help=f"generated section of --doc that gets the table (default: {SECTION})",
    )
    parser.add_argument("--no-write", action="store_true", help="print the table only")
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="train nothing: the table of the finished runs, from --runs or else from --json "
        "(the committed numbers, so it works on a clean clone); unfinished cells show '-'",
    )
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if not Path(args.data).is_dir():
        parser.error(f"no dataset folder {args.data}")
    args.hardware = None  # the folder the runs read, resolved before anything is featurized
    if not args.report_only:
        try:
            args.hardware = runs_hardware(args)
        except ValueError as err:
            parser.error(f"{err} (give it as --train-args --hardware NAME)")

    earlier = [] if args.no_write else earlier_runs(args.json)
    args.earlier = earlier_runs(args.json) if args.report_only else []
    results = sweep(args)
    if not results:
        raise SystemExit(f"no finished runs of {args.variants} under {args.runs}")
    command = "python benchmarks/validation_sweep.py " + " ".join(
        a for a in (argv if argv is not None else sys.argv[1:])
    )
    machines = sorted({r.get("machine") or machine(args) for r in results})
    text = render(results, args.seeds, command, "; ".join(machines))
    print(text)
    if not args.no_write:
        report.write_section(args.doc, args.section, text)
        report.write_json(args.json, merged(earlier, results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
