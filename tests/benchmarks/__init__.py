"""The benchmark scripts' tests, mirroring ``benchmarks/``: ``tests/benchmarks/<folder>/`` holds
``test_<script>.py`` for each script with logic in ``benchmarks/<folder>/``."""

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: the folders of benchmarks/, one a question (benchmarks/README.md)
FOLDERS = sorted(p for p in (ROOT / "benchmarks").iterdir() if (p / "README.md").is_file())
# a script imports the modules beside it as it does when run (`python benchmarks/<folder>/x.py`)
for folder in FOLDERS:
    sys.path.insert(0, str(folder))


def script(name: str):
    """``benchmarks/<folder>/<name>.py`` as a module (the scripts are not a package: each runs
    alone, importing the modules of its own folder)."""
    (path,) = [f / f"{name}.py" for f in FOLDERS if (f / f"{name}.py").is_file()]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # where dataclasses and pickle look a module's classes up
    spec.loader.exec_module(mod)
    return mod


def task_run(
    runs: Path, task: str, model: str, seed: int, curve, weights="w1", machine="test CPU, 2 cores"
) -> None:
    """A finished ``tune_tasks.py`` run of ``task``: its ``run.json`` with ``curve``."""
    out = runs / task / model / f"seed{seed}"
    out.mkdir(parents=True)
    run = {
        "task": task,
        "kind": "conv2d 3x3",
        "model": model,
        "seed": seed,
        "trials": len(curve),
        "curve": list(curve),
        "errors": 0,
        "wall_seconds": 10.0,
        "tuning_seconds": 8.0,
        "cost_model_seconds": 0.8 if model == "gnn" else 0.4,
        "weights": weights if model.startswith("gnn") or model == "xgb-pretrained" else None,
        "machine": machine,
        "day": "2026-11-25",
    }
    (out / "run.json").write_text(json.dumps(run))
