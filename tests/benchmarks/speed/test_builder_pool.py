"""benchmarks/speed/builder_pool.py: the paired ratio and its interval."""

import pytest

from .. import script


def test_builder_pool_reports_the_paired_ratio_and_its_interval():
    bench = script("builder_pool")
    lo, hi = bench.bootstrap_ratio([3.0, 3.0, 3.0], [2.0, 2.0, 2.0], seed=0)
    assert lo == pytest.approx(1.5) and hi == pytest.approx(1.5)  # no spread, no width
    lo, hi = bench.bootstrap_ratio([2.0, 4.0, 3.0, 5.0], [2.0, 2.0, 2.0, 2.0], seed=0)
    assert 1.0 <= lo < 1.75 < hi <= 2.5  # the ratio of sums, 14/8, inside
    rows = [
        {"batch": i, "candidates": 4, "tvm": t, "kept": 2.0, "tvm_failed": 0, "kept_failed": f,
         "kept_workers_mib": 100.0 + i}
        for i, (t, f) in enumerate([(4.0, 0), (6.0, 1)])
    ]  # fmt: skip
    res = {
        "workload": "w", "batch_size": 4, "batches": rows, "ratio": 2.5, "ratio_95": [2.0, 3.0],
        "construct_seconds": {"tvm": 5.0, "kept": 5.5}, "worker_uses": 256,
        "machine": {"cpu": "CPU", "llvm_cpu": "znver3", "cores": 2, "date": "2026-11-30"},
    }  # fmt: skip
    text = bench.section(res)
    assert "| TVM's LocalBuilder (new workers every batch) | 5.0 | 1.25 | 0 |" in text
    assert "| KeptPoolBuilder (`make_builder()`) | 2.0 | 0.50 | 1 |" in text
    assert "**2.50x**" in text and "[2.00, 3.00]" in text and "100, 101 MiB" in text
