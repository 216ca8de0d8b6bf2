#!/bin/bash
# `sim-harness/experiments/run beyond-mesh --quick`: the 4x4 mesh through the
# real OpenSM over ibsim (dor, minhop, and dor with the port order of
# `ibunion inspect --dor-order`), the tables read back and replayed in the
# timing model next to XY routing, 1 and 2 VLs. Checks: the CSV's layout
# (a deadlock column), every curve there, dor with the port order found
# equal to XY, XY and dor (deadlock-free routings) never stopped by a credit
# loop while minhop on one VL is (it deadlocks on a mesh: tests/e2e/
# mesh_opensm.sh), a curve ends at its credit loop or at saturation, the
# channel-load bounds of the tables and the curves below them, the
# summary's credit-loop table, the PNG; then beyond-mesh-perm --quick on the
# same tables (below). Exit 0 pass, 1 fail, 77 skip.
source "$(dirname "$0")/lib.sh"
RUN=$E2E_SRC/sim-harness/experiments/run
out=$E2E_TMP/out
quick_experiment beyond-mesh
csv=$out/beyond-mesh.csv
want="fabric,scheme,traffic,vls,load,offered,accepted,latency_avg_ns,latency_p99_ns,ops_measured,ops_unfinished,packet_hops,wall_s,packet_hops_per_s,deadlock"
[ "$(head -n 1 "$csv")" = "$want" ] && pass "CSV header with a deadlock column" || fail "CSV header: $(head -n 1 "$csv")"
curves=$(awk -F, 'NR > 1 {print $2 "/" $4}' "$csv" | sort -u | xargs)
[ "$curves" = "opensm-dor/1 opensm-dor/2 opensm-minhop/1 opensm-minhop/2 xy/1 xy/2" ] &&
  pass "curves: xy, OpenSM dor and minhop at 1 and 2 VLs" || fail "curves: $curves"
grep -q "OpenSM dor with ibunion's port order (inspect --dor-order) routes XY entry for entry, no credit loop" "$E2E_TMP/log" &&
  pass "dor with the port order checked equal to XY" || fail "no dor-with-port-order check in the log"

# Per curve: 15 fields, a 0/1 flag, loads rising; a credit loop ends its
# curve; a curve without one ends saturated (the runner's rule).
report=$(awk -F, 'NR > 1 {
  k = $2 " " $4 "VL"
  if (NF != 15 || ($15 != 0 && $15 != 1)) print "FAIL: " k ": row " NR " malformed"
  if (k in last) { if ($5 <= last[k]) print "FAIL: " k ": load " $5 " after " last[k]; if (dl[k]) print "FAIL: " k ": a point after its credit loop" }
  last[k] = $5; dl[k] = $15; sat[k] = ($7 < 0.95 * $6 || $11 > 0)
} END { for (k in last) { if (!dl[k] && !sat[k]) print "FAIL: " k ": ends neither saturated nor at a credit loop"
          printf "curve %s: ends at load %s%s\n", k, last[k], dl[k] ? " (credit loop)" : "" } }' "$csv")
echo "$report" | grep '^curve' | sort | sed 's/^/  /'
if grep -q '^FAIL' <<<"$report"; then fail "curve shapes"; grep '^FAIL' <<<"$report"; else pass "each curve ends at saturation or at its credit loop"; fi
loops=$(awk -F, 'NR > 1 && $15 == 1 {print $2 "/" $4}' "$csv" | xargs)
case " $loops " in *" xy/"*|*" opensm-dor/"*) fail "a credit loop under a deadlock-free routing: $loops" ;;
  *" opensm-minhop/1 "*) pass "credit loops only under minhop, on 1 VL among them: $loops" ;;
  *) fail "minhop on 1 VL not stopped by a credit loop (loops: ${loops:-none})" ;; esac

# The channel-load bounds of the read-back tables: XY loads the 4x4 mesh's
# busiest link with 16/15 of a source's offer (its bisection: 8 sources
# each way, 8/15 of their messages across, over 4 links), dor 28/15 (it
# goes Y first toward one quadrant), so dor's bound is the lower; every
# curve saturates (or meets its credit loop) by its bound, and minhop's
# 1-VL curve ends at its credit loop. "By": the saturation rule judges all
# traffic, and a little over the bound on the few busiest channels does
# not show in it (dor, 2 VLs: 0.4 sustained, bound 0.398), so 1.05x.
b=$out/beyond-mesh-bounds.csv
links=$(awk -F, 'NR > 1 && $4 == 1 {printf "%s=%s ", $2, $5}' "$b")
[ "$links" = "xy=1.06667 opensm-dor=1.86667 opensm-minhop=1.26667 " ] &&
  pass "busiest link per routing (1 = a source's offer): $links" || fail "busiest links: ${links:-no $b}"
bad=$(awk -F, 'NR > 1 && ($13 == "" || $10 > 1.05 * $8 || ($2 == "opensm-minhop" && $4 == 1 && $13 != "deadlock")) {
  print " " $2 "/" $4 "VL: sustained " $10 " (" $13 ") vs bound " $8 }' "$b")
[ -z "$bad" ] && pass "every curve saturates by its bound; minhop on 1 VL stops at its credit loop" || fail "model vs bound:$bad"

"$RUN" beyond-mesh --summary --out "$out" >"$E2E_TMP/summary" 2>&1
grep -q '^| mesh-4x4 | opensm-minhop | uniform | 1 | ' "$E2E_TMP/summary" && grep -q '^| mesh-4x4 | uniform | 2 | ' "$E2E_TMP/summary" &&
  grep -q '^| uniform | 1 | opensm-minhop | 1.267 | 1.267 | 0.3771 (channel) | 0.2 | credit loop | 0.53 |$' "$E2E_TMP/summary" &&
  pass "--summary: saturation table, credit-loop table and bound table" || { fail "--summary"; cat "$E2E_TMP/summary"; }
if command -v gnuplot >/dev/null; then
  [ "$(head -c 4 "$out/beyond-mesh.png" | od -An -c | tr -d ' ')" = "211PNG" ] && pass "PNG written" || fail "no PNG"
fi

# beyond-mesh-perm --quick: the same read-back tables (same --work, not
# made again) under transpose and a shift by half a row (x + 2). XY and
# dor put 3 transpose flows on their busiest link, minhop 2 (it does not
# turn at one corner), and the model's best point sits within 5% of the
# fluid max-min rate of its tables at that load.
if IBUNION_SRC=$E2E_SRC IBUNION_BUILD=$E2E_BUILD "$RUN" beyond-mesh-perm --quick --out "$out" --work "$E2E_TMP/work" \
    >"$E2E_TMP/perm.log" 2>&1; then
  pass "run beyond-mesh-perm --quick"
else
  fail "run beyond-mesh-perm --quick"; tail -n 30 "$E2E_TMP/perm.log"; finish
fi
reused=$(grep -c 'OpenSM .* tables from an earlier run' "$E2E_TMP/perm.log" || true)
[ "$reused" = 2 ] && pass "beyond-mesh's OpenSM tables reused (dor, minhop)" || fail "tables reused $reused times, expected 2"
pcsv=$out/beyond-mesh-perm.csv
[ "$(head -n 1 "$pcsv")" = "$want" ] && pass "permutation CSV with a deadlock column" || fail "CSV header: $(head -n 1 "$pcsv")"
curves=$(awk -F, 'NR > 1 {print $2 "/" $3}' "$pcsv" | sort -u | xargs)
[ "$curves" = "opensm-dor/shift:8 opensm-dor/transpose opensm-minhop/shift:8 opensm-minhop/transpose xy/shift:8 xy/transpose" ] &&
  pass "curves: xy, dor, minhop under transpose and shift:8" || fail "curves: $curves"
busiest=$(awk -F, 'NR > 1 && $3 == "transpose" {printf "%s=%s ", $2, $6}' "$out/beyond-mesh-perm-flows.csv")
[ "$busiest" = "xy=3 opensm-dor=3 opensm-minhop=2 " ] && pass "transpose's busiest link: $busiest" ||
  fail "transpose's busiest link: ${busiest:-no flows CSV}"
off=$(awk -F, 'NR > 1 && ($10 <= 0 || $11 < 0.95 * $10 || $11 > 1.05 * $10) {print " " $2 "/" $3 ": model " $11 " fluid " $10}' \
  "$out/beyond-mesh-perm-flows.csv")
[ -z "$off" ] && pass "every curve's best point within 5% of its fluid rate" || fail "model vs fluid:$off"
"$RUN" beyond-mesh-perm --summary --out "$out" >"$E2E_TMP/perm-summary" 2>&1
grep -q '^| mesh-4x4 | transpose | 1 | ' "$E2E_TMP/perm-summary" && grep -q '^| transpose | 1 | opensm-minhop | 2 | 2 | ' "$E2E_TMP/perm-summary" &&
  pass "--summary: saturation and flow tables" || { fail "--summary"; cat "$E2E_TMP/perm-summary"; }
if command -v gnuplot >/dev/null; then
  [ "$(head -c 4 "$out/beyond-mesh-perm.png" | od -An -c | tr -d ' ')" = "211PNG" ] && pass "permutation PNG written" ||
    fail "no permutation PNG"
fi
finish
