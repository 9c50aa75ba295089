# Everyday commands. The virtualenv lives in .venv (another folder: VENV=...); pick the
# interpreter that creates it with PYTHON, e.g. `make test PYTHON=python3.13 VENV=.venv-3.13`.
#   make install    create .venv and install the kit with [lab,dev] extras
#   make lab        copy the lessons you do not have yet into work/ (never overwriting
#                   one) and open JupyterLab there (options: LAB_ARGS="...")
#   make reset LESSON=03   a fresh copy of one lesson in work/ (a changed copy is kept
#                   in work/backups/ first, under a new name each time)
#   make test       run the test suite (unit tests, nbval on solutions/, notebook checks);
#                   pass pytest options with ARGS, e.g. make test ARGS="-k tokens"
#   make test-browser  run every learner lesson in JupyterLab in headless Chromium, then
#                   the service's chat page (send messages, watch the reply stream in)
#   make notebooks  re-execute solutions/ and regenerate notebooks/ (refuses to overwrite
#                   a changed notebooks/ file unless FORCE=1)
#   make clean      remove .venv, build output and caches (work/ is kept)

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

# $(call require_py311,INTERPRETER): stop with a clear message unless it is Python >= 3.11.
require_py311 = @$(1) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	echo "error: this kit needs Python >= 3.11, but PYTHON=$(1) $$($(1) -c 'import platform; print("is Python", platform.python_version())' 2>/dev/null || echo 'does not run (missing, or a pyenv shim for a version pyenv has not selected: give its full path)')." >&2; \
	echo "       Use a newer interpreter, e.g.: make $(or $(MAKECMDGOALS),install) PYTHON=python3.12 VENV=$(VENV)-3.12" >&2; \
	exit 1; }

# When PYTHON is given (command line or environment) and $(VENV) was made by another
# interpreter version, stop and say how to rebuild, instead of using the old one.
# (A venv belongs to one minor version: 3.11.2 and 3.11.7 share one, 3.11 and 3.13 do not.)
python_version = $(1) -c 'import sys; print("%d.%d" % sys.version_info[:2])'
ifneq ($(filter command% environment%,$(origin PYTHON)),)
check-venv:
	$(call require_py311,$(PYTHON))
	@if [ -x $(BIN)/python ]; then \
	  want=$$($(call python_version,$(PYTHON)) 2>/dev/null || echo missing); \
	  have=$$($(call python_version,$(BIN)/python) 2>/dev/null || echo broken); \
	  if [ "$$want" != "$$have" ]; then \
	    echo "error: $(VENV) was made with Python $$have, but PYTHON=$(PYTHON) is Python $$want." >&2; \
	    echo "       Rebuild it: rm -rf $(VENV) && make $(or $(MAKECMDGOALS),install) PYTHON=$(PYTHON)" >&2; \
	    echo "       or keep both: make $(or $(MAKECMDGOALS),install) PYTHON=$(PYTHON) VENV=$(VENV)-$$want" >&2; \
	    exit 1; \
	  fi; \
	fi
else
check-venv:
	@:
endif

.PHONY: install lab reset test test-browser notebooks clean check-venv

install: check-venv $(VENV)/.installed

$(BIN)/python:
	$(call require_py311,$(PYTHON))
	$(PYTHON) -m venv $(VENV)

# Reinstall only when pyproject.toml changed since the last install.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(call require_py311,$(BIN)/python)
	$(BIN)/python -m pip install -e ".[lab,dev]"
	touch $@

# Extra options for JupyterLab, e.g. LAB_ARGS="--allow-root --no-browser" in a container.
LAB_ARGS ?=

# The lab's root is the repository, so solutions/ is one click away; it opens on work/.
lab: install
	$(BIN)/python tools/lessons.py workspace
	$(BIN)/jupyter lab --LabApp.default_url=/lab/tree/work $(LAB_ARGS)

reset: install
	$(BIN)/python tools/lessons.py reset $(LESSON)

# Compiled modules are cached (__pycache__/, ignored by git) even where the environment says
# not to: every kernel and command-line test imports the kit afresh, and the cache saves
# their compiling it again.
test: install
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest $(ARGS)

# Needs Chromium (Debian: apt-get install chromium); adds the [browser] extra (playwright).
$(VENV)/.browser: $(VENV)/.installed
	$(BIN)/python -m pip install -e ".[browser]"
	touch $@

test-browser: $(VENV)/.browser
	$(BIN)/python tools/browser_check.py $(ARGS)
	$(BIN)/python tools/browser_chat.py

notebooks: install
	$(BIN)/python tools/lessons.py execute
	$(BIN)/python tools/lessons.py generate $(if $(filter 1 yes true,$(FORCE)),--force)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +
