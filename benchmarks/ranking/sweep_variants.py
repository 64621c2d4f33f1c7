# Licensed under the Apache License, Version 2.0.
"""The validation sweep's variants (``benchmarks/ranking/validation_sweep.py``): each a change to
the
library's configs on top of :data:`BASE`, and the :class:`Recipe` one (variant, seed) trains."""

from __future__ import annotations

import dataclasses

from tvm_gnn.nn.config import GNNConfig, TrainConfig
from tvm_gnn.nn.schema import NUM_FEATURES, FeaturizerConfig

#: what every variant changes first: the recipe when the sweep began (GraphConv, RankNet, no
#: comparing), so that each variant's name keeps its recorded meaning. The library's defaults are
#: the shipped recipe, "lambdarank-relational-compare" here.
BASE = {"gnn": {"conv": "graph", "compare": False}, "train": {"loss": "ranknet"}}


def _v(gnn=None, train=None, reuse=False, lambdarank=True) -> dict:
    """A variant: ``GNNConfig`` and ``TrainConfig`` fields on top of BASE, LambdaRank unless
    ``lambdarank`` is False, and the footprint and reuse columns with ``reuse``."""
    train = {**({"loss": "lambdarank"} if lambdarank else {}), **(train or {})}
    gnn = {**(gnn or {}), **({"num_features": NUM_FEATURES} if reuse else {})}
    return {"gnn": gnn, "train": train, "featurizer": {"reuse": True} if reuse else {}}


REL = {"conv": "relational"}
REL_CMP = {"conv": "relational", "compare": True}
#: variant name -> its changes to BASE
VARIANTS = {
    "default": _v(lambdarank=False),
    "no-topk": _v({"topk": False}, lambdarank=False),
    "topk-every-0.5": _v({"topk_at": "every", "pool_ratio": 0.5}, lambdarank=False),
    "learned-emb": _v({"embedding": "learned"}, lambdarank=False),
    "lambdarank": _v(),
    "ranking-only": _v(train={"mse_weight": 0.0}, lambdarank=False),
    "hidden-64": _v({"hidden": 64}, lambdarank=False),
    # LambdaRank (what the shipped weights use) combined with the open questions above
    "lambdarank-no-topk": _v({"topk": False}),
    "lambdarank-learned-emb": _v({"embedding": "learned"}),
    "lambdarank-hidden-64": _v({"hidden": 64}),
    # issue 28's directions on top of LambdaRank
    "lambdarank-relational": _v(REL),
    "lambdarank-layers-6-residual": _v({"num_layers": 6, "residual": True}),
    "lambdarank-compare": _v({"compare": True}),
    "lambdarank-relational-compare": _v(REL_CMP),  # the shipped recipe
    "lambdarank-relational-layers-6-residual": _v({**REL, "num_layers": 6, "residual": True}),
    # the relational design's ablations and capacity (issue 28's direction 5)
    "lambdarank-relational-learned-emb": _v({**REL, "embedding": "learned"}),
    "lambdarank-relational-no-topk": _v({**REL, "topk": False}),
    "lambdarank-relational-hidden-64": _v({**REL, "hidden": 64}),
    # the same two ablations of relational message passing with candidates compared
    "lambdarank-relational-compare-learned-emb": _v({**REL_CMP, "embedding": "learned"}),
    "lambdarank-relational-compare-no-topk": _v({**REL_CMP, "topk": False}),
    # issue 28's direction 4a: XGBModel's per-store features as a second training target
    "lambdarank-relational-aux": _v(REL, {"aux_weight": 0.5}),
    # issue 72's upper bound: the shipped recipe with TVM's per-store feature rows in its head
    "lambdarank-relational-compare-store": _v(REL_CMP, {"store_inputs": True}),
    "lambdarank-epochs-100": _v(train={"epochs": 100}),
    # pair targets softened by the measurement noise benchmarks/ranking/noise_ceiling.py estimates
    "lambdarank-label-noise": _v(train={"label_noise": 0.17}),
    # the buffer accesses' footprint and reuse columns (featurizer version 3)
    "lambdarank-reuse": _v(reuse=True),
}


@dataclasses.dataclass(frozen=True)
class Recipe:
    """What one (variant, seed) trains: the library's configs."""

    gnn: dict  # GNNConfig fields train_on_dataset overrides
    train: TrainConfig
    featurizer: FeaturizerConfig

    def key(self, records_of: str | None) -> dict:
        """What identifies the run's training (with its data and device): every config field
        (the seed apart) and the ``--records-of`` checkpoint."""
        train = {k: v for k, v in dataclasses.asdict(self.train).items() if k not in DEVICE_SEED}
        gnn = GNNConfig(**self.gnn).to_dict()
        return {
            "gnn": gnn,
            "train": train,
            "featurizer": self.featurizer.version(),
            "records_of": records_of,
        }


DEVICE_SEED = ("seed", "device")  # keyed apart: a result's own "seed" and "device"


def recipe(variant: str, seed: int, device: str = "cpu", epochs: int | None = None) -> Recipe:
    """The configs of ``variant`` (BASE, then its changes) for ``seed``; ``epochs`` caps them."""
    change = VARIANTS[variant]
    train = {**BASE["train"], **change["train"], "seed": seed, "device": device}
    if epochs is not None:
        train["epochs"] = epochs
    return Recipe(
        {**BASE["gnn"], **change["gnn"]},
        TrainConfig(**train),
        FeaturizerConfig(**change["featurizer"]),
    )


def base() -> str:
    """BASE as ``field=value`` words."""
    return " ".join(f"{k}={v}" for part in BASE.values() for k, v in part.items())


def changes(variant: str) -> str:
    """The variant's changes to BASE, as ``field=value`` words (the table's second column)."""
    words = [f"{k}={v}" for part in ("gnn", "train") for k, v in VARIANTS[variant][part].items()]
    return " ".join(w for w in words if not w.startswith("num_features=")) or "(BASE)"
