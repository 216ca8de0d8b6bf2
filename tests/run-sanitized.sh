#!/bin/bash
# The core, CLI and timing model under AddressSanitizer + UBSan: a second
# build of the source files in build-san/ (the tree itself keeps its normal
# build) and its unit tests, fuzz-corpus replay and the topology
# regeneration check. The plugin runs inside OpenSM, which is not built
# with ASan; it is covered by the normal end-to-end tests.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bash "$top/sim-harness/setup.sh" >/dev/null
san=$top/build-san
mkdir -p "$san"
cd "$top"
git ls-files -co --exclude-standard | tar -cf - -T - | tar -xf - -C "$san"
cd "$san"
[ -x configure ] || autoreconf -fi >/dev/null 2>&1
[ -f Makefile ] || ./configure -q --enable-sanitizers
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
make -j"$(nproc)" ibunion >/dev/null
make -j"$(nproc)" check TESTS="tests/unit/unit_tests tests/unit/timing_tests tests/fuzz/run_corpus.sh tests/cli_errors.sh tests/e2e/topologies_regenerate.sh"
