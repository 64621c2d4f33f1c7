"""ScoreLog: the scale of the scores MetaSchedule draws parents from, logged through a real run."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tvm_gnn.cost_models.score_log import MIN_CANDIDATES, ScoreLog, summary, top_share

from ..conftest import tiny_tune


def test_the_top_tenths_share_of_known_weights():
    assert top_share(np.ones(100)) == pytest.approx(0.1)
    assert top_share([5.0] + [0.0] * 99) == pytest.approx(1.0)
    assert top_share([-1.0] * 10) is None  # nothing can be drawn
    # clipped at 0 as MetaSchedule does: the negative scores weigh nothing
    assert top_share([2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, -50.0]) == pytest.approx(
        2.0 / 11.0
    )
    rng = np.random.default_rng(0)
    assert top_share(rng.random(100_000)) == pytest.approx(0.19, abs=0.005)  # uniform: 1 - 0.9^2


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3), min_size=MIN_CANDIDATES, max_size=600))
def test_a_calls_summary_is_a_share_of_what_can_be_drawn(scores):
    n, share, nonpositive = summary(scores)
    assert n == len(scores)
    assert nonpositive == pytest.approx(np.mean(np.asarray(scores) <= 0), abs=1e-4)
    positive = np.clip(scores, 0, None)
    if share is None:
        assert not positive.any()
    else:  # the largest tenth holds at least its count's share of the weight, and at most all
        k = max(1, round(0.1 * n))
        assert k / n - 1e-4 <= share <= 1.0
        assert share == pytest.approx(np.sort(positive)[-k:].sum() / positive.sum(), abs=1e-4)


def test_scores_pass_through_unchanged(conv_candidates):
    from tvm_gnn.cost_models.gnn import GNNModel

    ctx, cands = conv_candidates
    logged = ScoreLog(GNNModel(seed=0))
    scores = logged.predict(ctx, cands)
    np.testing.assert_array_equal(scores, GNNModel(seed=0).predict(ctx, cands))
    assert logged.calls == [summary(scores)]
    logged.predict(ctx, cands[: MIN_CANDIDATES - 1])  # too few to say anything: not logged
    assert len(logged.calls) == 1


def test_a_real_run_logs_every_population_it_scores(tmp_path, llvm_target):
    from tvm.s_tir import meta_schedule as ms

    logged = ScoreLog(ms.cost_model.RandomModel(seed=0))
    db, _ = tiny_tune(logged, tmp_path, llvm_target)
    assert len(db.get_all_tuning_records()) == 32
    assert logged.calls and all(n >= MIN_CANDIDATES for n, _, _ in logged.calls)
    shares = [s for _, s, _ in logged.calls]
    assert 0.15 < float(np.median(shares)) < 0.25  # uniform scores
    assert all(z == 0.0 for _, _, z in logged.calls)  # RandomModel's scores are in (0, 1)
