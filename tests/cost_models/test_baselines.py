"""The baselines: XGBModel pretrained on a checkpoint's records; MLPModel trained reproducibly."""

import torch


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
    procs = [  # both at once: each trains on one thread
        subprocess.Popen(
            [sys.executable, "-c", MLP_WEIGHTS, str(small_dataset), threads],
            env={**env, **extra},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for threads, extra in runs
    ]
    outs = [p.communicate() for p in procs]
    assert all(p.returncode == 0 for p in procs), [err[-2000:] for _, err in outs]
    digests = {out.split()[-1] for out, _ in outs}
    assert len(digests) == 1, digests


def test_mlp_baseline_trains_on_one_thread(small_dataset, monkeypatch):
    """MKL's sums also depend on the thread count (seen on the full dataset, not on this slice)."""
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
