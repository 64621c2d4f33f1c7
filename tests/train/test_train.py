"""`tvm-gnn train` end to end on a slice of the committed dataset: deterministic, guarded."""

import json

import pytest
import torch

from tvm_gnn.cli import main
from tvm_gnn.nn import checkpoint
from tvm_gnn.nn.schema import NUM_BASE_FEATURES, NUM_FEATURES

from ..conftest import train_cli


def test_train_is_deterministic_and_records_its_split(small_dataset, trained, tmp_path):
    again = tmp_path / "again.pt"
    assert train_cli(small_dataset, again, "--seed", "3") == 0
    m1, _, info = checkpoint.load(trained["gnn"])
    m2, _, _ = checkpoint.load(again)
    for k, v in m1.state_dict().items():
        assert torch.equal(v, m2.state_dict()[k]), k
    assert info["train_networks"] == ["resnet50"] and info["held_out"] == ["resnet18"]
    assert info["train_graphs"] > 0 and info["val_graphs"] > 0
    widths = {k: checkpoint.load(p)[0].config.num_features for k, p in trained.items()}
    assert widths == {
        "gnn": NUM_BASE_FEATURES,
        "gnn-learned-emb": NUM_BASE_FEATURES,
        "gnn-no-topk": NUM_FEATURES,
    }
    assert len(info["val_top1"]) == len(info["val_pairwise_acc"]) == len(info["train_loss"])
    assert all(0 < t <= 1 for t in info["val_top1"])
    assert (tmp_path / "again-loss.png").stat().st_size > 1000


@pytest.mark.parametrize(
    "option, value",
    [
        ("--lr", "0"),
        ("--lr", "nan"),
        ("--mse-weight", "-1"),
        ("--val-fraction", "1"),
        ("--pool-ratio", "inf"),
        ("--loss", "listnet"),
        ("--label-noise", "-0.1"),
        ("--device", "tpu"),
        ("--device", "cuda:99"),
    ],
)
def test_train_refuses_bad_numbers_before_reading_data(tmp_path, capsys, option, value):
    with pytest.raises(SystemExit) as exit_:
        main(["train", "--data", str(tmp_path / "absent"), option, value])
    assert exit_.value.code == 2
    assert option in capsys.readouterr().err


def test_a_checkpoint_keeps_its_records_after_the_dataset_grows(small_dataset, tmp_path, capsys):
    """`collect` appends to the record files; a checkpoint records how many lines each training
    network had, and retraining (`--records-of`) and the baselines read exactly those."""
    import shutil

    from tvm_gnn.cost_models.baselines import pretrained_xgb
    from tvm_gnn.dataset import dbfile
    from tvm_gnn.dataset.groups import load_groups
    from tvm_gnn.errors import EvaluationError

    root = tmp_path / "data"
    shutil.copytree(small_dataset, root, ignore=shutil.ignore_patterns("cache"))
    records = root / "cpu" / "resnet50" / dbfile.RECORD_FILE
    full = records.read_text().splitlines(keepends=True)
    records.write_text("".join(full[:80]))  # the dataset when the GNN was trained
    old = tmp_path / "old.pt"
    assert train_cli(root, old, "--epochs", "1") == 0
    assert checkpoint.load(old)[2]["train_records"] == {"resnet50": 80}

    records.write_text("".join(full))  # collect went on, and measured another network
    shutil.copytree(root / "cpu" / "resnet50", root / "cpu" / "later")
    again = tmp_path / "again.pt"
    assert train_cli(root, again, "--epochs", "1", "--records-of", str(old)) == 0
    shutil.rmtree(root / "cpu" / "later")
    m1, _, info = checkpoint.load(old)
    m2, _, info2 = checkpoint.load(again)
    assert info2["train_records"] == {"resnet50": 80}
    assert info2["train_graphs"] == info["train_graphs"]
    for k, v in m1.state_dict().items():
        assert torch.equal(v, m2.state_dict()[k]), k

    seen = load_groups(root, "cpu", ["resnet50"], snapshot={"resnet50": 80})
    now = load_groups(root, "cpu", ["resnet50"])
    assert 0 < sum(len(g.latencies) for g in seen) < sum(len(g.latencies) for g in now)
    xgb = pretrained_xgb(root, checkpoint=old)
    assert sum(len(g.costs) for g in xgb.data.values()) == sum(len(g.latencies) for g in seen)

    new = tmp_path / "new.pt"  # trained on all 96 lines: not the same records
    assert train_cli(root, new, "--epochs", "1") == 0
    code = main(
        [
            "eval",
            "--data",
            str(root),
            "--held-out",
            "resnet18",
            "--models",
            "gnn",
            "gnn-no-topk",
            "--gnn",
            str(old),
            "--gnn-no-topk",
            str(new),
            "-q",
        ]
    )
    assert code == 2 and "trained on different records" in capsys.readouterr().err
    # without a GNN row, the baselines still learn what the --gnn checkpoint saw: a table's
    # XGBModel and MLPModel rows come out the same when evaluated on their own
    alone = tmp_path / "alone.json"
    assert (
        main(
            [
                "eval",
                "--data",
                str(root),
                "--held-out",
                "resnet18",
                "--models",
                "xgb",
                "--gnn",
                str(old),
                "--json",
                str(alone),
                "-q",
            ]
        )
        == 0
    )
    assert json.loads(alone.read_text())["train_records"] == {"resnet50": 80}

    records.write_text("".join(full[:64]))  # not the data the checkpoint saw
    with pytest.raises(EvaluationError, match="fewer than the 80"):
        pretrained_xgb(root, checkpoint=old)


def test_the_auxiliary_store_feature_target_trains_its_head(small_dataset, trained, tmp_path):
    out = tmp_path / "aux.pt"
    assert train_cli(small_dataset, out, "--seed", "3", "--aux-store-features", "0.5") == 0
    model, _, info = checkpoint.load(out)
    assert model.config.aux_dim > 0 and model.aux_head.out_features == model.config.aux_dim
    assert info["train_config"]["aux_weight"] == 0.5
    # the second target changed the weights the ranking head is trained with
    plain, _, _ = checkpoint.load(trained["gnn"])
    assert not torch.equal(model.inp.weight, plain.inp.weight)
    assert all(torch.isfinite(p).all() for p in model.parameters())


def test_train_on_dataset_with_only_the_data_trains_the_shipped_recipe(small_dataset):
    """The recipe lives in the library: called from Python with nothing but the data (and
    where to cache its graphs), training builds and trains what the shipped checkpoint records."""
    from tvm_gnn.resources import PRETRAINED
    from tvm_gnn.train import train_on_dataset

    shipped, featurizer, info = checkpoint.load(PRETRAINED)
    run = train_on_dataset(small_dataset, cache_dir=small_dataset / "cache")
    assert run.model.config == shipped.config
    assert run.featurizer == featurizer
    recorded = info["train_config"]
    assert {k: run.info["train_config"][k] for k in recorded} == recorded
    assert run.info["train_networks"] == ["resnet50"]  # resnet18 is one of the held-out three


def test_store_inputs_feed_tvms_per_store_rows_to_the_head_offline_only(small_dataset, tmp_path):
    """The upper bound of issue 72's item 1: the head reads each program's per-store feature row
    beside its readout; GNNModel refuses such a checkpoint (it scores from graphs alone)."""
    from tvm_gnn.cost_models.gnn import GNNModel
    from tvm_gnn.errors import CheckpointError
    from tvm_gnn.nn.config import TrainConfig
    from tvm_gnn.train import train_to_checkpoint

    out = tmp_path / "store.pt"
    config = TrainConfig(epochs=2, seed=3, store_inputs=True)
    info = train_to_checkpoint(
        out, small_dataset, config=config, held_out=["resnet18"], cache_dir=small_dataset / "cache"
    )
    model, _, _ = checkpoint.load(out)
    assert model.config.store_dim > 0 and info["train_config"]["store_inputs"]
    assert model.store_proj[0].in_features == model.config.store_dim
    assert model.head[0].in_features == 2 * 3 * model.config.hidden  # compared, readout + rows
    with pytest.raises(CheckpointError, match="per-store features"):
        GNNModel(checkpoint=str(out))
