# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn eval``: how well cost models rank the measured programs of networks they never saw.

:mod:`~.ranking` trains the baselines and scores every model; :mod:`~.render` writes the tables and
the plot.
"""

from ..errors import EvaluationError
from .ranking import DESCRIPTIONS, MODELS, evaluate, network_metrics, score_model
from .render import markdown, plot

__all__ = [
    "DESCRIPTIONS",
    "MODELS",
    "EvaluationError",
    "evaluate",
    "markdown",
    "network_metrics",
    "plot",
    "score_model",
]
