"""Ranking losses: pair targets, LambdaRank weights, label noise."""

import math

import pytest
import torch

from tvm_gnn.nn import LOSSES, TrainConfig, lambda_weights, pair_targets, ranking_loss


def test_lambda_weights_are_ndcg_changes_and_favor_the_fast_end():
    y = torch.tensor([1.0, 0.8, 0.5, 0.1, 1.0, 0.3])
    group = torch.tensor([0, 0, 0, 0, 1, 1])
    scores = torch.tensor([4.0, 3.0, 2.0, 1.0, 0.0, 1.0])  # group 0 in order, group 1 swapped
    w = lambda_weights(scores, y, group)
    idcg = 1.0 + 0.8 / math.log2(3) + 0.5 / 2 + 0.1 / math.log2(5)
    assert w[0, 1].item() == pytest.approx(0.2 * (1 - 1 / math.log2(3)) / idcg, rel=1e-6)
    assert w[0, 1] > w[2, 3] > 0  # the same rank gap counts more at the top
    assert torch.equal(w, w.T) and w[0, 4] == 0 and w[1, 5] == 0  # no pairs across groups
    # group 1 is ranked wrong: its one pair's weight is the NDCG the swap costs
    idcg1 = 1.0 + 0.3 / math.log2(3)
    assert w[4, 5].item() == pytest.approx(0.7 * (1 - 1 / math.log2(3)) / idcg1, rel=1e-6)


def test_ranking_losses():
    y = torch.tensor([1.0, 0.5, 0.2, 1.0, 0.9])
    group = torch.tensor([0, 0, 0, 1, 1])
    scores = torch.tensor([0.3, 0.1, 0.2, -1.0, 1.0], requires_grad=True)
    pairs = [(0, 1), (0, 2), (1, 2), (3, 4)]  # (better, worse)
    ranknet = sum(math.log1p(math.exp(-(scores[i] - scores[j]).item())) for i, j in pairs) / 4
    mse = torch.mean((scores - y) ** 2).item()
    assert ranking_loss(scores, y, group, 0.5).item() == pytest.approx(ranknet + 0.5 * mse)
    assert ranking_loss(scores, y, group, 0.0).item() == pytest.approx(ranknet)
    lam = ranking_loss(scores, y, group, 0.0, "lambdarank")
    lam.backward()  # the weights are constants: gradients flow through the scores only
    assert scores.grad is not None and torch.isfinite(scores.grad).all()
    # one pair per group: the weighted mean of a single pair is that pair's loss
    one = torch.tensor([0, 0, 0, 1, 1])
    assert ranking_loss(scores[3:], y[3:], one[3:], 0.0, "lambdarank").item() == pytest.approx(
        math.log1p(math.exp(2.0))
    )
    with pytest.raises(ValueError, match="unknown loss"):
        ranking_loss(scores, y, group, 0.0, "listnet")
    with pytest.raises(ValueError, match="unknown loss"):
        TrainConfig(loss="listnet")


def test_noisy_labels_soften_the_pair_targets():
    sigma = 0.1
    y = torch.tensor([1.0, math.exp(-sigma * math.sqrt(2)), 0.05])
    p = pair_targets(y, sigma)
    assert p[0, 1].item() == pytest.approx(0.5 * (1 + math.erf(1 / math.sqrt(2))))  # Phi(1)
    assert torch.allclose(p + p.T, torch.ones(3, 3))  # i faster than j, or j faster than i
    assert torch.allclose(p.diagonal(), torch.full((3,), 0.5))
    assert p[0, 2] > 0.999  # a 20x gap is certain
    group = torch.zeros(3, dtype=torch.long)
    scores = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    for loss in LOSSES:
        # a vanishing noise is RankNet / LambdaRank with hard targets
        hard = ranking_loss(scores, y, group, 0.0, loss)
        assert ranking_loss(scores, y, group, 0.0, loss, 1e-6).item() == pytest.approx(hard.item())
    # with the noise, the near tie (0, 1) pulls its scores apart less than the clear pair (0, 2):
    # at equal scores the pull on the faster one is its target minus a half
    pulls = []
    for pair in ([0, 1], [0, 2]):
        s = torch.zeros(2, requires_grad=True)
        ranking_loss(s, y[pair], group[:2], 0.0, "ranknet", sigma).backward()
        pulls.append(-s.grad[0].item())
        assert pulls[-1] == pytest.approx(p[pair[0], pair[1]].item() - 0.5, rel=1e-5)
    assert 0 < pulls[0] < 0.7 * pulls[1]
    with pytest.raises(ValueError, match="label_noise"):
        TrainConfig(label_noise=-1.0)
