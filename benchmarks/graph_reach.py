# Licensed under the Apache License, Version 2.0.
"""How far a store sits from the loops that decide its speed, in message-passing hops.

A GNN with L message-passing layers lets a node see the nodes at most L edges away. What decides
a candidate's speed is the loop nest around each store (extents, kinds, order), so this script
measures, over the featurized programs of a hardware folder:

- each graph's node count and depth (the deepest node's distance from the root);
- for every ``BufferStore``, the hops to its outermost enclosing ``For`` along the syntax tree
  alone (edge types 0/1), and along every edge the GNN reads (def-use edges included: a loop
  reaches each use of its variable in one hop);
- for every ``BufferStore``, the share of its enclosing loops within 3 and within 6 hops.

It prints a Markdown table per network group (training, held-out) and writes nothing unless
``--json`` is given::

    .venv/bin/python benchmarks/graph_reach.py --data data
    .venv/bin/python benchmarks/graph_reach.py --data data --networks resnet18 --per-graph 200
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import breadth_first_order, shortest_path

from tvm_gnn.cli.common import hardware_args, resolved_hardware
from tvm_gnn.dataset import graphs as dataset_graphs
from tvm_gnn.dataset.splits import HELD_OUT
from tvm_gnn.nn.vocab import type_index

#: layer counts whose reach the table reports
REACH = (3, 6)


def _tree_parents(n: int, edge_index: np.ndarray, edge_type: np.ndarray) -> np.ndarray:
    """Each node's syntax-tree parent (-1 for roots), from the parent-to-child edges (type 0)."""
    parent = np.full(n, -1, dtype=np.int64)
    src, dst = edge_index[:, edge_type == 0]
    parent[dst] = src
    return parent


def _ancestors(node: int, parent: np.ndarray) -> list[int]:
    out = []
    while parent[node] >= 0:
        node = int(parent[node])
        out.append(node)
    return out


def graph_reach(graph, store_type: int, loop_type: int) -> dict:
    """Depth and, per store, tree hops and graph hops to its enclosing loops, for one graph."""
    n = graph.num_nodes
    ei = graph.edge_index.numpy()
    et = graph.edge_type.numpy()
    ntype = graph.node_type.numpy()
    parent = _tree_parents(n, ei, et)
    roots = np.flatnonzero(parent < 0)
    tree = coo_matrix((np.ones(int((et == 0).sum())), tuple(ei[:, et == 0])), shape=(n, n)).tocsr()
    depth = np.zeros(n, dtype=np.int64)
    for root in roots:  # pre-order from each root: a parent's depth is set before its child's
        for v in breadth_first_order(tree, int(root), directed=True, return_predecessors=False):
            if parent[v] >= 0:
                depth[v] = depth[parent[v]] + 1
    stores = np.flatnonzero(ntype == store_type)
    full = coo_matrix((np.ones(ei.shape[1]), tuple(ei)), shape=(n, n)).tocsr()
    hops = shortest_path(full, unweighted=True, indices=stores) if len(stores) else None
    out = {"nodes": n, "depth": int(depth.max()), "stores": []}
    for k, s in enumerate(stores):
        loops = [a for a in _ancestors(int(s), parent) if ntype[a] == loop_type]
        if not loops:
            continue
        outer = loops[-1]
        graph_hops = [hops[k, a] for a in loops]
        out["stores"].append(
            {
                "tree_hops": int(depth[s] - depth[outer]),
                "graph_hops": int(hops[k, outer]),
                "loops": len(loops),
                **{f"within_{r}": float(np.mean([h <= r for h in graph_hops])) for r in REACH},
            }
        )
    return out


def summarize(per_graph: list[dict]) -> dict:
    stores = [s for g in per_graph for s in g["stores"]]

    def q(values):
        return [float(np.percentile(values, p)) for p in (50, 90)] + [float(np.max(values))]

    return {
        "graphs": len(per_graph),
        "nodes": q([g["nodes"] for g in per_graph]),
        "depth": q([g["depth"] for g in per_graph]),
        "stores": len(stores),
        "loops_per_store": q([s["loops"] for s in stores]),
        "tree_hops": q([s["tree_hops"] for s in stores]),
        "graph_hops": q([s["graph_hops"] for s in stores]),
        **{f"within_{r}": float(np.mean([s[f"within_{r}"] for s in stores])) for r in REACH},
        **{
            f"outer_within_{r}": float(np.mean([s["graph_hops"] <= r for s in stores]))
            for r in REACH
        },
    }


def table(rows: dict[str, dict]) -> str:
    def f(v):
        return " / ".join(f"{x:g}" for x in v)

    head = [
        "programs",
        "graphs",
        "nodes (median / p90 / max)",
        "depth",
        "enclosing loops per store",
        "store to outermost loop, tree hops",
        "same, all edges",
        *[f"outermost loop within {r} hops" for r in REACH],
        *[f"enclosing loops within {r} hops" for r in REACH],
    ]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for name, s in rows.items():
        cells = [name, str(s["graphs"]), f(s["nodes"]), f(s["depth"]), f(s["loops_per_store"])]
        cells += [f(s["tree_hops"]), f(s["graph_hops"])]
        cells += [f"{s[f'outer_within_{r}']:.0%}" for r in REACH]
        cells += [f"{s[f'within_{r}']:.0%}" for r in REACH]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    hardware_args(parser)
    parser.add_argument("--networks", nargs="*", default=None, help="networks (default: all)")
    parser.add_argument(
        "--per-graph",
        type=int,
        default=0,
        help="measure at most this many programs per network, evenly spaced (default: all)",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the summary here")
    args = parser.parse_args(argv)
    hardware = resolved_hardware(parser, args)
    graphs, samples = dataset_graphs.load_graphs(
        args.data, hardware=hardware, networks=args.networks, progress=True
    )
    if not graphs:
        print(f"graph_reach: no programs under {args.data}/{hardware}", file=sys.stderr)
        return 1
    by_net: dict[str, list[int]] = {}
    for i, s in enumerate(samples):
        by_net.setdefault(s.network, []).append(i)
    types = type_index()
    store, loop = types["BufferStore"], types["For"]
    groups: dict[str, list[dict]] = {"training networks": [], "held-out networks": []}
    for net, idx in sorted(by_net.items()):
        if args.per_graph and len(idx) > args.per_graph:
            idx = [idx[int(k)] for k in np.linspace(0, len(idx) - 1, args.per_graph)]
        reach = [graph_reach(graphs[i], store, loop) for i in idx]
        groups["held-out networks" if net in HELD_OUT else "training networks"] += reach
    rows = {name: summarize(g) for name, g in groups.items() if g}
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
