"""make_cost_model: every name the command line offers builds the model it names."""

import pytest
from tvm.s_tir import meta_schedule as ms

from tvm_gnn.cost_models import COST_MODELS
from tvm_gnn.cost_models.factory import make_cost_model
from tvm_gnn.cost_models.gnn import GNNModel


def test_the_gnn_names_build_the_shipped_gnn_with_their_online_update_and_seed():
    gnn, head = make_cost_model("gnn", seed=2), make_cost_model("gnn-head", seed=3)
    assert isinstance(gnn, GNNModel) and gnn.online == "full" and gnn.seed == 2 and gnn.trained
    assert gnn.partner is None
    assert isinstance(head, GNNModel) and head.online == "head" and head.seed == 3 and head.trained
    blend = make_cost_model("gnn+xgb")
    assert isinstance(blend, GNNModel) and blend.online == "full" and blend.partner is not None
    top, every = make_cost_model("gnn+native"), make_cost_model("gnn+native-all")
    assert top.ensemble_top == 64 and every.ensemble_top is None  # draft then verify; a blend
    assert type(top.partner).__name__ == type(every.partner).__name__ == "StoreXGBModel"


def test_tvms_models_by_name_and_a_model_passes_through():
    assert isinstance(make_cost_model("xgb", num_tuning_cores=1), ms.cost_model.XGBModel)
    assert isinstance(make_cost_model("random", seed=1), ms.cost_model.RandomModel)
    model = ms.cost_model.RandomModel()
    assert make_cost_model(model) is model


def test_an_unknown_name_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="unknown cost model 'gnn-tiny'") as err:
        make_cost_model("gnn-tiny")
    assert all(name in str(err.value) for name in COST_MODELS)
