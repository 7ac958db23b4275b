# The two commands of the quick start: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck pytest fuzz install dev clean bench bench-dask

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@ $(STAMP)

install: $(STAMP)
dev: $(DEV_STAMP)

# Generate sitemaps for the bundled example site and for 120,000 URLs (split into an index).
demo: $(STAMP)
	$(BIN)/python examples/make_urls.py examples/urls-120k.txt.gz 120000
	$(BIN)/sitemapkit generate --base-url https://www.example.com/ \
		--dir examples/site --out demo-out/site
	$(BIN)/sitemapkit generate --base-url https://www.example.com/ \
		--urls examples/urls-120k.txt.gz --out demo-out/catalog

lint: $(DEV_STAMP)
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples

typecheck: $(DEV_STAMP)
	$(BIN)/mypy src

# pytest exits 5 when it collected no tests: not a failure of the code.
pytest: $(DEV_STAMP)
	$(BIN)/pytest -q || [ $$? -eq 5 ]

test: lint typecheck pytest

# The property tests with fresh random examples (make test always draws the same ones).
fuzz: $(DEV_STAMP)
	SITEMAPKIT_HYPOTHESIS=fuzz $(BIN)/pytest -q $$(grep -l '^from hypothesis' tests/test_*.py)

bench: $(DEV_STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/bench_writer.py

# Issue 8: 10,000,000 URLs from Parquet, SitemapWriter against Dask on 1 and 2 workers.
bench-dask: $(DEV_STAMP)
	$(BIN)/python benchmarks/bench_dask.py --urls 10000000 --shards 20 --repeat 3

clean:
	rm -rf $(VENV) demo-out .mypy_cache .ruff_cache .pytest_cache
