"""`tvm-gnn train` and `tvm-gnn eval` end to end on a small slice of the committed dataset."""

import json

import pytest

from tvm_gnn.cli import RESULTS_SECTION, main
from tvm_gnn.evaluate import MODELS
from tvm_gnn.report import markers

RESULTS_BEGIN, RESULTS_END = markers(RESULTS_SECTION)


def test_eval_writes_every_model_and_reproduces(small_dataset, trained, tmp_path):
    doc = tmp_path / "results.md"
    doc.write_text("# Results\n\nprose stays\n")
    args = [
        "eval",
        "--data",
        str(small_dataset),
        "--held-out",
        "resnet18",
        "--gnn",
        str(trained["gnn"]),
        "--gnn-learned-emb",
        str(trained["gnn-learned-emb"]),
        "--gnn-no-topk",
        str(trained["gnn-no-topk"]),
        "--out",
        str(doc),
        "--plot",
        str(tmp_path / "r.png"),
        "-q",
    ]
    assert main([*args, "--json", str(tmp_path / "r1.json")]) == 0
    text = doc.read_text()
    assert text.startswith("# Results\n\nprose stays\n") and RESULTS_BEGIN in text
    for name in MODELS:
        assert f"| {name} |" in text
    assert (tmp_path / "r.png").stat().st_size > 1000
    assert main([*args, "--json", str(tmp_path / "r2.json")]) == 0
    assert doc.read_text().count(RESULTS_END) == 1  # the block is replaced, not appended
    r1, r2 = (json.loads((tmp_path / f"r{i}.json").read_text()) for i in (1, 2))
    assert r1["shared"], "resnet18 and resnet50 share workloads; the split must see them"
    for name in MODELS:
        for part in ("all", "unshared"):
            assert r1["models"][name][part] == r2["models"][name][part], (name, part)
            for m in r1["models"][name][part]["resnet18"].values():
                assert m == m  # no NaN in any metric


def test_eval_refuses_a_checkpoint_that_saw_a_held_out_network(small_dataset, tmp_path, capsys):
    leaky = tmp_path / "leaky.pt"
    assert (
        main(
            [
                "train",
                "--data",
                str(small_dataset),
                "--held-out",
                "resnet50",
                "--epochs",
                "1",
                "--out",
                str(leaky),
                "--cache-dir",
                str(small_dataset / "cache"),
                "-q",
            ]
        )
        == 0
    )
    code = main(
        [
            "eval",
            "--data",
            str(small_dataset),
            "--held-out",
            "resnet18",
            "--models",
            "gnn",
            "--gnn",
            str(leaky),
            "-q",
        ]
    )
    assert code == 2
    assert "trained on held-out network(s) ['resnet18']" in capsys.readouterr().err


def test_eval_names_a_missing_checkpoint(small_dataset, tmp_path, capsys):
    held = ["eval", "--data", str(small_dataset), "--held-out", "resnet18", "-q"]
    with pytest.raises(SystemExit) as stop:  # a checkpoint given: checked as it is parsed
        main([*held, "--models", "gnn-no-topk", "--gnn-no-topk", str(tmp_path / "nope.pt")])
    assert stop.value.code == 2 and "nope.pt does not exist" in capsys.readouterr().err
    assert main([*held, "--models", "gnn-no-topk"]) == 2  # the default path: the command's check
    assert "no checkpoint models/cpu/gnn-no-topk.pt for gnn-no-topk" in (capsys.readouterr().err)


def test_eval_of_gnn_rows_alone_needs_only_the_held_out_networks(
    small_dataset, trained, tmp_path, caplog
):
    import shutil

    only = tmp_path / "data"
    shutil.copytree(small_dataset / "cpu" / "resnet18", only / "cpu" / "resnet18")
    out = tmp_path / "r.json"
    gnn = ["--models", "gnn", "--gnn", str(trained["gnn"]), "--json", str(out)]
    assert main(["eval", "--data", str(only), "--held-out", "resnet18", "-q", *gnn]) == 0
    assert "lacks 1 of the GNN's training networks (resnet50)" in caplog.text
    assert json.loads(out.read_text())["models"]["gnn"]["all"]["resnet18"]["pairwise"] > 0


def test_runs_interval_and_test_databases(small_dataset, trained, tmp_path):
    """Two GNN runs and two XGBModel seeds give per-run rows and the error ratio's interval; a
    folder given as --test-db scores exactly like the same network held out."""
    common = ["eval", "--data", str(small_dataset), "--held-out", "resnet18", "-q"]
    runs = [*common, "--models", "gnn", "xgb", "--seeds", "0", "1"]
    runs += ["--gnn", str(trained["gnn"]), str(trained["gnn-no-topk"])]
    assert main([*runs, "--json", str(tmp_path / "runs.json")]) == 0
    res = json.loads((tmp_path / "runs.json").read_text())
    assert [r["run"] for r in res["models"]["xgb"]["runs"]] == ["seed 0", "seed 1"]
    gnn_runs = [r["unshared"]["pairwise"] for r in res["models"]["gnn"]["runs"]]
    assert [r["run"] for r in res["models"]["gnn"]["runs"]] == ["gnn.pt", "notopk.pt"]
    mean = res["models"]["gnn"]["unshared"]["average"]["pairwise"]
    assert abs(mean - sum(gnn_runs) / 2) < 1e-9
    p = res["protocol"]
    assert (p["gnn_runs"], p["xgb_runs"]) == (2, 2) and p["workloads"] > 0
    assert p["low"] <= p["ratio"] <= p["high"]
    gnn_err, xgb_err = 1 - mean, 1 - res["models"]["xgb"]["unshared"]["average"]["pairwise"]
    assert abs(p["ratio"] - gnn_err / xgb_err) < 1e-9
    both = res["models"]["gnn+xgb"]["runs"]  # the rank-mean of GNN run i and XGBModel run i
    assert [r["run"] for r in both] == ["gnn.pt + seed 0", "notopk.pt + seed 1"]

    folder = small_dataset / "cpu" / "resnet18"
    one = [*common, "--models", "gnn", "--gnn", str(trained["gnn"])]
    assert main([*one, "--json", str(tmp_path / "held.json")]) == 0
    assert main([*one, "--test-db", f"theirs={folder}", "--json", str(tmp_path / "db.json")]) == 0
    held, db = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("held", "db"))
    assert db["held_out"] == ["theirs"]
    for part in ("all", "unshared"):
        assert db["models"]["gnn"][part]["theirs"] == held["models"]["gnn"][part]["resnet18"]


def test_eval_names_a_test_folder_without_a_database(small_dataset, tmp_path, capsys):
    code = main(["eval", "--data", str(small_dataset), "--test-db", str(tmp_path), "-q"])
    assert code == 2
    assert f"{tmp_path} holds no MetaSchedule database" in capsys.readouterr().err


def test_a_second_hardware_folder_defaults_to_the_checkpoints_own(
    small_dataset, trained, tmp_path, capsys
):
    """With data from two machines, eval and ``train --records-of`` take the hardware the
    checkpoint trained on; with no checkpoint that names one there, --hardware is asked for."""
    import shutil

    root = tmp_path / "data"
    shutil.copytree(small_dataset / "cpu", root / "cpu")
    shutil.copytree(small_dataset / "cpu" / "resnet18", root / "other-cpu" / "resnet18")
    held = ["--data", str(root), "--held-out", "resnet18", "-q"]
    out = tmp_path / "r.json"
    gnn = ["--models", "gnn", "--gnn", str(trained["gnn"])]
    assert main(["eval", *held, *gnn, "--json", str(out)]) == 0
    assert json.loads(out.read_text())["hardware"] == "cpu"
    again = ["--records-of", str(trained["gnn"]), "--epochs", "1", "--out", str(tmp_path / "a.pt")]
    assert main(["train", *held, *again, "--cache-dir", str(tmp_path / "cache")]) == 0
    capsys.readouterr()
    assert main(["eval", *held, "--models", "random"]) == 2  # the shipped weights' is not there
    assert "holds hardware ['cpu', 'other-cpu']; choose one with --hardware" in (
        capsys.readouterr().err
    )


def test_an_eval_that_ranks_nothing_fails_and_writes_nothing(
    small_dataset, trained, tmp_path, capsys
):
    """Workloads of one program each offer no choice: nothing is evaluated, and that is exit 2,
    not a table of "-" and exit 0."""
    from pathlib import Path

    from ..fixtures import write_subset

    data = Path(__file__).resolve().parents[2] / "data" / "llvm-amd-epyc-2c"
    one = tmp_path / "one" / "resnet18"
    write_subset(data / "resnet18", one, 3, 1)
    out = tmp_path / "r.json"
    argv = ["eval", "--data", str(small_dataset), "--test-db", f"resnet18={one}", "-q"]
    argv += ["--models", "gnn", "--gnn", str(trained["gnn"]), "--json", str(out)]
    assert main(argv) == 2
    assert "has two programs to rank (3 with one" in capsys.readouterr().err
    assert not out.exists()
