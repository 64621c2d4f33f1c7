"""ReadoutXGBModel: a booster on the frozen GNN's embeddings, GNNModel(ensemble="readout")'s
partner."""

import dataclasses
import logging

import numpy as np
import pytest
import torch

from tvm_gnn.cost_models.ensemble import PARTNER_WARMUP
from tvm_gnn.cost_models.gnn import GNNModel
from tvm_gnn.cost_models.readout_xgb import ReadoutXGBModel
from tvm_gnn.costs import FAILED_SCORE
from tvm_gnn.dataset.groups import runner_results

from ..conftest import huge_candidate


def _latencies(n, seed=0):
    return np.random.default_rng(seed).uniform(1e-4, 1e-3, n)


def _weights(model):
    return [p.detach().clone() for p in model.parameters()]


def test_gnnmodel_binds_the_gnn_it_starts_from_and_the_copy_stays_frozen(conv_candidates):
    ctx, cands = conv_candidates
    model = GNNModel(seed=0, ensemble="readout", ensemble_top=8)
    partner = model.partner
    assert isinstance(partner, ReadoutXGBModel) and partner.gnn is not model.model
    start = _weights(model.model)
    for a, b in zip(_weights(partner.gnn), start):
        torch.testing.assert_close(a, b)
    # the GNN's online update trains its own weights; the partner's copy is not touched
    model.update(ctx, cands[:PARTNER_WARMUP], runner_results(_latencies(PARTNER_WARMUP)))
    assert model.last_train_size == PARTNER_WARMUP  # the GNN retrained
    assert any(not torch.equal(a, b) for a, b in zip(_weights(model.model), start))
    for a, b in zip(_weights(partner.gnn), start):
        torch.testing.assert_close(a, b)
    assert partner.booster is not None and partner.data_size == PARTNER_WARMUP
    scores = model.predict(ctx, cands[PARTNER_WARMUP:])
    assert scores.shape == (len(cands) - PARTNER_WARMUP,) and np.isfinite(scores).all()


def test_learns_the_measured_order_and_reloads(conv_candidates, tmp_path):
    ctx, cands = conv_candidates
    gnn = GNNModel(seed=0)
    model = ReadoutXGBModel(gnn.model, gnn.featurizer, seed=0, num_warmup_samples=32)
    lat = _latencies(32)
    model.update(ctx, cands[:32], runner_results(lat))
    rows, ok, errors = model._rows(cands[:4])  # the readouts, [n, 2H], not store features
    assert rows.shape == (4, 2 * gnn.model.config.hidden) and ok == [0, 1, 2, 3] and not errors
    ((stored, _),) = model.data.values()
    np.testing.assert_allclose(stored[:4], rows)
    scores = model.predict(ctx, cands)
    # depth-10 trees on 32 rows: it orders the measured candidates as measured
    rho = np.corrcoef(np.argsort(np.argsort(scores[:32])), np.argsort(np.argsort(-lat)))
    assert rho[0, 1] > 0.8
    path = str(tmp_path / "readout.json")
    model.save(path)
    again = ReadoutXGBModel(gnn.model, gnn.featurizer, seed=1)
    again.load(path)
    np.testing.assert_array_equal(again.predict(ctx, cands), scores)


def test_a_candidate_it_cannot_featurize_scores_low_with_a_warning(conv_candidates, caplog):
    ctx, cands = conv_candidates
    gnn = GNNModel(seed=0)
    small = dataclasses.replace(gnn.featurizer, max_nodes=1000)
    model = ReadoutXGBModel(gnn.model, small, num_warmup_samples=0)
    model.update(ctx, cands[:16], runner_results(_latencies(16)))
    with caplog.at_level(logging.WARNING, logger="tvm_gnn.cost_models.store_xgb"):
        scores = model.predict(ctx, [cands[0], huge_candidate(), cands[1]])
    assert scores[1] == FAILED_SCORE and np.isfinite(scores).all() and scores[0] > FAILED_SCORE
    assert "without features" in caplog.text and "GraphTooLargeError" in caplog.text


def test_unbound_it_says_so():
    with pytest.raises(RuntimeError, match="bind"):
        ReadoutXGBModel()._rows([])
