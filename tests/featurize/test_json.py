"""A TIR tree read back from its JSON walks to the same graph as TVM's own nodes (TVM 0.19,
where walking TVM's nodes goes through ctypes)."""

import numpy as np
import pytest

from tvm_gnn.featurize import _json, graph

from ..conftest import tvm019_only

pytestmark = tvm019_only()


def _same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("reuse", [False, True])
def test_json_walk_equals_tvm_walk(ansor_conv, ansor_matmul, reuse):
    import tvm

    from tvm_gnn.featurize.ansor import lower_states

    for task, states in (ansor_conv, ansor_matmul):
        for func in lower_states(task, states):
            tree = _json.Function(_json.loads(tvm.ir.save_json(func.body), unroll_to_loops=False))
            got = graph.walk_arrays(tree, 100_000, reuse=reuse)
            assert _same(got, graph.walk_arrays(func, 100_000, reuse=reuse))


def test_json_nodes_keep_fields_numbers_and_containers():
    import tvm
    from tvm import te

    a = te.placeholder((8, 4), name="A")
    b = te.compute((8, 4), lambda i, j: te.exp(a[i, j]) * 1.5 + 2, name="B")
    s = te.create_schedule(b.op)
    s[b].pragma(s[b].op.axis[0], "auto_unroll_max_step", 16)
    from tvm.driver.build_module import schedule_to_module

    func = schedule_to_module(s, [a, b], name="main")["main"]
    root = _json.loads(tvm.ir.save_json(func.body))
    assert type(root).__name__ == "BufferRealize"
    assert root.buffer.name == "B" and [int(d) for d in root.buffer.shape] == [8, 4]
    assert root.buffer.scope() == "global"
    pragma = root.body
    assert type(pragma).__name__ == "AttrStmt" and pragma.attr_key == _json.UNROLL
    loop = pragma.body
    assert type(loop).__name__ == "For" and loop.kind == 0 and int(loop.extent) == 8
    assert int(loop.annotations[_json.UNROLL]) == 16  # given to the loop it covers
    store = loop.body.body
    value = store.value  # exp(A[i, j]) * 1.5 + 2
    assert type(value.b).__name__ == "FloatImm" and value.b.value == 2.0
    assert value.a.a.op.name == "tir.exp" and value.a.b.value == 1.5
    assert value.dtype == "float32"
    plain = _json.loads(tvm.ir.save_json(func.body), unroll_to_loops=False)
    assert plain.body.body.annotations == {}
