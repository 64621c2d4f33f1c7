"""The benchmark scripts: tune_networks never mixes runs from different GNN weights in a table;
noise_ceiling's estimate;
graph_reach's hop counts."""

import argparse
import importlib.util
import json
from collections import Counter
from pathlib import Path

import numpy as np
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
    log = {
        "network": "resnet18",
        "cost_model": "gnn",
        "cache_flush": False,
        "weights": {"sha256": "0" * 64},
    }
    (run / "tune_log.json").write_text(json.dumps(log))
    args = argparse.Namespace(
        networks=["resnet18"],
        models=["gnn"],
        seeds=[0],
        trials=8,
        trials_per_iter=8,
        repeats=1,
        runs=str(tmp_path / "runs"),
        archive=str(tmp_path / "archive"),
        report_only=False,
        no_write=True,
        cache_flush=False,
        data="data",
        target="llvm",
        num_cores=2,
        checkpoint=None,
        weights_name=None,
    )
    with pytest.raises(SystemExit, match="other GNN weights"):
        _script("tune_networks").run_all(args, [8])


def test_runs_from_named_weights_share_only_the_weightless_models_runs(tmp_path):
    """Under --weights-name, gnn comes from the named folders, xgb (no GNN weights) from the main
    table's: one xgb run serves both tables, and the old gnn run is neither refused nor used."""
    from tvm_gnn.tune.compile import COMPILE_VERSION
    from tvm_gnn.tune.end_to_end import weights_provenance

    shipped = weights_provenance("gnn")
    main, named = tmp_path / "archive", tmp_path / "archive-shipped"
    for folder, model, weights in (
        (main, "gnn", {"sha256": "0" * 64}),
        (main, "xgb", None),
        (named, "gnn", shipped),
    ):
        run = folder / "resnet18" / model / "seed0"
        run.mkdir(parents=True)
        (run / "tune_log.json").write_text(
            json.dumps(
                {
                    "network": "resnet18",
                    "cost_model": model,
                    "cache_flush": False,
                    "weights": weights,
                }
            )
        )
        (run / "budgets.json").write_text(
            json.dumps(
                {"compile_version": COMPILE_VERSION, "budgets": {"8": {"latency_ms_median": 1.0}}}
            )
        )
    bench = _script("tune_networks")
    args = argparse.Namespace(
        networks=["resnet18"],
        models=["gnn", "xgb"],
        seeds=[0],
        trials=8,
        runs=str(tmp_path / "runs-shipped"),
        archive=str(named),
        shared_runs=str(tmp_path / "runs"),
        shared_archive=str(main),
        weights_name="shipped",
        report_only=True,
        no_write=True,
        cache_flush=False,
        target="llvm",
        num_cores=2,
        checkpoint=None,
    )
    logs = bench.run_all(args, [8])
    assert {lg["cost_model"]: lg["work_dir"] for lg in logs} == {
        "gnn": str(named / "resnet18" / "gnn" / "seed0"),
        "xgb": str(main / "resnet18" / "xgb" / "seed0"),
    }
    assert logs[0]["weights"]["sha256"] == shipped["sha256"]
    assert all(lg["budgets"] == {8: {"latency_ms_median": 1.0}} for lg in logs)


def test_noise_ceiling_estimates_the_noise_and_what_a_perfect_model_scores(small_dataset, tmp_path):
    nc = _script("noise_ceiling")
    # two programs measured twice each, log latencies +-0.1 around their means: pooled sd is
    # sqrt((2 * 0.1^2 + 2 * 0.1^2) / 2) = 0.1414
    e = np.exp(0.1)
    wl = {
        "weight": 1,
        "programs": {"a": [1e-3 * e, 1e-3 / e], "b": [2e-3 * e, 2e-3 / e], "c": [5e-3]},
    }
    sigma = nc.noise({"net": {"w": wl}})
    assert sigma["programs"] == 2 and sigma["records"] == 4
    assert sigma["pooled"] == pytest.approx(np.sqrt(0.04 / 2))
    # a noiseless label: the perfect model scores 1; a very noisy one: pairwise near chance
    test = {"net": {"w": {"weight": 1, "programs": {str(i): [1e-3 * 1.1**i] for i in range(30)}}}}
    for sd, pair in [(0.0, 1.0), (50.0, 0.5)]:
        zero = {"buckets": [{"used": sd} for _ in nc.BUCKETS]}
        got = nc.ceiling(test, zero, replicates=20, seed=0)["net"]
        assert got["pairwise"] == pytest.approx(pair, abs=0.05)
        assert (got["top1"] == 1.0) == (sd == 0.0)
    # on real records (resnet18 held out, its workloads shared with resnet50 left out)
    doc, out = tmp_path / "results.md", tmp_path / "noise.json"
    argv = [
        "--data",
        str(small_dataset),
        "--held-out",
        "resnet18",
        "--replicates",
        "5",
        "--doc",
        str(doc),
        "--json",
        str(out),
    ]
    assert nc.main(argv) == 0
    res = json.loads(out.read_text())
    assert list(res["ceiling"]) == ["resnet18"] and 0.5 <= res["pairwise"] <= 1
    assert "noise_ceiling.py --held-out resnet18 --replicates 5`" in doc.read_text()
    with pytest.raises(SystemExit):
        nc.main(["--data", str(small_dataset), "--no-write"])  # no mobilenet_v2 in it


def test_a_report_only_rewrite_keeps_the_day_its_numbers_were_timed(tmp_path, monkeypatch):
    """--report-only times nothing, so a section it rewrites keeps its date; a new run has
    today's."""
    import datetime

    from tvm_gnn import report

    bench = _script("tune_networks")
    monkeypatch.setattr(bench, "ROOT", tmp_path)
    doc = tmp_path / "docs" / "tuning.md"
    report.write_section(
        doc,
        f"{bench.SECTION}-resnet18",
        "### resnet18\n\nMachine: Intel, 2 "
        "cores, target `llvm`; TVM 0.26.0; 2026-11-23. 16 candidates per round.",
    )
    assert report.read_section(doc, f"{bench.SECTION}-resnet18").startswith("### resnet18\n")
    assert report.read_section(doc, "other") is None
    today = str(datetime.date.today())
    for report_only, name, day in [
        (True, "resnet18", "2026-11-23"),
        (False, "resnet18", today),
        (True, "mobilenet_v2", today),
    ]:
        args = argparse.Namespace(report_only=report_only)
        assert bench.measured_on(args, name) == day


def _task_run(runs: Path, task: str, model: str, seed: int, curve, weights="w1") -> None:
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
        "weights": weights if model.startswith("gnn") else None,
        "machine": "test CPU, 2 cores",
        "day": "2026-11-25",
    }
    (out / "run.json").write_text(json.dumps(run))


def test_tune_tasks_statistics_on_known_curves(tmp_path):
    """GNN's curve is XGBModel's at 0.8x on every task and seed: the ratio and its interval are
    0.8 at every budget; trials to reach XGBModel's final best and the cost share are known."""
    bench = _script("tune_tasks")
    runs = tmp_path / "runs"
    xgb = np.linspace(2.0, 1.0, 128)  # reaches its best, 1.0, at the last trial
    for task in ("a", "b", "c"):
        for seed in (0, 1):
            scale = 1.0 + seed + (task == "b")
            _task_run(runs, task, "xgb", seed, xgb * scale)
            _task_run(runs, task, "gnn", seed, 0.8 * xgb * scale)
            _task_run(runs, task, "random", seed, np.full(128, 3.0 * scale))
    _task_run(runs, "a", "gnn", 7, 0.1 * xgb, weights="other")  # other weights: left out
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
    # the targets: ratio met, 97 trials of 128 is more than a third: missed, share 10%: met
    whole = bench.render_targets(res, count=3, seeds=2)
    assert "3 of 3 tasks, seeds per task 2 of 2" in whole
    assert [line.rsplit("|", 2)[1].strip() for line in whole.splitlines()[4:7]] == [
        "met",
        "missed",
        "met",
    ]
    assert "on 3, 3, 3 of the 3 tasks" in whole and "XGBModel is ahead" not in whole
    part = bench.render_targets(res, count=12, seeds=3)  # a part of the benchmark
    assert "3 of 12 tasks" in part and "| met so far |" in part and "| missed so far |" in part


def test_tune_tasks_reports_an_opt_in_model_only_when_asked(tmp_path):
    """gnn+xgb runs of one task leave the default report's three tasks alone; asked for, the
    report holds the one task every model tuned; a gnn+xgb run of other weights is left out."""
    bench = _script("tune_tasks")
    runs = tmp_path / "runs"
    curve = np.linspace(2.0, 1.0, 128)
    for task in ("a", "b", "c"):
        for model in ("gnn", "xgb", "random"):
            _task_run(runs, task, model, 0, curve)
    _task_run(runs, "b", "gnn+xgb", 0, 0.5 * curve)
    _task_run(runs, "c", "gnn+xgb", 0, 0.5 * curve, weights="other")
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

    bench = _script("tune_tasks")
    runs, digest = tmp_path / "runs", weights_provenance("gnn")["sha256"]
    curve = np.linspace(2.0, 1.0, 128)
    for task in ("a", "b"):
        for seed in (0, 1):
            _task_run(runs, task, "gnn", seed, curve, weights=digest)
            _task_run(runs, task, "gnn-head", seed, 0.9 * curve, weights=digest)
    _task_run(runs, "a", "xgb", 0, curve)  # XGBModel of one seed does not narrow the choice
    res = bench.summarize(bench.read_runs(runs, digest), 128, ("gnn", "gnn-head"))
    assert res["seeds"] == {"a": [0, 1], "b": [0, 1]}
    assert not res["ratios"] and not res["curves"]
    assert res["ratios_gnn"]["gnn-head@128"]["ratio"] == pytest.approx(0.9)
    text = bench.render(res, "cmd", None)
    assert "| gnn-head / gnn | **0.900** [0.900, 0.900]" in text and "XGBModel" not in text
    # best at 32 / at 128, at 112 / at 128 for the linear curve; cost share 0.4 s of 8
    assert "| gnn-head | 1.756 | 1.126 | 5.0% |" in text
    doc, numbers = tmp_path / "tuning.md", tmp_path / "choice.json"
    doc.write_text("# Tuning\n")
    argv = ["--report-only", "--set", "dev", "--models", "gnn", "gnn-head", "--runs", str(runs)]
    argv += ["--doc", str(doc), "--section", "tune-tasks-dev-choice", "--json", str(numbers)]
    assert bench.main(argv) == 0
    section = report.read_section(doc, "tune-tasks-dev-choice")
    assert "--models gnn gnn-head --section tune-tasks-dev-choice`" in section
    assert report.read_section(doc, "tune-tasks-dev") is None
    assert json.loads(numbers.read_text())["tasks"] == ["a", "b"]
    assert not list(tmp_path.glob("*.png"))


def test_tune_tasks_gnn_long_is_the_shipped_gnn_with_a_longer_online_update():
    from tvm_gnn.cost_models.gnn import ONLINE_TRAIN, GNNModel

    bench = _script("tune_tasks")
    assert bench.cost_model_for("xgb", 0) == "xgb"
    model = bench.cost_model_for("gnn-long", 3)
    assert isinstance(model, GNNModel) and model.seed == 3 and model.trained
    assert model.train_config.epochs == bench.LONG_EPOCHS > ONLINE_TRAIN.epochs
    assert model.train_config.lr == ONLINE_TRAIN.lr
    assert bench.cost_model_for("gnn-head", 1) == "gnn-head"  # a name the package builds


def test_tune_tasks_dev_networks_are_neither_trained_on_nor_held_out(tmp_path):
    bench = _script("tune_tasks")
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
    bench = _script("tune_tasks")
    assert bench.kind_of("fused_conv3d1_add", [(1, 3, 16, 112, 112), (64, 3, 3, 7, 7)]) == "conv3d"
    assert bench.kind_of("fused_conv2d_add", [(1, 32, 56, 56), (32, 1, 3, 3)]) == "depthwise conv2d"
    assert bench.kind_of("fused_conv2d1_add", [(1, 32, 56, 56), (64, 32, 1, 1)]) == "conv2d 1x1"
    assert bench.kind_of("fused_matmul_add", [(1, 768), (768, 768)]) == "dense"
    assert bench.kind_of("adaptive_pool_avg", [(1, 512, 7, 7)]) == "pooling/elementwise"


def test_tune_tasks_selects_the_heaviest_with_quotas_and_no_exhausted_design_space():
    bench = _script("tune_tasks")

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
    bench = _script("tune_tasks")
    runs = tmp_path / "runs"
    _task_run(runs, "t", "xgb", 0, [1.0] * 16)
    args = argparse.Namespace(trials=16, checkpoint=None, num_cores=2)
    task = {"id": "t", "kind": "dense", "mod": None}  # never tuned: the run is archived
    assert bench.tune_one(args, task, "xgb", 0, runs, "w1")["curve"] == [1.0] * 16
    # a longer budget than archived is not "finished": that run would be tuned again
    assert bench.read_runs(runs, None)[0]["trials"] < 32


def test_graph_reach_counts_hops_along_the_tree_and_through_def_use_edges():
    """Four nested loops around a store whose index uses the outermost loop's variable: four tree
    hops to the outermost loop, two through the def-use edge; every loop is within three hops."""
    import torch
    from torch_geometric.data import Data

    from tvm_gnn.nn.vocab import type_index

    bench = _script("graph_reach")
    t = type_index()
    kinds = ["For", "For", "For", "For", "BufferStore", "Var"]
    tree = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    edges = tree + [(c, p) for p, c in tree] + [(0, 5), (5, 0)]
    types = [0] * 5 + [1] * 5 + [2, 3]
    graph = Data(
        edge_index=torch.tensor(edges).T,
        edge_type=torch.tensor(types),
        node_type=torch.tensor([t[k] for k in kinds]),
        num_nodes=len(kinds),
    )
    reach = bench.graph_reach(graph, t["BufferStore"], t["For"])
    assert reach["depth"] == 5 and reach["nodes"] == 6
    (store,) = reach["stores"]
    assert store == {"tree_hops": 4, "graph_hops": 2, "loops": 4, "within_3": 1.0, "within_6": 1.0}
    summary = bench.summarize([reach, reach])
    assert summary["graphs"] == 2 and summary["outer_within_3"] == 1.0
    assert "| training | 2 | 6 / 6 / 6 | 5 / 5 / 5 |" in bench.table({"training": summary})


def test_the_head_to_head_table_gives_each_seeds_ratio_and_their_median():
    """Each GNN seed is read against XGBModel's network of the same seed, timed in the same
    rounds; the median is over those per-seed ratios, and a seed XGBModel lacks is left out."""
    bench = _script("tune_networks")
    times = {
        "gnn/seed0": [1.0, 1.0, 3.0],  # median 1.0 against 2.0
        "gnn/seed1": [2.0, 2.0, 2.0],  # 2.0 against 1.0
        "gnn/seed2": [0.5, 0.5, 0.5],  # 0.5 against 2.0
        "gnn/seed3": [9.0, 9.0, 9.0],  # no xgb seed 3
        "xgb/seed0": [2.0, 2.0, 2.0],
        "xgb/seed1": [1.0, 1.0, 1.0],
        "xgb/seed2": [2.0, 2.0, 1.0],
    }
    pairs = bench.seed_ratios(times, "gnn")
    assert pairs == {0: (0.5, 2, 3), 1: (2.0, 0, 3), 2: (0.25, 3, 3)}
    rows = bench.head_to_head_table({"resnet18": {"budget": 480, "rounds": 3, "times": times}})
    gnn = next(r for r in rows if "| gnn |" in r)
    assert "0.500x (seed 0), 2.000x (seed 1), 0.250x (seed 2)" in gnn
    assert "**0.500x**" in gnn and "2 of 3, 0 of 3, 3 of 3" in gnn
    xgb = next(r for r in rows if "| xgb |" in r)
    assert xgb.endswith("| - | - | - |")


def test_network_seeds_reads_each_network_against_the_targets_from_the_archive(tmp_path):
    """The committed Intel Xeon runs (one seed per network, the weights named `shipped`): the table
    gives each ratio, the rounds, the trials to XGBModel's final estimate and the verdicts."""
    doc, numbers = tmp_path / "tuning.md", tmp_path / "seeds.json"
    _script("network_seeds").main(
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
    seeds = _script("network_seeds")
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
    geo, low, high = seeds.log_interval([0.8, 0.9, 1.0])
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
    tasks = _script("network_seeds").task_map(tmp_path, "synthetic_matmul", target)
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
    _script("network_seeds").main([*argv, "--plan", "resnet18:480:3"])
    out = capsys.readouterr().out
    assert "| resnet18 | 480 | 0 of 3 | not tuned yet |" in out
    assert "- resnet18: seed 0 tuned by the GNN only; XGBModel's run of the same seed" in out
    assert "- resnet18: seed 1 tuned by XGBModel only; the GNN's run of the same seed" in out
    assert "- resnet18: seed 2 tuned by both but not timed head to head" in out


def test_tune_only_lists_the_runs_and_leaves_docs_alone(tmp_path, monkeypatch, capsys):
    """A network's seeds tuned in parts: --tune-only stops after the runs, before any
    head-to-head timing or docs section (read here from the committed Intel Xeon runs)."""
    bench = _script("tune_networks")
    monkeypatch.setattr(bench, "ROOT", tmp_path)
    archive = ROOT / "benchmarks/tuning-runs/llvm-intel-r-xeon-r-processor-2c"
    argv = ["tune_networks.py", "--networks", "resnet18", "--trials", "480", "--seeds", "0"]
    argv += ["--archive", str(archive), "--report-only", "--tune-only"]
    monkeypatch.setattr("sys.argv", argv)
    bench.main()
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "resnet18 / gnn / seed 0",
        "resnet18 / xgb / seed 0",
    ]
    assert all(line.endswith(" ms after 480 trials") for line in lines)
    assert not (tmp_path / "docs").exists()


def test_collect_profile_sorts_each_sample_by_what_the_collection_was_doing(tmp_path):
    profile = _script("collect_profile")
    top = "<module> (tvm-gnn:8);main (cli/__init__.py:77);cmd_collect (tvm_gnn/cli/data.py:89)"
    search = top + ";_search (tvm_gnn/collect/task.py:183);TaskScheduler.tune (t.py:136)"
    uniform = top + ";_Task.measure (tvm_gnn/collect/task.py:95)"
    raw = tmp_path / "spy.txt"
    raw.write_text(
        f"{search};select (selectors.py:415) 6\n"  # the search itself
        f"{search};Builder.build (builder.py:128);wait (pool.py:1) 3\n"
        f"{search};Runner.run (runner.py:190) 1\n"
        f"{uniform};Builder.build (builder.py:128) 4\n"
        f"{uniform};LocalRunner.run (local_runner.py:305) 2\n"
        f"{top};unrecorded_draws (tvm_gnn/collect/task.py:212) 1\n"
        "<module> (threading.py:1);run (threading.py:2) 50\n"  # another thread: left out
        "\n"
    )
    counts, total = profile.shares(raw)
    assert total == 17
    assert [counts[p] for p in profile.PHASES[:6]] == [6, 3, 1, 4, 2, 1]
    table = profile.report(counts, total)
    assert f"| {profile.PHASES[0]} | 35.3% |" in table and "17 samples" in table
    assert profile.report(Counter(), 0).startswith("no sample")
    with pytest.raises(SystemExit):
        profile.main([])  # a raw file or --pid, one of them


def test_codegen_transfer_counts_the_pairs_two_folders_order_alike(tmp_path):
    transfer = _script("codegen_transfer")
    first = {"w": {"p": 1.0, "q": 2.0, "r": 3.0, "s": 4.0}, "only-first": {"p": 1.0}}
    # the second code generator swaps q and r, ties q and s, and has a program of its own
    second = {"w": {"p": 0.5, "q": 1.5, "r": 1.0, "s": 1.5, "t": 0.1}}
    # pairs of p, q, r, s: (q,s) tied in the second, left out; (q,r) ordered the other way
    (row,) = transfer.compare(first, second, min_common=4)
    assert row["workload"] == "w" and row["common"] == 4 and row["agreement"] == 0.8
    assert row["best_ratio"] == 0.1  # the fastest of each folder, whichever program it is
    (few,) = transfer.compare(first, second, min_common=5)
    assert few["agreement"] is None and few["best_ratio"] == 0.1
    line = transfer.summary("net", [row, row], resamples=50, seed=0)
    assert line == "| net | 2 | 8 | 2 | 0.800 [0.800, 0.800] | 0.10 [0.10, 0.10] (0.10 - 0.10) |"
    (tmp_path / "a" / "resnet18").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    with pytest.raises(SystemExit):
        transfer.main([str(tmp_path / "a"), str(tmp_path / "b"), "--networks", "resnet18"])
    with pytest.raises(SystemExit):
        transfer.main([str(tmp_path / "a"), str(tmp_path / "nowhere")])


def test_tvm_gnn_registers_the_same_intrinsics_through_its_hook(tmp_path):
    """After ``import tvm_gnn`` a TuneContext imports the intrinsics through its hook, and they
    print as TVM's with the upstream patch series applied (no hook) makes them. TVM's own slow
    import (80 s on a Zen 3) is compared with both by the benchmark itself ("same intrinsics");
    here ``tests/measure/test_intrinsics.py`` holds the hook's stack to ``inspect.stack``."""
    bench = _script("intrinsics_import")
    hooked = bench.first_context(torch=False, hook=True)
    patched = bench.first_context(torch=False, hook=False, tvm_path=bench._patched_tvm(tmp_path))
    assert (hooked["loader"], patched["loader"]) == ("_Loader", "SourceFileLoader")
    assert hooked["stack_after"] == "inspect"  # inspect.stack is itself again after the import
    assert patched["tvm"].startswith(str(tmp_path)) and not hooked["tvm"].startswith(str(tmp_path))
    assert patched["digest"] == hooked["digest"]


def test_run_speeds_summarizes_each_span_and_counts_pairs_across_runs(tmp_path):
    speeds = _script("run_speeds")

    def rec(line, wl, stored, now):
        return {"line": line, "workload": wl, "stored": stored, "now": now}

    base = {"network": "n", "date": "2026-11-29T10:00", "cpu": None, "counted": True}
    lines = [
        # stored 2x and 8x the new times: geometric mean 4; the pair of workload 0 ordered alike
        {**base, "first": 1, "last": 9, "records": [rec(1, 0, 2.0, 1.0), rec(2, 0, 16.0, 2.0)]},
        # one failed re-run: fewer than two records left, no row
        {**base, "first": 10, "last": 20, "records": [rec(10, 0, 1.0, 1.0), rec(11, 0, 1.0, None)]},
    ]
    (row,) = speeds.summarize(lines, seed=0)
    assert row["timed"] == 2 and row["ratio"] == pytest.approx(4.0)
    assert row["lo"] == pytest.approx(2.0) and row["hi"] == pytest.approx(8.0)
    assert row["agreement"] == 1.0
    # two runs of one network: workload 0 has 2 records in each (4 of its 6 pairs cross), workload
    # 1 one record in the second run only
    folder = tmp_path / "hw" / "n"
    folder.mkdir(parents=True)
    (folder / "database_workload.json").write_text('["1", "x"]\n["2", "y"]\n')
    recs = [(0, 1e-3), (0, 2e-3), (0, 1e-3), (1, 1e-3), (0, 3e-3)]
    (folder / "database_tuning_record.json").write_text(
        "".join(f"[{w}, [[], [{s}], {{}}, []]]\n" for w, s in recs)
    )
    runs = [{"date": "a", "measured": 2}, {"date": "b", "measured": 3}]
    (folder / "provenance.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    cross = speeds.cross_run_pairs(tmp_path, "hw")
    assert cross == {"pairs": 6, "cross": 4, "workloads": 2, "mixed": 1}


def test_builder_pool_reports_the_paired_ratio_and_its_interval():
    bench = _script("builder_pool")
    lo, hi = bench.bootstrap_ratio([3.0, 3.0, 3.0], [2.0, 2.0, 2.0], seed=0)
    assert lo == pytest.approx(1.5) and hi == pytest.approx(1.5)  # no spread, no width
    lo, hi = bench.bootstrap_ratio([2.0, 4.0, 3.0, 5.0], [2.0, 2.0, 2.0, 2.0], seed=0)
    assert 1.0 <= lo < 1.75 < hi <= 2.5  # the ratio of sums, 14/8, inside
    rows = [
        {"batch": i, "candidates": 4, "tvm": t, "kept": 2.0, "tvm_failed": 0, "kept_failed": f,
         "kept_workers_mib": 100.0 + i}
        for i, (t, f) in enumerate([(4.0, 0), (6.0, 1)])
    ]  # fmt: skip
    res = {
        "workload": "w", "batch_size": 4, "batches": rows, "ratio": 2.5, "ratio_95": [2.0, 3.0],
        "construct_seconds": {"tvm": 5.0, "kept": 5.5}, "worker_uses": 256,
        "machine": {"cpu": "CPU", "llvm_cpu": "znver3", "cores": 2, "date": "2026-11-30"},
    }  # fmt: skip
    text = bench.section(res)
    assert "| TVM's LocalBuilder (new workers every batch) | 5.0 | 1.25 | 0 |" in text
    assert "| KeptPoolBuilder (`make_builder()`) | 2.0 | 0.50 | 1 |" in text
    assert "**2.50x**" in text and "[2.00, 3.00]" in text and "100, 101 MiB" in text


def test_search_half_compares_each_workloads_uniform_and_search_records(tmp_path):
    """Records in file order: the first trials * fraction uniform, the rest of the first trials
    the search's; a failed record holds its place; a folder of mixed settings is left out."""
    bench = _script("search_half")
    folder = tmp_path / "hw" / "n"
    folder.mkdir(parents=True)
    (folder / "database_workload.json").write_text('["1", "x"]\n')
    uniform = [4e-3, None, 5e-3, 6e-3, 7e-3]  # one failed build
    search = [2e-3, 2.5e-3, 3e-3, 3.5e-3, 8e-3]
    lines = [
        f"[0, [[], {'null' if s is None else [s]}, {{}}, []]]\n"
        for s in [*uniform, *search, 1e-4]  # the last one past trials_per_task: not read
    ]
    (folder / "database_tuning_record.json").write_text("".join(lines))
    run = {"collect": {"trials_per_task": 10, "uniform_fraction": 0.5}}
    (folder / "provenance.jsonl").write_text(json.dumps(run) + "\n")
    ((u, s),) = bench.halves(folder)
    assert list(u) == [4e-3, 5e-3, 6e-3, 7e-3] and list(s) == search
    result = bench.compare([(u, s)])
    assert result["median"][0] == pytest.approx(3e-3 / 5.5e-3)
    assert result["best"][0] == pytest.approx(0.5) and result["best_below"] == 1.0
    assert result["beats_best"][0] == pytest.approx(0.8)  # four of five below 4 ms
    assert result["beats_best_null"] == pytest.approx(1 / 5)
    alike = bench.compare([(u, u.copy())] * 3)
    assert alike["median"] == pytest.approx([1.0, 1.0, 1.0]) and alike["beats_best"][0] == 0.0
    assert "| best latency | 0.500 [0.500, 0.500] | 1 | 100.0% |" in bench.table(result)
    second = {"collect": {"trials_per_task": 10, "uniform_fraction": 1.0}}
    with (folder / "provenance.jsonl").open("a") as f:
        f.write(json.dumps(second) + "\n")  # a later run measured uniform draws only
    assert bench.mixed_settings(folder) is None and bench.halves(folder) == []
