"""The data commands' command lines (collect, pack, unpack, dataset-stats)."""

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
        "--trials-per-task",
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


def test_dataset_stats_rewrites_the_cards_section_and_keeps_the_rest(small_dataset, tmp_path):
    from tvm_gnn.cli import main

    card = tmp_path / "card.md"
    card.write_text(
        "# Card\n\nabove\n\n<!-- begin dataset-stats (generated, do not edit) -->\nold counts\n"
        "<!-- end dataset-stats -->\n\nbelow\n"
    )
    assert main(["dataset-stats", "--data", str(small_dataset), "--card", str(card)]) == 0
    text = card.read_text()
    assert "old counts" not in text and text.startswith("# Card\n\nabove\n")
    assert text.rstrip().endswith("<!-- end dataset-stats -->\n\nbelow")
    body = text[text.index("(generated, do not edit) -->") : text.index("<!-- end")]
    assert f"--data {small_dataset} --card {card}`" in body
    assert "| resnet50 | cpu |" in body and "| resnet18 | cpu |" in body
    assert "Workloads shared between held-out and training networks: 2" in body
