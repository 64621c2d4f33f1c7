"""The docs stay readable to the end: every page of ``docs/`` opens with a "Status now" of at most
40 lines and runs to at most 400 lines, generated tables included; each archive page is linked
from a page that is not; and the README's command table has one short line a command."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md"))
MAX_PAGE_LINES = 400
MAX_STATUS_LINES = 40


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_opens_with_a_short_status_and_ends_soon(page):
    lines = page.read_text().splitlines()
    assert len(lines) <= MAX_PAGE_LINES, f"{page.name}: {len(lines)} lines"
    headings = [i for i, line in enumerate(lines) if line.startswith("## ")]
    assert headings and lines[headings[0]] == "## Status now", f"{page.name} opens otherwise"
    end = headings[1] if len(headings) > 1 else len(lines)
    assert end - headings[0] - 1 <= MAX_STATUS_LINES, f"{page.name}: status of {end} lines"


def test_every_archive_page_is_linked_from_a_current_page():
    linked = "".join(p.read_text() for p in PAGES)
    for page in (ROOT / "docs" / "archive").glob("*.md"):
        assert f"archive/{page.name}" in linked, page.name


def test_the_readme_lists_each_command_on_one_short_line():
    text = (ROOT / "README.md").read_text()
    table = text[text.index("| command | what it does |") :].split("\n\n")[0].splitlines()[2:]
    assert len(table) >= 7
    assert all(len(row) <= 200 for row in table), max(table, key=len)
    listed = " ".join(table)
    for command in ("demo", "tune", "collect", "train", "eval", "pack", "dataset-stats"):
        assert re.search(rf"`tvm-gnn {command}\b|, `{command}`", listed), command


SCRIPT = re.compile(r"(?<![\w/.-])benchmarks/[a-z_/]+\.py")


def test_every_benchmark_command_names_a_script_that_exists():
    """The commands of docs/, README.md and the benchmarks' READMEs run from where the scripts
    are; an archive page may name a script that left ``benchmarks/`` only beside the
    ``git show COMMIT:benchmarks/...`` that brings it back."""
    pages = [*PAGES, ROOT / "README.md", *sorted((ROOT / "benchmarks").rglob("README.md"))]
    for page in pages:
        for name in set(SCRIPT.findall(page.read_text())):
            assert (ROOT / name).is_file(), f"{page.name}: {name}"
    for page in sorted((ROOT / "docs" / "archive").glob("*.md")):
        text = page.read_text()
        for name in set(SCRIPT.findall(text)):
            gone = not (ROOT / name).is_file()
            assert not gone or re.search(rf"git show [0-9a-f]{{7,}}:{re.escape(name)}", text), (
                f"{page.name}: {name}"
            )
