# The two jobs of the README, and the steps they are made of.
#   make conformance   install, build the in-tree ports, run each against the vectors
#   make test          install everything and run every test
# Every target installs what it needs: a fresh clone with ../shared beside it is enough.

PYTHON  ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
KIT     := $(BIN)/doomloop-kit
REPORTS ?= .artifacts/reports
# The in-tree ports' reports live in a folder of their own, which make rebuilds;
# everything else under $(REPORTS) (a port author's reports) is never touched.
IN_TREE_REPORTS := $(REPORTS)/in-tree

# Every Python package (checked by lint and typecheck); mypy sees them under
# doomloop_kit.* through a tree of symbolic links, as the installed package names them.
PY_PACKAGES := jsvalue reference generators conformance vectorset engine replay
PY_CHECKED  := $(PY_PACKAGES) tests benchmarks docs/hooks tools
MYPY_TREE   := .artifacts/mypy

PORT_PYTHON := $(BIN)/python -m doomloop_kit.conformance.harnesses.python_reference
PORT_TS     := node ports/typescript/dist/harness.js
PORT_GO     := ports/go/bin/doomloop-harness

.PHONY: install install-runtime ports port-typescript port-go conformance conformance-reports \
        test lint typecheck vectors-check test-typescript test-go pytest docs docs-serve \
        docs-deploy docs-versions release mutation-typescript engine-campaign

# -- installation -------------------------------------------------------------

# Two steps: what a conformance run needs (the kit and its runtime dependencies,
# for `make conformance`), then the development extras on top (tests, lint,
# types, the site, the release: everything else). `make install` is both.
$(VENV)/.installed-runtime: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e .
	touch $@

$(VENV)/.installed: $(VENV)/.installed-runtime
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $@

install-runtime: $(VENV)/.installed-runtime

install: $(VENV)/.installed

# npm ci installs the compiler and Node's types only: the mutation tool has a
# package of its own (ports/typescript/mutation, `make mutation-typescript`).
port-typescript:
	npm ci --prefix ports/typescript --no-audit --no-fund
	npm run build --prefix ports/typescript

port-go:
	cd ports/go && go build -o bin/doomloop-harness ./cmd/doomloop-harness

ports: port-typescript port-go

# -- the main job: conformance of the in-tree ports -----------------------------

conformance: install-runtime ports
	$(KIT) conformance run --port "$(PORT_PYTHON)"
	$(KIT) conformance run --port "$(PORT_TS)"
	$(KIT) conformance run --port "$(PORT_GO)"

# The same runs, writing the JSON reports the docs matrix is built from; a
# failing run prints its log and stops the build.
define report
	$(KIT) conformance run --progress lines --port "$(2)" --report-json $(IN_TREE_REPORTS)/$(1).jsonl \
		> $(IN_TREE_REPORTS)/$(1).log 2>&1 || { cat $(IN_TREE_REPORTS)/$(1).log; exit 1; }
	tail -n 1 $(IN_TREE_REPORTS)/$(1).log
endef

conformance-reports: install-runtime ports
	rm -rf $(IN_TREE_REPORTS) && mkdir -p $(IN_TREE_REPORTS)
	$(call report,python-reference,$(PORT_PYTHON))
	$(call report,typescript,$(PORT_TS))
	$(call report,go,$(PORT_GO))

# -- every test -----------------------------------------------------------------

lint: install
	$(BIN)/ruff check $(PY_CHECKED)
	$(BIN)/ruff format --check $(PY_CHECKED)

typecheck: install
	rm -rf $(MYPY_TREE) && mkdir -p $(MYPY_TREE)/doomloop_kit
	touch $(MYPY_TREE)/doomloop_kit/__init__.py
	for package in $(PY_PACKAGES); do ln -s ../../../$$package $(MYPY_TREE)/doomloop_kit/$$package; done
	MYPYPATH=$(MYPY_TREE) $(BIN)/mypy --strict -p doomloop_kit
	MYPYPATH=$(MYPY_TREE):tests:docs/hooks:tools $(BIN)/mypy --strict tests benchmarks docs/hooks tools

vectors-check: install-runtime
	$(KIT) vectors regenerate --check

# test:package packs the npm package and uses it from a folder outside the checkout.
test-typescript: port-typescript
	npm test --prefix ports/typescript
	npm run test:package --prefix ports/typescript

# ports/go/harness is a module of its own (the public harness library): go test ./...
# from ports/go does not enter it; its TestExternalModule builds a module outside.
# staticcheck is pinned and fetched from the Go module proxy by `go run` (built once, cached).
# The Go engine runs a batch's calls on goroutines (ENG-138): its tests, and the engine
# vectors replayed through the harness with the goroutines shaken, run again under -race.
STATICCHECK := go run honnef.co/go/tools/cmd/staticcheck@v0.8.2
GO_ENGINE_TESTS := TestVectors/.*/engine-|TestEngineInterleavings|TestThePartialOrderComparisonCanFail

test-go:
	cd ports/go && go vet ./... && $(STATICCHECK) ./... && go test ./...
	cd ports/go && go test -race ./engine && go test -race -run '$(GO_ENGINE_TESTS)' ./cmd/doomloop-harness
	cd ports/go/harness && go vet ./... && $(STATICCHECK) ./... && go test ./...

# The docs tests build the site from the conformance reports, then drive Chromium.
pytest: install conformance-reports
	DOOMLOOP_DOCS_REPORTS=$(REPORTS) $(BIN)/python -m pytest -n auto --dist loadfile --durations=15 \
		--cov=doomloop_kit.jsvalue --cov=doomloop_kit.reference --cov-branch --cov-fail-under=95

# vectors-check is also tests/test_generator_regenerate.py, which pytest runs.
test: lint typecheck test-typescript test-go pytest

# The TypeScript port's mutation job (docs/mutation.md): about 11 minutes, never part of
# make test. Stryker is installed into ports/typescript/mutation/node_modules.
mutation-typescript: port-typescript
	npm ci --prefix ports/typescript/mutation --no-audit --no-fund
	cd ports/typescript && mutation/node_modules/.bin/stryker run

# The long engine campaign against the SDK's run loop (../shared/sdk): 21,000 drawn
# scenarios, each difference classified and shrunk; rewrites the committed report
# benchmarks/engine-campaign.{md,json}. Not part of `make test` (which runs a bounded one).
engine-campaign: install ports
	nice -n 10 $(BIN)/python benchmarks/engine_campaign.py

# -- the spec site ----------------------------------------------------------------

docs: install conformance-reports
	NO_MKDOCS_2_WARNING=1 DOOMLOOP_DOCS_REPORTS=$(REPORTS) $(BIN)/mkdocs build --strict

docs-serve: install
	NO_MKDOCS_2_WARNING=1 DOOMLOOP_DOCS_REPORTS=$(REPORTS) $(BIN)/mkdocs serve

# The versioned site (mike): this specification version as a folder of the LOCAL
# gh-pages branch, `latest` moved to it, the site root sent to `latest`. Never pushed.
RELEASE_TOOL := PYTHONPATH=tools:docs/hooks $(BIN)/python -m doomloop_release

docs-deploy: install conformance-reports
	$(RELEASE_TOOL).site --reports $(REPORTS)

# Serves every version of the local gh-pages branch, with the version selector.
docs-versions: install
	$(BIN)/mike serve

# -- the release ------------------------------------------------------------------

# Checks, then builds the wheel, the sdist, the npm tarball, the Go tags and the
# versioned site into dist/$(VERSION)/ and writes releases/$(VERSION).json
# (tools/doomloop_release; the policy is in docs/versioning.md). Publishes nothing.
# The version and the cheap checks first (--check), so that a wrong VERSION is
# refused at once rather than after the conformance reports.
release: install
	@test -n "$(VERSION)" || { echo "usage: make release VERSION=x.y.z" >&2; exit 2; }
	$(RELEASE_TOOL) $(VERSION) --check
	$(MAKE) conformance-reports
	$(RELEASE_TOOL) $(VERSION) --reports $(REPORTS)
