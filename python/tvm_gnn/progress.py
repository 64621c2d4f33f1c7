# Licensed under the Apache License, Version 2.0.
"""Progress bars that cost nothing when off."""

from __future__ import annotations


def bar(items, desc: str, enabled: bool, unit: str = "workload"):
    """``items`` wrapped in a tqdm bar, or ``items`` itself when ``enabled`` is false."""
    if not enabled:
        return items
    from tqdm import tqdm

    return tqdm(items, desc=desc, unit=unit)
