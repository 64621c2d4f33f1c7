"""Scoring many candidates at once: chunked featurization overlapping the forward pass."""

import numpy as np
import pytest
import torch

from tvm_gnn.cost_models.scoring import predict_candidates
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
