"""Builds the featurizer's hot loops (``tvm_gnn/featurize/_walk.py`` and ``_stores.py``) as
Cython extensions.

The same files are the pure-Python fallback, so the two can never drift apart.
"""

from Cython.Build import cythonize
from setuptools import setup

setup(
    ext_modules=cythonize(
        ["python/tvm_gnn/featurize/_walk.py", "python/tvm_gnn/featurize/_stores.py"],
        compiler_directives={"language_level": "3", "binding": False},
        quiet=True,
    )
)
