"""The Gaussian process on the GNN's embeddings (issue 85, item 3 a): it corrects the calibrated
prior where the workload was measured, gives the unmeasured the benefit of the doubt, keeps
scores in MetaSchedule's currency, and the shipped GNN with it stays a cost model MetaSchedule
can search with."""

import dataclasses
import importlib.util
import logging

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tvm.s_tir import meta_schedule as ms

from tvm_gnn.cost_models import gp
from tvm_gnn.cost_models.gnn import GNNModel
from tvm_gnn.cost_models.gp import GPExplorer
from tvm_gnn.costs import FAILED_COST, FAILED_SCORE

from ..conftest import huge_candidate
from .test_gnn import _results


def _line(n=12):
    """``n`` measured programs on a line in a 2-d embedding space: those near x = 0 ran e (2.7x)
    faster than those near x = 1, log normalized throughput 0 and -1; the prior, -0.5
    everywhere, is right on average (as a calibrated one is) and wrong on each."""
    x = torch.stack([torch.linspace(0, 1, n), torch.zeros(n)], dim=1)
    costs = np.where(np.arange(n) < n // 2, 1.0, np.e)
    return x, np.full(n, -0.5), costs


def test_the_gp_corrects_the_prior_where_the_workload_was_measured():
    x, prior, costs = _line()
    exploit = GPExplorer(0.0)  # the posterior mean alone
    cands = torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.5, 0.0]])
    calibrated = np.array([0.5, 0.5, np.nan])
    out = exploit.scores("w", calibrated, cands, lambda: (x, prior, costs))
    assert out[0] > 0.5 > out[1] > 0  # the fast end up, the slow end down, both still > 0
    assert out[0] / out[1] == pytest.approx(np.e, rel=0.3)  # by about the measured ratio
    assert np.isnan(out[2])  # a failed candidate stays failed


def test_the_unmeasured_get_the_benefit_of_the_doubt():
    x, prior, costs = _line()
    costs = np.ones(len(costs))  # the prior was right: the GP has nothing to correct
    ucb = GPExplorer(1.0)
    cands = torch.tensor([[0.5, 0.0], [0.5, 3.0]])  # among the measured; far from all of them
    out = ucb.scores("w", np.array([1.0, 1.0]), cands, lambda: (x, prior, costs))
    assert out[1] > out[0] >= 1.0


def test_too_few_programs_or_a_failed_fit_leave_the_prior(monkeypatch, caplog):
    x, prior, costs = _line(6)
    calibrated = np.array([0.3, 0.1])
    cands = torch.zeros(2, 2)
    few = costs.copy()
    few[: len(few) - gp.MIN_PROGRAMS + 1] = FAILED_COST  # one too few ran
    assert GPExplorer(1.0).scores("w", calibrated, cands, lambda: (x, prior, few)) is calibrated
    assert GPExplorer(1.0).scores("w", calibrated, cands, lambda: None) is calibrated

    def broken(*args):
        raise RuntimeError("not positive definite")

    monkeypatch.setattr(gp.Posterior, "fit", broken)
    with caplog.at_level(logging.WARNING, logger="tvm_gnn.cost_models.gp"):
        out = GPExplorer(1.0).scores("w", calibrated, cands, lambda: (x, prior, costs))
    assert out is calibrated and "not positive definite" in caplog.text
    monkeypatch.setattr(gp.Posterior, "fit", lambda *a: broken)  # fits, then cannot score
    with caplog.at_level(logging.WARNING, logger="tvm_gnn.cost_models.gp"):
        out = GPExplorer(1.0).scores("w", calibrated, cands, lambda: (x, prior, costs))
    assert out is calibrated and "did not score" in caplog.text


def test_the_options_are_checked():
    with pytest.raises(ValueError, match="UCB weight"):
        GPExplorer(-1.0)
    with pytest.raises(ValueError, match="calibrated"):
        GPExplorer.of(1.0, calibrated=False)
    assert GPExplorer.of(0.0, calibrated=False) is None
    with pytest.raises(ValueError, match="calibrated"):
        GNNModel(gp=1.0)


def test_without_gpytorch_the_error_says_what_to_install(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n: None if n == "gpytorch" else real(n))
    with pytest.raises(ValueError, match=r"tvm-gnn\[gp\]"):
        GPExplorer.of(1.0, calibrated=True)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(gp.MIN_PROGRAMS, 24),
    beta=st.floats(0.0, 3.0),
)
def test_scores_stay_positive_finite_and_repeatable(seed, n, beta):
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.normal(size=(n, 3))).float()
    prior = rng.normal(scale=0.5, size=n)
    costs = np.exp(rng.normal(size=n))
    cands = torch.from_numpy(rng.normal(scale=2.0, size=(30, 3))).float()
    calibrated = np.exp(rng.normal(size=30))
    out = GPExplorer(beta, seed=1).scores("w", calibrated, cands, lambda: (x, prior, costs))
    again = GPExplorer(beta, seed=1).scores("w", calibrated, cands, lambda: (x, prior, costs))
    assert np.all(np.isfinite(out)) and np.all(out > 0)
    np.testing.assert_array_equal(out, again)


def test_the_shipped_gnn_with_the_gp_scores_in_metaschedules_currency(conv_candidates):
    ctx, cands = conv_candidates
    plain = GNNModel(seed=0, calibrated=True)
    model = GNNModel(seed=0, calibrated=True, gp=1.0)
    for m in (plain, model):
        m.update(ctx, cands[:16], _results(16))
    got, prior = model.predict(ctx, cands), plain.predict(ctx, cands)
    assert np.all(np.isfinite(got)) and np.all(got > 0)
    assert not np.allclose(got, prior)  # the GP moved the calibrated scores
    # the several calls of one round share its fit: the same candidate, the same score
    np.testing.assert_allclose(model.predict(ctx, cands[20:30]), got[20:30], rtol=1e-5)
    model.featurizer = dataclasses.replace(model.featurizer, max_nodes=1000)
    mixed = model.predict(ctx, [cands[30], huge_candidate()])
    assert mixed[1] == FAILED_SCORE and np.isfinite(mixed[0])


def test_gnn_gp_tunes_a_real_workload(tmp_path, llvm_target):
    from tvm_gnn.cost_models.factory import make_cost_model

    from ..conftest import tiny_tune

    model = make_cost_model("gnn-gp", seed=0)
    assert model.calibration is not None and model.gp.beta == 1.0
    db, progress = tiny_tune(model, tmp_path, llvm_target, trials=32)
    assert len(progress.history) == 32 and np.isfinite(progress.best)
    assert isinstance(db, ms.database.Database)
    assert model.gp.fitted >= 1  # the second round's GP, on the first round's measurements
