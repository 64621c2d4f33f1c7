"""benchmarks/online_adaptation.py: its recipes are ONLINE_TRAIN with the fields they name, a
mistyped one is a one-line error, not a traceback, and its verify partners reorder the GNN."""

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


def test_verify_partners_reorder_only_the_gnns_scores(conv_candidates):
    # draft then verify on a pool of real candidates: each gnn+PARTNER hands out gnn-online's
    # score values (here all 16: fewer than the 64 verified), in its own order; @4 only the 4 best
    import numpy as np

    from tvm_gnn.dataset.groups import Group

    bench = script("online_adaptation")
    ctx, cands = conv_candidates
    lat = list(np.random.default_rng(0).uniform(1e-4, 1e-3, len(cands)))
    pool = Group("net", "h", "t", 1, ctx, cands, lat)
    models = ["native", "gnn+native", "readout", "gnn+readout"]
    args = bench.parse(["--models", *models, "--rounds", "--verify-top", "64", "4"])
    out = bench.scores_of(pool, np.arange(32), np.arange(32, 48), 0, args)
    assert set(out) == set(models) | {"gnn-online", "gnn+native@4", "gnn+readout@4"}
    gnn = out["gnn-online"]
    top4 = np.argsort(-gnn)[:4]
    for name in ("native", "readout"):
        np.testing.assert_allclose(np.sort(out[f"gnn+{name}"]), np.sort(gnn))
        assert np.isfinite(out[name]).all() and out[name].std() > 0
        few = out[f"gnn+{name}@4"]  # the GNN's 4 best reordered among themselves, no other
        np.testing.assert_array_equal(np.delete(few, top4), np.delete(gnn, top4))
        np.testing.assert_allclose(np.sort(few[top4]), np.sort(gnn[top4]))
