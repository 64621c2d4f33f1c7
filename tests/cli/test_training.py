"""`tvm-gnn train`'s options: with none given, it trains what the package ships."""

from tvm_gnn.cli import build_parser, featurizer_config
from tvm_gnn.cli.architecture import gnn_overrides
from tvm_gnn.nn import checkpoint
from tvm_gnn.resources import PRETRAINED


def test_train_defaults_are_the_shipped_weights_recipe():
    """A user who retrains for their own CPU gets the design that was chosen on validation and
    ships, not an earlier one: architecture, featurizer and training options all match."""
    args = build_parser().parse_args(["train"])
    model, featurizer, info = checkpoint.load(PRETRAINED)
    for field, value in gnn_overrides(args).items():
        assert getattr(model.config, field) == value, field
    assert model.config.embedding == args.embedding
    assert model.config.conv == "relational" and model.config.compare
    assert featurizer_config(args) == featurizer
    shipped = info["train_config"]
    for option, field in [
        ("loss", "loss"),
        ("epochs", "epochs"),
        ("batch_size", "batch_size"),
        ("lr", "lr"),
        ("mse_weight", "mse_weight"),
        ("patience", "patience"),
        ("label_noise", "label_noise"),
        ("aux_store_features", "aux_weight"),
        ("seed", "seed"),
        ("device", "device"),
    ]:
        assert getattr(args, option) == shipped[field], option


def test_the_earlier_recipe_is_still_one_flag_each():
    args = build_parser().parse_args(
        ["train", "--conv", "graph", "--no-compare", "--loss", "ranknet"]
    )
    assert (args.conv, args.compare, args.loss) == ("graph", False, "ranknet")
