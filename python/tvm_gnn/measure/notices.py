# Licensed under the Apache License, Version 2.0.
"""TVM's known notices, filtered where the package triggers them.

TVM's C++ writes its warnings to file descriptor 2, past Python's ``warnings`` and ``logging``.
Some say nothing a user can act on: MetaSchedule's ``ApplyCustomRule`` warns "Unknown schedule
rule meta_schedule.pool_max" for every pooling block TOPI marks with a rule no CPU registers
(the block is scheduled by the other rules, as without the mark). :func:`known_notices_dropped`
holds fd 2 for a block and writes back every line but those.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile

#: what TVM prints that the package knows to be noise where it calls TVM (each a regex)
KNOWN = (
    r'Unknown schedule rule "meta_schedule\.pool_(max|avg)"',
    r"^\s*s_tir\.meta_schedule\.\w+\.meta_schedule\.pool_(max|avg)\s*$",
)


@contextlib.contextmanager
def known_notices_dropped():
    """Run the block with fd 2 held in a temporary file; then write its lines back to fd 2, the
    :data:`KNOWN` notices left out (and TVM's continuation lines that name the same rule)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            kept = [ln for ln in held.read().splitlines(keepends=True) if not _known(ln)]
            if kept:
                os.write(2, b"".join(kept))


def _known(line: bytes) -> bool:
    text = line.decode(errors="replace")
    return any(re.search(p, text) for p in KNOWN)
