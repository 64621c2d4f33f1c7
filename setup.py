"""Builds the featurizer's hot loop (``tvm_gnn/featurize/_walk.py``) as a Cython extension.

The same file is the pure-Python fallback, so the two can never drift apart.
"""

from Cython.Build import cythonize
from setuptools import setup

setup(
    ext_modules=cythonize(
        ["python/tvm_gnn/featurize/_walk.py"],
        compiler_directives={"language_level": "3", "binding": False},
        quiet=True,
    )
)
