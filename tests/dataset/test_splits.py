"""Train/validation splits by workload."""

import pytest

from tvm_gnn import dataset as data


def test_splits():
    s = [
        data.Sample(net, "t", wl, 1, 1e-3, i)
        for i, (net, wl) in enumerate([("a", "w1")] * 5 + [("b", "w2")] * 5 + [("c", "w3")] * 5)
    ]
    tr, te = data.split(s, "network", {"b"})
    assert {s[i].network for i in te} == {"b"} and len(tr) == 10
    tr, te = data.split(s, "workload", None, seed=1, test_fraction=0.34)
    assert len({s[i].shash for i in te}) == 1 and not {s[i].shash for i in te} & {
        s[i].shash for i in tr
    }
    tr, te = data.split(s, "random", None, test_fraction=0.2)
    assert len(te) == 3 and {s[i].shash for i in te} == {"w1", "w2", "w3"}
    with pytest.raises(ValueError, match="network"):
        data.split(s, "task", None)
