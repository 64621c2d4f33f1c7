"""Builds the featurizer's hot loops (``tvm_gnn/featurize/_walk.py`` and ``_json.py``, and
``_stores.py``, ``_index.py`` and ``_store_row.py`` for the per-store features) as Cython
extensions.

The same files are the pure-Python fallback, so the two can never drift apart.
"""

from Cython.Build import cythonize
from setuptools import setup

#: the compiled modules: the walk, and the per-store features in three files
HOT = ("_walk", "_stores", "_index", "_store_row", "_json")

setup(
    ext_modules=cythonize(
        [f"python/tvm_gnn/featurize/{m}.py" for m in HOT],
        compiler_directives={"language_level": "3", "binding": False},
        quiet=True,
    )
)
