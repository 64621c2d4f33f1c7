"""``tvm-gnn collect --tuner ansor`` and ``tvm-gnn tune --tuner ansor`` on a small network
(TVM 0.19): real measurements, resumed collection, a real tune compiled and checked."""

import json

from tvm_gnn.cli import main

from ..conftest import tvm019_only

pytestmark = tvm019_only()

FAST = ["--number", "1", "--min-repeat-ms", "1"]


def test_collect_writes_tenset_logs_and_resumes(tmp_path, capsys):
    args = ["collect", "--tuner", "ansor", "--network", "tiny_cnn", "--out", str(tmp_path)]
    args += ["--trials-per-task", "2", "--batch-size", "2", "--max-tasks", "2", "-q", *FAST]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["tasks"] == 2 and summary["valid"] >= 4
    folder = tmp_path / "ansor" / summary["folder"].split("/")[-1]
    logs = sorted((folder / "measure_records").glob("*.json"))
    assert len(logs) == 2 and all(p.name.startswith("([") for p in logs)
    info = json.loads((folder / "network_info" / "tiny_cnn.json").read_text())
    assert [t["log"] for t in info["tasks"]] == [f"measure_records/{p.name}" for p in logs] or {
        t["log"] for t in info["tasks"]
    } == {f"measure_records/{p.name}" for p in logs}
    sizes = [p.stat().st_size for p in logs]
    with open(logs[0], "a") as f:  # a killed run's cut last line
        f.write('{"i": [["cut')
    assert main(args) == 0  # resumes: every task has its records, nothing more is measured
    assert [p.stat().st_size for p in logs] == sizes


def test_tune_compiles_checks_and_times_the_network(tmp_path, capsys):
    work = tmp_path / "run"
    args = ["tune", "--tuner", "ansor", "--network", "tiny_cnn", "--cost-model", "gnn"]
    args += ["--trials", "8", "--trials-per-iter", "4", "--work-dir", str(work), "-q"]
    args += ["--repeats", "3"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "tiny_cnn (Ansor, gnn, 8 trials, 4 tasks)" in out
    assert "output matches the untuned build" in out
    result = json.loads((work / "tune_result.json").read_text())
    assert result["records"] >= 8 and 0 < result["cost_model_share"] < 1
    assert main(args) == 2  # the same work dir again: refused, nothing run
    assert "holds an earlier Ansor run's records.json" in capsys.readouterr().err


def test_the_metaschedule_commands_say_where_they_run(capsys):
    assert main(["tune", "--network", "tiny_cnn"]) == 2
    assert "has Ansor, not tvm_gnn's MetaSchedule line: tune and collect take --tuner ansor" in (
        capsys.readouterr().err
    )
    assert (
        main(["tune", "--tuner", "ansor", "--network", "tiny_cnn", "--cost-model", "gnn-gp"]) == 2
    )
    assert "--tuner ansor searches with gnn, xgb, random" in capsys.readouterr().err
