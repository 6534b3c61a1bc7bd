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
# The learner's private, git-ignored copy of the lessons that `make notebook` opens: made by
# `gradkit lessons` on the first run, never overwritten later (delete it for a fresh copy).
MY_LESSONS ?= my-lessons

.PHONY: help notebook test unit lessons bench lint format clean test-hub test-class test-class-hub

help:
	@echo "make notebook  - set up .venv, copy the lessons to $(MY_LESSONS)/ (your private, git-ignored"
	@echo "                 copy: only missing lessons are copied, yours are never overwritten) and"
	@echo "                 open it in Jupyter Notebook 7 (127.0.0.1, token auth). For a fresh copy,"
	@echo "                 delete or rename $(MY_LESSONS)/ first"
	@echo "make test      - set up .venv with test extras; ruff, then the whole test suite (CI runs it)"
	@echo "make unit      - the fast inner loop: JavaScript (node --test) and Python unit tests"
	@echo "                 (no notebooks, browser or slow tests)"
	@echo "make lessons   - sync the lessons' jupytext pairs (notebooks/*.py <-> notebooks/*.ipynb)"
	@echo "make bench     - run the benchmarks in benchmarks/ (ARGS=--full for the large sizes,"
	@echo "                 ARGS='--only engine --device cuda' for the engine on a GPU)"
	@echo "make test-hub  - opt-in: a real JupyterHub (the README's config) serves lesson 01 to two"
	@echo "                 learners in chromium; installs jupyterhub and the proxy in a temp folder"
	@echo "make test-class - opt-in: the nbgrader loop for real (two learners: release, fetch, submit,"
	@echo "                 collect, autograde, feedback, summary) with a local exchange folder"
	@echo "make test-class-hub - opt-in, as root: the same loop on a live JupyterHub (the README's"
	@echo "                 config and its nbgrader lines, hub run as the user jovyan), two learners"
	@echo "                 in chromium fetching and submitting through nbgrader's server API"
	@echo "make lint      - ruff check and ruff format --check"
	@echo "make format    - ruff check --fix, then ruff format"
	@echo "make clean     - remove .venv, build outputs and artifacts (keeps $(MY_LESSONS)/)"
	@echo "make help      - this list"

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.stamp-torch: | $(PY)
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install $(TORCH_PIP_ARGS)
	@touch $@

$(VENV)/.stamp-install: pyproject.toml $(VENV)/.stamp-torch
	$(PY) -m pip install -e .
	@touch $@

# One pip run installs gradkit and its test extras (it counts as the plain install too).
$(VENV)/.stamp-test: pyproject.toml $(VENV)/.stamp-torch
	$(PY) -m pip install -e ".[test]"
	@touch $(VENV)/.stamp-install $@

/usr/bin/chromium:
	apt-get update && apt-get install -y chromium

# axe-core for the browser tests' accessibility checks (tests/browser/test_themes.py), with npm into
# a git-ignored folder: a test tool only, the wheel needs no Node.
AXE_VERSION ?= 4.10.3
AXE := tests/browser/.axe/node_modules/axe-core/axe.min.js
$(AXE):
	mkdir -p tests/browser/.axe
	npm install --prefix tests/browser/.axe --no-save --no-package-lock --no-audit --no-fund \
		axe-core@$(AXE_VERSION)

# Copies only lessons missing from $(MY_LESSONS)/ (all of them on the first run, a new lesson after
# a git pull); a file already there is never overwritten.
notebook: $(VENV)/.stamp-install
	$(VENV)/bin/gradkit lessons $(MY_LESSONS) > /dev/null
	@echo "gradkit: your lessons are in $(MY_LESSONS)/ (private and git-ignored; never overwritten)"
	$(VENV)/bin/gradkit notebook $(MY_LESSONS) --port $(PORT)

test: $(VENV)/.stamp-test /usr/bin/chromium $(AXE)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	node --test tests/js/
	$(PY) -m pytest -n 2 --dist loadfile

unit: $(VENV)/.stamp-test
	node --test tests/js/
	$(PY) -m pytest -q -n 2 --dist loadfile -m "not notebooks and not browser and not slow" \
		--ignore=tests/browser

lessons: $(VENV)/.stamp-test
	$(PY) tools/sync_lessons.py

bench: $(VENV)/.stamp-test /usr/bin/chromium
	$(PY) -m benchmarks $(ARGS)

lint: $(VENV)/.stamp-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.stamp-test
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) build dist artifacts *.egg-info tests/browser/.axe

# Opt-in, not in `make test`: a real JupyterHub (the README's config) on 127.0.0.1 serving lesson
# 01 to two learners in chromium; jupyterhub and configurable-http-proxy go into a throwaway venv
# and npm prefix under a temp folder, removed afterwards; every process is stopped by PID.
test-hub: $(VENV)/.stamp-test /usr/bin/chromium
	GRADKIT_TEST_HUB=1 $(PY) -m pytest tests/hub -v -p no:cacheprovider

# Opt-in, not in `make test`: nbgrader's whole loop with two learners, through nbgrader's command
# line, a local exchange folder and one HOME folder per learner (tests/hub/test_nbgrader_loop.py);
# nbgrader comes with the test extras. Every kernel is started and stopped by nbclient.
test-class: $(VENV)/.stamp-test
	GRADKIT_TEST_CLASS=1 $(PY) -m pytest tests/hub/test_nbgrader_loop.py -v -p no:cacheprovider

# Opt-in, not in `make test`, run as root: the same loop on a live JupyterHub (the README's config
# and its nbgrader lines, as printed), run as the Unix user jovyan (made when missing, removed
# after); two learners log in in chromium, fetch and submit through nbgrader's server API, and
# save in Notebook 7 (tests/hub/test_class_hub.py). jupyterhub and the proxy go into a temp folder
# as for test-hub; every process is stopped by PID.
test-class-hub: $(VENV)/.stamp-test /usr/bin/chromium
	GRADKIT_TEST_CLASS_HUB=1 $(PY) -m pytest tests/hub/test_class_hub.py -v -p no:cacheprovider
