#!/bin/bash
# Fuzzes every libFuzzer target for FUZZ_SECONDS (default 15) from its
# checked-in corpus. Skips (77) when clang cannot build libFuzzer programs
# (sim-harness/setup.sh installs clang and libclang-rt-14-dev). New inputs
# go to a temp dir, never into the repo; a crash fails the test and names
# the input, which then belongs in the corpus as a regression test.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${IBUNION_BUILD:-$here/../..}
seconds=${FUZZ_SECONDS:-15}
command -v clang++ >/dev/null || { echo "SKIP: clang++ is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibunion-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' >"$tmp/probe.cc"
clang++ -fsanitize=fuzzer -o "$tmp/probe" "$tmp/probe.cc" 2>/dev/null ||
  { echo "SKIP: clang++ cannot link -fsanitize=fuzzer (libclang-rt-14-dev missing?)"; exit 77; }
# Under `make check` the parent's job slots are shared; alone, two jobs.
jobs=-j2
case "${MAKEFLAGS:-}" in *jobserver*) jobs= ;; esac
${MAKE:-make} -C "$build" $jobs fuzz >"$tmp/build.log" 2>&1 || { tail -20 "$tmp/build.log"; echo "FAIL: make fuzz"; exit 1; }
status=0
run() {  # TARGET CORPUS-DIR...
  local target=$1 work=$tmp/$1
  shift
  mkdir -p "$work/corpus" "$work/crashes"
  local i=0 f
  for f in "$@"; do cp "$f" "$work/corpus/$((i += 1))-$(basename "$f")"; done  # corpora share names
  if "$build/tests/fuzz/$target" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
      -rss_limit_mb=1024 -artifact_prefix="$work/crashes/" "$work/corpus" >"$work/log" 2>&1; then
    echo "PASS: $target: $(grep -o 'number_of_executed_units: [0-9]*' "$work/log" | awk '{print $2}') executions in ${seconds} s, no crash"
  else
    status=1
    echo "FAIL: $target crashed; input(s), to add to tests/fuzz/corpus as regression tests:"
    for c in "$work"/crashes/*; do [ -f "$c" ] && { echo "  $c"; od -c "$c" | head -5; }; done
    grep -m3 -E "ERROR|SUMMARY|runtime error" "$work/log" || tail -20 "$work/log"
    mkdir -p "$build/tests/fuzz/crashes" && cp "$work"/crashes/* "$build/tests/fuzz/crashes/" 2>/dev/null || true
  fi
}
run netfile_fuzz "$here"/corpus/netfile/*
run parsers_fuzz "$here"/corpus/dumps/* "$here"/corpus/groups/* "$here"/corpus/guid2lid/* "$here"/corpus/options/* "$here"/corpus/path-sls/*
run options_fuzz "$here"/corpus/plugin-options/*
run simconfig_fuzz "$here"/corpus/simconfig/*
run sl2vl_fuzz "$here"/corpus/sl2vl/*
exit $status
