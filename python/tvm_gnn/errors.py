# Licensed under the Apache License, Version 2.0.
"""Error types shared across layers (importing this module imports nothing)."""


class CheckpointError(ValueError):
    """A checkpoint file is missing, corrupt or incompatible."""


class EvaluationError(Exception):
    """A setting that makes an evaluation meaningless (leaked networks, missing data)."""


class DataError(ValueError):
    """A data file (dataset, log, archive) is missing, cut or malformed; the message names it."""


class MeasureServiceError(ConnectionError):
    """The measuring service (an RPC tracker, its devices) cannot be reached: nothing it would
    have measured is recorded; the message says what to start or fix."""


class DiskFullError(OSError):
    """A file system filled up during a run: the message says what was kept and where."""
