"""docs/ansor.md's tuning script runs as printed there (TVM 0.19, with the series applied)."""

import re
import subprocess
import sys
from pathlib import Path

from .conftest import tvm019_only

pytestmark = tvm019_only()

DOC = Path(__file__).resolve().parent.parent / "docs" / "ansor.md"


def script() -> str:
    text = DOC.read_text()
    block = text[text.index("<!-- tested: ansor-script -->") :]
    code = block[block.index("```python\n") + len("```python\n") :]
    return code[: code.index("```")]


def test_the_tuning_script_of_the_docs_runs(tmp_path):
    (tmp_path / "script.py").write_text(script())
    proc = subprocess.run(
        [sys.executable, "script.py"], cwd=tmp_path, capture_output=True, text=True, timeout=1200
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert re.search(r"^best of (1[6-9]|[2-9]\d) trials: \d+\.\d{3} ms$", proc.stdout, re.M), (
        proc.stdout
    )
