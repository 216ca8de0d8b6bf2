#!/bin/bash
# `sim-harness/experiments/run beyond-radix --quick`: FT(6,3), a fat-tree
# whose m/2 = 3 is no power of two, through the real OpenSM over ibsim
# (ftree, minhop), the tables read back and replayed in the timing model
# next to slid and mlid, shifted by one level-1 subtree (9 hosts, every flow
# through a top switch), 1 VL. slid, mlid and OpenSM's ftree give each flow
# links of its own, so each host gets one flow's limit (0.1194 bytes/ns);
# minhop reaches 3 of the 9 tops and puts three flows on a link (a third).
# Then the flows of each curve (ibunion sim --flows), --summary and the
# PNG. Exit 0 pass, 1 fail, 77 skip.
source "$(dirname "$0")/lib.sh"
RUN=$E2E_SRC/sim-harness/experiments/run
out=$E2E_TMP/out
quick_curves beyond-radix "$(printf 'ft-6-3/%s/shift:9/1 ' mlid opensm-ftree opensm-minhop slid | xargs)"
bad=$(within 0.97 1.01 slid/shift:9 mlid/shift:9 opensm-ftree/shift:9)
[ -z "$bad" ] && pass "shift:9: slid, mlid and ftree reach one flow's limit (0.1194)" || fail "shift:9 below one flow's limit:$bad"
bad=$(within 0.30 0.36 opensm-minhop/shift:9)
[ -z "$bad" ] && pass "shift:9: minhop shares links among three flows (a third of the limit)" || fail "shift:9, minhop:$bad"
# The same tables followed by `ibunion sim --flows`: the flow counts above,
# and the curves at the fluid max-min rates.
check_flows beyond-radix slid/shift:9=1 mlid/shift:9=1 opensm-ftree/shift:9=1 opensm-minhop/shift:9=3
"$RUN" beyond-radix --summary --out "$out" >"$E2E_TMP/summary" 2>&1
grep -q '^| fabric | traffic | VLs | slid | mlid | opensm-ftree | opensm-minhop |' "$E2E_TMP/summary" &&
  grep -q '^| ft-6-3 | shift:9 | 1 | ' "$E2E_TMP/summary" &&
  pass "--summary: the saturation table" || { fail "--summary"; cat "$E2E_TMP/summary"; }
grep -qF '| shift:9 | 1 | opensm-minhop | 3 | 3 | ' "$E2E_TMP/summary" && pass "--summary: the flow table" ||
  { fail "--summary: no flow table row '| shift:9 | 1 | opensm-minhop | 3 | 3 | '"; cat "$E2E_TMP/summary"; }
check_png "$out/beyond-radix.png"
finish
