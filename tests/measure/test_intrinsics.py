"""TVM's tensor intrinsics, registered through a cheaper ``inspect.stack``: the same frames (the
same intrinsics: tests/benchmarks/upstream/test_intrinsics_import.py, through the benchmark's own
processes)."""

import inspect

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
