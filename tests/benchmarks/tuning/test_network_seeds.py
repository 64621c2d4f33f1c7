"""benchmarks/tuning/network_seeds.py: each network against the targets, read from the archive."""

import json

import pytest

from .. import ROOT, script


def test_network_seeds_reads_each_network_against_the_targets_from_the_archive(tmp_path):
    """The committed Intel Xeon runs (one seed per network, the weights named `shipped`): the table
    gives each ratio, the rounds, the trials to XGBModel's final estimate and the verdicts."""
    doc, numbers = tmp_path / "tuning.md", tmp_path / "seeds.json"
    script("network_seeds").main(
        [
            "--weights-name", "shipped",
            "--archive", str(ROOT / "benchmarks/tuning-runs/llvm-intel-r-xeon-r-processor-2c"),
            "--plan", "resnet18:480:1", "mobilenet_v2:1000:1", "inception_v3:1500:1",
            "--doc", str(doc), "--json", str(numbers),
        ]
    )  # fmt: skip
    text = doc.read_text()
    assert "<!-- begin tune-networks-seeds-shipped" in text
    first = "| 0.824x (20 of 20) | **0.824x** [0.824, 0.824] | 0.824x (one seed) | 234 (the first"
    assert f"| resnet18 | 480 | 1 of 1 {first}" in text
    assert "| inception_v3 | 1500 | 1 of 1 | 1.038x (0 of 20) |" in text
    assert "| median head-to-head ratio <= 0.95 | met | missed | missed |" in text
    reach = "| XGBModel's final estimate reached in <= 1/3 of the trials (median) |"
    assert f"{reach} missed: reached at the first estimate, which exists only from trial 234 " \
        "(49%) | met | missed |" in text  # fmt: skip
    # Inception v3's loss is in its 3x3 convolutions, as in the per-task benchmark
    behind = "`fused_conv2d2_subtract2_divide2_multiply2_add4` +5.98 (104 / 112)"
    assert "- inception_v3: in all +1.39 ms against XGBModel's estimate of 329.70 ms. Behind " \
        f"most on {behind}" in text  # fmt: skip
    rows = json.loads(numbers.read_text())["networks"]
    assert rows[2]["seeds"]["0"]["trials_to_xgb_final"] is None  # never reached
    assert rows[1]["seeds"]["0"]["trials_to_xgb_final"] == 274


def test_network_seeds_says_pending_until_every_planned_seed_is_timed(tmp_path, capsys):
    seeds = script("network_seeds")
    seeds.main(
        [
            "--weights-name", "shipped",
            "--archive", str(ROOT / "benchmarks/tuning-runs/llvm-intel-r-xeon-r-processor-2c"),
            "--plan", "resnet18:480:3", "alexnet:480:2", "--no-write",
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "| resnet18 | 480 | 1 of 3 |" in out
    assert "pending (1 of 3 seeds; so far met)" in out
    assert "| alexnet | 480 | 0 of 2 | not tuned yet |" in out
    geo, low, high = script("tuning_runs").log_interval([0.8, 0.9, 1.0])
    assert low < 0.8 < geo < 0.9 < 1.0 < high  # three seeds' t-interval is wide
    assert geo == pytest.approx((0.8 * 0.9 * 1.0) ** (1 / 3))
    with pytest.raises(SystemExit):
        seeds.main(["--weights-name", "shipped", "--plan", "resnet18-480", "--no-write"])


def test_network_seeds_keys_tasks_by_the_hash_a_json_database_writes(tmp_path):
    """tasks.json maps the workload hashes of the runs' databases to task names and weights: the
    hash is the one MetaSchedule's JSONDatabase writes for the task's module."""
    import tvm
    from tvm.s_tir import meta_schedule as ms

    from tvm_gnn.measure.networks import extract_tasks

    target = '{"kind": "llvm", "num-cores": 2}'
    tasks = script("tuning_runs").task_map(tmp_path, "synthetic_matmul", target)
    assert (tmp_path / "synthetic_matmul" / "tasks.json").exists()
    db = ms.database.JSONDatabase(
        path_workload=str(tmp_path / "wl.json"), path_tuning_record=str(tmp_path / "tr.json")
    )
    for task in extract_tasks("synthetic_matmul", tvm.target.Target(target)):
        db.commit_workload(task.dispatched[0])
    written = [json.loads(ln)[0] for ln in (tmp_path / "wl.json").read_text().splitlines()]
    assert sorted(written) == sorted(tasks)
    assert {t["name"] for t in tasks.values()} == {
        t.task_name for t in extract_tasks("synthetic_matmul", tvm.target.Target(target))
    }


def test_network_seeds_names_finished_runs_it_cannot_read_yet(tmp_path, capsys):
    """A run of one model only, and runs of both that were not timed head to head, are listed
    under the table rather than silently left out (the runs' logs are the committed ones)."""
    kept = ROOT / "benchmarks/tuning-runs"
    gnn_log = kept / "llvm-amd-epyc-2c-relational/resnet18/gnn/seed0/tune_log.json"
    xgb_log = kept / "llvm-amd-epyc-2c/resnet18/xgb/seed0/tune_log.json"
    for path, log in (
        ("arch-w/resnet18/gnn/seed0", gnn_log),  # the GNN's seed 0 alone
        ("arch/resnet18/xgb/seed1", xgb_log),  # XGBModel's seed 1 alone
        ("arch-w/resnet18/gnn/seed2", gnn_log),  # both seed 2, never timed in turn
        ("arch/resnet18/xgb/seed2", xgb_log),
    ):
        (tmp_path / path).mkdir(parents=True)
        entry = json.loads(log.read_text())
        entry["seed"] = int(path[-1])
        (tmp_path / path / "tune_log.json").write_text(json.dumps(entry))
    argv = ["--weights-name", "w", "--archive", str(tmp_path / "arch"), "--no-write"]
    script("network_seeds").main([*argv, "--plan", "resnet18:480:3"])
    out = capsys.readouterr().out
    assert "| resnet18 | 480 | 0 of 3 | not tuned yet |" in out
    assert "- resnet18: seed 0 tuned by the GNN only; XGBModel's run of the same seed" in out
    assert "- resnet18: seed 1 tuned by XGBModel only; the GNN's run of the same seed" in out
    assert "- resnet18: seed 2 tuned by both but not timed head to head" in out
