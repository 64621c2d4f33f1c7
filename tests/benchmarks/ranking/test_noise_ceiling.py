"""benchmarks/ranking/noise_ceiling.py: the noise estimate and what a perfect model scores."""

import json

import numpy as np
import pytest

from .. import script


def test_noise_ceiling_estimates_the_noise_and_what_a_perfect_model_scores(small_dataset, tmp_path):
    nc = script("noise_ceiling")
    # two programs measured twice each, log latencies +-0.1 around their means: pooled sd is
    # sqrt((2 * 0.1^2 + 2 * 0.1^2) / 2) = 0.1414
    e = np.exp(0.1)
    wl = {
        "weight": 1,
        "programs": {"a": [1e-3 * e, 1e-3 / e], "b": [2e-3 * e, 2e-3 / e], "c": [5e-3]},
    }
    sigma = nc.noise({"net": {"w": wl}})
    assert sigma["programs"] == 2 and sigma["records"] == 4
    assert sigma["pooled"] == pytest.approx(np.sqrt(0.04 / 2))
    # a noiseless label: the perfect model scores 1; a very noisy one: pairwise near chance
    test = {"net": {"w": {"weight": 1, "programs": {str(i): [1e-3 * 1.1**i] for i in range(30)}}}}
    for sd, pair in [(0.0, 1.0), (50.0, 0.5)]:
        zero = {"buckets": [{"used": sd} for _ in nc.BUCKETS]}
        got = nc.ceiling(test, zero, replicates=20, seed=0)["net"]
        assert got["pairwise"] == pytest.approx(pair, abs=0.05)
        assert (got["top1"] == 1.0) == (sd == 0.0)
    # on real records (resnet18 held out, its workloads shared with resnet50 left out)
    doc, out = tmp_path / "results.md", tmp_path / "noise.json"
    argv = [
        "--data",
        str(small_dataset),
        "--held-out",
        "resnet18",
        "--replicates",
        "5",
        "--doc",
        str(doc),
        "--json",
        str(out),
    ]
    assert nc.main(argv) == 0
    res = json.loads(out.read_text())
    assert list(res["ceiling"]) == ["resnet18"] and 0.5 <= res["pairwise"] <= 1
    assert "noise_ceiling.py --held-out resnet18 --replicates 5`" in doc.read_text()
    with pytest.raises(SystemExit):
        nc.main(["--data", str(small_dataset), "--no-write"])  # no mobilenet_v2 in it
