"""benchmarks/tuning/ansor_tasks.py (Ansor's per-task tuning): which tasks it tunes, read from the
Ansor dataset's logs without TVM, and which archived runs its report counts."""

import json

import numpy as np

from .. import script, task_run


def _log(folder, name, costs):
    lines = [json.dumps({"i": [["k"], []], "r": [[c], 0 if c else 4]}) for c in costs]
    (folder / "measure_records" / name).write_text("\n".join(lines) + "\n")


def _network(folder, net, tasks):
    info = [{"workload_key": key, "desc": f"{net}-{key}", "weight": w,
             "log": f"measure_records/{key}.json"} for key, w in tasks]  # fmt: skip
    (folder / "network_info" / f"{net}.json").write_text(json.dumps({"tasks": info}))


def test_each_held_out_network_has_its_heaviest_tasks_among_those_tuned(tmp_path):
    bench = script("ansor_tasks")
    folder = tmp_path / "ansor" / "hw"
    (folder / "measure_records").mkdir(parents=True)
    (folder / "network_info").mkdir()
    for i in range(8):  # heavy: 1 to 8 ms, weight 1
        _log(folder, f"inc{i}.json", [0.001 * (i + 1), 0.002 * (i + 1), 0])
    _log(folder, "shared.json", [0.0005])
    for i in range(3):  # light: 10 to 30 us
        _log(folder, f"mob{i}.json", [1e-5 * (i + 1)])
    _log(folder, "never.json", [0])  # no valid record: never chosen
    _network(folder, "inception_v3", [(f"inc{i}", 1) for i in range(8)] + [("shared", 1)])
    _network(folder, "resnet18", [("shared", 4), ("never", 9)])
    _network(folder, "mobilenet_v2", [(f"mob{i}", 1) for i in range(3)])
    held = ("resnet18", "mobilenet_v2", "inception_v3")
    tasks = bench.select_tasks(folder, held, 6)
    ids = [t["id"] for t in tasks]
    # the shared task counts for both networks: 4 x 0.5 ms + 1 x 0.5 ms, under resnet18's name
    assert ids == ["inception_v3-07", "inception_v3-06", "inception_v3-05", "resnet18-00",
                   "mobilenet_v2-02", "mobilenet_v2-01"]  # fmt: skip
    shared = tasks[3]
    assert np.isclose(shared["cost"], 5 * 0.0005) and shared["kind"] == "resnet18-shared"


def test_the_report_counts_the_gnn_runs_of_its_weights_only(tmp_path):
    bench = script("ansor_tasks")
    runs = tmp_path / "runs"
    xgb = np.linspace(2.0, 1.0, 128)
    for task in ("a", "b"):
        for seed in (0, 1, 2):
            task_run(runs, task, "xgb", seed, xgb)
            task_run(runs, task, "xgb-pretrained", seed, 0.9 * xgb)
            task_run(runs, task, "gnn", seed, 0.72 * xgb)
    task_run(runs, "a", "gnn", 5, 0.1 * xgb, weights="other")
    archived = bench.read_runs(runs, "w1")
    assert len(archived) == 18 and all(r.get("weights") in ("w1", None) for r in archived)
    res = bench.summarize(archived, 128, bench.DEFAULT_MODELS, "gnn")
    assert np.isclose(res["ratios"]["gnn@64"]["ratio"], 0.72)
    assert np.isclose(res["ratios_pretrained"]["gnn@128"]["ratio"], 0.8)
