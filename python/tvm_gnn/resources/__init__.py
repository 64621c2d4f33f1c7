# Licensed under the Apache License, Version 2.0.
"""Files shipped inside the package: the trained weights and the FastText node-type vectors.

Paths only, so that any layer can name them without importing the code that reads them.
"""

from pathlib import Path

RESOURCES = Path(__file__).parent

#: Weights shipped with the package, trained on this project's CPU dataset's training networks
#: (``tvm-gnn train``; ``docs/results.md``). ``GNNModel()`` starts from them.
PRETRAINED = RESOURCES / "gnn-llvm-amd-epyc-2c.pt"

#: FastText vectors of the node types (``tvm-gnn embeddings`` regenerates them).
NODE_TYPE_VECTORS = RESOURCES / "node_type_vectors.txt"
