#!/bin/bash
# fabric-run itself: results, clean stop by PID (also on failure and
# timeout), usage errors, two runs side by side.
source "$(dirname "$0")/lib.sh"
net=$TOPO/ft-4-2.net

out=$E2E_TMP/ok
# Files of an earlier run into the same DIR (another engine's, a mesh's)
# must not pass for this run's: sim dump: and verify would read them.
mkdir -p "$out"
touch "$out/ibunion-mlid-paths.dump" "$out/sl2vl.dump" "$out/keep.txt"
check "a run produces fabric.net, lfts.dump, mfts.dump" "$FABRIC_RUN" --net "$net" --engine minhop --out "$out"
[ ! -e "$out/ibunion-mlid-paths.dump" ] && [ ! -e "$out/sl2vl.dump" ] && [ -e "$out/keep.txt" ] &&
  pass "an earlier run's dumps in DIR are removed, other files kept" || fail "stale files left: $(ls "$out" | xargs)"
switches=$(grep -c '^Switch' "$net")
[ "$(grep -c 'Unicast lids' "$out/lfts.dump")" -eq "$switches" ] && pass "one LFT per switch ($switches)" || fail "LFT count"
[ "$(grep -c 'Multicast mlids' "$out/mfts.dump")" -eq "$switches" ] && pass "one MFT per switch" || fail "MFT count"
[ -z "$(survivors "$out")" ] && pass "ibsim and OpenSM stopped" || fail "processes survive a good run"

st=0; "$FABRIC_RUN" --net "$net" --out "$E2E_TMP/x" --lmc 9 >"$E2E_TMP/usage.log" 2>&1 || st=$?
[ $st -eq 2 ] && grep -q -- "--lmc: expected 0..7" "$E2E_TMP/usage.log" && pass "bad option: exit 2, option named" || fail "bad option gave $st"
st=0; "$FABRIC_RUN" --net "$E2E_TMP/none.net" --out "$E2E_TMP/x" >"$E2E_TMP/usage.log" 2>&1 || st=$?
[ $st -eq 2 ] && grep -q "none.net: cannot read" "$E2E_TMP/usage.log" && pass "missing net file: exit 2, file named" || fail "missing file gave $st"

out=$E2E_TMP/timeout
st=0; "$FABRIC_RUN" --net "$net" --engine minhop --daemon --timeout 8 --exec 'sleep 60' --out "$out" >"$E2E_TMP/t.log" 2>&1 || st=$?
[ $st -eq 1 ] && pass "a run that times out exits 1" || fail "timeout run gave $st"
[ -s "$out/pids" ] && [ -z "$(survivors "$out")" ] && pass "nothing survives a timed-out run" || fail "processes survive a timeout"

out=$E2E_TMP/badexec
st=0; "$FABRIC_RUN" --net "$net" --engine minhop --daemon --exec 'exit 3' --out "$out" >/dev/null 2>&1 || st=$?
[ $st -eq 1 ] && [ -z "$(survivors "$out")" ] && pass "a failing --exec stops everything, exit 1" || fail "failing exec gave $st"

"$FABRIC_RUN" --net "$net" --engine minhop --out "$E2E_TMP/p1" >"$E2E_TMP/p1.log" 2>&1 & a=$!
"$FABRIC_RUN" --net "$TOPO/ft-4-3.net" --engine updn --out "$E2E_TMP/p2" >"$E2E_TMP/p2.log" 2>&1 & b=$!
sa=0; wait $a || sa=$?; sb=0; wait $b || sb=$?
[ $sa -eq 0 ] && [ $sb -eq 0 ] && "$IBUNION" verify "$E2E_TMP/p2/fabric.net" --lft "$E2E_TMP/p2/lfts.dump" >/dev/null &&
  pass "two runs side by side" || fail "parallel runs: $sa $sb"
finish
