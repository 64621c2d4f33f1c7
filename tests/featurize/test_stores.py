"""Native per-store features: exact values on hand-built TIR, TVM's own values where the
emulation is exact, and the compiled file equal to its Python source."""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
import tvm
from tvm.s_tir import meta_schedule as ms
from tvm.script import tirx as T

import tvm_gnn
from tvm_gnn.featurize import _stores, stores

from ..conftest import add_one, matmul64


@T.prim_func(s_tir=True)
def staged(a: T.Buffer((64,), "float32"), b: T.Buffer((64,), "float32")):
    # t is written and read under i0 only: TVM places it there, 8 elements long
    t = T.sblock_alloc_buffer((64,))
    for i0 in range(8):
        for i1 in range(8):
            with T.sblock("T"):
                v = T.axis.spatial(64, i0 * 8 + i1)
                t[v] = a[v] * T.float32(2)
        for i1 in range(8):
            with T.sblock("B"):
                v = T.axis.spatial(64, i0 * 8 + i1)
                b[v] = t[v] + T.float32(1)


@T.prim_func(s_tir=True)
def fused(a: T.Buffer((4, 16), "float32"), b: T.Buffer((4, 16), "float32")):
    for f in T.parallel(8):
        for j in T.vectorized(8):
            with T.sblock("B"):
                vi = T.axis.spatial(4, (f * 8 + j) // 16)
                vj = T.axis.spatial(16, (f * 8 + j) % 16)
                b[vi, vj] = T.max(a[vi, vj], T.float32(0))


def slog(x):
    return math.log2(1 + x)


def col(rows, name, row=0):
    return float(rows[row, stores.COLUMNS.index(name)])


def tvm_rows(func):
    from tvm_gnn.measure.sampling import target_from

    mod = tvm.IRModule({"main": func})
    ctx = ms.TuneContext(mod=mod, target=target_from("llvm", num_cores=1), num_threads=1)
    cand = ms.MeasureCandidate(tvm.s_tir.Schedule(mod), [])
    full = ms.feature_extractor.PerStoreFeature().extract_from(ctx, [cand])[0].numpy()
    return full[:, list(stores.TVM_COLUMNS)]


def test_columns_name_tvm_columns_once():
    assert len(stores.COLUMNS) == len(set(stores.COLUMNS)) == stores.NUM_STORE_FEATURES == 128
    assert len(set(stores.TVM_COLUMNS)) == 128 and max(stores.TVM_COLUMNS) < 164


def test_matmul_by_hand():
    rows = stores.store_features(matmul64)
    assert rows.shape == (1, 128)  # the constant initialization gets no row
    n = 64**3
    assert col(rows, "float_add_sub") == pytest.approx(slog(n))
    assert col(rows, "float_mul") == pytest.approx(slog(n))
    assert col(rows, "int_add_sub") == 0.0  # the indices are bare loop variables
    assert col(rows, "outer_prod") == pytest.approx(slog(n))
    assert col(rows, "num_loops") == pytest.approx(slog(3))
    # buffers by cache lines touched: b (column walk, stride 64) first, then a and c
    assert col(rows, "B0.read") == 1.0 and col(rows, "B0.stride") == pytest.approx(slog(64))
    assert col(rows, "B0.bytes") == pytest.approx(slog(4 * n))
    assert col(rows, "B0.unique_bytes") == pytest.approx(slog(4 * 64 * 64))
    # c is read and written; the k loop (innermost) does not move it: reused 64 times, right away
    assert col(rows, "B2.read_write") == 1.0 and col(rows, "B2.reuse_loop") == 1.0
    assert col(rows, "B2.reuse_ct") == pytest.approx(slog(64))
    assert col(rows, "B2.reuse_dis_iter") == pytest.approx(slog(1))
    # c is a parameter: allocated by the caller, outside every loop
    assert col(rows, "alloc_size") == pytest.approx(slog(4 * 64 * 64))
    assert col(rows, "alloc_outer_prod") == pytest.approx(slog(1))


def test_allocation_is_placed_and_compacted_by_hand():
    rows = stores.store_features(staged)
    assert rows.shape == (2, 128)  # t, then b: the order of their first stores
    # t lives under i0 (8 iterations) and holds the 8 elements one i0 iteration touches
    assert col(rows, "alloc_size") == pytest.approx(slog(8 * 4))
    assert col(rows, "alloc_outer_prod") == pytest.approx(slog(8))
    assert col(rows, "alloc_prod") == pytest.approx(slog(8 * 8))
    assert col(rows, "alloc_inner_prod") == pytest.approx(slog(64 / 8))
    # compacted, t is indexed by i1 alone: its reads touch 8 elements, reused across i0, and
    # its index has no arithmetic left (a's, in t's store, keeps i0 * 8 + i1)
    b_row = {stores.COLUMNS[k]: float(v) for k, v in enumerate(rows[1])}
    t_slot = next(s for s in range(5) if b_row[f"B{s}.read"] == 1.0)
    assert b_row[f"B{t_slot}.unique_bytes"] == pytest.approx(slog(8 * 4))
    assert b_row[f"B{t_slot}.reuse_loop"] == 1.0
    assert b_row[f"B{t_slot}.reuse_ct"] == pytest.approx(slog(8))
    assert b_row["int_add_sub"] == b_row["int_mul"] == 0.0
    assert col(rows, "int_add_sub") == col(rows, "int_mul") == pytest.approx(slog(64))


def test_fused_loops_by_hand():
    rows = stores.store_features(fused)
    assert col(rows, "parallel_num") == pytest.approx(slog(1))
    assert col(rows, "parallel_prod") == pytest.approx(slog(8))
    assert col(rows, "vec_len") == pytest.approx(slog(8))
    assert col(rows, "float_cmp") == pytest.approx(slog(64))
    # (f * 8 + j) // 16 and % 16: two divisions, two additions and two products per element
    assert col(rows, "int_div_mod") == pytest.approx(slog(2 * 64))
    # bounded as TVM's analyzer bounds them: (f * 8 + j) // 16 spans 4 rows; the remainder,
    # rewritten (f % 2) * 8 + j, takes one value of f % 2 (f wraps around 2): 8 columns
    assert col(rows, "B0.unique_bytes") == pytest.approx(slog(4 * 8 * 4))
    # and so does TVM, every column but the integer counts (it simplifies the indices first)
    theirs = tvm_rows(fused)
    same = [k for k, c in enumerate(stores.COLUMNS) if c not in ("int_add_sub", "int_mul")]
    np.testing.assert_allclose(rows[:, same], theirs[:, same], atol=1e-4)


@pytest.mark.parametrize("func", [matmul64, add_one, staged], ids=["matmul", "add", "staged"])
def test_equal_to_tvms_where_its_passes_change_nothing(func):
    np.testing.assert_allclose(stores.store_features(func), tvm_rows(func), atol=1e-4)


def test_summary_is_mean_max_and_count():
    rows = stores.store_features(staged)
    s = stores.summarize(rows)
    assert s.shape == (stores.NUM_SUMMARY,)
    np.testing.assert_allclose(s[:128], rows.mean(0), rtol=1e-6)
    np.testing.assert_allclose(s[128:256], rows.max(0), rtol=1e-6)
    assert s[-1] == pytest.approx(math.log2(3))


def test_a_bad_candidate_is_reported_not_raised(conv_candidates):
    _, cands = conv_candidates

    class Broken:
        sch = None

    rows, ok, errors = stores.store_summaries([cands[0], Broken(), cands[1]])
    assert rows.shape == (2, stores.NUM_SUMMARY) and ok == [0, 2]
    assert len(errors) == 1 and errors[0].startswith("candidate 1: AttributeError")


def _pure():
    """The three source files as a package of their own, not their compiled modules."""
    import sys
    import types

    folder = Path(tvm_gnn.__file__).parent / "featurize"
    pkg = types.ModuleType("tvm_gnn_stores_pure")
    pkg.__path__ = []
    sys.modules[pkg.__name__] = pkg
    for name in ("_index", "_store_row", "_stores"):  # each imports only those before it
        full = f"{pkg.__name__}.{name}"
        spec = importlib.util.spec_from_file_location(full, folder / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[full] = mod
        spec.loader.exec_module(mod)
    return sys.modules[f"{pkg.__name__}._stores"]


def test_extension_is_compiled_and_equal_to_its_source(conv_candidates):
    from tvm_gnn.featurize import _index, _store_row

    for mod in (_stores, _index, _store_row):
        assert mod.__file__.endswith(".so"), mod.__file__
    pure = _pure()
    assert pure.__file__.endswith("_stores.py")
    for cand in conv_candidates[1][:12]:
        func = tvm_gnn.featurize.lower(cand.sch.mod)
        assert _stores.store_rows(func) == pure.store_rows(func)
