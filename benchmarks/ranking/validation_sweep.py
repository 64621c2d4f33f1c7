# Licensed under the Apache License, Version 2.0.
"""GNN variants compared on the validation split: the table that decides what the library ships.

Each variant is a change to the library's configs (``GNNConfig``, ``TrainConfig``,
``FeaturizerConfig``) on top of :data:`BASE`. Every (variant, seed) trains once on the dataset's
training networks (held-out networks are never read) through
:func:`tvm_gnn.train.train_to_checkpoint` and keeps, at the epoch early stopping chose, the
validation split's pairwise accuracy and top-1 (``metrics.mean_top1``: the model's pick's share
of each workload's best throughput, averaged over workloads). Each seed draws its own validation
split (15% of the training workloads) as well as its own initialization, so compare rows within a
seed's column, and means across seeds.

Every run writes ``RUNS/<variant>-seed<k>.json`` (and its checkpoint and loss curve beside it);
a run whose JSON matches the dataset's contents (with ``--records-of``, those of the networks it
reads), the run's full configs (its ``recipe``) and the device is not repeated, so the sweep
resumes after a kill (a run killed halfway starts over). The table goes into
``docs/validation.md`` (a generated section) and the runs' numbers into
``benchmarks/results/validation_sweep.json``, where they replace the same (variant, seed) and
keep every other run's.

    .venv/bin/python benchmarks/ranking/validation_sweep.py --seeds 0 1 2
    .venv/bin/python benchmarks/ranking/validation_sweep.py --variants default lambdarank --jobs 8
    python benchmarks/ranking/validation_sweep.py --device cuda --jobs 2    # two runs share one GPU

Training itself needs no TVM once the graph cache holds the dataset (the cache is keyed by the
database files' contents, so it can be copied to a GPU machine along with the dataset).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from sweep_report import earlier_runs, merged, render
from sweep_variants import VARIANTS, base, changes, recipe

from tvm_gnn import atomic, report
from tvm_gnn.measure.hardware import usable_cores

ROOT = Path(__file__).resolve().parents[2]
SECTION = "validation-sweep"


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
    """The training record of the ``--records-of`` checkpoint (None without one): the records
    every run trains on."""
    from tvm_gnn.nn.checkpoint import read_info

    return read_info(args.records_of) if args.records_of else None


def runs_hardware(args, info: dict | None) -> str:
    """The hardware folder the runs train on, resolved as training resolves it (``--hardware``,
    else the ``--records-of`` checkpoint's, ``info``, else the only folder or this machine's).
    ``ValueError`` where there is none."""
    from tvm_gnn import dataset as data

    return data.resolve_hardware(args.data, args.hardware, info.get("hardware") if info else None)


def runs_fingerprint(args, info: dict | None) -> str:
    """What the runs' data is keyed by. With ``--records-of CHECKPOINT`` (its record, ``info``),
    the folders of the networks that checkpoint was trained on (the runs read nothing else), so
    that ``collect`` adding other networks leaves the finished runs valid; else all of it."""
    if info is None:
        return data_fingerprint(Path(args.data))
    return data_fingerprint(
        Path(args.data), [f"{info['hardware']}/{net}" for net in info["train_records"]]
    )


def finished(
    args, variant: str, seed: int, runs: Path, fingerprint: str, earlier=()
) -> dict | None:
    """The result of (variant, seed) if a run on the same data, configs and device finished (in
    ``runs``, else among ``earlier`` results, a sweep JSON's), else None."""
    out = runs / f"{variant}-seed{seed}.json"
    key = recipe(variant, seed, args.device, args.epochs).key(args.records_of)
    want = (variant, seed, fingerprint, key, args.device)
    found = [json.loads(out.read_text())] if out.exists() else []
    for old in [*found, *earlier]:
        data = old.get("data")
        # a run checked to have trained on the same records as this data gives: `data_checked`
        # lists such fingerprints, `data_checked_by` says how it was checked
        if fingerprint in old.get("data_checked", []):
            data = fingerprint
        got = (old.get("variant"), old.get("seed"), data, old.get("recipe"))
        if (*got, old.get("device", "cpu")) == want:
            return old
    return None


def training(args, variant: str, seed: int, runs: Path, threads: int):
    """The library call that trains (variant, seed): a picklable function of no arguments."""
    from tvm_gnn.train import train_to_checkpoint

    r = recipe(variant, seed, args.device, args.epochs)
    stem = runs / f"{variant}-seed{seed}"
    return partial(
        train_to_checkpoint,
        f"{stem}.pt",
        args.data,
        plot=f"{stem}-loss.png",
        threads=threads,
        hardware=args.hardware,
        featurizer=r.featurizer,
        embedding=r.gnn.get("embedding", "fasttext"),
        gnn_overrides={k: v for k, v in r.gnn.items() if k != "embedding"},
        config=r.train,
        cache_dir=args.cache_dir,
        snapshot=args.snapshot,
    )


def result(args, variant: str, seed: int, fingerprint: str, info: dict, where: str) -> dict:
    """The sweep's record of a finished run, from what its checkpoint records."""
    best = info["best_epoch"]
    return {
        "variant": variant,
        "seed": seed,
        "recipe": recipe(variant, seed, args.device, args.epochs).key(args.records_of),
        "data": fingerprint,
        "val_pairwise_acc": info["val_pairwise_acc"][best],
        "val_top1": info["val_top1"][best],
        "best_epoch": best + 1,
        "epochs": len(info["train_loss"]),
        "train_seconds": info["train_seconds"],
        "threads": args.threads,
        "device": args.device,
        "machine": where,
        "train_networks": info["train_networks"],
        "train_graphs": info["train_graphs"],
        "val_graphs": info["val_graphs"],
        "val_workloads": info["val_workloads"],
    }


def keep(args, variant: str, seed: int, runs: Path, done: dict) -> dict:
    """Write a finished run's JSON beside its checkpoint, say its numbers; return it."""
    atomic.write_json(runs / f"{variant}-seed{seed}.json", done)
    print(
        f"{variant} seed {seed}: pairwise {done['val_pairwise_acc']:.4f}, top-1 "
        f"{done['val_top1']:.4f} ({done['train_seconds']:.0f} s)",
        flush=True,
    )
    return done


def machine(args) -> str:
    """Where the runs train: this CPU, and the GPU for ``--device cuda``."""
    from tvm_gnn.measure.hardware import cpu_model

    text = f"{cpu_model()}, {usable_cores()} cores, {args.jobs} run(s) at a time"
    if args.device != "cpu":
        import torch

        text += f", trained on {torch.cuda.get_device_name(torch.device(args.device))}"
    return text


def warm_cache(args) -> None:
    """Featurize the training networks into the graph cache the runs share (as training reads
    them), so that parallel runs do not each featurize the same programs."""
    from tvm_gnn import dataset as data
    from tvm_gnn.dataset.splits import HELD_OUT

    hardware, snapshot = args.hardware, args.snapshot  # both read once, by main
    nets = sorted(snapshot) if snapshot else data.training_networks(args.data, hardware, HELD_OUT)
    recipes = [recipe(v, 0, args.device) for v in args.variants]
    for featurizer in {r.featurizer for r in recipes}:
        data.load_graphs(args.data, featurizer, args.cache_dir, True, hardware, nets, snapshot)
    if any(r.train.aux_weight > 0 or r.train.store_inputs for r in recipes):
        data.load_store_features(args.data, args.cache_dir, True, hardware, nets, snapshot)


def sweep(args) -> list[dict]:
    runs = Path(args.runs)
    runs.mkdir(parents=True, exist_ok=True)
    fingerprint = runs_fingerprint(args, args.info)
    todo = [(v, s) for v in args.variants for s in args.seeds]
    found = {(v, s): finished(args, v, s, runs, fingerprint, args.earlier) for v, s in todo}
    if args.report_only:  # the finished runs only: nothing trained, nothing featurized
        return [r for r in found.values() if r is not None]
    args.threads = max(1, usable_cores() // args.jobs)
    where = machine(args)
    left = [key for key, r in found.items() if r is None]
    if left:
        warm_cache(args)  # featurized once here, read by every run
    from tqdm import tqdm

    bar = tqdm(total=len(left), desc="validation sweep", unit="run")
    spawn = multiprocessing.get_context("spawn")  # torch's threads are per process
    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=spawn) as pool:
        futures = {(v, s): pool.submit(training(args, v, s, runs, args.threads)) for v, s in left}
        for (v, s), f in futures.items():
            found[(v, s)] = keep(
                args, v, s, runs, result(args, v, s, fingerprint, f.result(), where)
            )
            bar.update()
    bar.close()
    return list(found.values())


def build_parser() -> argparse.ArgumentParser:
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
        "--records-of",
        metavar="CHECKPOINT",
        default=None,
        help="every run trains on exactly the records CHECKPOINT was trained on (`tvm-gnn train "
        "--records-of`), so the runs stay comparable while the dataset grows (default: every "
        "record)",
    )
    parser.add_argument(
        "--hardware",
        default=None,
        help="hardware folder the runs train on (default: the --records-of checkpoint's, else "
        "the only one, else this machine's)",
    )
    parser.add_argument(
        "--epochs", type=int, default=None, help="cap every run's epochs (default: the recipe's)"
    )
    parser.add_argument(
        "--doc",
        default=str(ROOT / "docs" / "validation.md"),
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
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if not Path(args.data).is_dir():
        parser.error(f"no dataset folder {args.data}")
    args.info = records_of_info(args)  # the --records-of checkpoint, read once
    args.snapshot = args.info["train_records"] if args.info else None
    if not args.report_only:  # the folder the runs read, resolved before anything is featurized
        try:
            args.hardware = runs_hardware(args, args.info)
        except ValueError as err:
            parser.error(str(err))

    committed = earlier_runs(args.json) if args.report_only or not args.no_write else []
    earlier = [] if args.no_write else committed
    args.earlier = committed if args.report_only else []
    results = sweep(args)
    if not results:
        raise SystemExit(f"no finished runs of {args.variants} under {args.runs}")
    command = "python benchmarks/ranking/validation_sweep.py " + " ".join(
        a for a in (argv if argv is not None else sys.argv[1:])
    )
    machines = sorted({r.get("machine") or machine(args) for r in results})
    text = render(results, args.seeds, command, "; ".join(machines), base(), changes)
    print(text)
    if not args.no_write:
        report.write_section(args.doc, args.section, text)
        report.write_json(args.json, merged(earlier, results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
