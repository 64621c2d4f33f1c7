"""remeasure: every run's best schedules timed again, warm and cold, on a real tiny tuning run."""

import json
import math
import subprocess
import sys

_RUN = """
import json, sys
from tvm_gnn.tune.remeasure import remeasure_best, weighted_sums
from tvm_gnn.measure.sampling import target_from
from tvm_gnn.tune.end_to_end import TuneSettings, tune_network

work = sys.argv[1]
quick = TuneSettings(trials_per_iter=2, repeats=1, progress=False, strategy="replay-trace",
                     cache_flush=True)
tune_network("tiny_cnn", "random", 12, target_from("llvm", 2), work, quick)
out = {}
for budget in (4, 12):
    tasks = remeasure_best({"a": work, "b": work}, budget, progress=False)
    out[budget] = {"tasks": tasks, "sums": weighted_sums(tasks)}
print(json.dumps(out))
"""


def test_remeasure_best_of_a_tiny_run(tmp_path):
    # a child process: MetaSchedule's logger setup chokes on pytest's nameless log handlers
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, str(tmp_path)], capture_output=True, text=True, timeout=1200
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    log = json.loads((tmp_path / "tune_log.json").read_text())
    assert log["cache_flush"] is True and log["failed_trials"] == 0  # timed cold, and it ran
    assert (log["strategy"], log["population"]) == (
        "replay-trace",
        None,
    )  # no search, no population

    full = out["12"]
    assert len(full["tasks"]) == 6  # tiny_cnn's six tasks, each with its weight and both runs
    for row in full["tasks"].values():
        assert row["weight"] >= 1
        for label in ("a", "b"):
            assert all(0 < row[label][k] < 1e6 for k in ("tuned", "warm", "cold"))
        assert row["a"]["tuned"] == row["b"]["tuned"]  # the same record: the database's number
    sums = full["sums"]
    assert sums["a"]["tuned"] == sums["b"]["tuned"] > 0
    expected = sum(r["weight"] * r["a"]["cold"] for r in full["tasks"].values()) / 1e3
    assert math.isclose(sums["a"]["cold"], expected)

    # after 4 trials (2 per task) at most 2 tasks have a record: the rest are None, the sums nan
    early = out["4"]
    missing = [t for t, row in early["tasks"].items() if row["a"] is None]
    assert len(missing) >= 4 and all(early["tasks"][t]["b"] is None for t in missing)
    assert all(math.isnan(v) for v in early["sums"]["a"].values())
