"""Hardware names: each CPU and GPU gets its own data folder."""


def test_hardware_name_keeps_each_cpu_and_gpu_apart(llvm_target):
    import tvm

    from tvm_gnn.measure.hardware import device_model, hardware_name

    cores = int(llvm_target.attrs["num-cores"])
    assert hardware_name(llvm_target).startswith("llvm-")
    assert hardware_name(llvm_target).endswith(f"-{cores}c")
    h100 = tvm.target.Target("nvidia/nvidia-h100")
    gpu = tvm.cuda(0)
    expected = gpu.device_name if gpu.exist else "sm_90a"  # no GPU here: the target's arch
    assert device_model(h100) == expected
    assert hardware_name(h100) == "cuda-" + "-".join(
        "".join(c if c.isalnum() else " " for c in expected.lower()).split()
    )
    assert hardware_name(h100, rpc_key="fleet") == "cuda-rpc-fleet"
