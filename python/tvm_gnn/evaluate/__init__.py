# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn eval``: how well cost models rank the measured programs of networks they never saw.

:mod:`~.ranking` trains the baselines and scores every model; :mod:`~.render` writes the tables and
the plot; :mod:`~.ansor` ranks Ansor's records (TVM 0.19).
"""

from ..errors import EvaluationError
from ..tvm_compat import LEGACY
from .scoring import network_metrics, score_model

if not LEGACY:  # MetaSchedule's evaluation; under TVM 0.19, :mod:`.ansor` evaluates Ansor's
    from .ranking import DESCRIPTIONS, MODELS, evaluate
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
