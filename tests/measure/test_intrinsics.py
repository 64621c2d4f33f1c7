"""TVM's tensor intrinsics, registered through a cheaper ``inspect.stack``: the same frames, the
same intrinsics."""

import inspect
import subprocess
import sys
import textwrap

import pytest

from tvm_gnn.measure.intrinsics import stack


def _compare(ours, theirs) -> None:
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.frame is b.frame
        assert (a.filename, a.lineno, a.function) == (b.filename, b.lineno, b.function)
        assert (a.code_context, a.index) == (b.code_context, b.index), a.filename


@pytest.mark.parametrize("context", [0, 1, 3])
def test_stack_is_inspects_in_a_module_import_and_in_exec(tmp_path, monkeypatch, context):
    """The frames TVM's parser sees while a package imports: files, the frozen import machinery
    (no source) and code run by ``exec`` (no file)."""
    mod = tmp_path / f"probe_{context}.py"
    mod.write_text(
        "import inspect\nfrom tvm_gnn.measure.intrinsics import stack\n"
        f"OURS, THEIRS = stack({context}), inspect.stack({context})\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    probe = __import__(mod.stem)
    assert any(f.filename.startswith("<frozen") for f in probe.THEIRS)
    _compare(probe.OURS, probe.THEIRS)
    seen = {}
    code = f"ours, theirs = stack({context}), inspect.stack({context})"
    exec(code, {"stack": stack, "inspect": inspect}, seen)
    assert seen["theirs"][0].filename == "<string>"
    _compare(seen["ours"], seen["theirs"])


INTRINSICS = """
import hashlib, inspect, sys
{setup}
import tvm
from tvm.s_tir import meta_schedule as ms
ms.TuneContext(target=tvm.target.Target({{"kind": "llvm", "num-cores": 1}}))
from tvm.s_tir.tensor_intrin import cuda, x86
h = hashlib.sha256()
for mod in (cuda, x86):
    for name, value in sorted(vars(mod).items()):
        if isinstance(value, tvm.tirx.PrimFunc):
            h.update(name.encode() + value.script().encode())
from tvm.s_tir import TensorIntrin
assert TensorIntrin.get(x86.AVX512_DOT_16x4_INTRIN) is not None
loader = type(sys.modules["tvm.s_tir.tensor_intrin"].__loader__).__name__
print(loader, inspect.stack.__module__, h.hexdigest())
"""


def test_tvm_gnn_registers_the_same_intrinsics_through_its_hook():
    """``import tvm_gnn`` installs the hook; a TuneContext then imports the intrinsics through
    it, and they print as TVM's own import makes them (about 20 s of this test is that one)."""
    runs = [
        subprocess.run(
            [sys.executable, "-c", INTRINSICS.format(setup=textwrap.dedent(setup))],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        for setup in ("import tvm_gnn", "")
    ]
    (hooked, stack_after, ours), (plain, _, theirs) = runs
    assert (hooked, plain) == ("_Loader", "SourceFileLoader")
    assert stack_after == "inspect"  # inspect.stack is itself again after the import
    assert ours == theirs
