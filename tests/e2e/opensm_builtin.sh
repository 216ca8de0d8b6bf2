#!/bin/bash
# OpenSM's own engines under ibsim: tables read back from the simulated
# switches pass the unicast verifier; a broken table is caught and named.
source "$(dirname "$0")/lib.sh"

for fabric in ft-4-3 ft-8-3; do
  for engine in minhop ftree; do
    out=$E2E_TMP/$fabric-$engine
    check "$engine on $fabric: OpenSM reaches SUBNET UP, tables read back" \
      "$FABRIC_RUN" --net "$TOPO/$fabric.net" --guid2lid "$TOPO/$fabric.guid2lid" --engine "$engine" --out "$out"
    check "$engine on $fabric: every LID reached from every end port, no loop" \
      "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump"
    [ -z "$(survivors "$out")" ] && pass "$engine on $fabric: nothing left running" || fail "$engine on $fabric: processes survive"
  done
done
grep -q "ftree tables configured on all switches\|Fat-tree routing\|FatTree" "$E2E_TMP/ft-8-3-ftree/opensm.log" &&
  pass "ftree really routed ft-8-3 (LMC 0)" || fail "ftree did not route ft-8-3"
[ "$(cat "$E2E_TMP/ft-8-3-ftree/engine" 2>&1)" = ftree ] && pass "fabric-run names ftree in DIR/engine" ||
  fail "DIR/engine of the ftree run: $(cat "$E2E_TMP/ft-8-3-ftree/engine" 2>&1)"

# ftree cannot route a mesh: OpenSM falls back to minhop and comes up all
# the same. fabric-run says whose tables DIR holds, and the replay too.
out=$E2E_TMP/mesh-ftree
if "$FABRIC_RUN" --net "$TOPO/mesh-4x4.net" --guid2lid "$TOPO/mesh-4x4.guid2lid" --engine ftree --out "$out" \
  >"$E2E_TMP/mesh-ftree.log" 2>&1; then
  grep -q "^fabric-run: warning: the tables are minhop's, not ftree's: OpenSM could not route this fabric with ftree" \
    "$E2E_TMP/mesh-ftree.log" && grep -q "SUBNET UP, routed by minhop, tables of 16 switches" "$E2E_TMP/mesh-ftree.log" &&
    [ "$(cat "$out/engine")" = minhop ] &&
    pass "ftree on a mesh: fabric-run warns that the tables are minhop's (DIR/engine minhop)" ||
    { fail "ftree on a mesh: no fallback warning or DIR/engine"; cat "$E2E_TMP/mesh-ftree.log"; }
  expect_output "the replay of the mesh run names minhop's LFTs" "; LFTs by minhop ($out/engine)" \
    "$IBUNION" sim --routing "dump:$out" --load 0.05
else
  fail "ftree on a mesh: fabric-run failed"; tail -n 20 "$E2E_TMP/mesh-ftree.log"
fi

# An engine name OpenSM does not know: it falls back as well, and the
# warning says the engine is missing, not that it refused the fabric.
out=$E2E_TMP/ft-4-3-bogus
if "$FABRIC_RUN" --net "$TOPO/ft-4-3.net" --engine bogus --out "$out" --no-readback >"$E2E_TMP/bogus.log" 2>&1; then
  grep -q "^fabric-run: warning: the tables are minhop's, not bogus's: OpenSM has no routing engine 'bogus'" \
    "$E2E_TMP/bogus.log" && ! grep -q "could not route this fabric" "$E2E_TMP/bogus.log" &&
    pass "an unknown engine: fabric-run says OpenSM has none of that name" ||
    { fail "an unknown engine: wrong or no warning"; cat "$E2E_TMP/bogus.log"; }
else
  fail "an unknown engine: fabric-run failed"; tail -n 20 "$E2E_TMP/bogus.log"
fi
[ -z "$(survivors "$out")" ] && pass "unknown engine: nothing left running" || fail "unknown engine: processes survive"

# A deliberately broken LFT: SW<00,2> of ft-4-3 (minhop) loses its entry
# for P(311), and its count line says one row less, as ibroute would print
# a switch without that entry (a miscount is refused as a damaged dump);
# labels and LIDs from what the core recognises in the read-back fabric.
out=$E2E_TMP/ft-4-3-minhop
"$IBUNION" inspect "$out/fabric.net" >"$E2E_TMP/labels"
guid=$(awk '$1 == "switch" && $NF == "SW<00,2>" {print $2}' "$E2E_TMP/labels")
lid=$(awk '$1 == "host" && $NF == "P(311)" {print $4}' "$E2E_TMP/labels")
hexlid=$(printf '0x%04x' "$lid")
awk -v g="guid $guid" -v l="$hexlid" '
  /Unicast lids/ { inside = index($0, g) > 0 }
  inside && $1 == l { next }
  inside && / valid lids dumped/ { $1 = $1 - 1 }
  { print }' "$out/lfts.dump" >"$E2E_TMP/broken.dump"
expect_output "a black hole at SW<00,2> for P(311) is named" "black hole: switch SW<00,2>" \
  "$IBUNION" verify "$out/fabric.net" --lft "$E2E_TMP/broken.dump"
"$IBUNION" verify "$out/fabric.net" --lft "$E2E_TMP/broken.dump" >/dev/null 2>&1 && st=0 || st=$?
[ "$st" -eq 1 ] && pass "verify exits 1 on the broken table" || fail "verify exited $st on the broken table"
finish
