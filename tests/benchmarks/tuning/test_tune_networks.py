"""benchmarks/tuning/tune_networks.py: a table never mixes runs from different GNN weights; named
weights
share the weightless models' runs; --report-only keeps the day its numbers were timed; the head-to-
head table; --tune-only."""

import argparse
import json

import pytest

from .. import ROOT, script


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
        script("tune_networks").run_all(args, [8])


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
    bench = script("tune_networks")
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


def test_a_report_only_rewrite_keeps_the_day_its_numbers_were_timed(tmp_path, monkeypatch):
    """--report-only times nothing, so a section it rewrites keeps its date; a new run has
    today's."""
    import datetime

    from tvm_gnn import report

    bench = script("tune_networks")
    monkeypatch.setattr(bench, "ROOT", tmp_path)
    doc = tmp_path / "docs" / "networks.md"
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


def test_the_head_to_head_table_gives_each_seeds_ratio_and_their_median():
    """Each GNN seed is read against XGBModel's network of the same seed, timed in the same
    rounds; the median is over those per-seed ratios, and a seed XGBModel lacks is left out."""
    times = {
        "gnn/seed0": [1.0, 1.0, 3.0],  # median 1.0 against 2.0
        "gnn/seed1": [2.0, 2.0, 2.0],  # 2.0 against 1.0
        "gnn/seed2": [0.5, 0.5, 0.5],  # 0.5 against 2.0
        "gnn/seed3": [9.0, 9.0, 9.0],  # no xgb seed 3
        "xgb/seed0": [2.0, 2.0, 2.0],
        "xgb/seed1": [1.0, 1.0, 1.0],
        "xgb/seed2": [2.0, 2.0, 1.0],
    }
    pairs = script("tuning_runs").seed_ratios(times, "gnn")
    assert pairs == {0: (0.5, 2, 3), 1: (2.0, 0, 3), 2: (0.25, 3, 3)}
    rows = script("tune_networks_report").head_to_head_table(
        {"resnet18": {"budget": 480, "rounds": 3, "times": times}}
    )
    gnn = next(r for r in rows if "| gnn |" in r)
    assert "0.500x (seed 0), 2.000x (seed 1), 0.250x (seed 2)" in gnn
    assert "**0.500x**" in gnn and "2 of 3, 0 of 3, 3 of 3" in gnn
    xgb = next(r for r in rows if "| xgb |" in r)
    assert xgb.endswith("| - | - | - |")


def test_tune_only_lists_the_runs_and_leaves_docs_alone(tmp_path, monkeypatch, capsys):
    """A network's seeds tuned in parts: --tune-only stops after the runs, before any
    head-to-head timing or docs section (read here from the committed Intel Xeon runs)."""
    bench = script("tune_networks")
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
