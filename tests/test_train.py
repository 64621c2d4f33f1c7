"""Training: it learns a ranking, and a seed gives identical weights twice."""

import torch

from tvm_gnn import graph
from tvm_gnn.cost_model import default_gnn
from tvm_gnn.metrics import pairwise_accuracy
from tvm_gnn.train import TrainConfig, fit, predict


def _dataset(conv_candidates):
    # A learnable target: the label is a function of the candidate's own graph (its size), so a
    # working model must rank it well above chance.
    graphs = []
    for i, c in enumerate(conv_candidates[1][:40]):
        d = graph.featurize(c.sch.mod)
        d.y = torch.tensor(float(d.num_nodes))
        d.group = torch.tensor(i % 2)
        graphs.append(d)
    top = max(float(d.y) for d in graphs)
    for d in graphs:
        d.y = d.y / top
    return graphs


def test_fit_learns_and_is_deterministic(conv_candidates):
    data = _dataset(conv_candidates)
    cfg = TrainConfig(epochs=40, batch_size=16, lr=5e-3, patience=40, seed=3)
    weights = []
    for _ in range(2):
        torch.manual_seed(0)
        model = default_gnn("learned")
        hist = fit(model, data, data, cfg)
        weights.append({k: v.clone() for k, v in model.state_dict().items()})
    for k in weights[0]:
        assert torch.equal(weights[0][k], weights[1][k]), k
    assert hist.train_loss[-1] < hist.train_loss[0]
    acc = pairwise_accuracy(predict(model, data), [float(d.y) for d in data],
                            [int(d.group) for d in data])  # fmt: skip
    assert acc > 0.8
    assert max(hist.val_pairwise_acc) == hist.val_pairwise_acc[hist.best_epoch]


def test_predict_candidates_matches_graph_by_graph_prediction(conv_candidates):
    import numpy as np

    from tvm_gnn.graph import FeaturizerConfig
    from tvm_gnn.train import predict_candidates

    _, cands = conv_candidates
    torch.manual_seed(0)
    model = default_gnn("fasttext").eval()
    graphs = [graph.featurize(c.sch.mod) for c in cands[:20]]
    for chunk in (7, 256):  # several chunks overlapping featurize and forward, and one
        scores, errors = predict_candidates(model, cands[:20], FeaturizerConfig(), chunk=chunk)
        assert errors == []
        np.testing.assert_allclose(scores, predict(model, graphs), rtol=1e-5, atol=1e-6)
