"""tvm-gnn dataset-stats: the card's section, --would-add and --wide-spread."""


def test_dataset_stats_rewrites_the_cards_section_and_keeps_the_rest(small_dataset, tmp_path):
    from tvm_gnn.cli import main

    card = tmp_path / "card.md"
    card.write_text(
        "# Card\n\n<!-- begin dataset-summary (generated, do not edit) -->\nold summary\n"
        "<!-- end dataset-summary -->\n\nabove\n\n"
        "<!-- begin dataset-stats (generated, do not edit) -->\nold counts\n"
        "<!-- end dataset-stats -->\n\nbelow\n"
    )
    assert main(["dataset-stats", "--data", str(small_dataset), "--card", str(card)]) == 0
    text = card.read_text()
    assert "old counts" not in text and "old summary" not in text
    assert text.startswith(
        "# Card\n\n<!-- begin dataset-summary (generated, do not edit) -->\n**cpu: "
    )
    assert "<!-- end dataset-summary -->\n\nabove\n" in text
    assert text.rstrip().endswith("<!-- end dataset-stats -->\n\nbelow")
    begin = "<!-- begin dataset-stats (generated, do not edit) -->"
    body = text[text.index(begin) : text.index("<!-- end dataset-stats")]
    assert f"--data {small_dataset} --card {card}`" in body
    assert "| resnet50 | cpu |" in body and "| resnet18 | cpu |" in body
    assert "Workloads shared between held-out and training networks: 2" in body
    png = tmp_path / "figures" / "dataset.png"
    argv = ["dataset-stats", "--data", str(small_dataset), "--card", str(card), "--plot", str(png)]
    assert main(argv) == 0
    assert png.read_bytes().startswith(b"\x89PNG")  # the figure's content: tests/dataset/
    assert f"--card {card} --plot {png}`" in card.read_text()  # the command that draws it too
    assert main([*argv[:3], "--plot", str(png), "--wide-spread", "5"]) == 2


def test_would_add_extracts_each_networks_tasks_and_counts_what_the_dataset_lacks(tmp_path, capsys):
    import json

    from tvm_gnn.cli import main
    from tvm_gnn.collect import network_tasks, task_manifest
    from tvm_gnn.measure.hardware import hardware_name
    from tvm_gnn.measure.sampling import target_from

    target = target_from("llvm", 2)
    folder = tmp_path / hardware_name(target) / "synthetic_depthwise_conv2d"
    folder.mkdir(parents=True)
    (folder / "database_workload.json").write_text("")  # started: 4 of its 10 tasks listed
    manifest = task_manifest(network_tasks("synthetic_depthwise_conv2d", target))
    (folder / "tasks.json").write_text(json.dumps(manifest[:4]))
    argv = ["dataset-stats", "--data", str(tmp_path), "--num-cores", "2", "-q", "--would-add"]
    assert main([*argv, "synthetic_depthwise_conv2d", "synthetic_matmul_int8"]) == 0
    out = capsys.readouterr().out
    assert "| synthetic_depthwise_conv2d | 10 | 10 | 6 | 6 | 320 | - |" in out
    assert "| synthetic_matmul_int8 | 13 | 13 | 13 | 13 | 416 | - |" in out
    assert "In all: 19 new workloads from 736 records (no timed collection on" in out
    assert (
        main([*argv, "resnet181"]) == 2 and "unknown network 'resnet181'" in capsys.readouterr().err
    )
    assert main([*argv, "resnet18", "--card", str(tmp_path / "c.md")]) == 2
    assert "leave it out with --would-add" in capsys.readouterr().err


def test_dataset_stats_wide_spread_reads_the_targets_hardware(small_dataset, tmp_path, capsys):
    import shutil

    from tvm_gnn.cli import main
    from tvm_gnn.measure.hardware import hardware_name
    from tvm_gnn.measure.sampling import target_from

    hardware = hardware_name(target_from("llvm", 2))
    shutil.copytree(small_dataset / "cpu", tmp_path / hardware)
    argv = ["dataset-stats", "--data", str(tmp_path), "--num-cores", "2", "--wide-spread", "2"]
    assert main([*argv, "--trials-per-task", "16"]) == 0
    out = capsys.readouterr().out
    assert f"of the first 16 valid records) of the 11 tasks of {hardware}" in out
    assert "get up to 32 valid records" in out
    assert main(argv) == 0  # 32 a task, the default: none of the fixture's tasks is that far
    assert (
        f"No task of {hardware} has its first 32 valid records in yet." in capsys.readouterr().out
    )
    assert main([*argv, "--would-add", "resnet18"]) == 2
    assert "use one" in capsys.readouterr().err
    assert main([*argv, "--wide-spread-trials", "8"]) == 2  # fewer than --trials-per-task
    assert "must be at least" in capsys.readouterr().err


def test_would_add_leaves_out_a_network_that_does_not_import_and_says_why(
    small_dataset, capsys, monkeypatch
):
    from tvm_gnn.cli import main
    from tvm_gnn.measure import networks

    def build():
        raise RuntimeError("input image smaller than kernel size")

    monkeypatch.setitem(networks.NETWORKS, "broken", networks.NetworkSpec(build, (1, 3, 8, 8)))
    argv = ["dataset-stats", "--data", str(small_dataset), "--num-cores", "2", "-q", "--would-add"]
    assert main([*argv, "broken", "synthetic_matmul_int8"]) == 1
    out, err = capsys.readouterr()
    assert "| synthetic_matmul_int8 | 13 | 13 | 13 | 13 | 416 | - |" in out  # the other still
    assert "broken" not in out and "Traceback" not in err
    assert err.strip().endswith(
        "tasks not extracted, left out (-v for the traceback): "
        "broken (RuntimeError: input image smaller than kernel size)"
    )

    def build_silently():
        raise RuntimeError()  # no message at all: the line still names the error

    monkeypatch.setitem(networks.NETWORKS, "broken", networks.NetworkSpec(build_silently, (1,)))
    assert main([*argv, "broken"]) == 1
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith("left out (-v for the traceback): broken (RuntimeError)")
    )


def test_a_network_that_fails_export_prints_one_line_and_its_traceback_only_on_request(
    small_dataset, capsys, caplog, monkeypatch
):
    import logging

    import torch

    from tvm_gnn.cli import main
    from tvm_gnn.measure import networks

    def pool_too_large():  # torch.export's fake tensors fail inside the pooling's meta kernel
        return torch.nn.MaxPool3d(3, 2)

    monkeypatch.setitem(
        networks.NETWORKS, "tiny_video", networks.NetworkSpec(pool_too_large, (1, 4, 1, 1, 1))
    )
    caplog.set_level(logging.INFO, logger="tvm_gnn")  # what -v shows
    argv = ["dataset-stats", "--data", str(small_dataset), "-q", "--would-add", "tiny_video"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "fake_tensor" not in err and "Traceback" not in err  # torch's own log stays quiet
    assert err.strip().endswith(
        "left out (-v for the traceback): tiny_video (RuntimeError: Given input size: (4x1x1x1)."
        " Calculated output size: (4x0x0x0). Output size is too small)"
    )
    (record,) = [r for r in caplog.records if "tiny_video" in r.getMessage()]
    assert record.levelno == logging.INFO and record.exc_info[0] is RuntimeError


def test_would_add_sends_tvms_own_warnings_to_a_log_and_leaves_the_console_as_it_was(
    small_dataset, tmp_path, capfd, monkeypatch
):
    import os

    import torch

    from tvm_gnn.cli import main
    from tvm_gnn.measure import networks

    class FirstToken(torch.nn.Module):  # indexing lowers to TVM's take, which warns in C++
        def forward(self, x):
            return x[:, 0] + 1

    monkeypatch.setitem(networks.NETWORKS, "tiny_take", networks.NetworkSpec(FirstToken, (1, 4, 8)))
    log = tmp_path / "would-add.log"
    argv = ["dataset-stats", "--data", str(small_dataset), "-q", "--would-add", "tiny_take"]
    assert main([*argv, "--log-file", str(log)]) == 0
    out, err = capfd.readouterr()  # fd-level: what the terminal would have shown
    assert "| tiny_take |" in out
    assert "Fast mode segfaults" not in err and "Warning" not in err
    assert err.strip() == f"TVM's warnings while extracting tasks: {log}"
    assert "Fast mode segfaults" in log.read_text()
    os.write(2, b"after\n")  # fd 2 is the terminal's again once the command returns
    assert capfd.readouterr().err == "after\n"
    assert main([*argv, "-v", "--log-file", str(tmp_path / "unused.log")]) == 0
    assert "Fast mode segfaults" in capfd.readouterr().err  # -v: nothing redirected
    assert not (tmp_path / "unused.log").exists()
    assert main(argv[:3] + ["--log-file", str(log)]) == 2  # nothing to log without --would-add
    assert "use both" in capfd.readouterr().err
