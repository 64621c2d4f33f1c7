"""benchmarks/tune_networks.py: runs that started from different GNN weights never share a table."""

import argparse
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tune_networks():
    path = ROOT / "benchmarks" / "tune_networks.py"
    spec = importlib.util.spec_from_file_location("tune_networks", path)
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
        _tune_networks().run_all(args, [8])
