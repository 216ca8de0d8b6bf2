#!/bin/bash
# Smoke test of the experiment scripts: `run seed001 --quick` (FT(8,3),
# MLID vs SLID, uniform and 10% centric, 1 and 2 VLs) and checks of its CSV:
# well formed; per curve the loads rise, accepted traffic never exceeds the
# offered traffic (1% + 1e-4 for the window's edge effects: a window also
# delivers messages generated just before it), latency grows with load up
# to saturation, and the curve reaches saturation; and seed 001's clearest
# claim, MLID's 1-VL centric throughput well above SLID's. Then
# `run seed001-spread --quick` over those curves (seeds 1-3): seed 1 gives
# back each curve's maximum, and the claim holds in every seed. The
# curves against their channel-load bounds (seed001-ft-8-3-bounds.csv).
# Needs no OpenSM. Exit 0 pass, 1 fail.
set -euo pipefail
SRC=${IBUNION_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${IBUNION_BUILD:-$SRC}
export IBUNION_SRC=$SRC IBUNION_BUILD=$BUILD
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibunion-expq.XXXXXX")
child=""
trap '[ -z "$child" ] || { kill "$child" || true; wait "$child" || true; } 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# waited CMD...: CMD in the background, waited for. A TERM to this test
# killed it at once (no TERM trap) and left a run and its sims going on a
# deleted --out; with a trap alone bash would run it only once a
# foreground command ended. Now the EXIT trap stops CMD (run stops its own).
waited() {
  "$@" &
  child=$!
  local st=0
  wait "$child" || st=$?
  child=""
  return $st
}
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

if waited "$SRC/sim-harness/experiments/run" seed001 --quick --out "$tmp/out" --work "$tmp/work" >"$tmp/log" 2>&1; then
  pass "run seed001 --quick ($(grep -c ' points, ' "$tmp/log") curves)"
else
  fail "run seed001 --quick"; tail -n 30 "$tmp/log"; exit 1
fi
csv=$tmp/out/seed001-ft-8-3.csv
[ -s "$csv" ] && pass "CSV written" || { fail "no $csv"; exit 1; }
# Written under a temporary name and renamed: none left beside it.
left=$(find "$tmp/out" -name '.*.csv.*')
[ -z "$left" ] && pass "no staged CSV left in --out" || fail "staged CSVs left: $left"
if command -v gnuplot >/dev/null; then
  png=$tmp/out/seed001-ft-8-3.png
  [ -s "$png" ] && [ "$(head -c 4 "$png" | od -An -c | tr -d ' ')" = "211PNG" ] && pass "PNG written" || fail "no PNG"
fi

want="fabric,scheme,traffic,vls,load,offered,accepted,latency_avg_ns,latency_p99_ns,ops_measured,ops_unfinished,packet_hops,wall_s,packet_hops_per_s"
[ "$(head -n 1 "$csv")" = "$want" ] && pass "CSV header" || fail "CSV header: $(head -n 1 "$csv")"

# Well formed: 14 fields, known names, numbers where numbers belong.
bad=$(awk -F, 'NR > 1 {
  if (NF != 14) { print NR ": " NF " fields"; next }
  if ($1 != "ft-8-3" || ($2 != "slid" && $2 != "mlid") || ($3 != "uniform" && $3 != "centric:0.1") || ($4 != 1 && $4 != 2))
    { print NR ": names " $1 " " $2 " " $3 " " $4; next }
  for (i = 5; i <= 14; i++) if ($i !~ /^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/) { print NR ": field " i " = " $i; next }
  if ($7 < 0 || $8 <= 0 || $10 <= 0) print NR ": empty point"
}' "$csv")
[ -z "$bad" ] && pass "every row well formed ($(($(wc -l <"$csv") - 1)) rows)" || fail "malformed rows: $bad"
curves=$(awk -F, 'NR > 1 {print $2 "," $3 "," $4}' "$csv" | sort -u | wc -l)
[ "$curves" -eq 8 ] && pass "8 curves (2 schemes x 2 traffics x 2 VL counts)" || fail "$curves curves, want 8"

# Per curve, in load order (the file keeps it).
report=$(awk -F, 'NR > 1 {
  key = $2 " " $3 " " $4 "VL"
  load = $5; off = $6; acc = $7; lat = $8; unf = $11
  sat = (acc < 0.95 * off || unf > 0)
  if (key in last) {
    if (load <= last[key]) print "FAIL: " key ": load " load " after " last[key]
    if (!was_sat[key] && !sat && lat < 0.99 * lastlat[key])
      print "FAIL: " key ": latency falls before saturation: " lastlat[key] " -> " lat " ns at load " load
  }
  if (acc > off * 1.01 + 1e-4) print "FAIL: " key ": accepted " acc " > offered " off " at load " load
  if (sat) saturated[key] = 1
  if (sat) was_sat[key] = 1
  last[key] = load; lastlat[key] = lat; n[key]++
  if (acc > best[key]) best[key] = acc
} END {
  for (k in n) if (!saturated[k]) print "FAIL: " k ": never saturates (" n[k] " points)"
  for (k in n) printf "curve %s: %d points, saturates at %.4g bytes/ns/host\n", k, n[k], best[k]
}' "$csv")
echo "$report" | grep '^curve' | sort | sed 's/^/  /'
if grep -c '^FAIL' <<<"$report" >/dev/null; then
  fail "curve checks"; echo "$report" | grep '^FAIL'
else
  pass "accepted <= offered, latency grows with load up to saturation, every curve saturates"
fi

best() { awk -F, -v s="$1" -v t="$2" -v v="$3" '$2 == s && $3 == t && $4 == v && $7 > m {m = $7} END {print m + 0}' "$csv"; }
m=$(best mlid centric:0.1 1) s=$(best slid centric:0.1 1)
awk -v m="$m" -v s="$s" 'BEGIN {exit !(m > 1.5 * s)}' &&
  pass "seed 001: 1-VL centric, MLID carries $m vs SLID $s bytes/ns/host" ||
  fail "seed 001: 1-VL centric, MLID $m vs SLID $s (want MLID > 1.5 x SLID)"

# The channel-load bounds beside the curves (`ibunion sim --flows` on the
# same tables). A host's channel into its leaf carries what the host
# offers: on 1 VL it fills at 0.4776 of the link. The hot host's link
# carries 0.1 x 127 + 0.9 = 13.6 loads; SLID feeds it through one channel
# (13.28 of them), MLID through four. A uniform curve saturates by its
# bound (1.05x: the rule's 5% slack). A hot-spot curve reaches its bound;
# the saturation rule, which judges all traffic, sees the hot link's
# overload a little late (the hot host's messages are a tenth of all): up
# to 1.06x on FT(8,3), 1.15x allowed (1.25x on FT(16,3), docs/results.md).
# The hot host's own rule sustains at most the bound and the rule's 5%
# (1.06x), saturates past 0.9x it, and no later than the aggregate rule.
b=$tmp/out/seed001-ft-8-3-bounds.csv
[ "$(head -n 1 "$b")" = "fabric,scheme,traffic,vls,max_link_load,max_channel_load,bound_by,bound_load,bound_accepted,model_sustained,model_saturated_at,model_max_accepted,stopped,hot_sustained,hot_saturated_at" ] &&
  pass "bounds CSV header" || fail "bounds CSV header: $(head -n 1 "$b" 2>&1)"
bound() { awk -F, -v s="$1" -v t="$2" -v v="$3" '$2 == s && $3 == t && $4 == v {print $7 " " $8 " " $6}' "$b"; }
got="$(bound slid uniform 1) / $(bound mlid centric:0.1 1) / $(bound slid centric:0.1 1)"
[ "$got" = "channel 0.477612 1 / link 0.0735294 3.97874 / channel 0.0359682 13.2787" ] &&
  pass "bounds: uniform 1 VL 0.4776 (a host's channel), centric MLID 1/13.6 (the hot link), SLID its one feeding channel" ||
  fail "bounds (bound_by bound_load max_channel_load): $got"
bad=$(awk -F, 'NR > 1 && ($13 != "saturated" || ($3 == "uniform" && $10 > 1.05 * $8) || ($3 != "uniform" && ($10 > 1.15 * $8 || $10 < 0.9 * $8))) {
  print " " $2 "/" $3 "/" $4 "VL: sustained " $10 " (" $13 ") vs bound " $8 }' "$b")
[ -z "$bad" ] && pass "uniform curves saturate by their bound; the hot-spot curves reach it" || fail "model vs bound:$bad"
bad=$(awk -F, 'NR > 1 && $3 != "uniform" && ($14 == "" || $14 > 1.06 * $8 || $15 <= 0.9 * $8 || $15 > $11) {
  print " " $2 "/" $3 "/" $4 "VL: hot host sustained " $14 ", saturated at " $15 " vs bound " $8 ", all traffic at " $11 }
  NR > 1 && $3 == "uniform" && $14 $15 != "" { print " " $2 "/uniform/" $4 "VL: a hot host" }' "$b")
[ -z "$bad" ] && pass "hot-spot curves: the hot host saturates at its bound, by the aggregate rule's point" ||
  fail "hot host vs bound:$bad"
"$SRC/sim-harness/experiments/run" seed001 --summary --out "$tmp/out" >"$tmp/sum" 2>&1 &&
  grep -qF "| centric:0.1 | 1 | mlid | 13.6 | 3.979 | 0.07353 (link) |" "$tmp/sum" &&
  pass "--summary: the bound table" || fail "--summary bound table: $(grep -A4 'channel-load bound' "$tmp/sum")"

# --- seed001-spread --quick: the same curves' best points under seeds 1-3 -------
RUN=$SRC/sim-harness/experiments/run
if waited "$RUN" seed001-spread --quick --out "$tmp/out" --work "$tmp/work" >"$tmp/log" 2>&1 &&
   grep -q "seed 1 gives back every curve's maximum" "$tmp/log"; then
  pass "run seed001-spread --quick: seed 1 gives back every curve's maximum"
else
  fail "run seed001-spread --quick"; tail -n 10 "$tmp/log"
fi
sp=$tmp/out/spread-seed001.csv
[ "$(head -n 1 "$sp")" = "fabric,scheme,traffic,vls,seed,load,offered,accepted" ] && pass "spread CSV header" ||
  fail "spread CSV header: $(head -n 1 "$sp")"
# 8 curves x 3 seeds x 3 points, every curve under every seed.
n=$(awk -F, 'NR > 1' "$sp" | wc -l)
cells=$(awk -F, 'NR > 1 {print $2, $3, $4, $5}' "$sp" | sort -u | wc -l)
[ "$n" -eq 72 ] && [ "$cells" -eq 24 ] && pass "spread: 72 points, 8 curves x 3 seeds" || fail "spread: $n points, $cells (curve, seed) pairs"
"$RUN" seed001-spread --summary --out "$tmp/out" >"$tmp/sum" 2>&1 || fail "seed001-spread --summary: $(cat "$tmp/sum")"
# The clearest claim again, now per seed: MLID above SLID in all three.
row=$(grep '^| ft-8-3 | centric:0.1 | 1 |' "$tmp/sum" || true)
[[ $row == *"), 3/3 |" ]] && [[ $row == *"| +"* ]] && pass "spread: 1-VL centric MLID above SLID in 3 of 3 seeds: $row" ||
  fail "spread summary, 1-VL centric: '$row'"
# The seed-1 check can fail: a curve whose maximum the model does not give back.
mkdir -p "$tmp/tampered"
awk -F, -v OFS=, 'NR > 1 && $2 == "slid" && $3 == "uniform" && $4 == 1 {$7 = $7 * 1.01} {print}' \
  "$csv" >"$tmp/tampered/seed001-ft-8-3.csv"
if SPREAD_SEEDS=2 SPREAD_LOADS=1 waited "$RUN" seed001-spread --quick --out "$tmp/tampered" --work "$tmp/work" >"$tmp/log" 2>&1; then
  fail "spread over a tampered curve passed its seed-1 check"
else
  grep -q "seed 1 does not give back the curves' maxima (model or CSVs changed?): ft-8-3 slid uniform 1VL" "$tmp/log" &&
    pass "spread over a tampered curve: the seed-1 check names it" || fail "tampered curve: $(tail -n 3 "$tmp/log")"
fi

[ $fails -eq 0 ] && echo "all checks passed" || echo "$fails checks failed"
exit $(( fails > 0 ))
