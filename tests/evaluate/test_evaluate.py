"""`tvm-gnn train` and `tvm-gnn eval` end to end on a small slice of the committed dataset."""

import json

import pytest
import torch

from tvm_gnn.cli import RESULTS_SECTION, main
from tvm_gnn.evaluate import MODELS
from tvm_gnn.nn import checkpoint
from tvm_gnn.nn.schema import NUM_BASE_FEATURES, NUM_FEATURES
from tvm_gnn.report import markers

RESULTS_BEGIN, RESULTS_END = markers(RESULTS_SECTION)


def _train(root, out, *extra):
    return main(
        [
            "train",
            "--data",
            str(root),
            "--held-out",
            "resnet18",
            "--epochs",
            "2",
            "--out",
            str(out),
            "--cache-dir",
            str(root / "cache"),
            "-q",
            *extra,
        ]
    )


@pytest.fixture(scope="module")
def trained(small_dataset, tmp_path_factory):
    out = tmp_path_factory.mktemp("models")
    paths = {
        "gnn": out / "gnn.pt",
        "gnn-learned-emb": out / "learned.pt",
        "gnn-no-topk": out / "notopk.pt",
    }
    assert _train(small_dataset, paths["gnn"], "--seed", "3") == 0
    assert _train(small_dataset, paths["gnn-learned-emb"], "--embedding", "learned") == 0
    # the reuse columns ride along with an ablation: eval then reads a model that uses them
    assert _train(small_dataset, paths["gnn-no-topk"], "--no-topk", "--reuse-features") == 0
    return paths


def test_train_is_deterministic_and_records_its_split(small_dataset, trained, tmp_path):
    again = tmp_path / "again.pt"
    assert _train(small_dataset, again, "--seed", "3") == 0
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
    code = main(
        [
            "eval",
            "--data",
            str(small_dataset),
            "--held-out",
            "resnet18",
            "--models",
            "gnn-no-topk",
            "--gnn-no-topk",
            str(tmp_path / "nope.pt"),
            "-q",
        ]
    )
    assert code == 2
    assert "nope.pt" in capsys.readouterr().err


def test_pretrained_xgb_learns_exactly_the_checkpoints_training_records(small_dataset, trained):
    import numpy as np

    from tvm_gnn.cost_models.baselines import pretrained_xgb
    from tvm_gnn.dataset.groups import load_groups
    from tvm_gnn.evaluate import score_model
    from tvm_gnn.nn.metrics import pairwise_accuracy

    model = pretrained_xgb(small_dataset, checkpoint=trained["gnn"])  # trained on resnet50 only
    groups = load_groups(small_dataset, "cpu", ["resnet50"])
    assert sum(len(g.costs) for g in model.data.values()) == sum(len(g.latencies) for g in groups)
    assert model.adaptive_training and model.booster is not None  # keeps learning while tuning
    scores, _ = score_model(model, groups)
    ids = np.concatenate([np.full(len(g.latencies), i) for i, g in enumerate(groups)])
    lat = np.concatenate([g.latencies for g in groups])
    assert pairwise_accuracy(np.concatenate(scores), -lat, ids) > 0.6  # it fit what it saw


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
    assert _train(root, old, "--epochs", "1") == 0
    assert checkpoint.load(old)[2]["train_records"] == {"resnet50": 80}

    records.write_text("".join(full))  # collect went on
    again = tmp_path / "again.pt"
    assert _train(root, again, "--epochs", "1", "--records-of", str(old)) == 0
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
    assert _train(root, new, "--epochs", "1") == 0
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


MLP_WEIGHTS = """
import hashlib, sys
from tvm_gnn.cost_models.baselines import train_mlp
from tvm_gnn.cost_models.mlp_fixes import mkl_mode, reproducible_arithmetic
from tvm_gnn.dataset.groups import load_groups
assert reproducible_arithmetic() == "COMPATIBLE"
import torch
torch.set_num_threads(int(sys.argv[2]))
model = train_mlp(load_groups(sys.argv[1], "cpu", ["resnet50"]))
params = model.trainer.state.model.parameters()
assert mkl_mode() == "COMPATIBLE", mkl_mode()
print(hashlib.sha256(b"".join(p.detach().numpy().tobytes() for p in params)).hexdigest())
"""


def test_mlp_baseline_trains_the_same_weights_on_any_instruction_set(small_dataset):
    """MLPModel's rows repeat on another CPU: the same weights with MKL held to AVX2 (what an
    AVX2-only CPU runs) as with what this CPU offers, whatever the caller's thread count."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "MKL_CBWR"}
    runs = [("1", {}), ("2", {"MKL_ENABLE_INSTRUCTIONS": "AVX2"})]
    digests = {
        subprocess.run(
            [sys.executable, "-c", MLP_WEIGHTS, str(small_dataset), threads],
            env={**env, **extra},
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()[-1]
        for threads, extra in runs
    }
    assert len(digests) == 1, digests


def test_mlp_baseline_trains_on_one_thread(small_dataset, monkeypatch):
    """MKL's sums also depend on the thread count (seen on the full dataset, not on this slice)."""
    import torch
    from tvm.s_tir.meta_schedule.cost_model import mlp_model

    from tvm_gnn.cost_models.baselines import train_mlp
    from tvm_gnn.dataset.groups import load_groups

    seen = []
    monkeypatch.setattr(
        mlp_model.SegmentSumMLPTrainer,
        "train_full",
        lambda self: seen.append(torch.get_num_threads()),
    )
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        train_mlp(load_groups(small_dataset, "cpu", ["resnet50"]))
        assert seen == [1] and torch.get_num_threads() == 2  # and the caller's count is back
    finally:
        torch.set_num_threads(threads)
