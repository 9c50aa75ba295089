"""Repository-wide pytest hook: a skipped lesson cell says why it was skipped.

nbval skips a cell tagged `nbval-skip` with no reason, so `pytest -rs` would list it as
"nbval/plugin.py: Skipped"; this names the notebook and cell instead.
"""
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    options = getattr(item, "options", None)
    if report.skipped and isinstance(options, dict) and options.get("skip"):
        report.longrepr = (str(item.path), None,
                           f"{item.name}: tagged nbval-skip (its output differs per machine, "
                           "like the version cell's), not run")
