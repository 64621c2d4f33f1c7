# Licensed under the Apache License, Version 2.0.
"""``tvm_gnn.nn.scratch``: torch's deprecation notice on importing PyTorch Geometric is filtered
by the one helper that the CLI and the benchmark scripts call."""

import subprocess
import sys

IMPORT = "import warnings; warnings.simplefilter('default'); {}import torch_geometric"


def _stderr_of_import(prelude: str) -> str:
    code = IMPORT.format(prelude)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stderr


def test_importing_pyg_raises_torchs_notice_unless_quieted():
    # the notice is there to filter: without the helper the import prints it
    assert "torch.jit.script" in _stderr_of_import("")
    quiet = "from tvm_gnn.nn import scratch; scratch.quiet_torch_notices(); "
    assert "torch.jit.script" not in _stderr_of_import(quiet)
