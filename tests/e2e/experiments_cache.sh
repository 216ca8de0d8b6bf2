#!/bin/bash
# sim-harness/experiments/run beyond reuses OpenSM's tables from an earlier
# run in --work only while what they depend on is unchanged: here the
# fabric file (a copy of the source tree's topologies, IBUNION_SRC). Each
# run is stopped (TERM) once it has said whether it reuses the tables, so
# no curve is simulated; a last run checks that the replays it starts do
# not hold its locks. Exit 0 pass, 1 fail, 77 skip (no ibsim/OpenSM).
set -uo pipefail
SRC=${IBUNION_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${IBUNION_BUILD:-$SRC}
export IBUNION_BUILD=$BUILD
command -v ibsim >/dev/null && { command -v opensm >/dev/null || [ -x /usr/sbin/opensm ]; } || { echo "SKIP: no ibsim/OpenSM"; exit 77; }
RUN=$SRC/sim-harness/experiments/run
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibunion-expcache.XXXXXX")
run_pid=""
trap '[ -z "$run_pid" ] || { kill "$run_pid"; wait "$run_pid"; } 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# A source tree whose topologies can be edited: run reads them, fabric-run
# and read-tables come from the real tree.
mkdir -p "$tmp/src/topologies" "$tmp/src/sim-harness"
cp "$SRC/topologies/ft-8-3.net" "$SRC/topologies/ft-8-3.guid2lid" "$tmp/src/topologies/"
ln -s "$SRC/sim-harness/ibsim" "$tmp/src/sim-harness/ibsim"
wait_for() {  # SECONDS CMD...
  for _ in $(seq $(($1 * 10))); do "${@:2}" && return 0; sleep 0.1; done
  return 1
}
beyond() {  # LOG UNTIL-CMD...: run beyond --quick until UNTIL-CMD holds, then TERM it
  local log=$1; shift
  IBUNION_SRC=$tmp/src "$RUN" beyond --quick --out "$tmp/out" --work "$tmp/work" 2>"$log" &
  run_pid=$!
  wait_for 180 "$@" || { fail "run beyond: $* did not happen in 180 s"; tail -n 20 "$log"; }
  kill "$run_pid" 2>/dev/null; wait "$run_pid" 2>/dev/null; run_pid=""
}
decided() {  # LOG N: N engines' tables reused or being made
  [ "$(grep -c '^run: beyond: OpenSM [a-z]* \(tables from an earlier run\|on FT(8,3)\)' "$1")" -ge "$2" ]
}

# 1. Fresh: both quick engines (ftree, minhop) run and are stamped.
beyond "$tmp/log1" test -s "$tmp/work/quick/beyond-minhop/stamp"
[ -s "$tmp/work/quick/beyond-ftree/stamp" ] && pass "first run: OpenSM ftree and minhop tables made" || fail "first run: no tables"
# 2. Nothing changed: reused.
beyond "$tmp/log2" decided "$tmp/log2" 2
[ "$(grep -c 'tables from an earlier run' "$tmp/log2")" -eq 2 ] && pass "same fabric: both tables reused" ||
  fail "same fabric: $(grep 'beyond: OpenSM' "$tmp/log2")"
# 3. The fabric file changed (as after regenerating it): OpenSM runs again.
echo "# regenerated" >>"$tmp/src/topologies/ft-8-3.net"
beyond "$tmp/log3" decided "$tmp/log3" 1
if grep -q '^run: beyond: OpenSM ftree on FT(8,3)' "$tmp/log3" && ! grep -q 'tables from an earlier run' "$tmp/log3"; then
  pass "changed fabric file: OpenSM run again"
else
  fail "changed fabric file: $(grep 'beyond: OpenSM' "$tmp/log3")"
fi

# 4. No child of run holds the --work locks: an `ibunion sim` (or OpenSM)
# still exiting after run was stopped kept the next run out with "in use by
# another run" (seen in this test, between steps 1 and 2). run's ibunion is
# here a wrapper that writes down, before it execs the real one, the files
# a replay inherits and those run has open at that moment. (Polling with
# pgrep for a live replay missed all of them in one CI run.)
mkdir "$tmp/bin" "$tmp/fds"
cat >"$tmp/bin/ibunion" <<'EOF'
#!/bin/bash
case " $* " in *" --routing dump:$EXPCACHE_WORK/beyond-"*)
  ls -l /proc/$$/fd >"$EXPCACHE_FDS/sim.$$" 2>&1
  for _ in {1..50}; do [ -s "$EXPCACHE_FDS/../run.pid" ] && break; sleep 0.1; done
  ls -l "/proc/$(cat "$EXPCACHE_FDS/../run.pid")/fd" >"$EXPCACHE_FDS/run.$$.part" 2>&1
  mv "$EXPCACHE_FDS/run.$$.part" "$EXPCACHE_FDS/run.$$" ;;
esac
exec "$EXPCACHE_IBUNION" "$@"
EOF
chmod +x "$tmp/bin/ibunion"
EXPCACHE_WORK=$tmp/work/quick EXPCACHE_FDS=$tmp/fds EXPCACHE_IBUNION=$BUILD/ibunion IBUNION_BUILD=$tmp/bin \
  IBUNION_SRC=$tmp/src "$RUN" beyond --quick --out "$tmp/out" --work "$tmp/work" 2>"$tmp/log4" &
run_pid=$!
echo "$run_pid" >"$tmp/run.pid"
replayed() { compgen -G "$tmp/fds/run.*[0-9]" >/dev/null; }
if wait_for 180 replayed; then
  held=$(cat "$tmp"/fds/sim.* | grep '\.lock' | sed 's/.*-> //' | sort -u | xargs)
  if ! grep -q "$tmp/work/quick/beyond-ftree.lock" "$tmp"/fds/run.*[0-9]; then
    fail "run holds no lock on $tmp/work/quick/beyond-ftree.lock while it replays: $(cat "$tmp"/fds/run.*[0-9])"
  elif [ -n "$held" ]; then
    fail "ibunion sim holds run's locks: $held"
  else
    pass "ibunion sim holds none of run's --work locks"
  fi
else
  fail "no ibunion sim replaying OpenSM's tables started in 180 s"; tail -n 5 "$tmp/log4"
fi
kill "$run_pid" 2>/dev/null; wait "$run_pid" 2>/dev/null; run_pid=""

[ $fails -eq 0 ] && echo "all checks passed" || echo "$fails checks failed"
exit $(( fails > 0 ))
