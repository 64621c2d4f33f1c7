"""What every command shares: outputs checked before any work, one line per mistake."""

import argparse

import pytest

from tvm_gnn.cli import main
from tvm_gnn.cli.common import hardware_args, output_file, output_folder, resolved_hardware


def test_output_types_accept_new_paths_and_refuse_files_in_the_way(tmp_path):
    (tmp_path / "afile").write_text("")
    assert output_file(str(tmp_path / "new" / "deeper" / "x.pt")) == tmp_path / "new/deeper/x.pt"
    assert output_folder(str(tmp_path / "new")) == tmp_path / "new"
    for check, text, says in [
        (output_file, "afile/x.pt", "afile is a file, not a folder"),
        (output_file, "", "is a folder, not a file"),
        (output_folder, "afile", "is a file, not a folder"),
        (output_folder, "afile/sub", "afile is a file, not a folder"),
    ]:
        with pytest.raises(argparse.ArgumentTypeError, match=says):
            check(str(tmp_path / text) if text else str(tmp_path))


@pytest.mark.parametrize(
    "argv",
    [
        ["train", "--out", "{tmp}/afile/x.pt"],
        ["train", "--plot", "{tmp}/afile/x.png"],
        ["eval", "--json", "{tmp}/afile/x.json"],
        ["embeddings", "--out", "{tmp}/afile/v.npy"],
        ["pack", "--out", "{tmp}/afile"],
        ["dataset-stats", "--card", "{tmp}/afile/card.md"],
        ["tune", "--network", "tiny_cnn", "--work-dir", "{tmp}/afile"],
    ],
)
def test_an_unwritable_output_stops_the_command_before_it_works(tmp_path, capsys, argv):
    (tmp_path / "afile").write_text("")
    with pytest.raises(SystemExit) as exit_:
        main([a.format(tmp=tmp_path) for a in argv])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "afile" in err and "Traceback" not in err


def test_a_dataset_root_one_level_too_deep_names_the_root(small_dataset, capsys):
    code = main(["dataset-stats", "--data", str(small_dataset / "cpu")])
    err = capsys.readouterr().err
    assert code == 2
    assert f"is a hardware folder; pass the dataset root, {small_dataset}" in err


def test_a_reader_that_goes_away_stops_the_command_quietly(small_dataset):
    """`tvm-gnn dataset-stats | head -1`: the closed pipe is not an error to report."""
    import signal
    import subprocess
    import sys

    argv = [sys.executable, "-m", "tvm_gnn.cli", "dataset-stats", "--data", str(small_dataset)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # gone before the command writes its first line
    err = proc.stderr.read().decode()
    assert proc.wait() == 128 + signal.SIGPIPE and err == ""


def test_a_hardware_folder_name_is_one_folder_and_only_for_what_names_one(tmp_path, capsys):
    from tvm_gnn.cli.common import folder_name

    assert folder_name("llvm-amd-epyc-znver3-2c") == "llvm-amd-epyc-znver3-2c"
    for bad in ("../x", "a/b", "", "-x", "a b"):
        with pytest.raises(argparse.ArgumentTypeError, match="expected a folder name"):
            folder_name(bad)
    with pytest.raises(SystemExit) as exit_:
        main(["collect", "--network", "resnet18", "--hardware", "../elsewhere"])
    assert exit_.value.code == 2 and "expected a folder name" in capsys.readouterr().err
    # dataset-stats plans for a named folder only where it plans
    assert main(["dataset-stats", "--data", str(tmp_path), "--hardware", "box"]) == 2
    assert "--hardware names the folder --would-add or --wide-spread plans for" in (
        capsys.readouterr().err
    )


def test_a_benchmark_names_its_hardware_folder_or_gets_one_usage_line(tmp_path, capsys):
    for hw in ("llvm-a-2c", "llvm-b-2c"):
        (tmp_path / hw / "net").mkdir(parents=True)
        (tmp_path / hw / "net" / "database_workload.json").write_text("")
    parser = argparse.ArgumentParser(prog="bench")
    hardware_args(parser)
    args = parser.parse_args(["--data", str(tmp_path), "--hardware", "llvm-b-2c"])
    assert resolved_hardware(parser, args) == "llvm-b-2c"
    assert resolved_hardware(parser, parser.parse_args(["--data", str(tmp_path)]), "llvm-a-2c") == (
        "llvm-a-2c"
    )  # a checkpoint's recorded folder, where neither is this machine's
    for argv, says in [
        (["--data", str(tmp_path), "--hardware", "llvm-c-2c"], "no hardware folder 'llvm-c-2c'"),
        (["--data", str(tmp_path / "none")], "none"),
    ]:
        with pytest.raises(SystemExit) as stop:
            resolved_hardware(parser, parser.parse_args(argv))
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert "bench: error:" in err and says in err and "Traceback" not in err
