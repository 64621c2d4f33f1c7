"""The GNN: shapes, batching, options and the FastText embedding switch."""

import pytest
import torch
from torch_geometric.data import Batch

from tvm_gnn.featurize import graph
from tvm_gnn.nn.model import GNN, GNNConfig, default_gnn
from tvm_gnn.nn.vectors import load_vectors
from tvm_gnn.nn.vocab import NODE_TYPES

from ..conftest import add_one, matmul4


def _config(**kw):
    return GNNConfig(num_node_types=len(NODE_TYPES), num_features=graph.NUM_FEATURES, **kw)


@pytest.mark.parametrize(
    "topk,topk_at,pools", [(True, "every", 3), (True, "last", 1), (False, "every", 0)]
)
@pytest.mark.parametrize("embedding", ["fasttext", "learned"])
def test_forward_one_score_per_graph(topk, topk_at, pools, embedding):
    # GraphConv: relational layers with TopK after every layer are not batching-invariant
    # (a 1e-3 difference between copies of one graph, ties in TopK's selection); the shipped
    # relational design pools once, after the last layer: the test below
    torch.manual_seed(0)
    model = default_gnn(embedding, topk=topk, topk_at=topk_at, conv="graph").eval()
    graphs = [graph.featurize(add_one), graph.featurize(matmul4)] * 3
    batch = Batch.from_data_list(graphs)
    with torch.no_grad():
        out = model.forward_batch(batch)
    assert out.shape == (6,)
    assert torch.isfinite(out).all()
    assert torch.allclose(out[0], out[2]) and torch.allclose(out[1], out[3])  # batching-invariant
    assert len(model.pools) == pools


@pytest.mark.parametrize("embedding", ["fasttext", "learned"])
def test_the_shipped_design_scores_a_graph_alike_wherever_it_sits_in_a_batch(embedding):
    torch.manual_seed(0)
    model = default_gnn(embedding).eval()
    assert (model.config.conv, model.config.compare) == ("relational", True)
    with torch.no_grad():
        out = model.forward_batch(
            Batch.from_data_list([graph.featurize(add_one)] * 2 + [graph.featurize(matmul4)] * 2)
        )
    assert torch.allclose(out[0], out[1]) and torch.allclose(out[2], out[3])
    assert len(model.pools) == 1


def test_a_model_reads_only_the_feature_columns_it_was_built_for():
    torch.manual_seed(0)
    base, wide = default_gnn().eval(), default_gnn(num_features=graph.NUM_FEATURES).eval()
    assert base.config.num_features == graph.NUM_BASE_FEATURES  # the default leaves them out
    batch = Batch.from_data_list([graph.featurize(matmul4)] * 2)
    other = batch.clone()
    other.x[:, graph.NUM_BASE_FEATURES :] += 3.0  # only the footprint and reuse columns differ
    with torch.no_grad():
        assert torch.equal(base.forward_batch(batch), base.forward_batch(other))
        assert not torch.allclose(wide.forward_batch(batch), wide.forward_batch(other))
    for bad in (0, graph.NUM_FEATURES + 1):
        with pytest.raises(ValueError, match="num_features"):
            default_gnn(num_features=bad)


def test_fasttext_embedding_is_frozen_and_learned_is_not():
    ft = default_gnn("fasttext")
    assert not ft.embed.weight.requires_grad
    assert torch.allclose(ft.embed.weight, torch.from_numpy(load_vectors()))
    assert default_gnn("learned").embed.weight.requires_grad


def test_config_validation_and_round_trip():
    cfg = _config(hidden=16)
    assert GNNConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError, match="fasttext"):
        _config(embedding="word2vec")
    with pytest.raises(ValueError, match="topk_at"):
        _config(topk_at="first")
    with pytest.raises(ValueError, match="pool_ratio"):
        _config(pool_ratio=0.0)
    # a config written before topk_at existed pooled after every layer, and loads that way
    old = {k: v for k, v in cfg.to_dict().items() if k != "topk_at"}
    assert GNNConfig.from_dict(old).topk_at == "every"
    with pytest.raises(ValueError, match="unknown GNNConfig fields"):
        GNNConfig.from_dict({**cfg.to_dict(), "heads": 4})
    with pytest.raises(ValueError, match="shape"):
        GNN(cfg, torch.zeros(3, 3))


def test_checkpoint_from_before_topk_at_loads_with_its_three_pools():
    from pathlib import Path

    from tvm_gnn.nn import checkpoint

    old = Path(__file__).resolve().parents[2] / "benchmarks" / "tuning-runs" / "weights"
    path = old / "gnn-llvm-amd-epyc-2c-4f9d1aa5.pt"  # the weights docs/tuning.md's runs used
    model, _, _ = checkpoint.load(path)
    assert model.config.topk_at == "every" and len(model.pools) == 3


@pytest.mark.parametrize("topk_at", ["every", "last"])
def test_a_relational_model_reads_the_edge_types_and_a_graph_model_does_not(topk_at):
    torch.manual_seed(0)
    relational = default_gnn(conv="relational", topk_at=topk_at).eval()
    plain = default_gnn(conv="graph", topk_at=topk_at).eval()
    batch = Batch.from_data_list([graph.featurize(matmul4), graph.featurize(add_one)])
    other = batch.clone()
    other.edge_type = (other.edge_type + 1) % 4  # the same edges, each of another kind
    with torch.no_grad():
        out = relational.forward_batch(batch)
        assert out.shape == (2,) and torch.isfinite(out).all()
        assert not torch.allclose(out, relational.forward_batch(other))
        assert torch.equal(plain.forward_batch(batch), plain.forward_batch(other))
        with pytest.raises(ValueError, match="edge_type"):
            relational(batch.x, batch.node_type, batch.edge_index, batch.batch, 2)
    with pytest.raises(ValueError, match="conv"):
        _config(conv="gat")


def test_a_deep_residual_stack_scores_every_graph_and_round_trips():
    torch.manual_seed(0)
    model = default_gnn(num_layers=6, residual=True).eval()
    graphs = [graph.featurize(add_one), graph.featurize(matmul4)] * 2
    with torch.no_grad():
        out = model.forward_batch(Batch.from_data_list(graphs))
    assert out.shape == (4,) and torch.isfinite(out).all() and torch.allclose(out[0], out[2])
    old = {k: v for k, v in model.config.to_dict().items() if k not in ("conv", "residual")}
    assert GNNConfig.from_dict(old).conv == "graph"  # checkpoints from before these options
    assert GNNConfig.from_dict(model.config.to_dict()) == model.config


def test_a_comparing_model_scores_each_candidate_against_its_workloads_set():
    torch.manual_seed(0)
    model = default_gnn(compare=True).eval()
    a, b = graph.featurize(add_one), graph.featurize(matmul4)
    for g, w in ((a, 0), (b, 1)):
        g.group = torch.tensor(w)
    with torch.no_grad():
        alone = model.forward_batch(Batch.from_data_list([a, a.clone()]))
        mixed = model.forward_batch(Batch.from_data_list([a, b, a.clone()]))  # two workloads
        assert torch.allclose(mixed[[0, 2]], alone, atol=1e-6)  # b is not in a's set
        one_set = Batch.from_data_list([a, b, a.clone()])
        one_set.group = None  # no workloads given: all of them one set, b included
        assert not torch.allclose(model.forward_batch(one_set)[[0, 2]], alone)


def test_relational_conv_computes_what_rgcnconv_does_with_its_parameters():
    from torch_geometric.nn import RGCNConv

    from tvm_gnn.nn.model import RelationalConv

    torch.manual_seed(0)
    x = torch.randn(50, 8)
    edge_index = torch.randint(0, 50, (2, 200))
    edge_type = torch.randint(0, 4, (200,))
    reference = RGCNConv(8, 8, 4, aggr="add")
    fast = RelationalConv(8, 8, 4, aggr="add")
    fast.load_state_dict(reference.state_dict())  # a checkpoint of either loads into the other
    want = reference(x, edge_index, edge_type)
    assert torch.allclose(fast(x, edge_index, edge_type), want, atol=1e-5)
    # every edge type counts, and a node without in-edges keeps its root term only
    lonely = edge_index[1] != 0
    got = fast(x, edge_index[:, lonely], edge_type[lonely])
    assert torch.allclose(got[0], x[0] @ fast.root + fast.bias, atol=1e-6)


def test_training_computes_relational_layers_as_rgcnconv_does_bit_for_bit():
    """The shipped relational weights were trained through RGCNConv; fit runs its arithmetic
    (exact_arithmetic), so a seed repeats them, and inference keeps the fast path."""
    from torch_geometric.nn import RGCNConv

    from tvm_gnn.nn.model import exact_arithmetic

    torch.manual_seed(0)
    model = default_gnn(conv="relational")
    batch = Batch.from_data_list([graph.featurize(matmul4), graph.featurize(add_one)])
    x, edge_type = torch.randn(batch.num_nodes, 32), batch.edge_type
    conv = model.convs[0]
    reference = RGCNConv(32, 32, conv.num_relations, aggr="add")
    reference.load_state_dict(conv.state_dict())
    want = reference(x, batch.edge_index, edge_type)
    with exact_arithmetic(model):
        assert all(c.exact for c in model.convs)
        assert torch.equal(conv(x, batch.edge_index, edge_type), want)
    assert not any(c.exact for c in model.convs)
    assert torch.allclose(conv(x, batch.edge_index, edge_type), want, atol=1e-5)
    # online retraining opts out of it (ONLINE_TRAIN.exact), offline training does not
    from tvm_gnn.cost_models.gnn import ONLINE_TRAIN
    from tvm_gnn.nn.training import TrainConfig

    assert TrainConfig().exact and not ONLINE_TRAIN.exact
