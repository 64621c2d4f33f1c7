"""The online data's labels and the refit's held-back part."""

import torch
from hypothesis import given
from hypothesis import strategies as st
from torch_geometric.data import Data

from tvm_gnn.cost_models.online import HOLD_BACK, held_back


def _graphs(sizes):
    return [
        Data(x=torch.zeros(1, 1), y=torch.tensor(0.0), group=torch.tensor(gid), uid=i)
        for gid, n in enumerate(sizes)
        for i in range(n)
    ]


@given(st.lists(st.integers(0, 40), min_size=1, max_size=4), st.integers(0, 2**16))
def test_held_back_is_a_fifth_of_each_workload_that_can_spare_it(sizes, seed):
    graphs = _graphs(sizes)
    train, val = held_back(graphs, seed)
    assert sorted(id(g) for g in train + val) == sorted(id(g) for g in graphs)  # a partition
    for gid, n in enumerate(sizes):
        kept = sum(int(g.group) == gid for g in val)
        assert kept == (n // HOLD_BACK if n >= 2 * HOLD_BACK else 0)
    again = held_back(graphs, seed)
    assert [id(g) for g in again[1]] == [id(g) for g in val]  # repeatable under its seed
