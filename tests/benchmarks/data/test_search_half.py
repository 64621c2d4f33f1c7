"""benchmarks/data/search_half.py: each workload's uniform and search records compared."""

import json

import pytest

from .. import script


def test_search_half_compares_each_workloads_uniform_and_search_records(tmp_path):
    """Records in file order: the first trials * fraction uniform, the rest of the first trials
    the search's; a failed record holds its place; a folder of mixed settings is left out."""
    bench = script("search_half")
    folder = tmp_path / "hw" / "n"
    folder.mkdir(parents=True)
    (folder / "database_workload.json").write_text('["1", "x"]\n')
    uniform = [4e-3, None, 5e-3, 6e-3, 7e-3]  # one failed build
    search = [2e-3, 2.5e-3, 3e-3, 3.5e-3, 8e-3]
    lines = [
        f"[0, [[], {'null' if s is None else [s]}, {{}}, []]]\n"
        for s in [*uniform, *search, 1e-4]  # the last one past trials_per_task: not read
    ]
    (folder / "database_tuning_record.json").write_text("".join(lines))
    run = {"collect": {"trials_per_task": 10, "uniform_fraction": 0.5}}
    (folder / "provenance.jsonl").write_text(json.dumps(run) + "\n")
    ((u, s),) = bench.halves(folder)
    assert list(u) == [4e-3, 5e-3, 6e-3, 7e-3] and list(s) == search
    result = bench.compare([(u, s)])
    assert result["median"][0] == pytest.approx(3e-3 / 5.5e-3)
    assert result["best"][0] == pytest.approx(0.5) and result["best_below"] == 1.0
    assert result["beats_best"][0] == pytest.approx(0.8)  # four of five below 4 ms
    assert result["beats_best_null"] == pytest.approx(1 / 5)
    alike = bench.compare([(u, u.copy())] * 3)
    assert alike["median"] == pytest.approx([1.0, 1.0, 1.0]) and alike["beats_best"][0] == 0.0
    assert "| best latency | 0.500 [0.500, 0.500] | 1 | 100.0% |" in bench.table(result)
    second = {"collect": {"trials_per_task": 10, "uniform_fraction": 1.0}}
    with (folder / "provenance.jsonl").open("a") as f:
        f.write(json.dumps(second) + "\n")  # a later run measured uniform draws only
    assert bench.mixed_settings(folder) is None and bench.halves(folder) == []
