#!/bin/bash
# The whole test suite: set-up (packages, configure, build), then
# `make check` — CUnit unit tests and the end-to-end tests that drive the
# real OpenSM with the real plugin over ibsim.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# No options: '--help' ran the whole job (tens of minutes for the tests).
case ${1-} in
  "") ;;
  -h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
  *) echo "$(basename "$0"): takes no arguments, got '$1' (see --help)" >&2; exit 2 ;;
esac
bash "$top/sim-harness/setup.sh"
cd "$top"
status=0
make -j"$(nproc)" check || status=$?
# Show every test's own log on failure, so CI output says what broke.
if [ $status -ne 0 ]; then
  for log in $(find tests -name '*.log' ! -name test-suite.log); do
    if grep -q -E '^(FAIL|ERROR)' "${log%.log}.trs" 2>/dev/null; then
      echo "===== $log"; tail -n 60 "$log"
    fi
  done
fi
# The core, CLI and timing model again under ASan + UBSan (separate build).
if ! bash "$top/tests/run-sanitized.sh" >"$top/tests/sanitized.log" 2>&1; then
  status=1
  echo "===== sanitized build (tests/sanitized.log)"; tail -n 60 "$top/tests/sanitized.log"
fi
grep -E '^(PASS|FAIL|ERROR|SKIP):' "$top/tests/sanitized.log" | sed 's/^/sanitized /' || true
count() { cat $(find tests build-san/tests -name '*.trs' 2>/dev/null) 2>/dev/null | grep -c -E "^:test-result: ($1)" || true; }
pass=$(count PASS)
fail=$(count 'FAIL|ERROR|XPASS')
skip=$(count SKIP)
echo "tests: $pass passed, $fail failed, $skip skipped"
# A skip means something the test needs is missing. As root, setup.sh has
# installed all of it (CI runs so), so a skip there hides a broken set-up
# or test and fails the run; other users may lack what only root installs
# (sim_jobs.sh's Slurm half).
if [ "$skip" -gt 0 ]; then
  echo "skipped: $(grep -l -E '^:test-result: SKIP' $(find tests build-san/tests -name '*.trs' 2>/dev/null) 2>/dev/null | xargs)"
  if [ "$(id -u)" -eq 0 ]; then
    echo "run-all: $skip test(s) skipped although setup.sh ran as root: failing the run" >&2
    status=1
  fi
fi
exit $status
