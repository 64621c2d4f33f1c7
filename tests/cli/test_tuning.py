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
        # a GPU tag, not "cuda": "cuda" reads its limits from a GPU, and CI has none
        (["--network", "tiny_cnn", "--target", "nvidia/nvidia-h100", "--cache-flush"],
         "--cache-flush flushes the CPU cache"),
    ],
    ids=["unknown-network", "budget-beyond-trials", "cuda-without-gpu", "cache-flush-on-gpu"],
)  # fmt: skip
def test_a_usage_error_is_one_line_and_exit_2(capsys, args, says):
    code = main(["tune", *args])
    err = capsys.readouterr().err
    assert code == 2 and says in err and "Traceback" not in err
    assert err.strip().splitlines() == [next(ln for ln in err.splitlines() if says in ln)]
