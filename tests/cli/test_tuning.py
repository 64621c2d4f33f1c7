"""The tuning commands' usage errors: one line, exit 2, before any work."""

import pytest
import tvm

from tvm_gnn.cli import main

NO_GPU = pytest.mark.skipif(tvm.cuda(0).exist, reason="a CUDA device is present: cuda is valid")


@pytest.mark.parametrize(
    "args,says",
    [
        (["--network", "lenet"], "unknown network 'lenet'"),
        (["--network", "tiny_cnn", "--trials", "8", "--budgets", "4", "16"],
         "--budgets [16] exceed --trials 8"),
        pytest.param(["--network", "tiny_cnn", "--target", "cuda"], "no CUDA device is present",
                     marks=NO_GPU),
        # a target of no CPU that needs no GPU here: "cuda" reads its limits from a GPU, and
        # a GPU tag is refused where no GPU can measure it (below)
        (["--network", "tiny_cnn", "--target", "opencl", "--cache-flush"],
         "--cache-flush flushes the CPU cache"),
        pytest.param(["--network", "tiny_cnn", "--target", "nvidia/nvidia-h100"],
                     "this machine has no CUDA device to measure on", marks=NO_GPU),
        (["--network", "tiny_cnn", "--cost-model", "xgb", "--diverse", "4"],
         "--diverse clusters the GNN's embeddings; xgb has none"),
    ],
    ids=["unknown-network", "budget-beyond-trials", "cuda-without-gpu", "cache-flush-not-cpu",
         "gpu-tag-without-gpu", "diverse-without-gnn"],
)  # fmt: skip
def test_a_usage_error_is_one_line_and_exit_2(capsys, args, says):
    code = main(["tune", *args])
    err = capsys.readouterr().err
    assert code == 2 and says in err and "Traceback" not in err
    assert err.strip().splitlines() == [next(ln for ln in err.splitlines() if says in ln)]


def test_the_demo_table_gives_each_seed_and_the_ratio_with_its_range():
    import math

    from tvm_gnn.cli.tuning import demo_table

    best = {("gnn", 0): 1e-3, ("xgb", 0): 2e-3, ("gnn", 1): 2e-3, ("xgb", 1): 1e-3}
    best |= {("gnn", 2): math.inf, ("xgb", 2): 1e-3}
    table = demo_table(best, ["gnn", "xgb"], [0, 1, 2], {"gnn": 10.0, "xgb": 20.0})
    assert "seed 2: gnn found no working program" in table  # a loss is said, not dropped
    assert "geometric mean 1.000x over 2 seeds (range 0.500-2.000; 0.500, 2.000)" in table
