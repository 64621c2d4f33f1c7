"""benchmarks/ranking/sweep_report.py: the paired gain, the table of runs, and the runs JSON it
keeps."""

import pytest

from .. import script


def test_paired_gain_is_the_mean_over_its_standard_error():
    report = script("sweep_report")
    assert report.paired([0.01, 0.02, 0.03]) == "+0.0200 (3.5)"  # mean / (sd / sqrt(3))
    assert report.paired([0.01]) == "+0.0100 (n/a)"


def test_the_table_has_a_row_a_variant_and_a_dash_for_a_missing_seed():
    report = script("sweep_report")
    runs = [
        {"variant": "a", "seed": 0, "val_pairwise_acc": 0.7, "val_top1": 0.8, "train_seconds": 5},
        {"variant": "a", "seed": 1, "val_pairwise_acc": 0.6, "val_top1": 0.7, "train_seconds": 7},
        {"variant": "b", "seed": 0, "val_pairwise_acc": 0.75, "val_top1": 0.9, "train_seconds": 9},
    ]
    text = report.table(runs, [0, 1], lambda v: f"x={v}")
    lines = text.splitlines()
    assert len(lines) == 4 and "pairwise gain over a" in lines[0]
    assert lines[2].startswith("| a | `x=a` | 0.7000 | 0.6000 | **0.6500** |")
    assert lines[3].startswith("| b | `x=b` | 0.7500 | - | **0.7500** |")
    assert lines[3].endswith("| +0.0500 (n/a), 1 seed(s) |")


def test_earlier_runs_are_kept_unless_redone(tmp_path):
    report = script("sweep_report")
    assert report.earlier_runs(tmp_path / "none.json") == []
    old = [{"variant": "a", "seed": 0, "x": 1}, {"variant": "b", "seed": 0, "x": 2}]
    new = [{"variant": "a", "seed": 0, "x": 3}]
    assert report.merged(old, new) == [old[1], new[0]]
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    with pytest.raises(SystemExit, match="not a sweep's JSON"):
        report.earlier_runs(bad)
