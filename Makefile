# The two commands of README.md: `make demo` runs the product, `make test` checks it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck pytest bench dist clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/inbox demo

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest

# The wheel and sdist an office installs (README: Installing it on an office machine).
dist: $(STAMP)
	$(BIN)/python -m build --outdir dist .

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist build
