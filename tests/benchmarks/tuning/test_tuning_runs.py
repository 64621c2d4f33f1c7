"""benchmarks/tuning/tuning_runs.py, what the tuning benchmarks share: the archive keeps a run
whole and
gives it back, and the numbers read off a run's curve."""

import gzip
import math

from .. import script


def test_an_archived_run_comes_back_as_it_was(tmp_path):
    runs = script("tuning_runs")
    work, kept, back = tmp_path / "work", tmp_path / "kept", tmp_path / "back"
    work.mkdir()
    files = {name: f"{name} line 1\n{name} line 2\n".encode() for name in runs.ARCHIVED}
    for name, data in files.items():
        (work / name).write_bytes(data)
    runs.archive(work, kept)
    db = "database_tuning_record.json"
    assert gzip.decompress((kept / f"{db}.gz").read_bytes()) == files[db]
    assert (
        not (kept / db).exists() and (kept / "tune_log.json").read_bytes() == files["tune_log.json"]
    )
    stamp = (kept / f"{db}.gz").stat().st_mtime_ns
    runs.archive(work, kept)  # the same database again: its archived file is left as it is
    assert (kept / f"{db}.gz").stat().st_mtime_ns == stamp
    assert not list(kept.glob(".*.tmp")) and not list(kept.glob("*.tmp"))
    assert runs.restore(kept, back)
    assert {p.name: p.read_bytes() for p in back.iterdir()} == files
    assert not runs.restore(tmp_path / "nothing", tmp_path / "none")


def test_the_estimate_at_a_budget_and_the_trials_to_reach_a_latency():
    runs = script("tuning_runs")
    curve = [
        {"trials": 16, "estimated_latency_s": None},
        {"trials": 32, "estimated_latency_s": 3.0},
        {"trials": 48, "estimated_latency_s": 2.0},
    ]
    assert runs.estimate_at(curve, 16) == math.inf and runs.estimate_at(curve, 40) == 3.0
    assert runs.trials_to_reach(curve, 2.5) == 48 and runs.trials_to_reach(curve, 1.0) is None
    assert runs.model_order("gnn/seed1") < runs.model_order("xgb/seed0") < runs.model_order("zz")
    geo, low, high = runs.log_interval([2.0, 2.0])
    assert geo == 2.0 and low == high == 2.0
