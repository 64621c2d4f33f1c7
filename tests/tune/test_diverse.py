"""The diversity-aware batch (issue 85, option c): its choice, and a real search around it."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tvm_gnn.tune.diverse import DiverseSearch, gnn_of, representatives

from ..conftest import matmul64


def _clumps(n_clumps: int, per: int, seed: int = 0):
    """Embeddings in ``n_clumps`` tight, far-apart clumps of ``per`` rows, and scores whose
    best ``per`` rows all sit in clump 0 (near-copies of one favourite)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_clumps, 8)) * 100
    emb = np.repeat(centres, per, axis=0) + rng.normal(size=(n_clumps * per, 8)) * 0.01
    scores = -np.arange(n_clumps * per, dtype=float)  # row 0 best, clump 0 holds the top
    return scores, emb


def test_the_batch_takes_each_clumps_best_instead_of_near_copies_of_the_favourite():
    scores, emb = _clumps(4, 16)
    picks = representatives(scores, emb, 4, seed=0)
    assert picks == [0, 16, 32, 48]  # each clump's best-scored row, best first
    assert set(np.argsort(-scores)[:4]) == {0, 1, 2, 3}  # what the search's top would measure


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 80),
    k=st.integers(1, 20),
    nan_share=st.sampled_from([0.0, 0.2, 1.0]),
    seed=st.integers(0, 2**16),
)
def test_the_batch_has_k_distinct_rows_best_first_led_by_the_best(n, k, nan_share, seed):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=n)
    emb = rng.normal(size=(n, 6))
    failed = rng.random(n) < nan_share
    scores[failed] = np.nan
    emb[failed] = np.nan
    picks = representatives(scores, emb, k, seed)
    assert len(picks) == len(set(picks)) == min(k, n)
    ranked = np.nan_to_num(scores, nan=-np.inf)
    assert picks[0] == int(np.argmax(ranked)) or not np.isfinite(ranked).any()
    assert list(ranked[picks]) == sorted(ranked[picks], reverse=True)
    assert picks == representatives(scores, emb, k, seed)  # deterministic under a seed


def test_it_needs_a_gnn_to_embed_with():
    from tvm.s_tir import meta_schedule as ms

    with pytest.raises(ValueError, match="needs a GNN cost model"):
        gnn_of(ms.cost_model.RandomModel(seed=0))
    with pytest.raises(ValueError, match="whole number >= 1"):
        DiverseSearch(None, widen=0)


def test_a_real_search_measures_its_budget_of_distinct_programs(tmp_path, llvm_target):
    from tvm_gnn.cost_models.gnn import GNNModel
    from tvm_gnn.cost_models.score_log import ScoreLog
    from tvm_gnn.tune.workload import tune_tir

    model = ScoreLog(GNNModel(seed=0))  # the benchmark's wrapper: the GNN is found inside
    db, progress = tune_tir(
        matmul64, llvm_target, str(tmp_path), max_trials=24, num_trials_per_iter=16,
        cost_model=model, progress=False, population=64, diverse=3,
    )  # fmt: skip
    records = db.get_all_tuning_records()
    assert len(progress.history) == 24 and np.isfinite(progress.best)
    assert len({str(r.trace) for r in records}) == len(records) == 24
