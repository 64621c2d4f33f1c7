"""StoreXGBModel: XGBModel's contract on native per-store features, in a real tuning run."""

import logging

import numpy as np
import tvm
from tvm.s_tir import meta_schedule as ms

from tvm_gnn.cost_models.store_xgb import StoreXGBModel
from tvm_gnn.costs import FAILED_SCORE, relative_labels
from tvm_gnn.dataset.groups import runner_results

from ..conftest import add_one, matmul64, tiny_tune


def _latencies(cands, seed=0):
    return np.random.default_rng(seed).uniform(1e-4, 1e-3, len(cands))


def test_random_until_warm_up_then_learns_and_reloads(conv_candidates, tmp_path):
    ctx, cands = conv_candidates
    model = StoreXGBModel(seed=0, num_warmup_samples=32)
    lat = _latencies(cands)
    model.update(ctx, cands[:16], runner_results(lat[:16]))
    assert model.booster is None and model.predict(ctx, cands).shape == (48,)
    model.save(str(tmp_path / "early.json"))  # before any training: the data alone
    early = StoreXGBModel()
    early.load(str(tmp_path / "early.json"))
    assert early.booster is None and early.data_size == 16
    model.update(ctx, cands[16:32], runner_results(lat[16:32]))
    assert model.booster is not None and model.rounds > 0
    scores = model.predict(ctx, cands)
    # fitted on the measured half (depth-10 trees): it orders those candidates as measured
    rho = np.corrcoef(np.argsort(np.argsort(scores[:32])), np.argsort(np.argsort(-lat[:32])))
    assert rho[0, 1] > 0.8
    path = str(tmp_path / "xgb.json")
    model.save(path)
    again = StoreXGBModel(seed=1)
    again.load(path)
    np.testing.assert_array_equal(again.predict(ctx, cands), scores)
    assert again.data_size == 32


def test_labels_are_xgbmodels_and_failures_label_zero(conv_candidates):
    ctx, cands = conv_candidates
    model = StoreXGBModel(num_warmup_samples=1000)
    results = runner_results([2e-3, 1e-3, 4e-3])
    results[2] = ms.runner.RunnerResult(run_secs=None, error_msg="build failed")
    model.update(ctx, cands[:3], results)

    ((_, costs),) = model.data.values()
    np.testing.assert_allclose(relative_labels(costs), [0.5, 1.0, 0.0])


def test_a_candidate_without_features_scores_low_with_a_warning(conv_candidates, caplog):
    ctx, cands = conv_candidates
    model = StoreXGBModel(num_warmup_samples=0)
    model.update(ctx, cands[:16], runner_results(_latencies(cands[:16])))

    # two functions in one module: not a program the features are defined for
    two = ms.MeasureCandidate(tvm.s_tir.Schedule(tvm.IRModule({"a": matmul64, "b": add_one})), [])
    with caplog.at_level(logging.WARNING, logger="tvm_gnn.cost_models.store_xgb"):
        scores = model.predict(ctx, [cands[0], two, cands[1]])
    assert scores[1] == FAILED_SCORE and np.isfinite(scores).all()
    assert scores[0] > FAILED_SCORE and "without features" in caplog.text


def test_fit_groups_is_deterministic_under_its_seed(conv_candidates):
    from tvm_gnn.dataset.groups import Group

    ctx, cands = conv_candidates
    group = Group("net", "h", "t", 1, ctx, cands, list(_latencies(cands)))
    a = StoreXGBModel(seed=3).fit_groups([group]).predict(ctx, cands)
    b = StoreXGBModel(seed=3).fit_groups([group]).predict(ctx, cands)
    np.testing.assert_array_equal(a, b)


def test_real_tuning_run(tmp_path, llvm_target):
    # warms up on the first 16 measurements, trains, guides the other 16
    model = StoreXGBModel(seed=0, num_warmup_samples=16)
    db, progress = tiny_tune(model, tmp_path, llvm_target)
    assert len(db.get_all_tuning_records()) == 32 and progress.errors == 0
    assert model.booster is not None and model.data_size == 32
