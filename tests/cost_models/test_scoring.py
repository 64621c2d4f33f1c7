"""Scoring many candidates at once: chunked featurization overlapping the forward pass."""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from tvm_gnn.cost_models.scoring import explored, predict_candidates, spread
from tvm_gnn.featurize import graph
from tvm_gnn.nn import predict
from tvm_gnn.nn.model import default_gnn
from tvm_gnn.nn.schema import FeaturizerConfig


@pytest.mark.parametrize("conv,compare", [("graph", False), ("relational", False), ("graph", True)])
def test_predict_candidates_matches_graph_by_graph_prediction(conv_candidates, conv, compare):
    _, cands = conv_candidates
    torch.manual_seed(0)
    model = default_gnn("fasttext", conv=conv, compare=compare).eval()
    graphs = [graph.featurize(c.sch.mod) for c in cands[:20]]
    for chunk in (7, 256):  # several chunks overlapping featurize and forward, and one
        scores, errors = predict_candidates(model, cands[:20], FeaturizerConfig(), chunk=chunk)
        assert errors == []
        np.testing.assert_allclose(scores, predict(model, graphs), rtol=1e-5, atol=1e-6)


@given(
    st.lists(st.one_of(st.floats(-5, 5), st.just(float("nan"))), min_size=1, max_size=64),
    st.floats(0.0, 2.0),
    st.integers(0, 2**16),
)
def test_explored_scores_keep_failures_and_are_repeatable_under_a_seed(scores, scale, seed):
    scores = np.array(scores)
    a = explored(scores, scale, np.random.default_rng(seed))
    b = explored(scores, scale, np.random.default_rng(seed))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.isnan(a), np.isnan(scores))
    if scale == 0.0:
        np.testing.assert_array_equal(a, scores)


def test_explored_picks_are_a_softmax_draw_of_the_scores():
    # Gumbel-top-1: the best noisy score is candidate i with probability softmax(s / T)_i
    s = np.array([1.0, 0.5, 0.0])
    rng = np.random.default_rng(0)
    picks = np.bincount([np.argmax(explored(s, 0.5, rng)) for _ in range(20000)], minlength=3)
    want = np.exp(s / 0.5) / np.exp(s / 0.5).sum()
    np.testing.assert_allclose(picks / picks.sum(), want, atol=0.015)


def test_spread_is_the_finite_scores_deviation():
    assert spread(np.array([np.nan, 1.0, 3.0])) == pytest.approx(1.0)
    assert spread(np.array([np.nan, 2.0])) == 0.0
