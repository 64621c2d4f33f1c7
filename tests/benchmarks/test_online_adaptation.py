"""benchmarks/online_adaptation.py: its recipes are ONLINE_TRAIN with the fields they name, and a
mistyped one is a one-line error, not a traceback."""

import pytest

from . import script


def test_a_recipe_changes_only_the_fields_it_names():
    bench = script("online_adaptation")
    args = bench.parse(["--recipe", "lr3:loss=lambdarank,lr=3e-3", "--recipe", "e32:epochs=32"])
    assert args.recipes == {
        "gnn-lr3": {"loss": "lambdarank", "lr": 3e-3},
        "gnn-e32": {"epochs": 32},
    }


@pytest.mark.parametrize(
    "recipe,says",
    [
        ("nofields", "expected NAME:key=value"),
        ("x:seed=1", "'seed' is not one of"),
        ("x:loss=hinge", "unknown loss 'hinge'"),
        ("x:lr=fast", "could not convert"),
    ],
)
def test_a_bad_recipe_is_a_usage_error(recipe, says, capsys):
    bench = script("online_adaptation")
    with pytest.raises(SystemExit) as exit_:
        bench.parse(["--recipe", recipe])
    assert exit_.value.code == 2 and says in capsys.readouterr().err
