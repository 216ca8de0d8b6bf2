#!/bin/bash
# `sim-harness/experiments/run beyond-perm --quick`: FT(4,3) through the real
# OpenSM over ibsim (ftree, minhop), the tables read back and replayed in the
# timing model next to slid and mlid under two permutations, 1 VL. Checks:
# the CSV's layout and curves, every curve run to saturation, and what the
# routings do to the permutations:
#   * shift by 4 hosts (one level-2 subtree): slid, mlid and OpenSM's ftree
#     give each flow a link of its own, so each host gets the most one flow
#     gets on one VL with one-packet buffers (a credit comes back 2F+R+Lb =
#     268 ns after its packet started, which took Lb = 128 ns: 0.25 x
#     128/268 = 0.1194 bytes/ns); minhop puts two flows on a link (half);
#   * bit reversal: each flow crosses a link three flows share (traced over
#     ftree's and minhop's read-back tables; slid and mlid accept the same),
#     and the 4 of the 16 hosts it maps onto themselves send nothing:
#     3/4 x 1/3, a quarter of the limit per host;
#   * ftree's read-back tables replay to slid's numbers, digit for digit:
#     ftree is D-Mod-K as slid is, and a replay on the fabric ibnetdiscover
#     lists in reverse is the same run (hosts numbered by address). The
#     CSV's two permutations would agree even with arrivals drawn per
#     end-port index (reversal maps them onto themselves here), so uniform
#     and random-permutation traffic are replayed as well.
# Then the flows of each curve (ibunion sim --flows), --summary and the
# PNG. Exit 0 pass, 1 fail, 77 skip.
source "$(dirname "$0")/lib.sh"
RUN=$E2E_SRC/sim-harness/experiments/run
out=$E2E_TMP/out
quick_curves beyond-perm "$(printf 'ft-4-3/%s/1 ' mlid/bitrev mlid/shift:4 opensm-ftree/bitrev opensm-ftree/shift:4 \
  opensm-minhop/bitrev opensm-minhop/shift:4 slid/bitrev slid/shift:4 | xargs)"
bad=$(within 0.97 1.01 slid/shift:4 mlid/shift:4 opensm-ftree/shift:4)
[ -z "$bad" ] && pass "shift:4: slid, mlid and ftree reach one flow's limit (0.1194)" || fail "shift:4 below one flow's limit:$bad"
bad=$(within 0.45 0.55 opensm-minhop/shift:4)
[ -z "$bad" ] && pass "shift:4: minhop shares links between two flows (half the limit)" || fail "shift:4, minhop:$bad"
bad=$(within 0.22 0.28 slid/bitrev mlid/bitrev opensm-ftree/bitrev opensm-minhop/bitrev)
[ -z "$bad" ] && pass "bitrev: three flows on a link under every routing, 12 of 16 hosts sending (a quarter of the limit)" || fail "bitrev:$bad"
diff=$(awk -F, 'NR > 1 && ($2 == "slid" || $2 == "opensm-ftree") {
  k = $3 "/" $4 "/" $5; v = $6 "," $7 "," $8 "," $9 "," $10 "," $11 "," $12
  if ($2 == "slid") s[k] = v; else f[k] = v
} END {
  for (k in f) { n++; if (s[k] != f[k]) print " " k ": ftree " f[k] ", slid " s[k] }
  for (k in s) if (!(k in f)) print " " k ": slid only"
  if (!n) print " no ftree point"
}' "$out/beyond-perm.csv")
[ -z "$diff" ] && pass "ftree's replay = slid's run, every point and column" || fail "ftree's replay differs from slid:$diff"
for traffic in uniform randperm; do
  sweep=(--traffic "$traffic" --json --no-wall --quiet --sweep 0.1:0.7:0.3 --seed 3)
  slid=$E2E_TMP/slid-$traffic.json ftree=$E2E_TMP/ftree-$traffic.json
  if run_json "$slid" "$IBUNION" sim "$TOPO/ft-4-3.net" --guid2lid "$TOPO/ft-4-3.guid2lid" --routing slid "${sweep[@]}" &&
    run_json "$ftree" "$IBUNION" sim --routing "dump:$E2E_TMP/work/quick/beyond-perm-ftree" "${sweep[@]}" &&
    cmp -s "$slid" "$ftree"; then
    pass "$traffic: ftree's replay prints slid's run byte for byte"
  else
    fail "$traffic: ftree's replay differs from slid's run, or a run failed"
    cat "$slid.err" "$ftree.err" 2>/dev/null | head -4; diff "$slid" "$ftree" | head -4
  fi
done

# The same tables followed by `ibunion sim --flows`: the flow counts above,
# and the curves at the fluid max-min rates.
check_flows beyond-perm slid/shift:4=1 mlid/shift:4=1 opensm-ftree/shift:4=1 opensm-minhop/shift:4=2 slid/bitrev=3 mlid/bitrev=3 opensm-ftree/bitrev=3 opensm-minhop/bitrev=3
"$RUN" beyond-perm --summary --out "$out" >"$E2E_TMP/summary" 2>&1
grep -q '^| fabric | traffic | VLs | slid | mlid | opensm-ftree | opensm-minhop |' "$E2E_TMP/summary" &&
  grep -q '^| ft-4-3 | shift:4 | 1 | ' "$E2E_TMP/summary" && grep -q '^| ft-4-3 | bitrev | 1 | ' "$E2E_TMP/summary" &&
  pass "--summary: the saturation table" || { fail "--summary"; cat "$E2E_TMP/summary"; }
grep -qF '| bitrev | 1 | opensm-minhop | 3 | 3 | ' "$E2E_TMP/summary" && pass "--summary: the flow table" ||
  { fail "--summary: no flow table row '| bitrev | 1 | opensm-minhop | 3 | 3 | '"; cat "$E2E_TMP/summary"; }
check_png "$out/beyond-perm.png"
finish
