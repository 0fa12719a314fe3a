# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PORT   ?= 8501

.PHONY: run test test-quick lint install install-dev bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt $(VENV)/.installed
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

## make run: create .venv if needed, install the app's requirements, serve the app on localhost (ui/serve.py:
## Streamlit's server, with the pages' imports done before the first visitor)
run: $(VENV)/.installed
	$(PY) -m ui.serve --server.address 127.0.0.1 --server.port $(PORT)

## make lint: ruff lint and format check (configured in pyproject.toml); any finding fails the build
lint: $(VENV)/.installed-dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

## make test: install the dev requirements, lint, and run the whole test suite (browser test included)
test: lint
	$(PY) -m pytest $(PYTEST_ARGS)

## make bench: run every benchmark script
bench: $(VENV)/.installed
	@for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache

## make test-quick: the suite without the tests marked slow
test-quick: lint
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)
