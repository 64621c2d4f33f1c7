"""One featurizer for every supported TVM: graphs and store rows equal to those TVM 0.26 gave.

``graphs-tvm0.26.json`` holds digests of the graphs (both lowerings, reuse columns on) and the
per-store rows of real candidates, 4 of each of the ten built-in workloads under the same seed
(MetaSchedule samples the same traces on 0.26 and 0.27), and of a program with the operators
TVM 0.27 renamed or made nodes of. Under 0.26 this is a regression test; in the second
environment (docs/install.md) it is the check that 0.27's trees featurize exactly as 0.26's.
Rewrite the file, under TVM 0.26 only: ``.venv/bin/python -m tests.featurize.test_names``.
"""

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
import tvm
from tvm.script import tirx as T

from tvm_gnn.featurize import _names, graph, stores
from tvm_gnn.measure import workloads
from tvm_gnn.measure.sampling import sample_candidates
from tvm_gnn.nn.vocab import NODE_TYPES

from ..conftest import add_one

REFERENCE = Path(__file__).with_name("graphs-tvm0.26.json")
PER_WORKLOAD = 4


@T.prim_func(s_tir=True)
def bitwise(a: T.Buffer((16,), "int32"), b: T.Buffer((16,), "int32")):
    for i in range(16):
        b[i] = T.if_then_else(
            T.likely(i < 15),
            T.shift_left(a[i] & 7, 1) | T.shift_right(a[i], 2),
            T.bitwise_xor(a[i], 3),
        )


def _digest(mod) -> str:
    h = hashlib.sha256()
    for lowering in graph.LOWERINGS:
        for arr in graph.walk_arrays(graph.lower(mod, lowering), 100_000, reuse=True):
            h.update(np.ascontiguousarray(arr).tobytes())
    h.update(stores.store_features(mod).tobytes())
    return h.hexdigest()


def _programs():
    target = tvm.target.Target({"kind": "llvm", "num-cores": 2})
    yield "bitwise", bitwise
    for name in workloads.WORKLOADS:
        out = sample_candidates(workloads.get(name), target, PER_WORKLOAD, seed=0)
        candidates = next(x for x in out if isinstance(x, list))
        for i, cand in enumerate(candidates):
            yield f"{name}/{i}", cand.sch.mod


def digests() -> dict[str, str]:
    return {name: _digest(mod) for name, mod in _programs()}


def test_graphs_equal_those_of_tvm_0_26():
    want = json.loads(REFERENCE.read_text())
    got = digests()
    assert sorted(got) == sorted(want)
    differ = [name for name in want if got[name] != want[name]]
    assert not differ, f"featurized differently from TVM 0.26 (tvm {tvm.__version__}): {differ}"


def test_renamed_operators_keep_their_names():
    types = [NODE_TYPES[t] for t in graph.featurize(bitwise).node_type.tolist()]
    for op in ("if_then_else", "likely", "shift_left", "shift_right", "bitwise_and"):
        assert f"Call:tirx.{op}" in types
    # bitwise_or and bitwise_xor are outside the vocabulary: plain calls, never the unknown type
    assert types.count("Call") == 2
    assert "<unk>" not in types


def test_a_load_is_named_and_read_alike():
    store = graph.lower(add_one, "emulated").body.body
    load = store.value.a
    assert (_names.name_of(store), _names.name_of(load)) == ("BufferStore", "BufferLoad")
    assert (_names.buffer_of(load).name, _names.buffer_of(store).name) == ("a", "b")


@pytest.mark.parametrize("name", sorted(_names.RENAMED))
def test_every_renamed_type_maps_into_the_vocabulary(name):
    assert _names.RENAMED[name] in NODE_TYPES


if __name__ == "__main__":
    assert tvm.__version__.startswith("0.26"), "the reference is TVM 0.26's: run it under 0.26"
    REFERENCE.write_text(json.dumps(digests(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {REFERENCE}")
