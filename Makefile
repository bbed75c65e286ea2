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

.PHONY: demo test build browser rustfmt bench clean fuzz fuzz-tools fuzz-cmin

demo: build
	@mkdir -p out
	xlssd run --preset tiny --json out/demo-report.json

# The Python suite is bound by the processor: it runs on PYTEST_WORKERS processes
# (pytest-xdist), each test file on one of them, so that a file's shared fixtures (a quick
# reproduction, say) run once. PYTEST_WORKERS=0 runs it in this process alone.
PYTEST_WORKERS ?= 2

test: build browser rustfmt
	cargo test --profile test-release -p xlssd-core
	$(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile

bench: build
	$(PY) benches/bench.py

build: $(BUILD_STAMP)

# The formatting test (crates/xlssd-core/tests/tidy.rs) runs `cargo fmt --check`.
rustfmt:
	@cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt

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

# The extension is built with profile-guided optimisation (tools/pgo_build.sh: an
# instrumented build, training runs, the final build; XLSSD_PGO=0 skips it). The package's
# bytecode is compiled here, once: where PYTHONDONTWRITEBYTECODE is set, Python would
# otherwise compile every module from source at each command's start (about 20 ms of each
# `xlssd` call). A module edited later is recompiled in memory as usual.
$(BUILD_STAMP): $(DEPS_STAMP) $(RUST_SRC) tools/pgo_build.sh tools/pgo_train.py $(shell find python -name '*.py' -o -name '*.toml' -o -name '*.j2')
	PY=$(PY) sh tools/pgo_build.sh
	$(PY) -m compileall -q python/xlssd
	@touch $@

# Coverage-guided fuzzing (docs/testing.md): `make fuzz` runs every target in turn for
# FUZZ_SECONDS each, one at a time; FUZZ_TARGET picks one. The Rust targets (fuzz/, a
# cargo-fuzz crate outside the workspace) need nightly Rust and cargo-fuzz, installed here
# when missing; the Python targets need atheris, installed into .venv. Each target grows
# its corpus in fuzz/corpus/<target>; `make fuzz-cmin` minimises the Rust corpora again.
FUZZ_SECONDS     ?= 3600
FUZZ_TARGET      ?= all
RUST_FUZZ        := trace workload_spec config
PY_FUZZ          := sweep_spec py_config
FUZZ_NICE        := nice -n 10
CARGO_FUZZ       := cargo +nightly fuzz
# Safe Rust needs no AddressSanitizer; debug assertions and overflow checks stay on.
FUZZ_BUILD_FLAGS := --sanitizer none --debug-assertions
ATHERIS_VERSION  := 3.0.0
CARGO_FUZZ_VERSION := 0.13.2
ATHERIS_STAMP    := $(VENV)/.atheris-installed
FUZZ_SELECTED    := $(if $(filter all,$(FUZZ_TARGET)),$(RUST_FUZZ) $(PY_FUZZ),$(FUZZ_TARGET))

fuzz: fuzz-tools
	@for t in $(FUZZ_SELECTED); do \
		case " $(RUST_FUZZ) " in *" $$t "*) \
			mkdir -p fuzz/corpus/$$t fuzz/artifacts/$$t; \
			echo "fuzzing $$t (Rust, cargo-fuzz) for $(FUZZ_SECONDS) s"; \
			( cd fuzz && $(FUZZ_NICE) $(CARGO_FUZZ) run $(FUZZ_BUILD_FLAGS) $$t corpus/$$t -- \
				-max_total_time=$(FUZZ_SECONDS) -artifact_prefix=artifacts/$$t/ -print_final_stats=1 ) \
				< /dev/null || exit 1; continue;; esac; \
		case " $(PY_FUZZ) " in *" $$t "*) \
			mkdir -p fuzz/corpus/$$t fuzz/artifacts/$$t; \
			echo "fuzzing $$t (Python, atheris) for $(FUZZ_SECONDS) s"; \
			$(FUZZ_NICE) $(PY) fuzz/python/fuzz_$$t.py fuzz/corpus/$$t -max_total_time=$(FUZZ_SECONDS) \
				-artifact_prefix=fuzz/artifacts/$$t/ -print_final_stats=1 < /dev/null || exit 1; continue;; esac; \
		echo "unknown FUZZ_TARGET $$t; targets: $(RUST_FUZZ) $(PY_FUZZ)"; exit 2; \
	done

# Minimises the corpora in place: the smallest set of inputs that keeps every feature
# (libFuzzer's -set_cover_merge=1), plus every crash-* reproducer, kept whatever it covers.
# For the targets in FUZZ_EDGES_ONLY a feature is an edge, without its hit counts: the
# config target's thousands of edges (every key's parsing and checks) would otherwise keep
# thousands of files.
FUZZ_EDGES_ONLY  := config
fuzz-cmin: fuzz-tools
	@for t in $(FUZZ_SELECTED); do \
		rm -rf fuzz/corpus/$$t.cmin fuzz/corpus/$$t.crashes && mkdir -p fuzz/corpus/$$t.cmin fuzz/corpus/$$t.crashes && \
		{ cp fuzz/corpus/$$t/crash-* fuzz/corpus/$$t.crashes/ 2>/dev/null || true; } && \
		case " $(RUST_FUZZ) " in \
			*" $$t "*) edges=$$(case " $(FUZZ_EDGES_ONLY) " in *" $$t "*) echo -use_counters=0;; esac); \
				( cd fuzz && $(FUZZ_NICE) $(CARGO_FUZZ) cmin $(FUZZ_BUILD_FLAGS) $$t corpus/$$t -- -set_cover_merge=1 $$edges ) \
				< /dev/null && rmdir fuzz/corpus/$$t.cmin ;; \
			*) $(FUZZ_NICE) $(PY) fuzz/python/fuzz_$$t.py -set_cover_merge=1 fuzz/corpus/$$t.cmin fuzz/corpus/$$t < /dev/null && \
				{ [ -n "$$(ls fuzz/corpus/$$t.cmin)" ] || { echo "$$t: the merge kept nothing; corpus left as it was"; exit 1; }; } && \
				rm -rf fuzz/corpus/$$t && mv fuzz/corpus/$$t.cmin fuzz/corpus/$$t ;; \
		esac && cp fuzz/corpus/$$t.crashes/* fuzz/corpus/$$t/ 2>/dev/null; rm -rf fuzz/corpus/$$t.crashes; \
		echo "$$t: $$(ls fuzz/corpus/$$t | wc -l) files"; done

# nightly Rust and cargo-fuzz for the Rust targets, atheris for the Python ones.
fuzz-tools: build $(ATHERIS_STAMP)
	@rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
	@cargo +nightly fuzz --version >/dev/null 2>&1 || cargo +nightly install cargo-fuzz --version $(CARGO_FUZZ_VERSION) --locked

$(ATHERIS_STAMP): $(DEPS_STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check atheris==$(ATHERIS_VERSION)
	@touch $@

clean:
	rm -rf $(VENV) target out fuzz/target fuzz/artifacts
