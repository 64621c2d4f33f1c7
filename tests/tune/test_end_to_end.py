"""tvm-gnn tune: a tiny network tuned end to end, checked against PyTorch, timed and logged."""

import json
import subprocess
import sys


def test_tune_tiny_network_end_to_end(tmp_path):
    work = tmp_path / "run"
    # an earlier run killed in this folder: MetaSchedule would append to its database, and its
    # budgets.json would pass for this run's
    work.mkdir()
    stale = {
        "database_tuning_record.json": "stale record\n",
        "budgets.json": json.dumps({"compile_version": 2, "budgets": {"4": {}}}),
    }
    for name, text in stale.items():
        (work / name).write_text(text)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tvm_gnn.cli",
            "tune",
            "--network",
            "tiny_cnn",
            "--trials",
            "12",
            "--trials-per-iter",
            "2",
            "--population",
            "64",
            "--cost-model",
            "gnn",
            "--repeats",
            "3",
            "--num-cores",
            "2",
            "--work-dir",
            str(work),
            "--budgets",
            "4",
            "12",
        ],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "output matches PyTorch" in proc.stdout
    log = json.loads((work / "tune_log.json").read_text())
    assert log["network"] == "tiny_cnn" and log["cost_model"] == "gnn" and log["tasks"] == 6
    assert (log["strategy"], log["population"], log["eps_greedy"]) == ("evolutionary", 64, 0.05)
    assert log["untuned_functions"] == []  # the compiled network runs the tuned schedules
    assert len(log["latency_ms_runs"]) == 3 and 0 < log["latency_ms_median"] < 100
    trials = [p["trials"] for p in log["curve"]]
    assert trials == sorted(trials) and trials[-1] == 12
    estimates = [p["estimated_latency_s"] for p in log["curve"] if p["estimated_latency_s"]]
    assert estimates and all(a >= b for a, b in zip(estimates, estimates[1:]))  # best-so-far
    assert (work / "database_tuning_record.json").stat().st_size > 0
    assert log["profile_seconds"]  # MetaSchedule's profiler scopes, e.g. the cost model's
    # which weights the GNN started from: the shipped file, named by its hash
    from tvm_gnn.resources import PRETRAINED

    assert log["weights"]["path"] == str(PRETRAINED) and len(log["weights"]["sha256"]) == 64
    assert "resnet18" not in log["weights"]["train_networks"]
    # the network as it stood after 4 and after all 12 trials: compiled, checked, timed
    budgets = json.loads((work / "budgets.json").read_text())
    assert budgets["compile_version"] == 2
    budgets = budgets["budgets"]
    assert sorted(budgets) == ["12", "4"] and budgets["4"]["records"] == 4
    # 4 trials reach at most 4 of the 6 tasks (2 on TVM 0.26, whose scheduler gives a task a
    # whole round; 3 on 0.27): the rest of the network runs unscheduled
    assert budgets["4"]["untuned_functions"] >= 2 and budgets["12"]["untuned_functions"] == 0
    assert all(
        0 < b["latency_ms_median"] < 100 and len(b["latency_ms_runs"]) == 3
        for b in budgets.values()
    )
    assert "after 4 trials:" in proc.stdout and "after 12 trials:" in proc.stdout
    # the killed run's files were set aside, untouched, and not mixed into this run
    (aside,) = work.glob("previous-*")
    assert {p.name: p.read_text() for p in aside.iterdir()} == stale
    records = (work / "database_tuning_record.json").read_text().splitlines()
    assert len(records) == 12 and "stale record" not in records
    # head to head: runs' networks compiled, checked, then timed in turn (here one run twice)
    code = (
        "import json, sys; from tvm_gnn.tune.budgets import head_to_head; "
        "print(json.dumps(head_to_head({'a': sys.argv[1], 'b': sys.argv[1]}, 12, rounds=3, "
        "progress=False)))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(work)], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    times = json.loads(proc.stdout.strip().splitlines()[-1])
    assert sorted(times) == ["a", "b"] and all(len(t) == 3 for t in times.values())
    assert all(0 < x < 100 for t in times.values() for x in t)


def test_weights_provenance_names_the_weights_where_a_model_uses_them():
    import hashlib

    from tvm_gnn.resources import PRETRAINED
    from tvm_gnn.tune.end_to_end import weights_provenance

    assert weights_provenance("xgb") is None and weights_provenance("random") is None
    info = weights_provenance("xgb-pretrained")  # trains on the weights' training networks
    assert info["sha256"] == hashlib.sha256(PRETRAINED.read_bytes()).hexdigest()
    assert info["hardware"] == "llvm-amd-epyc-2c" and info["train_networks"]
