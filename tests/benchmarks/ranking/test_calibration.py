"""benchmarks/ranking/calibration.py on the small dataset: the prior is fitted on the weights'
training records and written beside them for GNNModel, and the held-out check is reported."""

import json

import pytest

from .. import script


def test_the_prior_lands_beside_the_weights_and_the_check_is_reported(
    small_dataset, trained, tmp_path
):
    import shutil

    from tvm_gnn.cost_models.calibration import prior_of, sidecar
    from tvm_gnn.nn import checkpoint

    weights = tmp_path / "gnn.pt"
    shutil.copy(trained["gnn"], weights)
    extra = checkpoint.read_info(weights)
    assert extra["calibration"]["slope"] > 0  # training wrote its own
    doc, out = tmp_path / "doc.md", tmp_path / "calibration.json"
    argv = ["--checkpoint", str(weights), "--data", str(small_dataset), "--doc", str(doc)]
    assert (
        script("calibration").main([*argv, "--json", str(out), "--cache-dir", str(tmp_path)]) == 0
    )
    res = json.loads(out.read_text())
    assert res["prior"] == pytest.approx(extra["calibration"]["slope"], rel=1e-4)
    assert prior_of({}, weights) == pytest.approx(res["prior"])  # the sidecar names these weights
    assert json.loads(sidecar(weights).read_text())["sha256"] == res["weights"]
    held = res["held_out"]["validation"]
    assert held["workloads"] >= 2 and held["low"] <= held["slope"] <= held["high"]
    assert "| the validation workloads |" in doc.read_text()
