"""benchmarks/ranking/sweep_variants.py: each variant is the library's configs it names, and the
committed
runs are keyed by what they trained."""

import json

from tvm_gnn.nn import checkpoint
from tvm_gnn.nn.config import GNNConfig, TrainConfig
from tvm_gnn.resources import PRETRAINED

from .. import ROOT, script


def test_each_variant_is_the_library_configs_it_names():
    sweep = script("sweep_variants")
    shipped, featurizer, info = checkpoint.load(PRETRAINED)
    r = sweep.recipe("lambdarank-relational-compare", 0)
    assert GNNConfig(**r.gnn) == shipped.config == GNNConfig()  # the shipped recipe
    assert r.train == TrainConfig() and r.featurizer == featurizer
    base = sweep.recipe("default", 1, epochs=2)
    assert (base.gnn["conv"], base.gnn["compare"], base.train.loss) == ("graph", False, "ranknet")
    assert (base.train.seed, base.train.epochs) == (1, 2)
    reuse = sweep.recipe("lambdarank-reuse", 0)
    assert (
        reuse.featurizer.reuse and GNNConfig(**reuse.gnn).num_features > shipped.config.num_features
    )
    assert (
        sweep.changes("lambdarank-relational-aux")
        == "conv=relational loss=lambdarank aux_weight=0.5"
    )


def test_the_committed_runs_are_keyed_by_what_they_trained():
    """Every committed run's recipe is its variant's as the sweep builds it now (a renamed
    field or a changed BASE would leave the docs' tables without their runs)."""
    sweep = script("sweep_variants")
    runs = json.loads((ROOT / "benchmarks" / "results" / "validation_sweep.json").read_text())
    for r in runs:
        key = sweep.recipe(r["variant"], r["seed"], r["device"]).key(r["recipe"]["records_of"])
        assert {**key, "featurizer": r["recipe"]["featurizer"]} == r["recipe"], r["variant"]
