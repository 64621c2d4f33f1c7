"""benchmarks/tuning/search_testset.py: a real tuning run's measured programs as a test group,
scored
by the shipped GNN and by a random pick, and the table read back from its JSON."""

import json

import numpy as np
from tvm.s_tir import meta_schedule as ms

from tvm_gnn.dataset.groups import load_folder_groups
from tvm_gnn.dataset.records import program_id

from ...conftest import tiny_tune
from .. import script


def test_a_searchs_programs_are_scored_per_guide(tmp_path, llvm_target, capsys):
    bench = script("search_testset")
    runs = tmp_path / "runs"
    folder = runs / "matmul64" / "random" / "seed0"
    folder.mkdir(parents=True)
    tiny_tune(ms.cost_model.RandomModel(seed=0), folder, llvm_target, trials=16)
    (folder / "run.json").write_text(json.dumps({"task": "matmul64", "model": "random"}))
    out = tmp_path / "rows.json"
    assert bench.main(["--runs", str(runs), "--scorers", "gnn", "random", "--json", str(out)]) == 0
    table = capsys.readouterr().out
    rows = json.loads(out.read_text())["rows"]
    assert {(r["guide"], r["scorer"]) for r in rows} == {("random", "gnn"), ("random", "random")}
    (group,) = load_folder_groups({"run": folder})
    distinct = {}  # the run's distinct programs with a finite latency
    for cand, x in zip(group.candidates, group.latencies):
        if np.isfinite(x):
            distinct.setdefault(program_id(cand), x)
    lat = np.array(list(distinct.values()))
    by = {r["scorer"]: r for r in rows}
    assert by["gnn"]["programs"] == len(lat) > 1
    assert 0.0 <= by["gnn"]["pairwise"] <= 1.0 and lat.min() / lat.max() <= by["gnn"]["top1"] <= 1
    # a random pick's expectation, from the same latencies
    np.testing.assert_allclose(by["random"]["top1"], np.mean(lat.min() / lat))
    assert "| random | 1 | 1 |" in table
    assert 0.0 <= by["gnn"]["negative"] <= 1.0 and "negative" not in by["random"]
    # one round of 16: its median latency over the run's best
    (one_run,) = json.loads(out.read_text())["rounds"]
    measured = np.array(group.latencies)
    measured = measured[np.isfinite(measured)]
    np.testing.assert_allclose(one_run["medians"], [np.median(measured) / measured.min()])
    assert "| random | " + f"{one_run['medians'][0]:.2f} |" in table
    assert bench.main(["--report-only", "--json", str(out)]) == 0
    assert capsys.readouterr().out == table
