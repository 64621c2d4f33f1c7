"""benchmarks/upstream/intrinsics_import.py: tvm_gnn registers the same intrinsics through its
hook."""

from .. import script


def test_tvm_gnn_registers_the_same_intrinsics_through_its_hook(tmp_path):
    """After ``import tvm_gnn`` a TuneContext imports the intrinsics through its hook, and they
    print as TVM's with the upstream patch series applied (no hook) makes them. TVM's own slow
    import (80 s on a Zen 3) is compared with both by the benchmark itself ("same intrinsics");
    here ``tests/measure/test_intrinsics.py`` holds the hook's stack to ``inspect.stack``."""
    bench = script("intrinsics_import")
    hooked = bench.first_context(torch=False, hook=True)
    patched = bench.first_context(torch=False, hook=False, tvm_path=bench._patched_tvm(tmp_path))
    assert (hooked["loader"], patched["loader"]) == ("_Loader", "SourceFileLoader")
    assert hooked["stack_after"] == "inspect"  # inspect.stack is itself again after the import
    assert patched["tvm"].startswith(str(tmp_path)) and not hooked["tvm"].startswith(str(tmp_path))
    assert patched["digest"] == hooked["digest"]
