#!/bin/bash
# `sim-harness/experiments/run seed000 --quick`: 16x16 mesh, one source and
# 40% sources to all and to 40% of the hosts, 32 B / 1 KB / 8 KB, 1 and 2
# VLs (shared, dedicated, the engine's). Checks:
#   * every cell ran for unicast and the engine's trunk-row trees, and for
#     the paper's source trees (engine.xymesh_mcast=source) in the papers'
#     VL configurations only, none deadlocked;
#   * multicast beats unicast in every cell with either tree (Remark 1);
#   * one source: the paper's tree is never slower than the engine's (it
#     reaches every member on a shortest path from the source, the trunk
#     row's tree may detour);
#   * --summary prints the two trees side by side; the plots are drawn.
# Needs no OpenSM. Exit 0 pass, 1 fail.
source "$(dirname "$0")/lib.sh"
RUN=$E2E_SRC/sim-harness/experiments/run
out=$E2E_TMP/out
quick_experiment seed000
csv=$out/seed000.csv
[ "$(head -n 1 "$csv")" = "scheme,sources,group,vlcfg,msg_bytes,completion_ns,packet_hops,wall_s,packet_hops_per_s,deadlock" ] &&
  pass "CSV header" || fail "CSV header: $(head -n 1 "$csv")"
count() { awk -F, -v s="$1" -v e="$2" 'NR > 1 && $1 == s && (($4 ~ /-engine$/) == e) && $10 == 0' "$csv" | wc -l; }
# 2 combinations x 3 sizes x (1, 2-shared, 2-dedicated) and x 2-engine.
[ "$(count unicast 0)" -eq 18 ] && [ "$(count unicast 1)" -eq 6 ] && [ "$(count mcast 0)" -eq 18 ] &&
  [ "$(count mcast 1)" -eq 6 ] && [ "$(count mcast-paper 0)" -eq 18 ] && [ "$(count mcast-paper 1)" -eq 0 ] &&
  [ "$(awk -F, 'NR > 1 && $10 != 0' "$csv" | wc -l)" -eq 0 ] &&
  pass "cells: unicast and trunk trees 24 each, the paper's trees 18 (not in the engine's VL mode), no deadlock" ||
  fail "cells: unicast $(count unicast 0)+$(count unicast 1), mcast $(count mcast 0)+$(count mcast 1), mcast-paper $(count mcast-paper 0)+$(count mcast-paper 1), deadlocks $(awk -F, 'NR > 1 && $10 != 0' "$csv" | wc -l)"
slower=$(awk -F, 'NR > 1 {t[$1, $2, $3, $4, $5] = $6; k[$2 "," $3 "," $4 "," $5] = 1}
  END {for (c in k) {split(c, a, ","); u = t["unicast", a[1], a[2], a[3], a[4]]
    m = t["mcast", a[1], a[2], a[3], a[4]]; p = t["mcast-paper", a[1], a[2], a[3], a[4]]
    if (!(u > m) || (p != "" && !(u > p))) print c}}' "$csv")
[ -z "$slower" ] && pass "multicast beats unicast in every cell, with either tree (Remark 1)" ||
  fail "unicast as fast as multicast in: $slower"
worse=$(awk -F, 'NR > 1 && $2 == "1" {t[$1, $3, $4, $5] = $6; k[$3 "," $4 "," $5] = 1}
  END {for (c in k) {split(c, a, ","); p = t["mcast-paper", a[1], a[2], a[3]]; m = t["mcast", a[1], a[2], a[3]]
    if (p != "" && p > m) print c ": " p " > " m}}' "$csv")
[ -z "$worse" ] && pass "one source: the paper's tree from it is never slower than the engine's trunk-row tree" ||
  fail "one source, the paper's tree slower: $worse"
"$RUN" seed000 --summary --out "$out" >"$E2E_TMP/summary" 2>&1
grep -q "^### seed000, the paper's source trees (mcast-paper) against the engine's trunk-row trees" "$E2E_TMP/summary" &&
  grep -q '^| 40% -> 40% | [0-9.]* / [0-9.]* (0\.[0-9]*) |' "$E2E_TMP/summary" &&
  pass "--summary: the paper's trees against the engine's" || { fail "--summary"; tail -n 12 "$E2E_TMP/summary"; }
check_png "$out/seed000-40-to-40.png"
check_png "$out/seed000-speedup.png"
finish
