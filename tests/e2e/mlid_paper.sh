#!/bin/bash
# The mlid engine inside the real OpenSM over ibsim, seed 001's worked
# examples read back from the simulated switches (FT(4,3), LMC 2, aligned
# paper-like LIDs: every paper LID + 3).
source "$(dirname "$0")/lib.sh"
[ -f "$PLUGIN_DIR/libibunion.so" ] || { echo "FAIL: $PLUGIN_DIR/libibunion.so not built"; exit 1; }

run_mlid() {  # OUT OPTIONS
  "$FABRIC_RUN" --net "$TOPO/ft-4-3.net" --guid2lid "$TOPO/ft-4-3.guid2lid" --lmc 2 \
    --engine mlid,minhop --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion \
    --plugin-options "$2" --out "$1"
}

paper=$E2E_TMP/paper
check "OpenSM + ibunion mlid (paper mode) reaches SUBNET UP" run_mlid "$paper" "mlid_rotate=off"
grep -q "mlid tables configured on all switches" "$paper/opensm.log" &&
  pass "OpenSM used mlid, not a fallback" || fail "mlid did not route (see opensm.log)"
"$IBUNION" inspect "$paper/fabric.net" >"$E2E_TMP/labels"
lids=$(awk '$1 == "host" && $NF == "P(300)" {print $4 "/" $6}' "$E2E_TMP/labels")
[ "$lids" = "52/2" ] && pass "LIDset(P(300)) = {52..55} (base 52, LMC 2)" || fail "P(300) has base/lmc $lids"

# The DLIDs P(000), P(001), P(010), P(011) select for P(300), from the
# plugin's own path-selection dump.
guid_of() { awk -v h="$1" '$1 == "host" && $NF == h {print $2}' "$E2E_TMP/labels"; }
dst=$(guid_of "P(300)")
want=52
tops=""
for src in "P(000)" "P(001)" "P(010)" "P(011)"; do
  dlid=$(awk -v s="$(guid_of "$src")" -v d="$dst" '$1 == s && $2 == d {print $3}' "$paper/ibunion-mlid-paths.dump")
  [ "$dlid" = "$want" ] && pass "$src selects DLID $want for P(300)" || fail "$src selects '$dlid', expected $want"
  route=$("$IBUNION" trace "$paper/fabric.net" --lft "$paper/lfts.dump" --from "$src" --dlid "$want")
  tops="$tops $(echo "$route" | tr ' ' '\n' | grep ',0>:' | cut -d: -f1)"
  want=$((want + 1))
done
[ "$(echo $tops | tr ' ' '\n' | sort -u | wc -l)" -eq 4 ] && pass "the four paths cross four top switches:$tops" ||
  fail "paths cross top switches:$tops"

route=$("$IBUNION" trace "$paper/fabric.net" --lft "$paper/lfts.dump" --from "P(000)" --dlid 36)
[ "$route" = "SW<00,2>:3 SW<00,1>:3 SW<00,0>:3 SW<20,1>:1 SW<20,2>:1 -> P(200)" ] &&
  pass "DLID 36 from P(000): $route" || fail "DLID 36 from P(000): $route"
check "paper-mode tables equal the scheme, entry for entry" \
  "$IBUNION" verify "$paper/fabric.net" --lft "$paper/lfts.dump" --engine mlid --options mlid_rotate=off
check "paper-mode tables: channel dependencies acyclic (up*/down*)" \
  "$IBUNION" verify "$paper/fabric.net" --lft "$paper/lfts.dump" --deadlock
check "sources of a subtree leave it on different links (read-back tables, plugin's selection)" \
  "$IBUNION" verify "$paper/fabric.net" --lft "$paper/lfts.dump" --disjoint --paths "$paper/ibunion-mlid-paths.dump"

rot=$E2E_TMP/rotated
check "OpenSM + ibunion mlid (default, rotated) reaches SUBNET UP" run_mlid "$rot" ""
check "rotated: all pairs correct and equal to the scheme" \
  "$IBUNION" verify "$rot/fabric.net" --lft "$rot/lfts.dump" --engine mlid
"$IBUNION" trace "$rot/fabric.net" --lft "$rot/lfts.dump" --base-lid-load >"$E2E_TMP/load"
# Counted, not "none idle": an empty or unlabelled trace has no idle row.
busy=$(awk '$3 == 0 && $5 > 0' "$E2E_TMP/load" | wc -l)
[ "$busy" -eq 4 ] && pass "rotated: base-LID traffic crosses all 4 top switches ($(awk '$3 == 0 {printf "%s=%s ", $1, $5}' "$E2E_TMP/load"))" ||
  fail "rotated: $busy of the 4 top switches carry base-LID routes"
"$IBUNION" trace "$paper/fabric.net" --lft "$paper/lfts.dump" --base-lid-load >"$E2E_TMP/load-paper"
[ "$(awk '$3 == 0 && $5 > 0' "$E2E_TMP/load-paper" | wc -l)" -eq 1 ] &&
  pass "paper mode, for contrast: base-LID traffic piles onto one top switch" || fail "paper-mode spread unexpected"
finish
