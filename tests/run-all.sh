#!/bin/bash
# The whole test suite: set-up (packages, configure, build), then
# `make check` — CUnit unit tests and the end-to-end tests that drive the
# real OpenSM with the real plugin over ibsim.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
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
count() { cat $(find tests -name '*.trs') 2>/dev/null | grep -c -E "^:test-result: ($1)" || true; }
pass=$(count PASS)
fail=$(count 'FAIL|ERROR|XPASS')
skip=$(count SKIP)
echo "tests: $pass passed, $fail failed, $skip skipped"
exit $status
