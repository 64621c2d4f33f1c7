"""benchmarks/ranking/validation_sweep.py: it trains its variants through the library, writes its
table,
resumes, and keys each run by its full configs and the data it read."""

import argparse
import json
import shutil

import pytest

from tvm_gnn.nn import checkpoint

from .. import script


def test_validation_sweep_writes_its_table_and_resumes(small_dataset, tmp_path):
    sweep = script("validation_sweep")
    runs, doc, out = tmp_path / "runs", tmp_path / "results.md", tmp_path / "sweep.json"
    argv = ["--data", str(small_dataset), "--variants", "lambdarank-reuse", "lambdarank"]
    argv += ["--seeds", "0", "--runs", str(runs), "--cache-dir", str(tmp_path / "cache")]
    argv += ["--doc", str(doc), "--json", str(out), "--epochs", "2"]
    assert sweep.main(argv) == 0
    results = json.loads(out.read_text())
    assert [(r["variant"], r["seed"]) for r in results] == [
        ("lambdarank-reuse", 0),
        ("lambdarank", 0),
    ]
    assert results[1]["recipe"]["train"]["epochs"] == 2
    assert results[1]["recipe"]["train"]["loss"] == "lambdarank"
    # each run is keyed by the graphs it trained on: with and without the reuse columns
    featurizers = [r["recipe"]["featurizer"] for r in results]
    assert featurizers[0].endswith("-reuse") and "reuse" not in featurizers[1]
    assert all(0 < r["val_top1"] <= 1 and 0 <= r["val_pairwise_acc"] <= 1 for r in results)
    assert results[0]["train_networks"] == ["resnet50"]  # the held-out resnet18 is never read
    trained = checkpoint.load(runs / "lambdarank-seed0.pt")[0].config
    assert (trained.conv, trained.compare) == ("graph", False)  # BASE, then the variant
    text = doc.read_text()
    assert results[0]["device"] == "cpu" and "repeat exactly for a seed" in text
    assert "| lambdarank | `loss=lambdarank` |" in text
    gain = results[1]["val_pairwise_acc"] - results[0]["val_pairwise_acc"]
    assert "pairwise gain over lambdarank-reuse" in text and f"| {gain:+.4f} (n/a) |" in text
    stamp = (runs / "lambdarank-seed0.pt").stat().st_mtime_ns
    assert sweep.main(argv) == 0  # finished runs on the same data are not trained again
    assert (runs / "lambdarank-seed0.pt").stat().st_mtime_ns == stamp
    assert json.loads(out.read_text()) == results
    # a sweep of one variant keeps the other variant's numbers in the JSON
    assert sweep.main([*argv[:2], "--variants", "lambdarank", *argv[5:]]) == 0
    assert json.loads(out.read_text()) == results
    assert "| lambdarank-reuse |" not in doc.read_text()
    # --section: the table goes to its own generated block, the others stay
    one = [*argv[:2], "--variants", "lambdarank-reuse", *argv[5:]]
    assert sweep.main(["--section", "x", *one]) == 0
    text = doc.read_text()
    assert "<!-- begin x " in text and "<!-- begin validation-sweep " in text
    # --report-only trains nothing: an unfinished seed shows as a dash, and with no runs folder
    # (a clean clone) the committed JSON's numbers make the same table
    only = ["--report-only", "--seeds", "0", "1", "--runs", str(tmp_path / "none")]
    assert sweep.main([*argv[:5], *only, *argv[9:]]) == 0
    text = doc.read_text()
    assert "| lambdarank | `loss=lambdarank` |" in text and "| - |" in text
    assert not (tmp_path / "none" / "lambdarank-seed1.pt").exists()
    out.write_text("{}")
    with pytest.raises(SystemExit, match="not a sweep's JSON"):
        sweep.main(argv)


def test_validation_sweep_keys_records_of_runs_by_the_trained_networks_only(
    small_dataset, trained, tmp_path
):
    """Collecting another network leaves `--records-of` runs valid; changing a network the
    checkpoint trained on does not."""
    sweep = script("validation_sweep")
    data = tmp_path / "data"
    shutil.copytree(small_dataset, data, ignore=shutil.ignore_patterns("cache"))
    args = argparse.Namespace(data=str(data), records_of=str(trained["gnn"]))
    info = sweep.records_of_info(args)
    whole, trained_on = sweep.data_fingerprint(data), sweep.runs_fingerprint(args, info)
    assert trained_on != whole
    extra = data / "cpu" / "new_network"  # what `collect` adds
    extra.mkdir()
    (extra / "database_tuning_record.json").write_text("{}\n")
    (data / "cpu" / "resnet18" / "exhausted.json").write_text("[]\n")  # held out: not read
    assert (
        sweep.runs_fingerprint(args, info) == trained_on and sweep.data_fingerprint(data) != whole
    )
    (data / "cpu" / "resnet50" / "exhausted.json").write_text("[]\n")  # trained on: read
    assert sweep.runs_fingerprint(args, info) != trained_on
    assert sweep.runs_fingerprint(argparse.Namespace(data=str(data)), None) == (
        sweep.data_fingerprint(data)
    )


def test_validation_sweep_reads_the_hardware_folder_its_runs_train_on(tmp_path, capsys):
    """The sweep featurizes the folder training will read with the same options; with two
    folders and none chosen it stops with a usage line before featurizing anything."""
    sweep = script("validation_sweep")
    data = tmp_path / "data"
    for hw in ("llvm-one-2c", "llvm-two-2c"):
        (data / hw / "net").mkdir(parents=True)
        (data / hw / "net" / "database_tuning_record.json").write_text("")
    chosen = argparse.Namespace(data=str(data), hardware="llvm-two-2c", records_of=None)
    assert sweep.runs_hardware(chosen, None) == "llvm-two-2c"
    with pytest.raises(SystemExit) as stop:
        sweep.main(["--data", str(data), "--runs", str(tmp_path / "runs"), "--no-write"])
    assert stop.value.code == 2
    assert "choose one with --hardware" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
