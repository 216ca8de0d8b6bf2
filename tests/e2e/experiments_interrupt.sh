#!/bin/bash
# sim-harness/experiments/run stopped by TERM midway (a batch system's
# timeout, `kill`): it exits at once, stops what it started (the `ibunion
# sim` of a running point; fabric-run with its OpenSM and ibsim) and leaves
# neither a CSV nor its temp dir. And a second run on the same --work
# while the first runs OpenSM is refused. Exit 0 pass, 1 fail, 77 skip (no ibsim/
# OpenSM for the second half).
set -uo pipefail
SRC=${IBUNION_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${IBUNION_BUILD:-$SRC}
export IBUNION_SRC=$SRC IBUNION_BUILD=$BUILD
RUN=$SRC/sim-harness/experiments/run
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibunion-expint.XXXXXX")
run_pid=""
# Our own processes only: their command lines hold this test's temp dir.
ours() { pgrep -f "$1.*$tmp" | xargs; }
stop_ours() { local p; for p in $(ours ibunion) $(ours fabric-run); do kill "$p" 2>/dev/null; done; }
trap '[ -z "$run_pid" ] || kill "$run_pid" 2>/dev/null; stop_ours; rm -rf "$tmp"' EXIT
export TMPDIR=$tmp  # run's temp dir (and so the points' --csv files) in here
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
wait_for() {  # SECONDS CMD...: poll CMD every 0.1 s
  for _ in $(seq $(($1 * 10))); do "${@:2}" && return 0; sleep 0.1; done
  return 1
}
stop_run() {  # WHAT: TERM run, wait for it; sets took_ms
  local t0
  t0=$(date +%s%N)
  kill -TERM "$run_pid"
  wait "$run_pid"
  took_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  run_pid=""
  echo "  $1: run exited ${took_ms} ms after TERM"
}
no_temp_left() {
  local left
  left=$(ls -A "$tmp" | grep '^ibunion-run\.' || true)
  [ -z "$left" ] && pass "$1: no run temp dir left" || fail "$1: left $left"
}

# --- a point running: seed000's first 8 KB point (40% -> 40% unicast on the
# 16x16 mesh) runs for seconds, so it is still running when run is stopped.
"$RUN" seed000 --quick --out "$tmp/out1" --work "$tmp/work1" 2>"$tmp/log1" &
run_pid=$!
if wait_for 120 pgrep -f "ibunion sim .*--msg 8192.*$tmp" >/dev/null; then
  sleep 0.3
  stop_run "seed000, an 8 KB point running"
  left=$(ours "ibunion sim")
  [ -z "$left" ] && pass "seed000: no ibunion sim left running" || fail "seed000: ibunion sim still running: PIDs $left"
  [ -z "$(ls -A "$tmp/out1" 2>/dev/null)" ] && pass "seed000: no CSV written" || fail "seed000: wrote $(ls "$tmp/out1")"
  no_temp_left seed000
else
  fail "seed000 --quick started no 8 KB point in 120 s"; cat "$tmp/log1"
fi

# --- OpenSM running under fabric-run (seed002's joins) -------------------------
if ! command -v ibsim >/dev/null || ! { command -v opensm >/dev/null || [ -x /usr/sbin/opensm ]; }; then
  echo "SKIP: no ibsim/OpenSM"
  [ $fails -eq 0 ] && exit 77 || exit 1
fi
pids=$tmp/work2/quick/seed002-opensm/run/pids
"$RUN" seed002 --quick --out "$tmp/out2" --work "$tmp/work2" 2>"$tmp/log2" &
run_pid=$!
if wait_for 120 grep -q '^opensm ' "$pids" 2>/dev/null; then
  read -r _ ibsim_pid < <(grep '^ibsim ' "$pids")
  read -r _ osm_pid < <(grep '^opensm ' "$pids")
  # A second run on the same --work would remove and redo these tables
  # (and their MLIDs) under the first: refused, naming --work.
  timeout 60 "$RUN" seed002 --quick --out "$tmp/out3" --work "$tmp/work2" >/dev/null 2>"$tmp/log3"
  rc=$?
  if [ $rc -eq 2 ] && grep -qF "run: --work $tmp/work2/quick: seed002-opensm is in use by another run" "$tmp/log3"; then
    pass "seed002: a second run on the same --work: $(cat "$tmp/log3")"
  else
    fail "seed002: a second run on the same --work: exit $rc, $(tail -n 3 "$tmp/log3")"
  fi
  stop_run "seed002, OpenSM joining"
  # fabric-run's own cleanup: TERM, KILL after 5 s.
  [ "$took_ms" -lt 8000 ] && pass "seed002: run stopped within 8 s (${took_ms} ms)" ||
    fail "seed002: run took ${took_ms} ms to stop (it waited for the OpenSM run)"
  alive=""
  for p in "$ibsim_pid" "$osm_pid"; do kill -0 "$p" 2>/dev/null && alive+=" $p"; done
  [ -z "$alive" ] && pass "seed002: OpenSM ($osm_pid) and ibsim ($ibsim_pid) stopped" || fail "seed002: still running:$alive"
  left=$(ours fabric-run)
  [ -z "$left" ] && pass "seed002: no fabric-run left" || fail "seed002: fabric-run still running: $left"
  [ ! -e "$tmp/work2/quick/seed002-opensm/stamp" ] && pass "seed002: no stamp for the interrupted OpenSM run" ||
    fail "seed002: the interrupted OpenSM run was stamped as complete"
  [ -z "$(ls -A "$tmp/out2" 2>/dev/null)" ] && pass "seed002: no CSV written" || fail "seed002: wrote $(ls "$tmp/out2")"
  no_temp_left seed002
else
  fail "seed002 --quick: no OpenSM in 120 s"; tail -n 20 "$tmp/log2"
fi

[ $fails -eq 0 ] && echo "all checks passed" || echo "$fails checks failed"
exit $(( fails > 0 ))
