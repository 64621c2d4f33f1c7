"""GNNModel(ensemble=...): the blend's properties, its scale fixed per search round, XGBModel
learning beside the GNN on real candidates, and a partner that fails."""

import logging
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tvm_gnn.cost_models.ensemble import (
    PARTNER_WARMUP,
    BlendScale,
    blend,
    make_partner,
    partner_ready,
    reorder_top,
)
from tvm_gnn.cost_models.gnn import FAILED_SCORE, GNNModel
from tvm_gnn.errors import CheckpointError
from tvm_gnn.nn.training import TrainConfig

from .test_gnn import _results

FAST = TrainConfig(epochs=2, batch_size=32)
scores = arrays(np.float64, st.integers(2, 40), elements=st.floats(-1e3, 1e3))


@settings(max_examples=50, deadline=None)
@given(scores, st.data())
def test_blend_lies_in_0_1_and_never_falls_when_both_scores_rise(a, data):
    b = data.draw(arrays(np.float64, len(a), elements=st.floats(-1e3, 1e3)))
    out = blend(a, b)
    assert ((0 <= out) & (out <= 1)).all()
    # a pair ordered the same way by both models is ordered that way by the blend
    both = (a[:, None] <= a[None, :]) & (b[:, None] <= b[None, :])
    assert (out[:, None] <= out[None, :])[both].all()


def test_blend_of_one_model_with_itself_keeps_its_order_and_failures():
    a = np.array([0.3, -2.0, np.nan, 5.0, 1.0])
    out = blend(a, a)
    assert np.isnan(out[2])
    ok = ~np.isnan(a)
    assert (np.argsort(out[ok]) == np.argsort(a[ok])).all()


def test_the_first_set_of_a_round_fixes_the_scale_for_later_sets():
    """A subset scored later in the same round gets the values it had inside the first set, so
    MetaSchedule's heap across generations compares like with like; an update starts over."""
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=64), rng.normal(size=64)
    scale = BlendScale()
    first = scale("w", a, b)
    np.testing.assert_allclose(scale("w", a[:5], b[:5]), first[:5])
    assert not np.allclose(blend(a[:5], b[:5]), first[:5])  # its own scale would differ
    scale.reset()
    np.testing.assert_allclose(scale("w", a[:5], b[:5]), blend(a[:5], b[:5]))


def test_unknown_ensemble_is_refused():
    with pytest.raises(ValueError, match="unknown ensemble 'lgbm'"):
        make_partner("lgbm")


def test_xgb_learns_beside_the_gnn_and_the_blend_survives_save_and_load(conv_candidates, tmp_path):
    ctx, cands = conv_candidates
    model = GNNModel(pretrained=False, num_warmup_samples=8, train_config=FAST, ensemble="xgb")
    model.partner.num_warmup_samples = 8
    assert not partner_ready(model.partner)
    model.update(ctx, cands[:24], _results(24))
    assert model.trained and partner_ready(model.partner) and model.partner.data_size == 24
    mixed = model.predict(ctx, cands[24:])
    alone = GNNModel(pretrained=False, num_warmup_samples=8, train_config=FAST)
    alone.update(ctx, cands[:24], _results(24))
    gnn = alone.predict(ctx, cands[24:])
    assert ((0 < mixed) & (mixed < 1)).all() and not np.allclose(mixed, gnn)
    path = str(tmp_path / "gnn.pt")
    model.save(path)
    loaded = GNNModel(checkpoint=path, ensemble="xgb")
    assert loaded.partner.data_size == 24
    loaded.partner.num_warmup_samples = 8
    np.testing.assert_allclose(loaded.predict(ctx, cands[24:]), mixed)


def test_a_partner_file_that_fails_to_load_leaves_the_model_as_it_was(conv_candidates, tmp_path):
    """A corrupt ``.partner`` file: load names it, and the GNN and its XGBModel partner keep
    what they held (XGBModel, a TVM object, is put back from a save made before the load)."""
    ctx, cands = conv_candidates
    model = GNNModel(pretrained=False, num_warmup_samples=8, train_config=FAST, ensemble="xgb")
    model.partner.num_warmup_samples = 8
    model.update(ctx, cands[:24], _results(24))
    before = model.predict(ctx, cands[24:])
    path = tmp_path / "other.pt"
    model.save(str(path))
    Path(str(path) + ".partner").write_bytes(b"not a tar file")
    with pytest.raises((CheckpointError, RuntimeError), match="cannot load the partner model"):
        model.load(str(path))
    assert model.partner.data_size == 24 and partner_ready(model.partner)
    np.testing.assert_array_equal(before, model.predict(ctx, cands[24:]))


def test_the_xgb_partner_joins_after_two_rounds_not_tvms_hundred(conv_candidates):
    """In the blend the GNN ranks the first rounds, so XGBModel joins after PARTNER_WARMUP
    measurements: the scores change then, not at TVM's 100."""
    ctx, cands = conv_candidates
    model = GNNModel(ensemble="xgb", seed=0)
    alone = GNNModel(seed=0)
    step = 16
    for start in range(0, PARTNER_WARMUP, step):
        assert not partner_ready(model.partner)
        np.testing.assert_allclose(model.predict(ctx, cands[40:]), alone.predict(ctx, cands[40:]))
        for m in (model, alone):
            m.update(ctx, cands[start : start + step], _results(step, seed=start))
    assert PARTNER_WARMUP < 100 and partner_ready(model.partner)
    assert not np.allclose(model.predict(ctx, cands[40:]), alone.predict(ctx, cands[40:]))


class _Broken:
    booster = "trained"
    data_size = num_warmup_samples = 0

    def update(self, context, candidates, results):
        pass

    def predict(self, context, candidates):
        raise RuntimeError("feature extraction failed")


def test_a_failing_partner_leaves_the_gnn_scores_and_a_warning(conv_candidates, caplog):
    ctx, cands = conv_candidates
    model = GNNModel(pretrained=False, num_warmup_samples=8, train_config=FAST, ensemble=_Broken())
    alone = GNNModel(pretrained=False, num_warmup_samples=8, train_config=FAST)
    for m in (model, alone):
        m.update(ctx, cands[:24], _results(24))
    with caplog.at_level(logging.WARNING, logger="tvm_gnn"):
        out = model.predict(ctx, cands[24:])
    np.testing.assert_array_equal(out, alone.predict(ctx, cands[24:]))
    assert (out > FAILED_SCORE).all() and "ensemble partner failed" in caplog.text


@settings(max_examples=50, deadline=None)
@given(scores, st.integers(0, 50), st.data())
def test_reorder_top_permutes_the_gnns_top_k_values_among_them_only(a, k, data):
    a = a.copy()
    if data.draw(st.booleans()):
        a[data.draw(st.integers(0, len(a) - 1))] = FAILED_SCORE * np.inf  # -inf: not featurized
    seen = []

    def partner(idx):
        seen.append(list(idx))
        return data.draw(arrays(np.float64, len(idx), elements=st.floats(-1e3, 1e3)))

    out = reorder_top(a, partner, k)
    finite = np.isfinite(a)
    if finite.sum() < 2 or k < 2:
        np.testing.assert_array_equal(out, a)
        return
    (top,) = seen
    assert len(top) == min(k, finite.sum()) and finite[top].all()
    rest = np.setdiff1d(np.arange(len(a)), top)
    np.testing.assert_array_equal(out[rest], a[rest])  # only the top k move
    np.testing.assert_array_equal(np.sort(out[top]), np.sort(a[top]))  # with the GNN's values
    # the top k are the GNN's best: every other finite score is at most their least
    assert (a[rest][np.isfinite(a[rest])] <= a[top].min()).all()


def test_reorder_top_follows_the_partner_when_the_gnn_ties():
    gnn = np.array([5.0, 1.0, 5.0, 5.0, 0.0])
    out = reorder_top(gnn, lambda idx: np.array([3.0, 1.0, 2.0]), 3)  # idx: 0, 2, 3
    np.testing.assert_array_equal(out, gnn)  # same values; the partner orders the tied three
    out = reorder_top(np.array([3.0, 2.0, 1.0, 0.0]), lambda idx: np.array([0.0, 0.0, 9.0]), 3)
    # the partner's strong vote lifts the third above the second; the fourth is not verified
    assert (out[1], out[2], out[3]) == (1.0, 2.0, 0.0)


def test_native_partner_verifies_the_gnns_top_k_only(conv_candidates):
    ctx, cands = conv_candidates
    model = GNNModel(seed=0, ensemble="native", ensemble_top=8)
    alone = GNNModel(seed=0)
    for m in (model, alone):
        m.update(ctx, cands[:PARTNER_WARMUP], _results(PARTNER_WARMUP))
    assert partner_ready(model.partner) and model.partner.data_size == PARTNER_WARMUP
    mine, gnn = (
        model.predict(ctx, cands[PARTNER_WARMUP:]),
        alone.predict(ctx, cands[PARTNER_WARMUP:]),
    )
    top = np.argsort(-gnn)[:8]
    rest = np.setdiff1d(np.arange(len(gnn)), top)
    np.testing.assert_allclose(mine[rest], gnn[rest])
    np.testing.assert_allclose(np.sort(mine[top]), np.sort(gnn[top]))
