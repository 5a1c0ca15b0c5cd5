# ICML 2026 in Code: every command sets up what it needs (a .venv with the pinned
# environment, MathJax from npm) on first use.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NPM_STAMP := node_modules/.installed
BROWSER_STAMP := build/.browser
TEX_STAMP := build/.texlive
# Debian's TeX Live with XeLaTeX (the chapters are full of Unicode), its free fonts, xindy
# for the index, librsvg for SVG figures and poppler for the PDF check (measured: ~4 min to
# install on a fresh machine, 120 MB of packages).
TEX_PACKAGES := texlive-xetex texlive-latex-recommended texlive-latex-extra \
	texlive-fonts-recommended texlive-plain-generic tex-gyre latexmk xindy fonts-freefont-otf \
	fonts-dejavu-core librsvg2-bin poppler-utils
JOBS ?= 2

.PHONY: help venv book pdf test test-portable lint typecheck format notebooks paper lab bench bench-check lock clean

help:
	@echo "make venv       create .venv with the pinned environment (every target does this first)"
	@echo "make book       build the HTML book into book/_build/html (offline, from committed outputs)"
	@echo "make pdf        build the whole book as one PDF (book/_build/latex/icml26-book.pdf) and check it"
	@echo "make test       lint, unit tests, pair sync, nbval on every chapter, book build and site checks"
	@echo "make test-portable  nbval again under a deliberately different numeric configuration"
	@echo "make notebooks  re-execute the chapters whose .py or imported modules changed (NB=... for one)"
	@echo "make paper      run chapters at paper scale (NB=notebooks/NN-slug.py for one) and record them"
	@echo "make lab        JupyterLab on the paired notebooks"
	@echo "make bench      time kernels (8 worker processes per ISA configuration, the book's twice),"
	@echo "                scaling curves and notebooks; 40-60 min per run on 2 quiet cores (not in make test)"
	@echo "make bench-check  rerun the kernel timings; fail if a ratio left its interval (40-60 min)"
	@echo "make lint       ruff check and format check"
	@echo "make format     apply ruff's fixes and formatting"
	@echo "make typecheck  mypy on the whole library, part of make test"
	@echo "make lock       rewrite requirements-lock.txt from the installed environment"
	@echo "make clean      remove the build outputs (keeps .venv and node_modules)"

$(STAMP): requirements-lock.txt pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) on PATH"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-lock.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/python -m icml26.pipeline.notebooks kernel
	touch $@

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Debian's Chromium and ChromeDriver for the browser tests of the built book and of JupyterLab
# (nothing else is downloaded: no browser build of a test tool's own). Installing them needs
# root: as root it is done here, with password-less sudo through sudo, otherwise the command
# to run is printed.
APT_BROWSER := apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	chromium chromium-driver
$(BROWSER_STAMP):
	@mkdir -p build
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
		echo "installing Debian's chromium and chromium-driver for the browser tests"; \
		if [ "$$(id -u)" = 0 ]; then $(APT_BROWSER); \
		elif sudo -n true 2>/dev/null; then sudo sh -c '$(APT_BROWSER)'; \
		else echo "the browser tests need Debian's chromium and chromium-driver; as root run:"; \
			echo "  apt-get install chromium chromium-driver"; exit 1; fi; }
	touch $@

$(TEX_STAMP):
	@mkdir -p build
	@for c in xelatex latexmk xindy rsvg-convert pdftotext pdfimages; do \
		command -v $$c >/dev/null || missing=1; done; \
	fc-list | grep -qi freeserif && fc-list | grep -qi "dejavu sans mono" || missing=1; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian's TeX Live, librsvg and poppler for the PDF edition"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $(TEX_PACKAGES); fi
	touch $@

venv: $(STAMP)

book: $(STAMP) $(NPM_STAMP)
	$(BIN)/python -m icml26.pipeline.book build

# The PDF edition through Jupyter Book's LaTeX builder, then the HTML book again (it links the
# PDF and copies it into its site), then the check of the PDF (tests/test_book.py -m pdf).
pdf: $(STAMP) $(NPM_STAMP) $(TEX_STAMP)
	$(BIN)/python -m icml26.pipeline.book pdf
	$(BIN)/python -m icml26.pipeline.book build
	$(BIN)/python -m pytest -q -m pdf tests/test_book.py

test: $(STAMP) $(NPM_STAMP) $(BROWSER_STAMP)
	$(MAKE) lint
	$(MAKE) typecheck
	$(BIN)/python -m pytest -q -n $(JOBS) -m "not book and not lab and not pdf" tests
	$(BIN)/python -m pytest -q -n $(JOBS) --dist loadfile --nbval --nbval-current-env \
		--nbval-sanitize-with tests/nbval_sanitize.cfg notebooks
	$(BIN)/python -m pytest -q -m book tests/test_book.py
	$(BIN)/python -m pytest -q -m lab tests/test_lab.py
	@echo "screenshots of every chapter page: build/screenshots/"

# The committed outputs must not depend on the machine's numeric code paths: every notebook
# again, with vectorised ATen kernels off, MKL's compatible branch, oneDNN on SSE4.1, NumPy on
# its baseline and two threads (icml26.runtime.numeric_env), compared as make test does.
test-portable: $(STAMP)
	ICML26_NUMERICS=other-machine $(BIN)/python -m pytest -q -n $(JOBS) --dist loadfile \
		--nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg notebooks

lint: $(STAMP)
	$(BIN)/ruff check lib tests notebooks/*.py benchmarks book/_ext
	$(BIN)/ruff format --check lib tests notebooks/*.py benchmarks book/_ext

typecheck: $(STAMP)
	$(BIN)/python -m mypy

format: $(STAMP)
	$(BIN)/ruff check --fix lib tests notebooks/*.py benchmarks book/_ext
	$(BIN)/ruff format lib tests notebooks/*.py benchmarks book/_ext

notebooks: $(STAMP)
	$(BIN)/python -m icml26.pipeline.notebooks execute $(if $(NB),$(NB),--changed)

paper: $(STAMP)
	$(BIN)/python -m icml26.pipeline.paper run $(NB)

lab: $(STAMP)
	$(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) notebooks

# Timings are taken by independent worker processes, each started with the numeric
# configuration of icml26.runtime.numeric_env (and the ATen ISA under test) in its environment
# before torch loads (benchmarks/workers.py). bench writes benchmarks/results.json, the baseline
# that bench-check compares a rerun with on the same machine, and the page's results.md.
bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

bench-check: $(STAMP)
	$(BIN)/python -m benchmarks.run --check

lock: $(STAMP)
	$(BIN)/python -m pip freeze --exclude-editable | sed 's/^torch==\(.*\)+cpu$$/torch==\1/' \
		| cat <(head -2 requirements-lock.txt) - > requirements-lock.tmp && mv requirements-lock.tmp requirements-lock.txt

clean:
	rm -rf book/_build build .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -not -path './.venv/*' -prune -exec rm -rf {} +
