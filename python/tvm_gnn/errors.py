# Licensed under the Apache License, Version 2.0.
"""Error types shared across modules (importing this module imports nothing heavy)."""


class CheckpointError(ValueError):
    """A checkpoint file is missing, corrupt or incompatible."""
