# Licensed under the Apache License, Version 2.0.
"""TVM's tensor intrinsics registered in seconds instead of tens of seconds or minutes.

``tvm.s_tir.tensor_intrin`` parses ~250 TVMScript functions when imported, and every
``TuneContext`` imports it (as TVM's own build function does). TVM's parser calls
``inspect.stack()`` for each function. ``inspect`` finds each frame's source through its module,
and for a frame of the import machinery (``<frozen importlib._bootstrap>``, no file) that means
scanning all of ``sys.modules``, twice a frame: the first ``TuneContext`` took 23.6 s in a bare
process and 37.5 s once torch and PyG were loaded, against 1.9 s in both with :func:`stack` in
its place, and the same intrinsics, on an AMD EPYC Zen 4 with 2 cores; 78.6 s and 135.2 s
against 5.0 s and 6.0 s on a Zen 3 (``benchmarks/upstream/intrinsics_import.py``,
docs/benchmarks.md).

:func:`install` makes every later import of the package use :func:`stack`, whoever triggers it;
``inspect.stack`` is itself again once the package is imported. Upstream patch 0005
(``patches/``) makes TVM's parser use the same stack; this hook stands in until it lands.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import inspect
import linecache
import sys

__all__ = ["MODULE", "install", "stack"]

#: The package TVM imports in every TuneContext.
MODULE = "tvm.s_tir.tensor_intrin"


def stack(context: int = 1) -> list[inspect.FrameInfo]:
    """``inspect.stack(context)`` of the caller, each frame's lines read from ``linecache`` by
    the file name its code records (what ``inspect`` finds for a file that exists)."""
    frames, frame = [], sys._getframe(1)
    while frame is not None:
        code, lineno = frame.f_code, frame.f_lineno
        lines = linecache.getlines(code.co_filename, frame.f_globals) if context > 0 else []
        code_context = index = None
        if lines and lineno is not None:
            start = max(0, min(lineno - 1 - context // 2, len(lines) - context))
            code_context, index = lines[start : start + context], lineno - 1 - start
        frames.append(
            inspect.FrameInfo(frame, code.co_filename, lineno, code.co_name, code_context, index)
        )
        frame = frame.f_back
    return frames


@contextlib.contextmanager
def _cheap_stack():
    slow, inspect.stack = inspect.stack, stack
    try:
        yield
    finally:
        inspect.stack = slow


class _Loader(importlib.abc.Loader):
    """The package's own loader, its module executed with :func:`stack` in place."""

    def __init__(self, inner):
        self._inner = inner

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module) -> None:
        with _cheap_stack():  # the submodules it imports run inside this too
            self._inner.exec_module(module)

    def __getattr__(self, name):  # get_source, is_package, ...: the inner loader's
        return getattr(self._inner, name)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != MODULE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


def install() -> None:
    """Import :data:`MODULE` the fast way from now on in this process (once is enough)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
