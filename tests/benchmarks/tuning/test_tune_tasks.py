"""benchmarks/tuning/tune_tasks.py and the modules it reads through (task_selection.py,
task_models.py, tune_tasks_summary.py, tune_tasks_report.py, search_table.py): the statistics on
known curves, opt-in models and variants, the search table, the task selection, and resuming."""

import argparse
import json

import numpy as np
import pytest

from .. import script, task_run


def test_tune_tasks_statistics_on_known_curves(tmp_path):
    """GNN's curve is XGBModel's at 0.8x on every task and seed: the ratio and its interval are
    0.8 at every budget; trials to reach XGBModel's final best and the cost share are known."""
    bench = script("tune_tasks")
    runs = tmp_path / "runs"
    xgb = np.linspace(2.0, 1.0, 128)  # reaches its best, 1.0, at the last trial
    for task in ("a", "b", "c"):
        for seed in (0, 1):
            scale = 1.0 + seed + (task == "b")
            task_run(runs, task, "xgb", seed, xgb * scale)
            task_run(runs, task, "gnn", seed, 0.8 * xgb * scale)
            task_run(runs, task, "random", seed, np.full(128, 3.0 * scale))
    task_run(runs, "a", "gnn", 7, 0.1 * xgb, weights="other")  # other weights: left out
    res = bench.summarize(bench.read_runs(runs, "w1"), 128)
    assert res["tasks"] == ["a", "b", "c"] and res["budgets"] == [32, 64, 128]
    assert res["seeds"]["a"] == [0, 1]
    for b in (32, 64, 128):
        r = res["ratios"][f"gnn@{b}"]
        assert r["ratio"] == pytest.approx(0.8) and r["low"] == pytest.approx(0.8)
        assert r["high"] == pytest.approx(0.8)
    # 0.8 * (2 - t/127) <= 1  <=>  t >= 127 * 0.75: trial index 96 (0-based 95.25 -> 96), 1-based 97
    assert res["trials_to_xgb_final"]["gnn"]["median"] == 97
    assert res["trials_to_xgb_final"]["xgb"]["median"] == 128
    assert res["trials_to_xgb_final"]["random"]["reached"] == 0
    assert res["cost_model_share"]["gnn"] == pytest.approx(0.1)
    # best at 32 trials over best at 128: 2 - 31/127 for both linear curves, 1 for the flat one
    assert res["gain_after_first"]["gnn"] == pytest.approx(2 - 31 / 127)
    assert res["gain_after_first"]["xgb"] == pytest.approx(2 - 31 / 127)
    assert res["gain_after_first"]["random"] == pytest.approx(1.0)
    assert res["gain_last_round"]["xgb"] == pytest.approx(2 - 111 / 127)
    assert res["curves"]["gnn"]["mid"][-1] == pytest.approx(0.8)
    text = bench.render(res, "cmd", None)
    assert "| gnn / xgb | **0.800** [0.800, 0.800]" in text and "> 128" in text
    # issue 85's targets at the budgets these runs have: 0.8 <= 0.85 at 32 and 64 and <= 0.90 at
    # 128, no task beyond 5% behind, share 10%: met; no xgb-pretrained runs: none yet
    whole = bench.render_targets(res, count=3, seeds=2, command="cmd --report-only")
    assert (
        "3 of 3 tasks, seeds per task 2 of 2" in whole and "`.venv/bin/cmd --report-only`" in whole
    )
    assert _verdicts(whole) == ["met", "met", "met", "–", "met", "met"]
    assert (
        "at 32 trials <= 0.85" in whole
        and "at 64 trials <= 0.85" in whole
        and "at 128 trials <= 0.90" in whole
    )
    assert "none (the worst" in whole and "on 3, 3, 3 of the 3 tasks" in whole
    part = bench.render_targets(res, count=12, seeds=3, command="cmd")  # a part of the benchmark
    assert "3 of 12 tasks" in part and "| met so far |" in part


def _verdicts(targets: str) -> list[str]:
    """The verdict column of a targets table."""
    rows = [
        line for line in targets.splitlines() if line.startswith("| ") and "verdict" not in line
    ]
    return [row.rsplit("|", 2)[1].strip() for row in rows]


def test_a_256_trial_test_reads_the_short_models_up_to_their_end(tmp_path):
    """xgb-pretrained and RandomModel stop at 128 trials (SHORT_RUNS): read at 32 to 128 trials,
    the others at 256 too; a 128-trial GNN run does not count in a 256-trial test."""
    bench = script("tune_tasks")
    assert bench.model_trials("random", 256) == 128
    assert bench.model_trials("gnn", 256) == 256
    assert bench.model_trials("random", 64) == 64
    runs = tmp_path / "runs"
    xgb = np.linspace(2.0, 1.0, 256)
    for task in ("a", "b"):
        for seed in (0, 1):
            task_run(runs, task, "xgb", seed, xgb)
            task_run(runs, task, "gnn", seed, 0.9 * xgb)
            task_run(runs, task, "xgb-pretrained", seed, 0.5 * xgb[:128])
            task_run(runs, task, "random", seed, np.full(128, 3.0))
    task_run(runs, "c", "xgb", 0, xgb)
    task_run(runs, "c", "gnn", 0, 0.9 * xgb[:128])  # too short: task c is left out
    models = ("gnn", "xgb", "random", "xgb-pretrained")
    res = bench.summarize(bench.read_runs(runs, "w1"), 256, models)
    assert res["tasks"] == ["a", "b"] and res["budgets"] == [32, 64, 128, 256]
    assert res["ratios"]["gnn@256"]["ratio"] == pytest.approx(0.9)
    assert res["ratios"]["xgb-pretrained@128"]["ratio"] == pytest.approx(0.5)
    assert "xgb-pretrained@256" not in res["ratios"] and "random@256" not in res["ratios"]
    assert res["gain_after_first"]["xgb-pretrained"] == pytest.approx(xgb[31] / xgb[127])
    assert len(res["curves"]["random"]["mid"]) == 128 and len(res["curves"]["gnn"]["mid"]) == 256
    text = bench.render(res, "cmd", None)
    row = next(line for line in text.splitlines() if line.startswith("| xgb-pretrained / xgb"))
    assert row.endswith("| – |") and "xgb-pretrained (runs of 128 trials: at their end)" in text
    # against the fair peer at its budgets only: 0.9 / 0.5
    assert res["ratios_pretrained"]["gnn@128"]["ratio"] == pytest.approx(1.8)
    assert "gnn@256" not in res["ratios_pretrained"]
    # 0.9 of XGBModel: above 0.85 at 32 and 64, within 0.90 and 0.92 at 128 and 256; 1.8 of
    # the peer
    targets = bench.render_targets(res, count=2, seeds=2, command="cmd")
    verdicts = ["missed", "missed", "met", "met", "missed", "missed", "met", "met"]
    assert _verdicts(targets) == verdicts
    assert "at 256 trials <= 0.92" in targets and "xgb-pretrained best latency at 64" in targets
    task_run(runs, "b", "gnn", 2, 1.6 * xgb)  # task b: 1.6x XGBModel's on a third seed
    task_run(runs, "b", "xgb", 2, xgb)
    task_run(runs, "b", "xgb-pretrained", 2, 0.5 * xgb[:128])
    task_run(runs, "b", "random", 2, np.full(128, 3.0))
    res = bench.summarize(bench.read_runs(runs, "w1"), 256, models)
    behind = bench.render_targets(res, count=2, seeds=2, command="cmd")
    assert _verdicts(behind)[-2] == "missed"  # b: GNN / XGBModel 1.09 over its three seeds
    assert f"| b ({np.exp(np.log([0.9, 0.9, 1.6]).mean()):.3f}) |" in behind


def test_the_held_out_targets_are_read_for_the_candidate_gnn(tmp_path):
    """A held-out report of a GNN option (issue 85's chosen default) reads the targets for it:
    against XGBModel and xgb-pretrained, in the section named after its own --section."""
    from tvm_gnn import report
    from tvm_gnn.tune.end_to_end import weights_provenance

    bench = script("tune_tasks")
    runs, digest = tmp_path / "runs", weights_provenance("gnn")["sha256"]
    xgb = np.linspace(2.0, 1.0, 256)
    for task in ("a", "b"):
        for seed in (0, 1):
            task_run(runs, task, "xgb", seed, xgb)
            task_run(runs, task, "gnn-adaptive", seed, 0.8 * xgb, weights=digest)
            task_run(runs, task, "xgb-pretrained", seed, xgb[:128], weights=digest)
    models = ("gnn-adaptive", "xgb", "xgb-pretrained")
    res = bench.summarize(bench.read_runs(runs, digest), 256, models, "gnn-adaptive")
    assert res["ratios_pretrained"]["gnn-adaptive@128"]["ratio"] == pytest.approx(0.8)
    targets = bench.render_targets(res, count=2, seeds=2, command="cmd")
    assert "| GNN (gnn-adaptive) / XGBModel best latency at 32 trials <= 0.85" in targets
    assert "| GNN (gnn-adaptive) / xgb-pretrained best latency at 128" in targets
    assert _verdicts(targets) == ["met"] * 8 and "GNNModel (gnn-adaptive) has the lower" in targets
    doc = tmp_path / "tuning.md"
    doc.write_text("# Tuning\n")
    argv = ["--report-only", "--models", *models, "--trials", "256", "--runs", str(runs)]
    argv += ["--doc", str(doc), "--section", "tune-tasks-85", "--json", str(tmp_path / "n.json")]
    assert bench.main(argv) == 0  # the candidate: the first GNN model of --models
    section = report.read_section(doc, "tune-tasks-85-targets")
    assert "GNN (gnn-adaptive) / XGBModel" in section and "--section tune-tasks-85`" in section
    assert report.read_section(doc, "tune-tasks-targets") is None


def test_a_report_names_the_task_seeds_whose_paired_runs_are_of_two_machines(tmp_path):
    """Every ratio should compare runs of one machine: a task-seed whose GNN and XGBModel runs
    are of two is named in the report's first line and the targets'; RandomModel's older runs
    are not held against it; the machines and days listed are those of the runs counted."""
    bench = script("tune_tasks")
    runs = tmp_path / "runs"
    xgb = np.linspace(2.0, 1.0, 128)
    for task in ("a", "b"):
        task_run(runs, task, "xgb", 0, xgb, machine="CPU 1")
        task_run(runs, task, "gnn", 0, 0.9 * xgb, machine="CPU 2" if task == "b" else "CPU 1")
        task_run(runs, task, "random", 0, np.full(128, 3.0), machine="CPU 0")
    task_run(runs, "c", "gnn", 0, xgb, machine="CPU 3")  # no partner: not counted
    res = bench.summarize(bench.read_runs(runs, "w1"), 128)
    assert res["mixed"] == ["b seed 0"] and res["machines"] == ["CPU 0", "CPU 1", "CPU 2"]
    first = bench.render(res, "cmd", None).splitlines()[0]
    assert "runs of 2026-11-25 (of more than one machine: b seed 0). 2 tasks" in first
    targets = bench.render_targets(res, count=2, seeds=1, command="cmd").splitlines()[0]
    assert "(of more than one machine: b seed 0);" in targets
    alone = [r for r in bench.read_runs(runs, "w1") if r["task"] == "a"]
    one = bench.summarize(alone, 128)
    assert one["mixed"] == [] and "more than one" not in bench.render(one, "cmd", None)


def test_tune_tasks_reports_an_opt_in_model_only_when_asked(tmp_path):
    """gnn+xgb runs of one task leave the default report's three tasks alone; asked for, the
    report holds the one task every model tuned; a gnn+xgb run of other weights is left out."""
    bench = script("tune_tasks")
    runs = tmp_path / "runs"
    curve = np.linspace(2.0, 1.0, 128)
    for task in ("a", "b", "c"):
        for model in ("gnn", "xgb", "random"):
            task_run(runs, task, model, 0, curve)
    task_run(runs, "b", "gnn+xgb", 0, 0.5 * curve)
    task_run(runs, "c", "gnn+xgb", 0, 0.5 * curve, weights="other")
    plain = bench.summarize(bench.read_runs(runs, "w1"), 128)
    assert plain["tasks"] == ["a", "b", "c"] and plain["models"] == ["gnn", "xgb", "random"]
    both = bench.summarize(bench.read_runs(runs, "w1"), 128, bench.MODELS)
    assert both["tasks"] == ["b"] and both["models"] == ["gnn", "xgb", "random", "gnn+xgb"]
    assert both["ratios"]["gnn+xgb@64"]["ratio"] == pytest.approx(0.5)
    assert both["ratios_gnn"]["gnn+xgb@128"]["ratio"] == pytest.approx(0.5)  # against gnn too
    assert set(both["ratios_gnn"]) == {f"gnn+xgb@{b}" for b in (32, 64, 128)}  # not random
    text = bench.render(both, "cmd", None)
    assert "| gnn+xgb / xgb | **0.500**" in text and "| gnn+xgb / gnn | **0.500**" in text
    assert "/ gnn |" not in bench.render(plain, "cmd", None)  # no variant, no table


def test_tune_tasks_reports_a_variant_against_the_gnn_without_xgbmodel(tmp_path):
    """The choice tunes no XGBModel: its report has the variants' table and the models' table
    without the columns that need XGBModel's best, no plot, and goes to its own --section."""
    from tvm_gnn import report
    from tvm_gnn.tune.end_to_end import weights_provenance

    bench = script("tune_tasks")
    runs, digest = tmp_path / "runs", weights_provenance("gnn")["sha256"]
    curve = np.linspace(2.0, 1.0, 128)
    for task in ("a", "b"):
        for seed in (0, 1):
            task_run(runs, task, "gnn", seed, curve, weights=digest)
            task_run(runs, task, "gnn-head", seed, 0.9 * curve, weights=digest)
    task_run(runs, "a", "xgb", 0, curve)  # XGBModel of one seed does not narrow the choice
    res = bench.summarize(bench.read_runs(runs, digest), 128, ("gnn", "gnn-head"))
    assert res["seeds"] == {"a": [0, 1], "b": [0, 1]}
    assert not res["ratios"] and not res["curves"]
    assert res["ratios_gnn"]["gnn-head@128"]["ratio"] == pytest.approx(0.9)
    text = bench.render(res, "cmd", None)
    assert "| gnn-head / gnn | **0.900** [0.900, 0.900]" in text and "XGBModel" not in text
    # best at 32 / at 128, at 112 / at 128 for the linear curve; cost share 0.4 s of 8, and
    # 0.4 s over 128 trials is 0.05 s a round of 16
    assert "| gnn-head | 1.756 | 1.126 | 5.0% | 0.05 |" in text
    doc, numbers = tmp_path / "tuning.md", tmp_path / "choice.json"
    doc.write_text("# Tuning\n")
    argv = ["--report-only", "--set", "dev", "--models", "gnn", "gnn-head", "--runs", str(runs)]
    argv += ["--doc", str(doc), "--section", "tune-tasks-dev-choice", "--json", str(numbers)]
    assert bench.main(argv) == 0
    section = report.read_section(doc, "tune-tasks-dev-choice")
    # the command names the archive it read, so that it reproduces the section
    assert f"--models gnn gnn-head --runs {runs} --section tune-tasks-dev-choice`" in section
    assert report.read_section(doc, "tune-tasks-dev") is None
    assert json.loads(numbers.read_text())["tasks"] == ["a", "b"]
    assert not list(tmp_path.glob("*.png"))
    assert bench.main(argv + ["--tasks", "b"]) == 0  # the report of some tasks says which
    assert json.loads(numbers.read_text())["tasks"] == ["b"]
    assert f"--tasks b --runs {runs} --section" in report.read_section(doc, "tune-tasks-dev-choice")
    assert bench.main(argv + ["--seeds", "1"]) == 0  # and of some seeds
    assert json.loads(numbers.read_text())["seeds"] == {"a": [1], "b": [1]}
    with pytest.raises(SystemExit, match="archived task names"):
        bench.main(argv + ["--tasks", "0"])


def test_tune_tasks_alternate_reverses_the_models_of_odd_seeds_only():
    bench = script("tune_tasks")
    models = ["gnn", "gnn+native-all"]
    assert bench.model_order(models, 0, True) == models
    assert bench.model_order(models, 1, True) == models[::-1]
    assert bench.model_order(models, 1, False) == models
    assert bench.parse(["--report-only", "--alternate"]).alternate


def test_tune_tasks_dev_networks_are_neither_trained_on_nor_held_out(tmp_path):
    bench = script("task_selection")
    for net in ("resnet18", "vgg16", "vit_b_16", "convnext_tiny", "swin_t"):
        folder = tmp_path / "llvm-cpu-2c" / net
        folder.mkdir(parents=True)
        (folder / "database_workload.json").write_text("")
    (tmp_path / "llvm-other-4c" / "swin_t").mkdir(parents=True)  # another machine's, no database
    got = bench.dev_networks(tmp_path, "llvm-cpu-2c", ["vgg16"])
    assert got == ["convnext_tiny", "vit_b_16"]  # swin_t is not a development network
    with pytest.raises(SystemExit, match="no development network"):
        bench.dev_networks(tmp_path, "llvm-cpu-2c", ["vgg16", "vit_b_16", "convnext_tiny"])


def test_tune_tasks_kinds_tell_conv3d_depthwise_and_dense_apart():
    bench = script("task_selection")
    assert bench.kind_of("fused_conv3d1_add", [(1, 3, 16, 112, 112), (64, 3, 3, 7, 7)]) == "conv3d"
    assert bench.kind_of("fused_conv2d_add", [(1, 32, 56, 56), (32, 1, 3, 3)]) == "depthwise conv2d"
    assert bench.kind_of("fused_conv2d1_add", [(1, 32, 56, 56), (64, 32, 1, 1)]) == "conv2d 1x1"
    assert bench.kind_of("fused_matmul_add", [(1, 768), (768, 768)]) == "dense"
    assert bench.kind_of("adaptive_pool_avg", [(1, 512, 7, 7)]) == "pooling/elementwise"


def test_tune_tasks_selects_the_heaviest_with_quotas_and_no_exhausted_design_space():
    bench = script("task_selection")

    def w(name, kind, cost, exhausted=False):
        return {"network": "n", "task": name, "kind": kind, "cost": cost, "exhausted": exhausted}

    workloads = [
        w("conv_a", "conv2d 3x3", 9.0),
        w("conv_b", "conv2d 1x1", 8.0),
        w("relu", "pooling/elementwise", 7.0, exhausted=True),  # a few schedules: left out
        w("conv_c", "conv2d 3x3", 6.0),
        w("dw_a", "depthwise conv2d", 2.0),
        w("pool", "pooling/elementwise", 1.5),
        w("dw_b", "depthwise conv2d", 1.0),
        w("dense", "dense", 0.5),
    ]
    chosen = bench.select_tasks(workloads, count=6)
    assert [t["task"] for t in chosen] == ["conv_a", "conv_b", "dw_a", "pool", "dw_b", "dense"]
    assert chosen[0]["id"] == "n-conv_a"
    # the development quotas: "conv2d" asks for any conv2d but the depthwise ones
    chosen = bench.select_tasks(workloads, count=4, quotas={"conv2d": 2, "dense": 1})
    assert [t["task"] for t in chosen] == ["conv_a", "conv_b", "conv_c", "dense"]


def test_tune_tasks_keeps_a_finished_run_and_starts_a_cut_one_over(tmp_path):
    bench = script("tune_tasks")
    runs = tmp_path / "runs"
    task_run(runs, "t", "xgb", 0, [1.0] * 16)
    args = argparse.Namespace(trials=16, checkpoint=None, num_cores=2)
    task = {"id": "t", "kind": "dense", "mod": None}  # never tuned: the run is archived
    assert bench.tune_one(args, task, "xgb", 0, runs, "w1")["curve"] == [1.0] * 16
    # a longer budget than archived is not "finished": that run would be tuned again
    assert bench.read_runs(runs, None)[0]["trials"] < 32


def test_tune_tasks_online_variants_are_the_shipped_gnn_with_those_fields_changed():
    import dataclasses

    from tvm_gnn.cost_models.gnn import ONLINE_TRAIN, GNNModel

    bench = script("task_models")
    assert bench.cost_model_for("xgb", 0) == "xgb"
    model = bench.cost_model_for("gnn-long", 3)
    assert isinstance(model, GNNModel) and model.seed == 3 and model.trained
    assert model.train_config.epochs == script("tune_tasks_summary").LONG_EPOCHS > 8
    assert model.train_config.lr == ONLINE_TRAIN.lr
    lambda32 = bench.cost_model_for("gnn-lambda32", 0).train_config
    assert lambda32 == dataclasses.replace(ONLINE_TRAIN, loss="lambdarank", epochs=32)
    assert bench.cost_model_for("gnn-head", 1) == "gnn-head"  # a name the package builds
    explore = bench.cost_model_for("gnn-explore-0.5", 2)
    assert (explore.explore, explore.seed, explore.train_config) == (0.5, 2, ONLINE_TRAIN)
    assert bench.cost_model_for("gnn-calibrated", 1) == "gnn-calibrated"  # the package's
    novelty = bench.cost_model_for("gnn-novelty-2", 1)
    assert novelty.calibration is not None and novelty.novelty.weight == 2.0
    assert bench.cost_model_for("gnn-eps-0.3", 0) == "gnn"  # the shipped GNN, a wider search


def test_xgb_pretrained_trains_once_per_weights_and_seed(small_dataset, trained, tmp_path):
    bench = script("task_models")
    from tvm_gnn.dataset.groups import load_groups

    args = (0, trained["gnn"], small_dataset, "abcd" * 16)
    first = bench.pretrained_xgb_cached(*args, cache=tmp_path)
    (saved,) = tmp_path.iterdir()
    assert saved.name == "abcdabcdabcdabcd-seed0.tar"
    stamp = saved.stat().st_mtime_ns
    again = bench.pretrained_xgb_cached(*args, cache=tmp_path)
    assert saved.stat().st_mtime_ns == stamp  # loaded, not trained again
    assert again.data_size == again.last_train_size == first.data_size > 0
    (g, *_) = load_groups(small_dataset, "cpu", ["resnet18"])
    np.testing.assert_allclose(
        again.predict(g.context, g.candidates), first.predict(g.context, g.candidates)
    )


def _database(folder, decisions_of, secs_of, trials=128):
    """A run's gzipped database: trial i's trace samples ``decisions_of(i)`` (a tile and a
    category) and runs in ``secs_of(i)`` seconds (None: a failed build)."""
    import gzip

    insts = [["SamplePerfectTile", [], [], ["v0"]], ["SampleCategorical", [], [], ["v1"]]]
    folder.mkdir(parents=True, exist_ok=True)
    with gzip.open(folder / "database_tuning_record.json.gz", "wt") as f:
        for i in range(trials):
            tile, cat = decisions_of(i)
            secs = secs_of(i)
            record = [[insts, [[0, tile], [1, cat]]], [] if secs is None else [secs], {}, []]
            f.write(json.dumps([0, record]) + "\n")


def test_the_search_table_counts_decision_values_and_the_late_batch(tmp_path):
    """A narrow run (2 tiles, 1 category, a late batch at 2x its best) against a broad one (128
    tiles, 4 categories, late at 4x): the counts, ratios and recorded drawing weights as built."""
    table = script("search_table")
    runs = tmp_path / "runs"
    task_run(runs, "t", "gnn", 0, [1.0] * 128)
    task_run(runs, "t", "xgb", 0, [1.0] * 200)
    _database(runs / "t" / "gnn" / "seed0", lambda i: ([i % 2, 1], 0), lambda i: 2.0 if i else 1.0)
    _database(
        runs / "t" / "xgb" / "seed0",
        lambda i: ([i, 1], i % 4),
        lambda i: None if i == 100 else (1.0 if i == 5 else 4.0),
        trials=200,  # only the first 128 trials count
    )
    done = runs / "t" / "gnn" / "seed0" / "run.json"
    log = json.loads(done.read_text())
    log["score_calls"] = [[512, 0.4, 0.3], [512, 0.3, 0.1], [512, None, 0.2]]
    done.write_text(json.dumps(log))
    bench = script("tune_tasks")
    rows = table.search_rows(runs, bench.read_runs(runs, None), ["gnn", "xgb", "random"])
    gnn, xgb = rows  # random has no run: no row
    assert (gnn["model"], gnn["runs"], gnn["values"], gnn["late"]) == ("gnn", 1, 3, 2.0)
    assert gnn["logged"] == 1 and gnn["top_tenth"] == 0.35 and gnn["nonpositive"] == 0.2
    assert (gnn["first_top"], gnn["first_nonpositive"]) == (0.4, 0.3)  # the first call alone
    assert (xgb["values"], xgb["late"], xgb["logged"]) == (128 + 4, 4.0, 0)
    text = table.render_search(rows, "cmd", "a machine")
    assert "| gnn | 1 | 3 | 2.00 | 0.40 / 0.35 (1 runs) | 30% / 20% |" in text
    assert "| xgb | 1 | 132 | 4.00 | not recorded | – |" in text
    # a report of 64-trial runs reads them whole, its late batch trials 33-64
    (short,) = table.search_rows(runs, bench.read_runs(runs, None), ["xgb"], window=64)
    assert (short["values"], short["late"]) == (64 + 4, 4.0)
    assert "trials 33-64 /" in table.render_search([short], "cmd", "a machine", window=64)
