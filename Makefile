# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PORT ?= 8000

.PHONY: install migrate demo run test test-postgres lint format bench clean

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP)

var:
	mkdir -p var/broker var/broker-processed var/staticfiles

migrate: install var
	$(BIN)/python manage.py migrate --noinput

demo: migrate
	$(BIN)/python manage.py load_demo

run: demo
	@echo "Concord is starting at http://127.0.0.1:$(PORT)/ (Ctrl-C stops it)"
	PATH="$(CURDIR)/$(BIN):$$PATH" PORT=$(PORT) $(BIN)/honcho start -f Procfile

test: install var
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: migrate
	$(BIN)/python bench/import_speed.py

clean:
	rm -rf $(VENV) var
