"""``tvm-gnn eval --tuner ansor`` (TVM 0.19): Ansor's records of held-out tasks ranked by the GNN
and by Ansor's XGBModel trained on the other networks' records, read back in a fresh process
from the logs and the saved workloads alone."""

import json
import shutil
import subprocess
import sys

from tvm_gnn.cli import main

from ..conftest import tvm019_only

pytestmark = tvm019_only()


def test_eval_ranks_held_out_ansor_records_with_the_gnn_and_xgbmodel(tmp_path, capsys):
    collect = ["collect", "--tuner", "ansor", "--network", "tiny_cnn", "--out", str(tmp_path)]
    collect += ["--trials-per-task", "4", "--batch-size", "4", "--max-tasks", "2", "-q"]
    collect += [
        "--number",
        "1",
        "--min-repeat-ms",
        "1",
        "--hardware",
        "hw",
        "--uniform-fraction",
        "1",
    ]
    assert main(collect) == 0
    info = tmp_path / "ansor" / "hw" / "network_info"
    assert json.loads((info / "tiny_cnn.workloads.json").read_text())  # the compute DAGs
    # a second "network" with the last task only: the other two are held out, unshared
    tasks = json.loads((info / "tiny_cnn.json").read_text())["tasks"]
    (info / "other.json").write_text(json.dumps({"tasks": tasks[-1:]}))
    shutil.copy(info / "tiny_cnn.workloads.json", info / "other.workloads.json")
    out = tmp_path / "r.json"
    argv = ["eval", "--tuner", "ansor", "--data", str(tmp_path), "--held-out", "tiny_cnn"]
    argv += ["--models", "gnn", "xgb", "--seeds", "0", "1", "--json", str(out), "-q"]
    # a fresh process: the workloads come from the saved file, not this one's registry
    code = subprocess.run(
        [sys.executable, "-m", "tvm_gnn.cli", *argv], capture_output=True, text=True
    )
    assert code.returncode == 0, code.stderr[-2000:]
    assert "| gnn | tiny_cnn |" in code.stdout and "| xgb | tiny_cnn |" in code.stdout
    res = json.loads(out.read_text())
    assert res["train_networks"] == ["other"] and len(res["shared"]) == 1
    for name in ("gnn", "xgb"):
        runs = res["models"][name]["runs"]
        assert [r["seed"] for r in runs] == [0, 1]
        m = runs[0]["networks"]["tiny_cnn"]
        assert m["all"]["workloads"] >= 2 and 0 <= m["all"]["pairwise"] <= 1
    assert res["protocol"]["low"] <= res["protocol"]["ratio"] <= res["protocol"]["high"]
    bad = ["eval", "--tuner", "ansor", "--data", str(tmp_path), "--models", "mlp"]
    assert main(bad) == 2
    assert "--tuner ansor evaluates gnn, xgb, random; not mlp" in capsys.readouterr().err
    two = ["--gnn", str(out), str(out), "--seeds", "0", "1", "2"]
    assert main(["eval", "--tuner", "ansor", "--data", str(tmp_path), *two]) == 2
    assert "one for each of the 3 --seeds" in capsys.readouterr().err


def test_the_packed_logs_read_as_the_raw_ones(tmp_path):
    from tvm_gnn.dataset.ansor_archive import pack_ansor
    from tvm_gnn.dataset.ansor_records import network_groups

    collect = ["collect", "--tuner", "ansor", "--network", "tiny_cnn", "--out", str(tmp_path)]
    collect += ["--trials-per-task", "2", "--batch-size", "2", "--max-tasks", "1", "-q"]
    collect += ["--uniform-fraction", "1"]
    assert main([*collect, "--number", "1", "--min-repeat-ms", "1", "--hardware", "hw"]) == 0
    pack_ansor(tmp_path, tmp_path / "data")
    raw = network_groups(tmp_path / "ansor" / "hw", "tiny_cnn")
    packed = network_groups(tmp_path / "data" / "ansor" / "hw", "tiny_cnn")
    assert [g.latencies for g in raw] == [g.latencies for g in packed] and raw[0].latencies
