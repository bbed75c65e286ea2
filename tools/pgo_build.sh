#!/bin/sh
# Builds the Python extension in release mode with profile-guided optimisation: an
# instrumented build first runs tools/pgo_train.py, and the compiler then lays out and
# inlines the simulator's code by what ran most (docs/benchmarks.md shows what it gains).
# Profiles change how fast the code runs, never what it computes: reports are the same
# byte for byte with or without them.
#
# Needs llvm-profdata of the compiler's own LLVM (rustup's llvm-tools component, added here
# when missing). Without it, or with XLSSD_PGO=0, this is a plain release build.
set -eu

PY=${PY:-.venv/bin/python}
# RUSTFLAGS replaces the rustflags of .cargo/config.toml, so they are read from there and
# passed on (the target CPU); the test build keeps reading them from the file itself.
CPU_FLAGS=$(sed -n 's/^rustflags = \[\(.*\)\]$/\1/p' .cargo/config.toml | tr -d '",')
[ -n "$CPU_FLAGS" ] || { echo "tools/pgo_build.sh: no rustflags line in .cargo/config.toml" >&2; exit 1; }
DIR="$(pwd)/target/pgo"

plain() {
    echo "building without profile guidance: $1"
    maturin develop --release --quiet
    exit 0
}

[ "${XLSSD_PGO:-1}" = 0 ] && plain "XLSSD_PGO=0"
HOST=$(rustc -vV | sed -n 's/^host: //p')
PROFDATA="$(rustc --print sysroot)/lib/rustlib/$HOST/bin/llvm-profdata"
if [ ! -x "$PROFDATA" ]; then
    timeout 120 rustup component add llvm-tools >/dev/null 2>&1 || true
fi
[ -x "$PROFDATA" ] || plain "no llvm-profdata in the toolchain (rustup component add llvm-tools)"

echo "profile-guided build: instrumented build, training runs, final build"
# The instrumented build has a target folder of its own, so that neither build makes the
# other start again from scratch. It is built as the final one is: built faster (without
# link-time optimisation, in more units), its profile would fit the final code worse and
# gain less than half as much (docs/benchmarks.md).
RUSTFLAGS="$CPU_FLAGS -C profile-generate=$DIR/raw" CARGO_TARGET_DIR=target/pgo-gen \
    maturin develop --release --quiet
# Build scripts ran instrumented too; only the training runs' profiles are kept.
rm -rf "$DIR/raw"
mkdir -p "$DIR/raw"
LLVM_PROFILE_FILE="$DIR/raw/%p-%m.profraw" "$PY" tools/pgo_train.py
"$PROFDATA" merge -o "$DIR/merged.profdata" "$DIR/raw"
# About 3 MB per training run, merged now.
rm -rf "$DIR/raw"
# A run's profile is written as its process exits (C's exit functions): a process that
# left without them wrote none. With too few counts the compiler would take nearly all the
# code for cold and optimise it for size, slower than no profile at all.
COUNT=$("$PROFDATA" show "$DIR/merged.profdata" | sed -n 's/^Total count: //p')
[ "${COUNT:-0}" -ge 100000000 ] || plain "the training runs' profiles hold ${COUNT:-no} counts (expected billions)"
RUSTFLAGS="$CPU_FLAGS -C profile-use=$DIR/merged.profdata" maturin develop --release --quiet
