"""The suite runs in parallel (pytest-xdist, `--dist loadgroup`: noxfile.py). A module's tests
stay together on one worker, in order (module fixtures are built once, and some modules count
across their tests: the gate's differential test), except in the modules listed here, whose
tests are independent and long (each waits on whole agents' timeouts): those are spread."""

from __future__ import annotations

import pytest

SPREAD = {"tests/conformance/test_runner.py", "tests/test_golden.py"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    for item in items:
        module = item.path.relative_to(root).as_posix()
        if module not in SPREAD:
            item.add_marker(pytest.mark.xdist_group(module))
