# Licensed under the Apache License, Version 2.0.
"""Ranking losses over graphs of the same workload. Imports no ``tvm``.

Each training graph carries ``y``, its normalized throughput within its workload
(``min_cost / cost``, in (0, 1]; 0 for a failed run), and ``group``, its workload id.
The loss is a pairwise ranking loss over pairs in the same workload plus ``mse_weight`` times
the squared error against ``y``. The pairwise term is RankNet's (logistic loss on score
differences, every pair alike) or LambdaRank's (the same, each pair weighted by how much swapping
it would change the workload's NDCG, so the pairs at the fast end of the current ranking count
most; gains are ``y`` itself, which is what a top-1 pick scores). With ``label_noise`` (the
standard deviation of a measurement's log latency, which ``benchmarks/ranking/noise_ceiling.py``
estimates), a pair's target is no longer "i is faster" for certain but the probability that i is
faster given two noisy measurements: RankNet's probabilistic target, so a pair measured a few
percent apart pulls its scores apart only a little.
"""

from __future__ import annotations

import torch

from .config import check_loss


def ranking_loss(
    scores: torch.Tensor,
    y: torch.Tensor,
    group: torch.Tensor,
    mse_weight: float,
    loss: str = "ranknet",
    label_noise: float = 0.0,
):
    """Pairwise loss over pairs of the same group with different labels, plus weighted MSE.

    ``loss="ranknet"`` averages the pairs' logistic losses; ``"lambdarank"`` weights each pair
    by :func:`lambda_weights` (a weighted mean, so both terms keep the same scale). Each pair's
    logistic loss has target 1 ("the better one is better"), or with ``label_noise`` > 0 the
    probability :func:`pair_targets` gives it.
    """
    check_loss(loss)
    same = group[:, None] == group[None, :]
    better = (y[:, None] - y[None, :]) > 1e-6
    mask = same & better
    diff = scores[:, None] - scores[None, :]
    if not mask.any():
        return scores.sum() * 0 + mse_weight * torch.mean((scores - y) ** 2)
    if label_noise > 0:
        target = pair_targets(y, label_noise)[mask]
        pair = torch.nn.functional.binary_cross_entropy_with_logits(
            diff[mask], target, reduction="none"
        )
    else:
        pair = torch.nn.functional.softplus(-diff[mask])
    if loss == "ranknet":
        rank = pair.mean()
    else:
        w = lambda_weights(scores.detach(), y, group)[mask]
        rank = (pair * w).sum() / w.sum().clamp_min(1e-12)
    return rank + mse_weight * torch.mean((scores - y) ** 2)


def pair_targets(y: torch.Tensor, label_noise: float) -> torch.Tensor:
    """``P[i, j]``: the probability that i is truly faster than j, given labels ``y``
    (throughputs) measured with log-normal noise of standard deviation ``label_noise``.

    The difference of two such log measurements has standard deviation ``label_noise * sqrt(2)``,
    so ``P = Phi(log(y_i / y_j) / (label_noise * sqrt(2)))``: 0.5 for equal labels, near 1 for
    a gap of several times the noise.
    """
    logy = torch.log(y.clamp_min(1e-12))
    gap = logy[:, None] - logy[None, :]
    return 0.5 * (1.0 + torch.erf(gap / (2.0 * label_noise)))


def lambda_weights(scores: torch.Tensor, y: torch.Tensor, group: torch.Tensor) -> torch.Tensor:
    """``|delta NDCG|`` of swapping each pair (i, j) of the same group in the ranking by ``scores``.

    Gains are the labels ``y`` (normalized throughput), discounts ``1 / log2(1 + rank)``, and each
    group's NDCG is normalized by its ideal DCG. Pairs of different groups get 0.
    """
    same = group[:, None] == group[None, :]
    discount = 1.0 / torch.log2(1.0 + _ranks(scores, same).to(scores.dtype))
    ideal = 1.0 / torch.log2(1.0 + _ranks(y, same).to(scores.dtype))
    idcg = (same * (y * ideal)[None, :]).sum(dim=1)  # per row: the row's group's ideal DCG
    delta = (y[:, None] - y[None, :]).abs() * (discount[:, None] - discount[None, :]).abs()
    return torch.where(same, delta / idcg.clamp_min(1e-12)[:, None], torch.zeros_like(delta))


def _ranks(values: torch.Tensor, same: torch.Tensor) -> torch.Tensor:
    """1-based rank of each element among its group (``same``), highest value first; ties go to
    the earlier position."""
    idx = torch.arange(len(values), device=values.device)
    ahead = (values[None, :] > values[:, None]) | (
        (values[None, :] == values[:, None]) & (idx[None, :] < idx[:, None])
    )  # ahead[i, j]: j ranks before i
    return 1 + (ahead & same).sum(dim=1)
