"""The data commands' command lines (collect, pack, unpack)."""

import subprocess
import sys


def test_collect_help_documents_every_option():
    out = subprocess.run(
        [sys.executable, "-m", "tvm_gnn.cli", "collect", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for opt in (
        "--network",
        "--out",
        "--hardware",
        "--trials-per-task",
        "--wide-spread",
        "--wide-spread-trials",
        "--uniform-fraction",
        "--population",
        "--batch-size",
        "--number",
        "--repeat",
        "--min-repeat-ms",
        "--cache-flush",
        "--rpc-tracker",
        "--rpc-key",
        "--target",
        "--seed",
    ):
        assert opt in out
