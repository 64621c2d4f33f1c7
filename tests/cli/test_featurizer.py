"""`tvm-gnn featurize`: a run that featurized nothing says so and fails, leaving no temp folder."""

from tvm_gnn.cli import main


def test_featurize_fails_with_one_line_when_every_candidate_failed(capsys):
    import os
    import tempfile
    from pathlib import Path

    tmp, env = tempfile.gettempdir(), os.environ.get("TMPDIR")
    before = set(Path(tmp).glob("tvm-gnn-run-*"))
    argv = ["featurize", "--workload", "matmul_128", "--candidates", "2", "--max-nodes", "1"]
    code = main(argv)
    # the run's own temporary folder is gone and the caller's temp folder is its again
    assert tempfile.gettempdir() == tmp and os.environ.get("TMPDIR") == env
    assert set(Path(tmp).glob("tvm-gnn-run-*")) == before
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 1 and captured.out == ""
    assert lines == [
        "tvm-gnn featurize: error: none of the 2 candidates could be featurized; the first: "
        "candidate 0: GraphTooLargeError: program has more than 1 nodes (the featurizer's "
        "max_nodes)"
    ]
