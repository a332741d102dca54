# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PORT ?= 8000

.PHONY: install browser migrate demo run test lint format messages bench clean var

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP)

var:
	mkdir -p var/broker var/broker-processed var/broker-control var/staticfiles

migrate: install var
	$(BIN)/python manage.py migrate --noinput

demo: migrate
	$(BIN)/python manage.py load_demo

run: demo
	@echo "Concord is starting at http://127.0.0.1:$(PORT)/ (Ctrl-C stops it)"
	PATH="$(CURDIR)/$(BIN):$$PATH" PORT=$(PORT) $(BIN)/honcho start -f Procfile

# Browser tests drive Debian's chromium (no browser download works here); CJK fonts make
# Chinese text readable in their screenshots.
browser:
	@test -x /usr/bin/chromium && fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || \
		{ apt-get update -qq && apt-get install -y -qq chromium fonts-noto-cjk >/dev/null; }

# The suite runs on every core (pytest-xdist; each worker has its own var/ folder and test
# database). PYTEST_WORKERS=0 runs it in this process.
PYTEST_WORKERS ?= auto
test: install var browser
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Regenerate the Simplified Chinese catalog from the code and compile it (needs gettext);
# translate the new entries in locale/zh_Hans/LC_MESSAGES/*.po, then run this again.
I18N_IGNORE := --ignore=.venv --ignore=var --ignore='static/vendor/*' --ignore=tests --ignore=bench
messages: install
	@command -v msgfmt >/dev/null || { apt-get update -qq && apt-get install -y -qq gettext >/dev/null; }
	$(BIN)/python manage.py makemessages --locale=zh_Hans --domain=django --no-obsolete $(I18N_IGNORE)
	$(BIN)/python manage.py makemessages --locale=zh_Hans --domain=djangojs --no-obsolete $(I18N_IGNORE)
	$(BIN)/python manage.py compilemessages --locale=zh_Hans

bench: migrate
	$(BIN)/python bench/import_speed.py

clean:
	rm -rf $(VENV) var
