"""benchmarks/tuning/ansor_networks.py (whole networks on Ansor): the report from archived runs
and head-to-head timings: each seed's ratio, their geometric mean and its t-interval."""

import json

import numpy as np

from .. import script


def _run(runs, net, model, seed, seconds, share):
    out = runs / net / model / f"seed{seed}"
    out.mkdir(parents=True)
    result = {"network": net, "cost_model": model, "trials": 480, "tuning_seconds": seconds,
              "cost_model_share": share, "machine": "test CPU", "seed": seed}  # fmt: skip
    (out / "tune_result.json").write_text(json.dumps(result))


def test_the_report_gives_each_seeds_ratio_and_their_interval(tmp_path):
    bench = script("ansor_networks")
    runs = tmp_path / "runs"
    for seed, ratio in ((0, 0.8), (1, 0.9)):
        _run(runs, "resnet18", "gnn", seed, 100.0, 0.5)
        _run(runs, "resnet18", "xgb", seed, 200.0, 0.25)
        pair = {"network": "resnet18", "seed": seed, "ratio": ratio, "gnn_faster": 20,
                "rounds": 20}  # fmt: skip
        (runs / "resnet18" / f"head_to_head-seed{seed}.json").write_text(json.dumps(pair))
    _run(runs, "mobilenet_v2", "gnn", 0, 50.0, 0.5)  # no head-to-head yet: no row
    text = bench.render(runs, "cmd")
    (row,) = [line for line in text.splitlines() if line.startswith("| resnet18")]
    mean = np.exp(np.mean(np.log([0.8, 0.9])))
    assert f"**{mean:.3f}x** [" in row and "0.800x (20 of 20), 0.900x (20 of 20)" in row
    assert "| 100 / 200 | 50.0% / 25.0% |" in row
    assert "mobilenet_v2" not in text and "Machines: test CPU." in text
