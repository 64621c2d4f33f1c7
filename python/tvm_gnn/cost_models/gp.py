# Licensed under the Apache License, Version 2.0.
"""Option (a) of issue 85, item 3: a Gaussian process on the GNN's embeddings (docs/tuning.md).

The calibrated GNN (:mod:`.calibration`) predicts each candidate's log normalized throughput
``m(x) = log(predicted min_cost / cost)``: the GP's prior mean. On the workload's measured
programs the GP (GPyTorch's exact GP, a Matern-5/2 kernel on the GNN's frozen embeddings, its
hyperparameters fitted by marginal likelihood) learns what the prior got wrong,
``y - m(x)`` with ``y = log(min_cost / cost)`` measured. A candidate scores its upper confidence
bound in the same units,

    score(x) = exp(m(x) + mu(x) + beta * sigma(x))

positive, as MetaSchedule's search uses scores: near what was measured the GP corrects the
prior; far from it ``sigma`` is large and the candidate gets the benefit of the doubt (``beta``
posterior standard deviations). The GP is fitted once a round (after ``update``), on the
embeddings of the model as it is then; with fewer than :data:`MIN_PROGRAMS` measured programs
(or a fit that fails, logged) the scores are the prior's.
"""

from __future__ import annotations

import importlib.util
import logging

import numpy as np
import torch

from ..costs import FAILED_COST
from .calibration import EXPONENT
from .online import measured_scores

logger = logging.getLogger(__name__)

#: measured programs (that ran) of a workload before its GP is fitted
MIN_PROGRAMS = 4
#: Adam steps on the exact marginal log likelihood, per fit (a round's fit, <= a few hundred rows)
FIT_STEPS = 60
#: the likelihood's noise is kept above this share of the residuals' variance
MIN_NOISE = 1e-3


def _exact_gp(x: torch.Tensor, y: torch.Tensor, lengthscale: float):
    """A GPyTorch exact GP with a zero mean and a scaled Matern-5/2 kernel on ``x``, and its
    Gaussian likelihood, the lengthscale started at ``lengthscale``."""
    import gpytorch

    class Residual(gpytorch.models.ExactGP):
        def __init__(self, likelihood):
            super().__init__(x, y, likelihood)
            self.mean_module = gpytorch.means.ZeroMean()
            self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.MaternKernel(nu=2.5))

        def forward(self, z):
            return gpytorch.distributions.MultivariateNormal(
                self.mean_module(z), self.covar_module(z)
            )

    likelihood = gpytorch.likelihoods.GaussianLikelihood(
        noise_constraint=gpytorch.constraints.GreaterThan(MIN_NOISE)
    ).double()
    model = Residual(likelihood).double()
    model.covar_module.base_kernel.lengthscale = lengthscale
    return model, likelihood


def _plain(x: torch.Tensor) -> torch.Tensor:
    """``x`` as a float64 tensor outside any inference mode or graph (GPyTorch takes grads)."""
    return torch.from_numpy(x.detach().double().numpy().copy())


class Posterior:
    """A fitted GP on one workload's residuals (standardized by ``scale``)."""

    def __init__(self, model, scale: float):
        self.model, self.scale = model, scale

    @classmethod
    def fit(cls, x: torch.Tensor, residuals: np.ndarray, seed: int = 0) -> Posterior:
        """Fit on embeddings ``x`` ``[n, d]`` and residuals ``y - m(x)`` ``[n]``."""
        import gpytorch

        scale = float(residuals.std()) or 1.0
        y = torch.from_numpy(residuals / scale).double()
        x = _plain(x)
        lengthscale = float(torch.pdist(x).median()) or 1.0
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            model, likelihood = _exact_gp(x, y, lengthscale)
            model.train(), likelihood.train()
            mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)
            opt = torch.optim.Adam(model.parameters(), lr=0.1)
            for _ in range(FIT_STEPS):
                opt.zero_grad()
                loss = -mll(model(x), y)
                loss.backward()
                opt.step()
        model.eval(), likelihood.eval()
        return cls(model, scale)

    def __call__(self, x: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and standard deviation of the residual (latent, without the noise)
        at embeddings ``x``, in the residuals' units."""
        import gpytorch

        with torch.no_grad(), gpytorch.settings.fast_pred_var():
            f = self.model(_plain(x))
            mu, sd = f.mean.numpy(), f.variance.clamp_min(0).sqrt().numpy()
        return mu * self.scale, sd * self.scale


class GPExplorer:
    """The UCB scores of one ``GNNModel`` (see the module docstring)."""

    def __init__(self, beta: float, seed: int = 0):
        if not (beta >= 0 and np.isfinite(beta)):
            raise ValueError(f"the GP's UCB weight must be a finite number >= 0, got {beta!r}")
        self.beta, self.seed = float(beta), seed
        self._fits: dict[str, Posterior | None] = {}
        self.fitted = 0  # GPs fitted so far (one a workload a round)

    @classmethod
    def of(cls, beta: float, calibrated: bool, seed: int = 0):
        """``GNNModel``'s options: a GPExplorer, or None for ``beta`` 0; its prior mean is the
        calibrated prediction, so it needs ``calibrated``."""
        if not beta:
            return None
        if not calibrated:
            raise ValueError("the GP's prior mean is the calibrated GNN: give calibrated=True")
        if importlib.util.find_spec("gpytorch") is None:
            raise ValueError("the GP needs GPyTorch: pip install 'tvm-gnn[gp]' (or gpytorch)")
        return cls(beta, seed)

    def reset(self) -> None:
        """The model changed (an ``update``): each workload's GP is refitted on its next call."""
        self._fits.clear()

    def posterior(self, key: str, measured) -> Posterior | None:
        """Workload ``key``'s GP, fitted on ``measured()``'s ``(embeddings, log prior, costs)``
        once a round; None with too few programs that ran, or when the fit fails (logged)."""
        if key not in self._fits:
            self._fits[key] = None
            got = measured()
            if got is None:
                return None
            emb, prior, costs = got
            ok = np.isfinite(prior) & (costs > 0) & (costs < FAILED_COST)
            if ok.sum() < MIN_PROGRAMS:
                return None
            y = np.log(costs[ok].min() / costs[ok])
            try:
                self._fits[key] = Posterior.fit(emb[torch.from_numpy(ok)], y - prior[ok], self.seed)
                self.fitted += 1
            except Exception as err:  # a GP that cannot be fitted leaves the prior's scores
                logger.warning("GNNModel: the GP of workload %s was not fitted: %s", key, err)
        return self._fits[key]

    def scores(self, key: str, calibrated: np.ndarray, emb: torch.Tensor, measured) -> np.ndarray:
        """The UCB scores of candidates whose calibrated scores are ``calibrated`` (NaN: failed,
        stays NaN) and embeddings ``emb``; ``measured`` as :meth:`posterior` takes it."""
        post = self.posterior(key, measured)
        ok = np.isfinite(calibrated) & (calibrated > 0)
        if post is None or not ok.any():
            return calibrated
        try:
            mu, sd = post(emb[torch.from_numpy(ok)])
        except Exception as err:  # the prior's scores: a search never stops on its GP
            logger.warning("GNNModel: the GP of workload %s did not score: %s", key, err)
            return calibrated
        out = calibrated.copy()
        log = np.log(calibrated[ok]) + np.nan_to_num(mu + self.beta * sd)  # NaN: the prior
        out[ok] = np.exp(np.clip(log, -EXPONENT, EXPONENT))
        return out


def measured_rows(model, key: str, data, cache: dict, set_mean, calibrate):
    """What :meth:`GPExplorer.posterior` fits on: ``(embeddings, calibrated log prediction,
    costs)`` of workload ``key``'s measured programs ``data`` (``(graphs, costs)``, None: none)
    under GNN ``model``. The embeddings are kept in ``cache`` (:func:`.online.measured_scores`:
    a round computes only its new programs'), rescored from there against ``set_mean``, and
    ``calibrate`` maps raw scores to predicted throughput."""
    if data is None:
        return None
    raw, costs = measured_scores(model, key, data, cache, set_mean)
    with np.errstate(divide="ignore"):
        return cache.get(key), np.log(calibrate(raw)), np.asarray(costs, float)
