"""Ranking metrics on hand-computed examples."""

import math

import numpy as np
import pytest

from tvm_gnn.nn.metrics import (
    bootstrap_error_ratio,
    bootstrap_pairwise_difference,
    error_ratio,
    mean_top1,
    pairwise_accuracy,
    pairwise_by_group,
    topk_score,
)


def test_pairwise_accuracy_perfect_reversed_and_ties():
    labels = [1.0, 0.5, 0.25]
    groups = [0, 0, 0]
    assert pairwise_accuracy([3, 2, 1], labels, groups) == 1.0
    assert pairwise_accuracy([1, 2, 3], labels, groups) == 0.0
    assert pairwise_accuracy([1, 1, 1], labels, groups) == 0.5


def test_pairwise_accuracy_is_within_groups_then_averaged():
    # group 0: 1 of 1 pair right; group 1: 0 of 3 pairs right -> mean(1, 0) = 0.5
    scores = [2, 1, 1, 2, 3]
    labels = [1.0, 0.5, 1.0, 0.5, 0.1]
    groups = [0, 0, 1, 1, 1]
    assert pairwise_accuracy(scores, labels, groups) == pytest.approx(0.5)
    # pairs with equal labels do not count; a group with none is skipped
    assert math.isnan(pairwise_accuracy([1, 2], [1.0, 1.0], [0, 0]))


def test_topk_score():
    costs = [1.0, 2.0, 4.0, 3.0, 6.0]
    groups = [0, 0, 0, 1, 1]
    # the model's top-1 in group 0 costs 2.0 (best 1.0); in group 1 it picks the best (3.0)
    scores = [0.1, 0.9, 0.2, 0.8, 0.1]
    assert topk_score(scores, costs, groups, k=1) == pytest.approx((1 + 3) / (2 + 3))
    # top-2 of group 0 are costs 2.0 and 4.0; top-3 includes the best
    assert topk_score(scores, costs, groups, k=2) == pytest.approx((1 + 3) / (2 + 3))
    assert topk_score(scores, costs, groups, k=3) == pytest.approx(1.0)
    w = {0: 2.0, 1: 1.0}
    assert topk_score(scores, costs, groups, w, k=1) == pytest.approx((2 + 3) / (4 + 3))


def test_mean_top1_is_the_picks_share_of_the_best_averaged_over_groups():
    labels = [1.0, 0.5, 0.25, 0.8, 0.4, 0.0]
    groups = [0, 0, 0, 1, 1, 2]  # group 2 has no positive label: skipped
    # group 0 picks 0.5 of best 1.0; group 1 picks its best
    assert mean_top1([1, 3, 2, 5, 4, 9], labels, groups) == pytest.approx((0.5 + 1.0) / 2)
    # one group: the top-1 score of one task with latencies 1 / labels
    costs = [1 / y for y in labels[:3]]
    assert mean_top1([1, 3, 2], labels[:3], [0] * 3) == pytest.approx(
        topk_score([1, 3, 2], costs, [0] * 3, k=1)
    )
    assert math.isnan(mean_top1([1.0], [0.0], [0]))


def test_pairwise_by_group_keeps_a_nan_for_a_group_without_a_pair():
    acc = pairwise_by_group([2, 1, 5, 5, 1, 2], [1.0, 0.5, 1.0, 1.0, 1.0, 0.5], [0, 0, 1, 1, 2, 2])
    assert acc[0] == 1.0 and math.isnan(acc[1]) and acc[2] == 0.0


def test_error_ratio_averages_workloads_then_networks_then_runs():
    strata = ["a", "a", "b"]
    # network a: accuracies 0.9 and 0.7 (mean 0.8), network b: 0.6 -> average 0.7, error 0.3
    gnn = [[0.9, 0.7, 0.6]]
    # two runs: errors 0.4 and 0.6 -> 0.5
    xgb = [[0.6, 0.6, 0.6], [0.4, 0.4, 0.4]]
    assert error_ratio(gnn, xgb, strata) == pytest.approx(0.3 / 0.5)


def test_bootstrap_interval_of_a_known_case():
    # Model b errs 0.5 on every workload; model a is right on half of 400 workloads and wrong on
    # the other half. The ratio is a's mean error over 0.5: a Bernoulli(0.5) mean of n = 400
    # draws, standard error 0.025, so the ratio's is 0.05 and its 95% interval 1 +- 0.098.
    a = np.tile([1.0, 0.0], 200)[None, :]
    b = np.full((1, 400), 0.5)
    ratio, low, high = bootstrap_error_ratio(a, b, ["net"] * 400, n_boot=4000, seed=1)
    assert ratio == pytest.approx(1.0)
    assert low == pytest.approx(1 - 0.098, abs=0.02)
    assert high == pytest.approx(1 + 0.098, abs=0.02)
    # the same seed gives the same interval
    assert bootstrap_error_ratio(a, b, ["net"] * 400, n_boot=4000, seed=1) == (ratio, low, high)


def test_bootstrap_interval_of_a_constant_ratio_is_that_ratio():
    rng = np.random.default_rng(0)
    b = rng.uniform(0.5, 0.9, size=(3, 60))  # three runs
    a = 1 - 0.5 * (1 - b)  # half of b's error on every workload, in every run
    strata = np.repeat(["x", "y", "z"], 20)
    ratio, low, high = bootstrap_error_ratio(a, b, strata, n_boot=200)
    assert ratio == pytest.approx(0.5) and low == pytest.approx(0.5) and high == pytest.approx(0.5)


def test_bootstrap_skips_workloads_without_a_pair():
    a = np.array([[1.0, np.nan, 0.0]])
    b = np.array([[0.5, np.nan, 0.5]])
    ratio, low, high = bootstrap_error_ratio(a, b, ["n", "n", "n"], n_boot=500)
    assert ratio == pytest.approx(1.0) and 0.0 <= low <= ratio <= high <= 2.0


def test_bootstrap_difference_of_a_known_case_and_a_constant_shift():
    # the known case above as a difference: a's accuracy minus b's is 0 with a standard error
    # of 0.025, so its 95% interval is 0 +- 0.049
    a = np.tile([1.0, 0.0], 200)[None, :]
    b = np.full((1, 400), 0.5)
    diff, low, high = bootstrap_pairwise_difference(a, b, ["net"] * 400, n_boot=4000, seed=1)
    assert diff == pytest.approx(0.0, abs=1e-12)
    assert low == pytest.approx(-0.049, abs=0.01) and high == pytest.approx(0.049, abs=0.01)
    # a shift of 0.02 on every workload of every run, networks weighted equally: exactly 0.02
    rng = np.random.default_rng(0)
    b = rng.uniform(0.5, 0.9, size=(3, 60))
    strata = np.repeat(["x", "y", "z"], [10, 20, 30])
    diff, low, high = bootstrap_pairwise_difference(b + 0.02, b, strata, n_boot=200)
    assert (
        diff == pytest.approx(0.02) and low == pytest.approx(0.02) and high == pytest.approx(0.02)
    )
