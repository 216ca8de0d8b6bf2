#!/bin/bash
# `sim-harness/experiments/run beyond-degraded --quick`: FT(4,3) and FT(4,3)
# with 2 of its 32 switch cables unplugged (topologies/ft-4-3-cut2, made by
# `ibunion topo --remove-links`), through the real OpenSM over ibsim (ftree,
# minhop), the tables read back and replayed in the timing model next to
# slid and mlid, uniform traffic on 1 VL.
#  * OpenSM's ftree routes the complete tree and refuses the degraded one
#    (it falls back to minhop): the runner says so and leaves it out there.
#  * The channel-load bound from each curve's own tables: on the complete
#    tree 1 for slid, mlid and ftree (every link carries one source's offer)
#    and 1.6 for minhop (4 of the 8 tops); with the two cables gone 2.4 for
#    every routing (a leaf left with one up link): the capacity lost is the
#    cabling's, whatever the engine.
#  * No curve stops on a credit loop, every curve ends saturated, and two
#    failed links cost mlid and slid throughput; --summary marks the
#    missing ftree curve "-"; a PNG.
# Exit 0 pass, 1 fail, 77 skip.
source "$(dirname "$0")/lib.sh"
RUN=$E2E_SRC/sim-harness/experiments/run
out=$E2E_TMP/out
csv=$out/beyond-degraded.csv
quick_experiment beyond-degraded
[ "$(head -n 1 "$csv")" = "fabric,scheme,traffic,vls,load,offered,accepted,latency_avg_ns,latency_p99_ns,ops_measured,ops_unfinished,packet_hops,wall_s,packet_hops_per_s,deadlock" ] &&
  pass "CSV header" || fail "CSV header: $(head -n 1 "$csv")"
want="ft-4-3-cut2/mlid ft-4-3-cut2/opensm-minhop ft-4-3-cut2/slid ft-4-3/mlid ft-4-3/opensm-ftree ft-4-3/opensm-minhop ft-4-3/slid"
curves=$(awk -F, 'NR > 1 {print $1 "/" $2}' "$csv" | sort -u | xargs)
[ "$curves" = "$want" ] && pass "curves: $want" || fail "curves: $curves, expected $want"
grep -qF "OpenSM could not route FT(4,3) minus 2 links with ftree and fell back to minhop: ftree left out" "$E2E_TMP/log" &&
  pass "OpenSM's ftree refuses the degraded tree, and the runner says so" ||
  { fail "no fallback line for ftree on FT(4,3) minus 2 links"; grep ftree "$E2E_TMP/log"; }
[ "$(cat "$E2E_TMP/work/quick/beyond-degraded-q-cut2-ftree/engine" 2>/dev/null)" = minhop ] &&
  pass "OpenSM's log names minhop as the engine that routed in ftree's place" ||
  fail "engine of the ftree run on the degraded tree: $(cat "$E2E_TMP/work/quick/beyond-degraded-q-cut2-ftree/engine" 2>&1)"

# Per curve (fabric/scheme): loads rising, no credit loop, the last point
# saturated by the runner's rule.
bad=$(awk -F, 'NR > 1 { k = $1 "/" $2
    if (k in last && $5 <= last[k]) print " " k ": load " $5 " after " last[k]
    if ($15 != 0) print " " k ": credit loop at load " $5
    last[k] = $5; sat[k] = ($7 < 0.95 * $6 || $11 > 0) }
  END { for (k in last) if (!sat[k]) print " " k ": ends unsaturated at load " last[k] }' "$csv")
[ -z "$bad" ] && pass "every curve rises to saturation, no credit loop" || fail "curves:$bad"

bounds=$out/beyond-degraded-bounds.csv
got=$(awk -F, 'NR > 1 {printf "%s/%s=%s ", $1, $2, $5}' "$bounds" | xargs)
want="ft-4-3/slid=1 ft-4-3/mlid=1 ft-4-3/opensm-ftree=1 ft-4-3/opensm-minhop=1.6 ft-4-3-cut2/slid=2.4 ft-4-3-cut2/mlid=2.4 ft-4-3-cut2/opensm-minhop=2.4"
[ "$got" = "$want" ] && pass "busiest link's expected load: $want" || fail "busiest link's expected load: $got, expected $want"
# Both degraded curves of ibunion's engines lose against the complete tree.
lost=$(awk -F, 'NR > 1 && ($2 == "mlid" || $2 == "slid") {m[$1 "/" $2] = $12}
  END {print (m["ft-4-3-cut2/mlid"] < m["ft-4-3/mlid"] && m["ft-4-3-cut2/slid"] < m["ft-4-3/slid"])}' "$bounds")
[ "$lost" = 1 ] && pass "two failed links cost mlid and slid throughput" || fail "degraded curves not below the complete tree's"

"$RUN" beyond-degraded --summary --out "$out" >"$E2E_TMP/summary" 2>&1
grep -q '^| fabric | traffic | VLs | slid | mlid | opensm-ftree | opensm-minhop |' "$E2E_TMP/summary" &&
  grep -q '^| ft-4-3-cut2 | uniform | 1 | [0-9.]* ([0-9]*) | [0-9.]* ([0-9]*) | - | [0-9.]* ([0-9]*) |$' "$E2E_TMP/summary" &&
  pass "--summary: the saturation table, '-' where ftree fell back" || { fail "--summary"; cat "$E2E_TMP/summary"; }
grep -q '^| ft-4-3-cut2 | uniform | 1 | opensm-minhop | 2.4 | 2.4 | ' "$E2E_TMP/summary" &&
  pass "--summary: the bound table with a fabric column" || { fail "--summary: bound table"; cat "$E2E_TMP/summary"; }
check_png "$out/beyond-degraded.png"
finish
