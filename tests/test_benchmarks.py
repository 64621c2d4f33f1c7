"""The benchmark scripts: tune_networks never mixes runs from different GNN weights in a table;
validation_sweep trains its variants, writes its table and resumes."""

import argparse
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _script(name):
    path = ROOT / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_finished_run_from_other_weights_is_refused(tmp_path):
    run = tmp_path / "runs" / "resnet18" / "gnn" / "seed0"
    run.mkdir(parents=True)
    log = {"network": "resnet18", "cost_model": "gnn", "cache_flush": False,
           "weights": {"sha256": "0" * 64}}  # fmt: skip
    (run / "tune_log.json").write_text(json.dumps(log))
    args = argparse.Namespace(networks=["resnet18"], models=["gnn"], seeds=[0], trials=8,
                              trials_per_iter=8, repeats=1, runs=str(tmp_path / "runs"),
                              archive=str(tmp_path / "archive"), report_only=False, no_write=True,
                              cache_flush=False, data="data", target="llvm", num_cores=2,
                              checkpoint=None)  # fmt: skip
    with pytest.raises(SystemExit, match="other GNN weights"):
        _script("tune_networks").run_all(args, [8])


def test_validation_sweep_writes_its_table_and_resumes(small_dataset, tmp_path):
    sweep = _script("validation_sweep")
    runs, doc, out = tmp_path / "runs", tmp_path / "results.md", tmp_path / "sweep.json"
    argv = ["--data", str(small_dataset), "--variants", "default", "lambdarank", "--seeds", "0",
            "--runs", str(runs), "--cache-dir", str(tmp_path / "cache"), "--doc", str(doc),
            "--json", str(out), "--train-args", "--epochs", "2"]  # fmt: skip
    assert sweep.main(argv) == 0
    results = json.loads(out.read_text())
    assert [(r["variant"], r["seed"]) for r in results] == [("default", 0), ("lambdarank", 0)]
    assert results[1]["options"] == ["--loss", "lambdarank", "--epochs", "2"]
    assert all(0 < r["val_top1"] <= 1 and 0 <= r["val_pairwise_acc"] <= 1 for r in results)
    assert results[0]["train_networks"] == ["resnet50"]  # the held-out resnet18 is never read
    text = doc.read_text()
    assert "| lambdarank | `--loss lambdarank --epochs 2` |" in text
    stamp = (runs / "lambdarank-seed0.pt").stat().st_mtime_ns
    assert sweep.main(argv) == 0  # finished runs on the same data are not trained again
    assert (runs / "lambdarank-seed0.pt").stat().st_mtime_ns == stamp
    assert json.loads(out.read_text()) == results
