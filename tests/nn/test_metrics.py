"""Ranking metrics on hand-computed examples."""

import math

import pytest

from tvm_gnn.nn.metrics import mean_top1, pairwise_accuracy, topk_score


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
