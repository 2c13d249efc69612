# The two commands of README.md: `make demo` runs the product, `make test` checks it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck pytest bench dist clean catalogues translations

# The client's texts: catalogues kept in resources/translations (.ts), compiled to .qm for running.
LANGUAGES := es pt_BR ar
CATALOGUES := resources/translations
CLIENT_SOURCES = $(shell find ui -name '*.py' ! -path 'ui/api/*' | sort)

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

# The tests that start the product's processes (kills, restarts, drains at the cap) count on the
# machine's cores and run alone, after the rest has run on one worker per core (up to four).
pytest: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest -m "not processes" --numprocesses=auto --maxprocesses=4
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest -m processes

# The wheel and sdist an office installs (README: Installing it on an office machine).
dist: $(STAMP)
	$(BIN)/python -m build --outdir dist .

# After changing a screen: bring every catalogue up to date with the texts in the code, then translate.
catalogues: $(STAMP)
	for language in $(LANGUAGES); do \
		$(BIN)/pyside6-lupdate $(CLIENT_SOURCES) -no-obsolete -locations none -source-language en \
			-target-language $$language -ts $(CATALOGUES)/inbox_$$language.ts; \
	done
	$(BIN)/pyside6-lupdate $(CLIENT_SOURCES) -no-obsolete -locations none -pluralonly -source-language en \
		-target-language en -ts $(CATALOGUES)/inbox_en.ts

# The compiled catalogues the client loads (without them it compiles its own copy on first run).
translations: $(STAMP)
	for catalogue in $(CATALOGUES)/*.ts; do $(BIN)/pyside6-lrelease -silent $$catalogue; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist build
