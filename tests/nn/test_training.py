"""Training: it learns a ranking, and a seed gives identical weights twice."""

import math

import pytest
import torch

from tvm_gnn.featurize import graph
from tvm_gnn.nn import TrainConfig, fit, predict
from tvm_gnn.nn.metrics import pairwise_accuracy
from tvm_gnn.nn.model import default_gnn


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


@pytest.mark.parametrize("loss", ["ranknet", "lambdarank"])
def test_fit_learns_and_is_deterministic(conv_candidates, loss):
    data = _dataset(conv_candidates)
    cfg = TrainConfig(epochs=40, batch_size=16, lr=5e-3, patience=40, seed=3, loss=loss)
    weights = []
    for _ in range(2):
        torch.manual_seed(0)
        model = default_gnn("learned")
        hist = fit(model, data, data, cfg)
        weights.append({k: v.clone() for k, v in model.state_dict().items()})
    for k in weights[0]:
        assert torch.equal(weights[0][k], weights[1][k]), k
    assert hist.train_loss[-1] < hist.train_loss[0]
    acc = pairwise_accuracy(
        predict(model, data), [float(d.y) for d in data], [int(d.group) for d in data]
    )
    assert acc > 0.8
    assert max(hist.val_pairwise_acc) == hist.val_pairwise_acc[hist.best_epoch]


def _synthetic(n_graphs=48, seed=0):
    """Random graphs labelled by their size, in two groups: learnable without TVM."""
    from torch_geometric.data import Data

    from tvm_gnn.nn.vocab import NODE_TYPES

    gen = torch.Generator().manual_seed(seed)
    out = []
    for i in range(n_graphs):
        n = int(torch.randint(5, 60, (1,), generator=gen))
        edges = torch.stack([torch.arange(1, n), torch.randint(0, n, (n - 1,), generator=gen)])
        d = Data(
            x=torch.randn(n, graph.NUM_FEATURES, generator=gen),
            node_type=torch.randint(0, len(NODE_TYPES), (n,), generator=gen),
            edge_index=torch.cat([edges, edges.flip(0)], 1),
            edge_type=torch.randint(0, 4, (2 * (n - 1),), generator=gen),  # relational layers
            y=torch.tensor(n / 60.0),
            group=torch.tensor(i % 2),
        )
        out.append(d)
    return out


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_fit_trains_on_the_device_asked_for_and_returns_a_cpu_model(device):
    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("no CUDA GPU here")
    data = _synthetic()
    torch.manual_seed(0)
    model = default_gnn("learned")
    hist = fit(
        model,
        data,
        data,
        TrainConfig(epochs=30, batch_size=16, lr=5e-3, patience=30, seed=1, device=device),
    )
    assert all(p.device.type == "cpu" for p in model.parameters())
    assert hist.train_loss[-1] < hist.train_loss[0]
    acc = pairwise_accuracy(
        predict(model, data), [float(d.y) for d in data], [int(d.group) for d in data]
    )
    assert acc > 0.8


def test_an_unknown_or_absent_device_is_refused_up_front():
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        TrainConfig(device="tpu")
    with pytest.raises(ValueError, match="training runs on cpu or cuda"):
        TrainConfig(device="meta")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="sees no CUDA GPU"):
            TrainConfig(device="cuda")


def test_fit_stops_on_a_non_finite_loss(conv_candidates):
    data = _dataset(conv_candidates)
    data[3].x[0, 0] = math.inf  # what the featurizer once emitted for a -inf constant
    with pytest.raises(ValueError, match="training loss is nan at epoch 1"):
        fit(default_gnn("learned"), data, data, TrainConfig(epochs=2, batch_size=64, seed=0))
