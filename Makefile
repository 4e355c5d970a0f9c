# The two jobs of the README, and the steps they are made of.
#   make conformance   install, build the in-tree ports, run them against the vectors
#   make test          install everything and run every test
# Every target installs what it needs: a fresh clone with ../shared beside it is enough.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
KIT    := $(BIN)/doomloop-kit

.PHONY: install conformance test lint typecheck pytest vectors-check

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

lint: install
	$(BIN)/ruff check reference generators conformance tests benchmarks
	$(BIN)/ruff format --check reference

typecheck: install
	$(BIN)/mypy reference

pytest: install
	$(BIN)/python -m pytest --cov=doomloop_kit.reference --cov-branch --cov-fail-under=95

conformance: install

test: lint typecheck pytest
