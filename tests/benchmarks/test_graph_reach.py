"""benchmarks/graph_reach.py: hop counts along the tree and through def-use edges."""

from . import script


def test_graph_reach_counts_hops_along_the_tree_and_through_def_use_edges():
    """Four nested loops around a store whose index uses the outermost loop's variable: four tree
    hops to the outermost loop, two through the def-use edge; every loop is within three hops."""
    import torch
    from torch_geometric.data import Data

    from tvm_gnn.nn.vocab import type_index

    bench = script("graph_reach")
    t = type_index()
    kinds = ["For", "For", "For", "For", "BufferStore", "Var"]
    tree = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    edges = tree + [(c, p) for p, c in tree] + [(0, 5), (5, 0)]
    types = [0] * 5 + [1] * 5 + [2, 3]
    graph = Data(
        edge_index=torch.tensor(edges).T,
        edge_type=torch.tensor(types),
        node_type=torch.tensor([t[k] for k in kinds]),
        num_nodes=len(kinds),
    )
    reach = bench.graph_reach(graph, t["BufferStore"], t["For"])
    assert reach["depth"] == 5 and reach["nodes"] == 6
    (store,) = reach["stores"]
    assert store == {"tree_hops": 4, "graph_hops": 2, "loops": 4, "within_3": 1.0, "within_6": 1.0}
    summary = bench.summarize([reach, reach])
    assert summary["graphs"] == 2 and summary["outer_within_3"] == 1.0
    assert "| training | 2 | 6 / 6 / 6 | 5 / 5 / 5 |" in bench.table({"training": summary})
