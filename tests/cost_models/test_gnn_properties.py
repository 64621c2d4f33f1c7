"""A property-based corpus for GNNModel (hypothesis): generated workloads of several operator
kinds and shapes, random schedules of each, and any costs a runner can report (NaN, infinity,
zero, negative, MetaSchedule's 1e10 failure, errors). ``update`` and ``predict`` never raise, and
``predict`` gives one finite score per candidate."""

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tvm.s_tir import meta_schedule as ms

from tvm_gnn.cost_models.gnn import GNNModel
from tvm_gnn.measure import workloads
from tvm_gnn.measure.sampling import sample_candidates
from tvm_gnn.nn.training import TrainConfig

small = st.integers(1, 24)
WORKLOADS = st.one_of(
    st.builds(workloads.matmul, small, small, small),
    st.builds(
        workloads.conv2d,
        c=st.integers(1, 8),
        h=st.integers(3, 12),
        w=st.integers(3, 12),
        k=st.integers(1, 8),
        r=st.sampled_from([1, 3]),
        stride=st.sampled_from([1, 2]),
        relu=st.booleans(),
    ),
    st.builds(workloads.depthwise_conv2d, c=st.integers(1, 8), h=st.integers(3, 12)),
    st.builds(workloads.dense_bias_relu, m=st.integers(1, 4), n=small, k=small),
    st.builds(workloads.batch_matmul, st.integers(1, 3), small, small, small),
    st.builds(workloads.max_pool2d, c=st.integers(1, 8), h=st.integers(4, 16)),
    st.builds(workloads.softmax, st.integers(1, 8), small),
)
COSTS = st.one_of(
    # what a RunnerResult can hold: TVM refuses finite times beyond float32's range
    st.floats(min_value=-1e30, max_value=1e30),
    st.sampled_from([0.0, -1.0, 1e10, math.nan, math.inf, 1e-9, 1e-3]),
    st.none(),  # a failed run: no time, an error message
)
MODELS: dict[str, GNNModel] = {}


def _model(kind: str) -> GNNModel:
    """One model per kind for the whole corpus, so online data and retraining accumulate."""
    if kind not in MODELS:
        fast = TrainConfig(epochs=1, batch_size=16)
        MODELS[kind] = (
            GNNModel(train_config=fast, seed=0)  # the shipped weights, retraining online
            if kind == "shipped"
            else GNNModel(pretrained=False, num_warmup_samples=4, train_config=fast, seed=0)
        )
    return MODELS[kind]


def _result(cost):
    if cost is None:
        return ms.runner.RunnerResult(run_secs=None, error_msg="RuntimeError: it failed")
    return ms.runner.RunnerResult(run_secs=[cost], error_msg=None)


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,  # the same corpus on every run and machine
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    mod=WORKLOADS,
    n=st.integers(1, 6),
    seed=st.integers(0, 2**16),
    costs=st.lists(COSTS, min_size=6, max_size=6),
    kind=st.sampled_from(["shipped", "fresh"]),
)
def test_update_and_predict_never_raise_and_score_every_candidate(
    llvm_target, mod, n, seed, costs, kind
):
    context, candidates = sample_candidates(mod, llvm_target, n, seed=seed)
    model = _model(kind)
    model.update(context, candidates, [_result(c) for c in costs[: len(candidates)]])
    scores = model.predict(context, candidates)
    assert isinstance(scores, np.ndarray) and scores.shape == (len(candidates),)
    assert np.isfinite(scores).all()
