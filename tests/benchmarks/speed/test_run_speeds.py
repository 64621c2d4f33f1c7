"""benchmarks/speed/run_speeds.py: each span summarized, pairs across runs counted."""

import json

import pytest

from .. import script


def test_run_speeds_summarizes_each_span_and_counts_pairs_across_runs(tmp_path):
    speeds = script("run_speeds")

    def rec(line, wl, stored, now):
        return {"line": line, "workload": wl, "stored": stored, "now": now}

    base = {"network": "n", "date": "2026-11-29T10:00", "cpu": None, "counted": True}
    lines = [
        # stored 2x and 8x the new times: geometric mean 4; the pair of workload 0 ordered alike
        {**base, "first": 1, "last": 9, "records": [rec(1, 0, 2.0, 1.0), rec(2, 0, 16.0, 2.0)]},
        # one failed re-run: fewer than two records left, no row
        {**base, "first": 10, "last": 20, "records": [rec(10, 0, 1.0, 1.0), rec(11, 0, 1.0, None)]},
    ]
    (row,) = speeds.summarize(lines, seed=0)
    assert row["timed"] == 2 and row["ratio"] == pytest.approx(4.0)
    assert row["lo"] == pytest.approx(2.0) and row["hi"] == pytest.approx(8.0)
    assert row["agreement"] == 1.0
    # two runs of one network: workload 0 has 2 records in each (4 of its 6 pairs cross), workload
    # 1 one record in the second run only
    folder = tmp_path / "hw" / "n"
    folder.mkdir(parents=True)
    (folder / "database_workload.json").write_text('["1", "x"]\n["2", "y"]\n')
    recs = [(0, 1e-3), (0, 2e-3), (0, 1e-3), (1, 1e-3), (0, 3e-3)]
    (folder / "database_tuning_record.json").write_text(
        "".join(f"[{w}, [[], [{s}], {{}}, []]]\n" for w, s in recs)
    )
    runs = [{"date": "a", "measured": 2}, {"date": "b", "measured": 3}]
    (folder / "provenance.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    cross = speeds.cross_run_pairs(tmp_path, "hw")
    assert cross == {"pairs": 6, "cross": 4, "workloads": 2, "mixed": 1}
