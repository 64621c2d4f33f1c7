# Licensed under the Apache License, Version 2.0.
"""What hardware runs a target here, and the dataset folder name it gets (``llvm-amd-epyc-2c``)."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def usable_cores() -> int:
    """The cores this process may run on: its affinity mask (as ``taskset`` or a container's
    CPU set leaves it), not every core the machine has."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown-cpu"


def cpu_identity() -> dict:
    """Which CPU this is, finer than its model name: ``/proc/cpuinfo``'s vendor, family, model
    and stepping, and the CPU LLVM detects (``llvm``, e.g. ``znver3``). Virtual machines often
    show one model name (``AMD EPYC``) for several generations, whose code and latencies differ;
    this tells them apart in provenance. A field this system does not show is left out."""
    from tvm.target import codegen

    fields = {
        "vendor_id": "vendor",
        "cpu family": "family",
        "model": "model",
        "stepping": "stepping",
    }
    out: dict = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = (part.strip() for part in line.partition(":"))
            if not key:
                break  # the end of the first processor's block
            if key in fields:
                out[fields[key]] = int(value) if value.isdigit() else value
    except OSError:
        pass
    out["llvm"] = str(codegen.llvm_get_system_cpu())
    return out


def device_model(target) -> str:
    """What runs ``target``'s code here: the CPU model for ``llvm``, else the device's own name
    (``NVIDIA H100 80GB HBM3``), or the target's ``arch`` where no such device is present."""
    if target.kind.name == "llvm":
        return cpu_model()
    import tvm

    dev = tvm.device(target.kind.name, 0)
    if dev.exist and dev.device_name:
        return dev.device_name
    return str(target.attrs.get("arch", "unknown-device"))


def _slug(text: str) -> str:
    """``NVIDIA H100 80GB HBM3`` -> ``nvidia-h100-80gb-hbm3``: runs of other characters become one
    dash."""
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def cpu_folder(cores: int) -> str:
    """``llvm-amd-epyc-2c``: the folder of plain ``llvm`` records of this machine's CPU model
    on ``cores`` cores."""
    return f"llvm-{_slug(cpu_model())}-{cores}c"


def hardware_name(target, rpc_key: str | None = None) -> str:
    """Folder name for one kind of hardware, e.g. ``llvm-amd-epyc-2c``,
    ``cuda-nvidia-h100-80gb-hbm3`` or ``cuda-rpc-mykey``.

    An llvm target that names a CPU or features to compile for (``mcpu``, ``mattr``) gets them
    appended, ``llvm-amd-epyc-2c-znver4``: LLVM builds other code for them than the generic
    x86-64 of a plain ``llvm`` (AVX and FMA instead of SSE), so their latencies must not share
    a folder."""
    if rpc_key:
        return f"{target.kind.name}-rpc-{rpc_key}"
    if target.kind.name == "llvm":
        name = cpu_folder(int(target.attrs.get("num-cores", usable_cores())))
        features = [target.attrs.get("mcpu") or "", *(target.attrs.get("mattr") or [])]
        codegen = _slug(" ".join(map(str, features)))
        return f"{name}-{codegen}" if codegen else name
    return f"{target.kind.name}-{_slug(device_model(target))}"


def device_type(target) -> str:
    return "cpu" if target.kind.name == "llvm" else target.kind.name
