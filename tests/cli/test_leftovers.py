"""A refused run leaves nothing behind (issue 105, class 3): no work dir, no empty log, no
``previous-*`` folder; what was there before, and anything a run measured, stays."""

import json
import shutil

import pytest

from tvm_gnn.cli import main
from tvm_gnn.cli.leftovers import tidy_on_failure
from tvm_gnn.cost_models.calibration import sidecar
from tvm_gnn.resources import PRETRAINED


def test_a_failed_block_removes_the_empty_things_it_created_and_nothing_else(tmp_path):
    work = tmp_path / "runs" / "deep" / "w"
    with pytest.raises(RuntimeError), tidy_on_failure(work):
        work.mkdir(parents=True)
        (work / "tvm-gnn.log").touch()
        (work / "previous-1").mkdir()
        raise RuntimeError("refused")
    assert list(tmp_path.iterdir()) == []  # the ancestors it created went too

    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "old.log").touch()  # there before: stays, empty or not
    with pytest.raises(RuntimeError), tidy_on_failure(tmp_path / "keep"):
        (tmp_path / "keep" / "new.log").touch()
        (tmp_path / "keep" / "records.json").write_text("{}\n")  # measured: kept
        raise RuntimeError("failed later")
    assert sorted(p.name for p in (tmp_path / "keep").iterdir()) == ["old.log", "records.json"]

    with tidy_on_failure(tmp_path / "ok"):  # no error: nothing is touched
        (tmp_path / "ok").mkdir()
    assert (tmp_path / "ok").is_dir()


def _refused(capsys, argv) -> str:
    assert main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    return lines[-1]


def test_tune_refused_for_a_foreign_checkpoint_creates_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.pt").write_text("my notes")
    said = _refused(capsys, ["tune", "--network", "tiny_cnn", "--checkpoint", "notes.pt", "-q"])
    assert said == "tvm-gnn tune: error: notes.pt is not a tvm_gnn checkpoint: it is text"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.pt"]  # no tune_runs/


def test_a_bad_sidecar_stops_only_the_calibrated_model_and_leaves_nothing(
    tmp_path, capsys, monkeypatch
):
    from tvm_gnn.cost_models.gnn import GNNModel

    monkeypatch.chdir(tmp_path)
    ckpt = tmp_path / "w.pt"
    shutil.copy(PRETRAINED, ckpt)
    sidecar(ckpt).write_text(json.dumps([1, 2]))
    argv = ["tune", "--network", "tiny_cnn", "--checkpoint", str(ckpt), "--work-dir", "W", "-q"]
    said = _refused(capsys, [*argv, "--cost-model", "gnn-calibrated"])
    assert said.startswith(f"tvm-gnn tune: error: {sidecar(ckpt)}: not a calibration file")
    assert not (tmp_path / "W").exists()
    # the plain GNN never reads the calibration: it loads, with one warning naming the file
    model = GNNModel(checkpoint=str(ckpt))
    assert model.prior_slope is None and model.trained
    sidecar(ckpt).write_text(json.dumps({"slope": 1.0, "sha256": "0" * 64}))  # stale
    said = _refused(capsys, [*argv, "--cost-model", "gnn-calibrated"])
    assert "a calibration written for other weights" in said and "w.pt" in said
