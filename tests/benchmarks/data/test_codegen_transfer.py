"""benchmarks/data/codegen_transfer.py: the pairs two folders order alike."""

import pytest

from .. import script


def test_codegen_transfer_counts_the_pairs_two_folders_order_alike(tmp_path):
    transfer = script("codegen_transfer")
    first = {"w": {"p": 1.0, "q": 2.0, "r": 3.0, "s": 4.0}, "only-first": {"p": 1.0}}
    # the second code generator swaps q and r, ties q and s, and has a program of its own
    second = {"w": {"p": 0.5, "q": 1.5, "r": 1.0, "s": 1.5, "t": 0.1}}
    # pairs of p, q, r, s: (q,s) tied in the second, left out; (q,r) ordered the other way
    (row,) = transfer.compare(first, second, min_common=4)
    assert row["workload"] == "w" and row["common"] == 4 and row["agreement"] == 0.8
    assert row["best_ratio"] == 0.1  # the fastest of each folder, whichever program it is
    (few,) = transfer.compare(first, second, min_common=5)
    assert few["agreement"] is None and few["best_ratio"] == 0.1
    line = transfer.summary("net", [row, row], resamples=50, seed=0)
    assert line == "| net | 2 | 8 | 2 | 0.800 [0.800, 0.800] | 0.10 [0.10, 0.10] (0.10 - 0.10) |"
    (tmp_path / "a" / "resnet18").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    with pytest.raises(SystemExit):
        transfer.main([str(tmp_path / "a"), str(tmp_path / "b"), "--networks", "resnet18"])
    with pytest.raises(SystemExit):
        transfer.main([str(tmp_path / "a"), str(tmp_path / "nowhere")])
