# Licensed under the Apache License, Version 2.0.
"""``python -m tvm_gnn.cli``: the ``tvm-gnn`` command."""

import sys

from . import main

sys.exit(main())
