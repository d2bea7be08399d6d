# The targets a new user, a developer and CI call. `make demo` and `make test` are the two
# commands in the README; CI runs `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# Tests use their own embedded server folder, so a test run never touches the demo's data.
TEST_DATA_DIR ?= $(CURDIR)/var/test

.PHONY: install install-dev demo serve serve-asgi test lint format stop bench clean docs

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e .
	touch $@

install-dev: $(VENV)/.installed-dev

$(VENV)/.installed-dev: $(VENV)/.installed
	$(PIP) install --quiet -e ".[dev]"
	@# Browser tests drive Debian's Chromium; Playwright's own browser download cannot work here.
	@if ! command -v chromium >/dev/null 2>&1; then \
		if [ "$$(id -u)" = "0" ]; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		else \
			echo "chromium is missing: install it (apt-get install chromium) or browser tests are skipped"; \
		fi; \
	fi
	touch $@

# `make demo PORT=8001` serves on another port.
PORT ?= 8000

demo: install
	$(PY) manage.py migrate --no-input
	$(PY) manage.py create_demo_users
	$(PY) manage.py import_memories demo/memories.jsonl
	$(PY) manage.py demo_pipeline
	@echo "Serving on http://127.0.0.1:$(PORT) (Ctrl-C to stop). New demo passwords:"
	@echo "  MEMADMIN_DEMO_CURATOR_PASSWORD=... MEMADMIN_DEMO_ADMIN_PASSWORD=... make demo"
	$(PY) manage.py runserver 127.0.0.1:$(PORT)

# The manual (docs/) as a site in var/site; strict: a broken link fails.
docs: install-dev
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet
	@echo "The site is in var/site (open var/site/index.html)"

serve: install
	$(PY) manage.py runserver 127.0.0.1:8000

# The whole app under an ASGI server: the pages, the JSON API and MCP at /mcp/<namespace>/.
serve-asgi: install
	$(PY) manage.py migrate --no-input
	$(PY) -m uvicorn memadmin.asgi:application --host 127.0.0.1 --port 8000

test: install-dev lint
	MEMADMIN_DATA_DIR=$(TEST_DATA_DIR) $(PY) -m pytest

lint: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install-dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

stop: install
	$(PY) -m memadmin.embedded_db stop
	MEMADMIN_DATA_DIR=$(TEST_DATA_DIR) $(PY) -m memadmin.embedded_db stop

# Every benchmark, one after another (long: the find_duplicates scenarios alone take about
# half an hour here); `make bench-NAME` runs one, e.g. `make bench-embed`. They print
# figures; none is a test.
BENCHES := embed calibrate import_mixed find_duplicates api_write review_pages

bench: install
	@for name in $(BENCHES); do echo "== bench/$$name.py"; $(PY) bench/$$name.py || exit 1; done

bench-%: install
	$(PY) bench/$*.py

clean: stop
	rm -rf var
