# Licensed under the Apache License, Version 2.0.
"""Generated sections of the markdown docs, rewritten in place by the commands that measure them."""

from __future__ import annotations

from pathlib import Path

from . import atomic


def markers(name: str) -> tuple[str, str]:
    return f"<!-- begin {name} (generated, do not edit) -->", f"<!-- end {name} -->"


def read_section(path, name: str) -> str | None:
    """The body of the ``name`` section of ``path`` as last written (``None``: no such section)."""
    path = Path(path)
    begin, end = markers(name)
    text = path.read_text() if path.exists() else ""
    if begin not in text or end not in text:
        return None
    return text[text.index(begin) + len(begin) : text.index(end)].strip("\n")


def write_section(path, name: str, body: str, title: str = "") -> None:
    """Replace the ``name`` section of ``path`` with ``body``, keeping everything around it.

    A file without the section gets it appended (a new file starts with ``title``).
    """
    path = Path(path)
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
