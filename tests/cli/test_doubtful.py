"""Values that cannot work are refused before any work, and values that are probably a mistake
are said (issue 105, class 4), each case as a user meets it."""

import logging
import os
import re
from pathlib import Path

import pytest

from tvm_gnn.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _exit_and_last_line(capsys, argv) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's own refusals
        code = stop.code
    err = capsys.readouterr().err.strip().splitlines()
    return code, err[-1] if err else ""


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ["train", "--held-out", "resnet19", "--epochs", "1", "--out", "m.pt"],
            "--held-out: resnet19 is no network (did you mean resnet18",
        ),
        (
            ["train", "--epochs", "1", "--out", "x" * 250 + ".pt"],
            "the loss plot beside --out: cannot write",
        ),
        (["eval", "--out", "r.md", "--section", "a-->b"], "would break the HTML comments"),
        (["dataset-stats", "--plot", "p.txt"], "p.txt: plots are png, svg, pdf, jpg, jpeg"),
        (
            ["tune", "--network", "tiny_cnn", "--target", "nvidia/nvidia-h100"],
            "this machine has no CUDA device to measure on",
        ),
    ],
    ids=["unknown-held-out", "long-plot-name", "section-marker", "plot-format", "cuda-no-gpu"],
)
def test_a_value_that_cannot_work_is_refused_before_any_work(
    tmp_path, capsys, monkeypatch, argv, says
):
    pytest.importorskip("torch")
    if "nvidia/nvidia-h100" in argv and os.path.exists("/dev/nvidia0"):
        pytest.skip("this machine has a GPU")
    monkeypatch.chdir(tmp_path)
    os.symlink(ROOT / "data", tmp_path / "data")
    code, line = _exit_and_last_line(capsys, argv)
    assert code == 2 and says in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]  # nothing written


def test_a_read_only_output_is_refused_not_rewritten(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "stats.png"
    out.write_bytes(b"mine")
    out.chmod(0o444)
    code, line = _exit_and_last_line(capsys, ["dataset-stats", "--plot", str(out)])
    assert code == 2 and "stats.png is read-only; chmod it or name another" in line
    assert out.read_bytes() == b"mine" and out.stat().st_mode & 0o777 == 0o444


def test_a_plot_onto_a_device_is_written_there_not_beside_it(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = os.path.exists("/dev/null.png")
    code = main(["dataset-stats", "--data", str(ROOT / "data"), "--plot", "/dev/null"])
    assert code == 0 and os.path.exists("/dev/null.png") == before


def test_more_cores_than_the_machine_has_is_one_warning(capsys, caplog):
    from tvm_gnn.measure.hardware import usable_cores

    many = usable_cores() + 8
    with caplog.at_level(logging.WARNING, logger="tvm_gnn"):
        code = main(["featurize", "--workload", "matmul_128", "--candidates", "1", "--num-cores",
                     str(many)])  # fmt: skip
    assert code == 0
    said = [r.getMessage() for r in caplog.records if "--num-cores" in r.getMessage()]
    assert said == [
        f"--num-cores {many} is more than the {usable_cores()} cores this process may use here; "
        "its threads will share them"
    ]


def test_a_held_out_network_the_data_lacks_is_a_warning(tmp_path, caplog):
    from tvm_gnn.cli.training import _check_held_out

    with caplog.at_level(logging.WARNING, logger="tvm_gnn"):
        _check_held_out(["resnet18", "tiny_cnn"], ROOT / "data")
    assert re.search(r"--held-out: tiny_cnn has no folder in .*data$", caplog.text.strip())


def test_the_python_api_refuses_a_batch_size_that_cannot_work():
    from tvm_gnn.cost_models.gnn import GNNModel

    with pytest.raises(ValueError, match="predict_batch_size is 0; a count >= 1"):
        GNNModel(predict_batch_size=0)
