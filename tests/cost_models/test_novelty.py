"""The novelty bonus (issue 85, item 3 b) and its adaptive weight (d): far from what was
measured scores higher, in the units the module states; the weight follows the last batch's
ranking; the shipped GNN with both stays a cost model MetaSchedule can search with."""

import dataclasses

import numpy as np
import pytest
import torch
from tvm.s_tir import meta_schedule as ms

from tvm_gnn.cost_models.gnn import GNNModel
from tvm_gnn.cost_models.novelty import Novelty
from tvm_gnn.costs import FAILED_COST, FAILED_SCORE

from ..conftest import huge_candidate
from .test_gnn import _results


def test_the_bonus_grows_with_the_distance_to_the_nearest_measured_program():
    measured = torch.tensor([[0.0, 0.0], [10.0, 0.0]])
    emb = torch.tensor([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [9.0, 0.0], [float("nan")] * 2])
    scores = np.array([1.0, 1.0, 1.0, 1.0, np.nan])
    scores[:4] += [0.0, 1.0, -1.0, 0.0]  # a spread to scale by
    out = Novelty(0.5).scored("w", scores, emb, measured)
    d = np.array([0.0, 1.0, 2.0, 1.0])  # nearest measured: 0, 0, 0, 10
    want = scores[:4] + 0.5 * scores[:4].std() * d / np.median(d)
    np.testing.assert_allclose(out[:4], want)
    assert np.isnan(out[4])  # failed stays failed
    # the round's later calls keep its first call's scale
    again = Novelty(0.5)
    again.scored("w", scores, emb, measured)
    np.testing.assert_allclose(again.scored("w", scores[:2], emb[:2], measured), want[:2])


def test_without_measurements_or_weight_the_scores_are_untouched():
    scores = np.array([0.3, 0.1])
    emb = torch.zeros(2, 4)
    assert Novelty(1.0).scored("w", scores, emb, None) is scores
    assert Novelty(0.0).scored("w", scores, emb, torch.ones(1, 4)) is scores
    with pytest.raises(ValueError, match="novelty weight"):
        Novelty(-1.0)


def test_the_adaptive_weight_falls_as_the_last_batch_ranks_better():
    costs = np.array([1.0, 2.0, 3.0, 4.0, FAILED_COST])
    n = Novelty(2.0, adaptive=True)
    assert n.current == 2.0  # nothing observed yet: the full weight
    n.observe(np.array([4.0, 3.0, 2.0, 1.0, 9.0]), costs)  # faster scored higher: tau 1
    assert n.tau == pytest.approx(1.0) and n.current == pytest.approx(0.0)
    n.observe(np.array([1.0, 2.0, 3.0, 4.0, 0.0]), costs)  # reversed: explore fully
    assert n.tau == pytest.approx(-1.0) and n.current == 2.0
    n.observe(np.array([1.0, 2.0]), np.array([1.0, FAILED_COST]))  # one ran: nothing learnt
    assert n.tau == pytest.approx(-1.0)


def test_the_shipped_gnn_with_novelty_scores_measured_copies_lower(conv_candidates):
    ctx, cands = conv_candidates
    with pytest.raises(ValueError, match="novelty"):
        GNNModel(adaptive=True)
    plain, model = GNNModel(seed=0), GNNModel(seed=0, novelty=1.0, adaptive=True)
    model.update(ctx, cands[:16], _results(16))
    plain.update(ctx, cands[:16], _results(16))
    assert model.novelty.tau is not None  # the batch was ranked before it was learnt
    gain = model.predict(ctx, cands) - plain.predict(ctx, cands)
    assert np.all(gain >= 0)
    # a measured program is at distance 0 from itself: no bonus; the unmeasured gain some
    assert gain[16:].max() > 0 and np.all(gain[:16] <= 1e-4 * gain[16:].max())
    model.featurizer = dataclasses.replace(model.featurizer, max_nodes=1000)
    mixed = model.predict(ctx, [cands[30], huge_candidate()])
    assert mixed[1] == FAILED_SCORE and np.isfinite(mixed[0])


def test_gnn_novelty_tunes_a_real_workload(tmp_path, llvm_target):
    from tvm_gnn.cost_models.factory import make_cost_model

    from ..conftest import tiny_tune

    model = make_cost_model("gnn-adaptive", seed=0)
    assert model.calibration is not None and model.novelty.adaptive
    db, progress = tiny_tune(model, tmp_path, llvm_target, trials=32)
    assert len(progress.history) == 32 and np.isfinite(progress.best)
    assert isinstance(db, ms.database.Database)
