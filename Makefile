# gradkit: two commands for learners (`make notebook`) and developers (`make test`).
# A second run skips work already done (stamp files inside .venv).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# torch comes first and on its own, so that pip never resolves a multi-GB CUDA build by accident.
# On a machine without a local CPU wheel, use e.g.
#   make notebook TORCH_PIP_ARGS="torch --index-url https://download.pytorch.org/whl/cpu"
TORCH_PIP_ARGS ?= torch==2.13.0
PORT ?= 8888

.PHONY: notebook test bench lint format clean help

help:
	@echo "make notebook  - set up .venv and open the lessons in Jupyter Notebook 7 (127.0.0.1, token auth)"
	@echo "make test      - set up .venv with test extras and run the whole test suite"
	@echo "make bench     - run the benchmarks (add ARGS=--full for the large sizes)"

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.stamp-torch: | $(PY)
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install $(TORCH_PIP_ARGS)
	@touch $@

$(VENV)/.stamp-install: pyproject.toml $(VENV)/.stamp-torch
	$(PY) -m pip install -e .
	@touch $@

$(VENV)/.stamp-test: pyproject.toml $(VENV)/.stamp-install
	$(PY) -m pip install -e ".[test]"
	@touch $@

/usr/bin/chromium:
	apt-get update && apt-get install -y chromium

notebook: $(VENV)/.stamp-install
	$(VENV)/bin/gradkit notebook notebooks --port $(PORT)

test: $(VENV)/.stamp-test /usr/bin/chromium
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m pytest

bench: $(VENV)/.stamp-test /usr/bin/chromium
	$(PY) -m gradkit.bench $(ARGS)

lint: $(VENV)/.stamp-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.stamp-test
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) build dist artifacts *.egg-info
