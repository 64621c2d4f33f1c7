"""Hardware names: each CPU and GPU gets its own data folder."""


def test_hardware_name_keeps_each_cpu_and_gpu_apart(llvm_target):
    import tvm

    from tvm_gnn.dataset.layout import this_machine
    from tvm_gnn.measure.hardware import device_model, hardware_name, usable_cores

    cores = int(llvm_target.attrs["num-cores"])
    assert hardware_name(llvm_target).startswith("llvm-")
    assert hardware_name(llvm_target).endswith(f"-{cores}c")
    # the folder commands read by default is the one collect writes on this machine
    here = tvm.target.Target({"kind": "llvm", "num-cores": usable_cores()})
    assert this_machine() == hardware_name(here)
    h100 = tvm.target.Target("nvidia/nvidia-h100")
    gpu = tvm.cuda(0)
    expected = gpu.device_name if gpu.exist else "sm_90a"  # no GPU here: the target's arch
    assert device_model(h100) == expected
    assert hardware_name(h100) == "cuda-" + "-".join(
        "".join(c if c.isalnum() else " " for c in expected.lower()).split()
    )
    assert hardware_name(h100, rpc_key="fleet") == "cuda-rpc-fleet"


def test_an_llvm_target_for_a_named_cpu_or_features_gets_its_own_folder(llvm_target):
    """LLVM compiles other code for ``mcpu``/``mattr`` than for a plain ``llvm``: their
    latencies must not land in (and be counted as) the generic target's folder."""
    import tvm

    from tvm_gnn.measure.hardware import hardware_name

    plain = hardware_name(llvm_target)
    cores = int(llvm_target.attrs["num-cores"])
    znver4 = tvm.target.Target({"kind": "llvm", "mcpu": "znver4", "num-cores": cores})
    avx512 = tvm.target.Target(
        {
            "kind": "llvm",
            "mcpu": "skylake-avx512",
            "mattr": ["+avx512f", "+fma"],
            "num-cores": cores,
        }
    )
    features = tvm.target.Target({"kind": "llvm", "mattr": ["+avx2"], "num-cores": cores})
    assert hardware_name(znver4) == f"{plain}-znver4"
    assert hardware_name(avx512) == f"{plain}-skylake-avx512-avx512f-fma"
    assert hardware_name(features) == f"{plain}-avx2"
    assert hardware_name(tvm.target.Target({"kind": "llvm", "num-cores": cores})) == plain


def test_the_cores_are_those_this_process_may_run_on_not_all_the_machine_has():
    import os
    import subprocess
    import sys

    import pytest

    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("no affinity masks on this OS")
    one = min(os.sched_getaffinity(0))
    script = (
        "import os, tvm\n"
        f"os.sched_setaffinity(0, {{{one}}})\n"
        "from tvm_gnn.measure.hardware import hardware_name, usable_cores\n"
        "from tvm_gnn.measure.sampling import target_from\n"
        "print(usable_cores(), target_from('llvm').attrs['num-cores'],"
        " hardware_name(tvm.target.Target('llvm')))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    cores, target_cores, name = out.stdout.split()
    assert cores == target_cores == "1" and name.endswith("-1c")  # as `taskset -c 0` leaves it


def test_cpu_identity_tells_generations_apart_that_share_a_model_name():
    """``AMD EPYC`` names Zen 3 and Zen 4 machines alike here; the identity carries LLVM's name
    for this CPU and, where ``/proc/cpuinfo`` exists, its family and model numbers."""
    from pathlib import Path

    from tvm.target import codegen

    from tvm_gnn.measure.hardware import cpu_identity

    ident = cpu_identity()
    assert ident["llvm"] == str(codegen.llvm_get_system_cpu()) and ident["llvm"]
    if Path("/proc/cpuinfo").exists():
        assert isinstance(ident["family"], int) and isinstance(ident["model"], int)
        assert ident["vendor"] in Path("/proc/cpuinfo").read_text()
