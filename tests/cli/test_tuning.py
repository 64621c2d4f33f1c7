"""The tuning commands' usage errors: one line, exit 2, before any work."""

import subprocess
import sys

import pytest


def test_unknown_network_is_a_usage_error():
    proc = subprocess.run(
        [sys.executable, "-m", "tvm_gnn.cli", "tune", "--network", "lenet"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "unknown network 'lenet'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_budget_beyond_the_trials_is_a_usage_error():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tvm_gnn.cli",
            "tune",
            "--network",
            "tiny_cnn",
            "--trials",
            "8",
            "--budgets",
            "4",
            "16",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "--budgets [16] exceed --trials 8" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cuda_without_a_gpu_is_a_usage_error():
    import tvm

    if tvm.cuda(0).exist:
        pytest.skip("a CUDA device is present: --target cuda is valid here")
    proc = subprocess.run(
        [sys.executable, "-m", "tvm_gnn.cli", "tune", "--network", "tiny_cnn", "--target", "cuda"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "no CUDA device is present" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cache_flush_on_a_gpu_target_is_a_usage_error():
    # a GPU tag, not "cuda": "cuda" reads its limits from a GPU, and CI has none
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tvm_gnn.cli",
            "tune",
            "--network",
            "tiny_cnn",
            "--target",
            "nvidia/nvidia-h100",
            "--cache-flush",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "--cache-flush flushes the CPU cache" in proc.stderr
    assert "Traceback" not in proc.stderr
