"""Calibrated scores: predicted normalized throughput, positive and in the raw score's order."""

import hashlib
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tvm_gnn.cost_models.calibration import (
    MIN_SLOPE_SHARE,
    PRIOR_PROGRAMS,
    Calibration,
    calibration_of,
    prior_of,
    sidecar,
    within_slope,
)
from tvm_gnn.costs import FAILED_COST, FAILED_SCORE
from tvm_gnn.errors import CheckpointError


def test_the_within_workload_slope_ignores_each_workloads_level():
    rng = np.random.default_rng(0)
    raw = rng.normal(size=300)
    groups = np.repeat([0, 1, 2], 100)
    # log throughput = 2 x raw + a level of its own per workload (1 s, 1 ms, 1 us)
    costs = np.exp(-2.0 * raw) * np.array([1.0, 1e-3, 1e-6])[groups]
    costs[5] = FAILED_COST  # a failure is left out
    slope, used = within_slope(raw, costs, groups)
    assert slope == pytest.approx(2.0) and used == 299
    with pytest.raises(ValueError, match="no workload"):
        within_slope([1.0, 2.0], [1.0, 1.0], [0, 1])


def test_a_workloads_fit_leans_on_the_prior_until_it_has_its_own_programs():
    rng = np.random.default_rng(1)
    cal = Calibration(1.0)
    for n, expected in [(4, (4 * 3.0 + PRIOR_PROGRAMS) / (4 + PRIOR_PROGRAMS)), (4000, None)]:
        raw = rng.normal(size=n)
        fit = cal.fit(raw, np.exp(-3.0 * raw))  # the workload's own slope is 3
        assert fit.slope == pytest.approx(expected or 3.0, rel=0.01)
        best = np.argmin(np.exp(-3.0 * raw))
        # the offset centres the residuals on log(min_cost / cost): the best scores near 1
        assert 0.2 < fit(raw[best : best + 1])[0] < 5
    # a workload whose measurements run against the model's order: the slope stays positive
    raw = np.linspace(0, 1, 200)
    assert cal.fit(raw, np.exp(raw)).slope == pytest.approx(MIN_SLOPE_SHARE)


@settings(max_examples=300, deadline=None)
@given(
    raw=arrays(np.float64, st.integers(2, 64), elements=st.floats(-50, 50)),
    measured=arrays(np.float64, 8, elements=st.floats(-50, 50)),
    costs=arrays(np.float64, 8, elements=st.floats(1e-6, 1.0)),
    prior=st.floats(0.01, 20),
)
def test_calibrated_scores_are_positive_and_keep_the_raw_order(raw, measured, costs, prior):
    cal = Calibration(prior)
    for got in (None, (measured, costs)):
        cal.reset()
        out = cal.scores("w", raw, lambda got=got: got)
        assert np.all(np.isfinite(out)) and np.all(out > 0)
        order = np.argsort(raw, kind="stable")
        assert np.all(np.diff(out[order]) >= 0)  # never reordered (ties only at exp's limits)


def test_the_round_calls_measured_once_and_without_measurements_the_best_scores_one():
    calls = []
    cal = Calibration(2.0)
    first = cal.scores("w", np.array([0.0, 1.0, 3.0]), lambda: calls.append(1))
    assert first[2] == pytest.approx(1.0) and first[0] == pytest.approx(np.exp(-6.0))
    again = cal.scores("w", np.array([3.0, np.nan]), lambda: calls.append(1))
    assert again[0] == pytest.approx(1.0) and np.isnan(again[1]) and calls == [1]


def test_a_checkpoint_without_a_calibration_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="needs weights with a calibration"):
        calibration_of(None, True)
    with pytest.raises(ValueError, match="not with an ensemble"):
        calibration_of(1.0, True, ensemble="xgb")
    assert calibration_of(None, False) is None
    weights = tmp_path / "w.pt"
    weights.write_bytes(b"weights")
    assert prior_of({}, weights) is None
    sidecar(weights).write_text(json.dumps({"sha256": "0" * 64, "slope": 2.0}))
    with pytest.raises(CheckpointError, match=r"w.pt.calibration.json: a calibration written for"):
        prior_of({}, weights)  # a sidecar of other weights is not read, and says so
    assert prior_of({"calibration": {"slope": 0.5}}, weights) == 0.5


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[1, 2]", "a JSON object with 'slope' and 'sha256' expected"),
        ('{"slope": 2.0}', "a JSON object with 'slope' and 'sha256' expected"),
        ('{"slope": 2.0, "sha256": "', "unreadable JSON: Unterminated string"),
        ("", "unreadable JSON: Expecting value"),
        ('{"slope": "2", "sha256": "%s"}', "its slope is '2'; a positive finite number"),
        ('{"slope": -1, "sha256": "%s"}', "its slope is -1; a positive finite number"),
        ('{"slope": NaN, "sha256": "%s"}', "its slope is nan; a positive finite number"),
        ('{"slope": 1, "sha256": 7}', "its sha256 is 7; 64 hex digits expected"),
    ],
)
def test_a_sidecar_of_the_wrong_shape_is_one_line_naming_it(tmp_path, text, says):
    weights = tmp_path / "w.pt"
    weights.write_bytes(b"weights")
    digest = hashlib.sha256(b"weights").hexdigest()
    sidecar(weights).write_text(text.replace("%s", digest))
    with pytest.raises(CheckpointError) as err:
        prior_of({}, weights)
    assert str(err.value).startswith(f"{sidecar(weights)}: ") and says in str(err.value)
    assert "\n" not in str(err.value)


def test_the_shipped_gnn_calibrated_scores_in_the_raw_order_and_fails_stay_failed(
    conv_candidates,
):
    import dataclasses

    from tvm_gnn.cost_models.gnn import GNNModel

    from ..conftest import huge_candidate
    from .test_gnn import _results

    ctx, cands = conv_candidates
    raw = GNNModel(seed=0).predict(ctx, cands)
    model = GNNModel(seed=0, calibrated=True)
    assert model.prior_slope > 0  # the shipped weights' sidecar names them
    scores = model.predict(ctx, cands)
    assert np.all(scores > 0) and np.all(np.isfinite(scores))
    np.testing.assert_array_equal(np.argsort(scores, kind="stable"), np.argsort(raw, kind="stable"))
    assert scores.max() == pytest.approx(1.0)  # nothing measured: the round's best is 1
    model.update(ctx, cands[:16], _results(16))
    refit = model.predict(ctx, cands[16:])
    assert np.all(refit > 0) and not np.allclose(refit, scores[16:])
    # what cannot be featurized keeps the failure score
    model.featurizer = dataclasses.replace(model.featurizer, max_nodes=1000)
    mixed = model.predict(ctx, [cands[30], huge_candidate(), cands[31]])
    assert mixed[1] == FAILED_SCORE and np.all(mixed[[0, 2]] > 0)
