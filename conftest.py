"""Repository-wide pytest hooks: the scheduling of notebooks under xdist, their kernels, and
a skipped lesson cell that says why it was skipped.

nbval skips a cell tagged `nbval-skip` with no reason, so `pytest -rs` would list it as
"nbval/plugin.py: Skipped"; this names the notebook and cell instead.
"""
import os
import shutil
import sys
import tempfile
from pathlib import Path

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



def _group(nodeid: str) -> str:
    """The unit of work a test belongs to under pytest-xdist: the cells of one notebook
    stay together (nbval runs them in order in one kernel), and so do the tests of one
    service file (they start servers and worker processes of their own); every other
    test is a unit of its own, sent to whichever worker is free."""
    file = nodeid.split("::", 1)[0]
    if file.endswith(".ipynb") or file.rsplit("/", 1)[-1].startswith("test_serve_"):
        return file
    return nodeid


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Schedule by :func:`_group` (xdist's own `loadgroup` cannot mark notebook cells)
    under the default `--dist load`; another `--dist` gets xdist's own scheduler."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Grouped(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _group(nodeid)

    return Grouped(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """`-n auto`: one worker more than the cores. Many tests wait on what they started
    (worker processes, kernels, servers, a lease running out) with a core idle; a third
    worker on two cores takes the suite from about 2 min 45 s to about 2 min 10 s."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None                      # xdist reads the number set there
    return (os.cpu_count() or 1) + 1


def pytest_configure(config):
    """Notebook kernels for the tests.

    - Each test process gives its kernels an IPython directory of their own, with history
      kept in memory: a learner's own IPython startup files and configuration cannot change
      what a lesson prints under test, and kernels running side by side never share one
      history database.
    - A kernel that fails to answer is started again: nbval's start goes through
      ``tools/lessons.py``'s :func:`kernel_started` (KERNEL_STARTS tries of KERNEL_STARTUP
      seconds each; nbval's own startup-timeout option is not used). Only the start is
      retried, never a cell: what a notebook computes decides its tests.
    """
    sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))
    from lessons import kernel_started, quiet_ipython_dir
    ipython_dir, before = Path(tempfile.mkdtemp(prefix="kit-tests-ipython-")), os.environ.get(
        "IPYTHONDIR")
    os.environ["IPYTHONDIR"] = str(quiet_ipython_dir(ipython_dir))

    def restore() -> None:
        if before is None:
            os.environ.pop("IPYTHONDIR", None)
        else:
            os.environ["IPYTHONDIR"] = before
        shutil.rmtree(ipython_dir, ignore_errors=True)

    config.add_cleanup(restore)
    try:
        import nbval.kernel as kernel
    except ImportError:
        return
    if getattr(kernel.start_new_kernel, "retried", False):
        return
    start = kernel.start_new_kernel

    def start_new_kernel(*args, **kwargs):
        return kernel_started(lambda startup: start(*args, **{**kwargs,
                                                              "startup_timeout": startup}))

    start_new_kernel.retried = True
    kernel.start_new_kernel = start_new_kernel
