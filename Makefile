# The two commands a newcomer needs: `make demo` and `make test`. Both set everything up
# from scratch (a virtualenv in .venv, pinned Python packages, the Rust extension built in
# release mode) and then do their job.

VENV        := .venv
PY          := $(VENV)/bin/python
DEPS_STAMP  := $(VENV)/.deps-installed
RUST_SRC    := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml pyproject.toml
BUILD_STAMP := $(VENV)/.xlssd-built
# apt-get needs root; anyone else goes through sudo.
SUDO        := $(if $(filter 0,$(shell id -u)),,sudo)
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: demo test build browser bench clean

demo: build
	@mkdir -p out
	xlssd run --preset tiny --json out/demo-report.json

test: build browser
	cargo test --profile test-release -p xlssd-core
	$(PY) -m pytest -q

bench: build
	$(PY) benches/bench.py

build: $(BUILD_STAMP)

# The HTML report's test opens a report in headless Chromium, from Debian's packages.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing chromium (Debian package) for the HTML report's browser test"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

$(PY):
	python3 -m venv $(VENV)

$(DEPS_STAMP): requirements-dev.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@

$(BUILD_STAMP): $(DEPS_STAMP) $(RUST_SRC) $(shell find python -name '*.py' -o -name '*.toml' -o -name '*.j2')
	maturin develop --release --quiet
	@touch $@

clean:
	rm -rf $(VENV) target out
