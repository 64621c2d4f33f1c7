"""``tvm-gnn train --tuner ansor`` (TVM 0.19): the GNN fine-tuned on, or trained from scratch on,
Ansor records that ``collect --tuner ansor`` measured; the held-out workloads never read."""

import pytest
import torch

from tvm_gnn.cli import main

from ..conftest import tvm019_only

pytestmark = tvm019_only()


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """Ansor records of tiny_cnn's first three tasks, six uniform draws each (read only)."""
    root = tmp_path_factory.mktemp("records")
    argv = ["collect", "--tuner", "ansor", "--network", "tiny_cnn", "--out", str(root), "-q"]
    argv += ["--trials-per-task", "6", "--batch-size", "6", "--max-tasks", "3"]
    argv += ["--uniform-fraction", "1", "--number", "1", "--min-repeat-ms", "1"]
    assert main([*argv, "--hardware", "hw"]) == 0
    return root


def test_train_writes_a_checkpoint_that_ansors_gnnmodel_loads(records, tmp_path, capsys):
    from tvm_gnn.cost_models.ansor import AnsorGNN
    from tvm_gnn.dataset.ansor_records import network_groups
    from tvm_gnn.nn import checkpoint

    out = tmp_path / "m.pt"
    argv = ["train", "--tuner", "ansor", "--data", str(records), "--held-out", "resnet18"]
    argv += ["--epochs", "2", "--out", str(out), "--cache-dir", str(tmp_path / "cache"), "-q"]
    assert main(argv) == 0
    said = capsys.readouterr().out
    assert "trained on Ansor records of 1 networks (hw), from gnn-llvm-amd-epyc-2c.pt" in said
    info = checkpoint.read_info(out)
    assert info["tuner"] == "ansor" and info["train_networks"] == ["tiny_cnn"]
    assert info["train_graphs"] > 0 and info["val_workloads"] == 1
    assert len(info["train_logs"]) == 3 and all(n > 0 for n in info["train_logs"].values())
    assert (tmp_path / "m-loss.png").is_file()
    group = network_groups(records / "ansor" / "hw", "tiny_cnn")[0]
    scores = AnsorGNN(checkpoint=out).predict(group.context, group.candidates)
    assert len(scores) == len(group.candidates) and (scores > 0).all()


def test_scratch_runs_repeat_under_a_seed_and_the_cache_serves_the_second(records, tmp_path):
    from tvm_gnn.nn.config import TrainConfig
    from tvm_gnn.train.ansor import train_on_ansor

    cache = tmp_path / "cache"
    kwargs = dict(held_out=["resnet18"], init="scratch", cache_dir=cache)
    first = train_on_ansor(records, "hw", config=TrainConfig(epochs=2, seed=3), **kwargs)
    cached = sorted(cache.rglob("*.pt"))
    assert len(cached) == 3
    again = train_on_ansor(records, "hw", config=TrainConfig(epochs=2, seed=3), **kwargs)
    assert sorted(cache.rglob("*.pt")) == cached
    a, b = first.model.state_dict(), again.model.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert first.info["init"] == "scratch" and first.info["train_loss"] == again.info["train_loss"]


def test_a_held_out_networks_workloads_are_never_trained_on(records):
    from tvm_gnn.train.ansor import training_tasks

    folder = records / "ansor" / "hw"
    assert len(training_tasks(folder, ["resnet18"])) == 3
    assert training_tasks(folder, ["tiny_cnn"]) == []


def test_options_ansor_has_no_use_for_are_refused(records, tmp_path, capsys):
    base = ["train", "--tuner", "ansor", "--data", str(records), "--out", str(tmp_path / "m.pt")]
    assert main([*base, "--init", "nowhere.pt"]) == 2
    assert "--init: nowhere.pt is neither shipped, scratch nor a checkpoint file" in (
        capsys.readouterr().err
    )
    assert main([*base, "--jobs", "2"]) == 2
    assert "--jobs is MetaSchedule's train option" in capsys.readouterr().err
    assert main([*base, "--held-out", "tiny_cnn"]) == 2
    assert "has no training tasks" in capsys.readouterr().err
    assert not (tmp_path / "m.pt").exists()
