# Licensed under the Apache License, Version 2.0.
"""Generated sections of the markdown docs, rewritten in place by the commands that measure them."""

from __future__ import annotations

import re
from pathlib import Path

from . import atomic


def markers(name: str) -> tuple[str, str]:
    """The HTML comments around section ``name``; ValueError for a name that would break them."""
    if not name.strip() or "--" in name or re.search(r"[<>\n]", name):
        raise ValueError(
            f"section name {name!r} would break the HTML comments that mark it: no '--', '<', "
            "'>' or line break, and not empty"
        )
    return f"<!-- begin {name} (generated, do not edit) -->", f"<!-- end {name} -->"


def read_section(path, name: str) -> str | None:
    """The body of the ``name`` section of ``path`` as last written (``None``: no such section)."""
    path = Path(path)
    begin, end = markers(name)
    text = path.read_text() if path.exists() else ""
    if begin not in text or end not in text:
        return None
    return text[text.index(begin) + len(begin) : text.index(end)].strip("\n")


def check_sections(path, *names: str) -> None:
    """ValueError (one line, naming the file and the line) unless each ``name`` section of the
    markdown file ``path`` is whole or absent: at most one begin and one end marker, the begin
    first. Asked before any work, and again before a section is rewritten, so that a marker a
    user cut or copied never makes a rewrite delete the text between two sections.

    ``path`` must be a regular file or none: it is read before it is rewritten (a named pipe
    would block the read, a device would lose what it holds)."""
    path = Path(path)
    for name in names:
        markers(name)  # a name that would break its markers, whether or not the file exists
    if not path.exists():
        return
    if not path.is_file():
        raise ValueError(f"{path} is not a regular file; its generated sections are read and "
                         "rewritten, so give a markdown file")  # fmt: skip
    text = path.read_text()
    for name in names:
        begin, end = markers(name)
        starts, ends = text.count(begin), text.count(end)
        if (starts, ends) == (0, 0):
            continue
        line = text[: text.find(begin if starts else end)].count("\n") + 1
        if starts != 1 or ends != 1 or text.index(begin) > text.index(end):
            raise ValueError(
                f"{path}: the generated section {name!r} is not whole ({starts} begin and "
                f"{ends} end markers, the first on line {line}); leave one `{begin}` and one "
                f"`{end}` after it, or remove both, then run this again"
            )


def write_section(path, name: str, body: str, title: str = "") -> None:
    """Replace the ``name`` section of ``path`` with ``body``, keeping everything around it.

    A file without the section gets it appended (a new file starts with ``title``). A section
    whose markers are not whole is refused (:func:`check_sections`), the file untouched.
    """
    path = Path(path)
    check_sections(path, name)
    begin, end = markers(name)
    text = path.read_text() if path.exists() else (f"# {title}\n" if title else "")
    block = f"{begin}\n{body.rstrip()}\n{end}"
    if begin in text and end in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip() + ("\n\n" if text.strip() else "") + block + "\n"
    atomic.write_text(path, text)


def write_json(path, obj) -> None:
    """``obj`` as indented JSON at ``path`` (folders created): the numbers beside a section."""
    atomic.write_json(path, obj)
