"""Every test's fixtures, for the TVM installed.

Under TVM 0.26 and 0.27 (``./build.sh test``) these are the MetaSchedule line's
(:mod:`tests.fixtures`), and the tests of Ansor skip. Under TVM 0.19, the Ansor environment
(``VENV=.venv-tvm019 CONSTRAINTS=constraints-tvm0.19.txt ./build.sh test -m tvm019``,
docs/ansor.md), only the marked subset is collected: the modules in :data:`TVM019`.
"""

import pytest

from tvm_gnn.tvm_compat import LEGACY

#: the test modules of the TVM 0.19 subset (each marked ``tvm019``), relative to tests/
TVM019 = (
    "featurize/test_ansor.py",
    "featurize/test_json.py",
    "cost_models/test_ansor.py",
    "cli/test_ansor.py",
    "evaluate/test_ansor.py",
    "train/test_ansor.py",
    "test_upstream.py",
    "test_docs_ansor.py",
)

if LEGACY:

    def pytest_ignore_collect(collection_path, config):
        rel = collection_path.relative_to(config.rootpath / "tests").as_posix()
        if collection_path.is_dir() or not rel.endswith(".py") or rel == "conftest.py":
            return None
        return rel not in TVM019 and not rel.endswith("__init__.py")

    from .ansor_fixtures import *  # noqa: F403 - the Ansor tests' fixtures

else:
    from .fixtures import *  # noqa: F403 - the fixtures are conftest's, for every test
    from .fixtures import _db_folder, _tiny_task  # noqa: F401 - imported by tests from here


def tvm019_only():
    """The mark and skip of a TVM 0.19 test module: ``pytestmark = tvm019_only()``."""
    return [
        pytest.mark.tvm019,
        pytest.mark.skipif(not LEGACY, reason="Ansor: TVM 0.19 only (docs/ansor.md)"),
    ]
