"""benchmarks/speed/store_agreement.py: per-column agreement with TVM's extraction, and its
table."""

import argparse

from tvm_gnn.featurize import stores

from .. import script


def test_agreement_on_real_candidates_and_its_table(conv_candidates, small_dataset):
    bench = script("store_agreement")
    ctx, cands = conv_candidates
    pairs = [(ctx, c) for c in cands[:8]]
    cols, rows, mismatched = bench.agreement(pairs)
    assert [c["column"] for c in cols] == list(stores.COLUMNS)
    assert rows == 3 * (8 - mismatched) and mismatched == 0  # three stores each
    by = {c["column"]: c for c in cols}
    # exact where the emulation is: the loop structure, the reuse of each buffer
    assert by["outer_prod"]["equal"] == by["parallel_prod"]["equal"] == 1.0
    assert by["B0.reuse_ct"]["spearman"] > 0.9
    assert by["vec_num"]["tvm_constant"] is False
    speed = bench.throughput(pairs)
    assert set(speed) == {
        "walk (the GNN's graphs)",
        "native per-store features",
        "walk + native per-store features",
        "TVM's PerStoreFeature",
    } and all(v > 0 for v in speed.values())
    args = argparse.Namespace(per_network=40, hardware="llvm-amd-epyc-2c")
    table = bench.render(args, cols, rows, mismatched, len(pairs), speed, 2)
    assert table.count("\n| `") == len(stores.COLUMNS)
    # sampling reads a real folder's records, spread over its file
    folder = small_dataset / "cpu" / "resnet50"
    got = bench.sample(folder, 3)
    assert 0 < len(got) <= 3 and all(len(g) == 2 for g in got)
