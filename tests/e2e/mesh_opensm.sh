#!/bin/bash
# The xymesh engine inside OpenSM over ibsim: XY unicast on square,
# rectangular and shuffled meshes (tables read back equal the engine's, entry
# for entry), a multicast group joined through the SA delivering exactly
# once, refusal of a fat-tree with fallback, and the QoS warning. And
# OpenSM's own dor: on the shuffled mesh it takes the lowest-numbered
# shortest port and builds a credit loop; with the port order `ibunion
# inspect --dor-order` writes (port_search_ordering_file) it routes XY,
# entry for entry, and is free of credit loops.
source "$(dirname "$0")/lib.sh"
[ -f "$PLUGIN_DIR/libibunion.so" ] || { echo "FAIL: $PLUGIN_DIR/libibunion.so not built"; exit 1; }
run() {  # NET OUT [extra fabric-run args...]
  local net=$1 out=$2
  shift 2
  "$FABRIC_RUN" --net "$net" --engine xymesh,minhop --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion \
    --out "$out" "$@"
}
"$IBUNION" topo mesh 4 4 --shuffle 3 -o "$E2E_TMP/mesh-4x4-shuffled.net"
for net in "$TOPO/mesh-4x4.net" "$TOPO/mesh-5x5.net" "$TOPO/mesh-3x7.net" "$E2E_TMP/mesh-4x4-shuffled.net"; do
  name=$(basename "$net" .net)
  out=$E2E_TMP/$name
  check "$name: OpenSM + xymesh up" run "$net" "$out" --no-mft
  grep -q "xymesh tables configured on all switches" "$out/opensm.log" && pass "$name: routed by xymesh" ||
    fail "$name: xymesh did not route"
  check "$name: every XY path port for port, all LIDs reachable" \
    "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump" --engine xymesh
done

shuffled=$E2E_TMP/mesh-4x4-shuffled.net
check "mesh-4x4-shuffled: OpenSM dor (ports as cabled) up" "$FABRIC_RUN" --net "$shuffled" --engine dor --no-mft \
  --out "$E2E_TMP/dor"
expect_output "mesh-4x4-shuffled: dor as cabled has a credit loop" "deadlock: credit loop of" \
  "$IBUNION" verify "$E2E_TMP/dor/fabric.net" --lft "$E2E_TMP/dor/lfts.dump" --deadlock
check "mesh-4x4-shuffled: ibunion inspect --dor-order" "$IBUNION" inspect "$shuffled" --dor-order "$E2E_TMP/dor.order"
check "mesh-4x4-shuffled: OpenSM dor with that port order up" "$FABRIC_RUN" --net "$shuffled" --engine dor --no-mft \
  --conf-line "port_search_ordering_file $E2E_TMP/dor.order" --out "$E2E_TMP/dor-xy"
grep -q "dor tables configured on all switches" "$E2E_TMP/dor-xy/opensm.log" && pass "mesh-4x4-shuffled: routed by dor" ||
  fail "mesh-4x4-shuffled: dor did not route"
check "mesh-4x4-shuffled: dor with the port order routes XY entry for entry, free of credit loops" \
  "$IBUNION" verify "$E2E_TMP/dor-xy/fabric.net" --lft "$E2E_TMP/dor-xy/lfts.dump" --engine xymesh --deadlock

# A multicast group on the 5x5 mesh, joined through the SA by a switch's
# port 0 (IPoIB on a managed switch; first: under ibsim the SA refuses it in
# a group a host created) and six hosts. The mesh's trees reach every
# switch, so N(1,4) gets its copy on port 0 and sends from it.
members="N(1,4) H(0,3) H(0,4) H(3,3) H(4,0) H(4,2) H(2,2)"
joins=""
for h in $members; do
  joins="$joins SIM_HOST='$h' LD_PRELOAD=\$IBUNION_UMAD2SIM '$IBUNION' mcjoin join ff12:e001::5 >>\$IBUNION_OUT/joins.txt &&"
done
out=$E2E_TMP/mcast
check "mesh-5x5: a switch's and six hosts' joins through the SA" run "$TOPO/mesh-5x5.net" "$out" --guid2lid "$TOPO/mesh-5x5.guid2lid" \
  --daemon --exec "$joins sleep 2"
mlid=$(sort -u "$out/joins.txt" | awk '{print $2}')
echo "$mlid $members" >"$E2E_TMP/groups"
check "mesh-5x5 group $mlid: exactly once from every member, nothing to others" \
  "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump" --mft "$out/mfts.dump" --groups "$E2E_TMP/groups"

check "mesh-5x5: unicast + multicast read back, channel dependencies acyclic under xymesh's VL policy" \
  "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump" --mft "$out/mfts.dump" --groups "$E2E_TMP/groups" \
  --deadlock --engine xymesh
# The same tables (routed on one VL) under other VL policies: the credit-loop
# check must find them acyclic. With shared VLs, --engine's MFT comparison
# rightly fails (that policy roots each MLID class on its own trunk row, so
# the tables are not its trees); with dedicated VLs the trees are the same.
for mode in "xymesh_vls=2 xymesh_vl_mode=shared" "xymesh_vls=2 xymesh_vl_mode=dedicated" \
            "xymesh_vls=4 xymesh_vl_mode=shared" "xymesh_vls=4 xymesh_vl_mode=dedicated"; do
  expect_output "mesh-5x5 tables with $mode: acyclic" "deadlock: channel dependencies: acyclic" \
    "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump" \
    --mft "$out/mfts.dump" --groups "$E2E_TMP/groups" --deadlock --engine xymesh --options "$mode"
  case $mode in *dedicated)
    check "mesh-5x5 tables with $mode: LFTs and MFTs are that policy's too" "$IBUNION" verify "$out/fabric.net" \
      --lft "$out/lfts.dump" --mft "$out/mfts.dump" --groups "$E2E_TMP/groups" --engine xymesh --options "$mode" ;;
  esac
done
# Negative test: OpenSM's minhop on the same mesh has a credit loop.
check "mesh-5x5 under OpenSM minhop comes up" "$FABRIC_RUN" --net "$TOPO/mesh-5x5.net" --engine minhop \
  --no-mft --out "$E2E_TMP/minhop"
expect_output "minhop on a mesh: the checker finds a credit loop and names it" "deadlock: credit loop of" \
  "$IBUNION" verify "$E2E_TMP/minhop/fabric.net" --lft "$E2E_TMP/minhop/lfts.dump" --deadlock

out=$E2E_TMP/ft
check "ft-4-3 under xymesh,minhop comes up" run "$TOPO/ft-4-3.net" "$out" --no-mft
grep -q "ibunion/xymesh: refusing:" "$out/opensm.log" &&
  pass "xymesh refuses a fat-tree: $(grep "ibunion/xymesh: refusing:" "$out/opensm.log" | head -1 | sed 's/.*refusing: //')" ||
  fail "no refusal line for the fat-tree"
grep -q "minhop tables configured on all switches" "$out/opensm.log" && pass "OpenSM fell back to minhop" ||
  fail "no fallback to minhop"

# A mesh with one cable missing (N(1,1) port 1 <-> N(2,1) port 3): XY
# routing has no detour without a second VL, so xymesh refuses naming both
# switches and OpenSM falls back; the fallback still reaches everybody.
sed -e '/^Switch\t5 "N(1,1)"/,/^$/{/^\[1\]\t"N(2,1)"\[3\]/d}' -e '/^\[3\]\t"N(1,1)"\[1\]/d' \
  "$TOPO/mesh-4x4.net" >"$E2E_TMP/mesh-cut.net"
[ "$(grep -c 'N(2,1)' "$E2E_TMP/mesh-cut.net")" -lt "$(grep -c 'N(2,1)' "$TOPO/mesh-4x4.net")" ] ||
  fail "could not cut the N(1,1)-N(2,1) cable"
out=$E2E_TMP/cut
check "mesh-4x4 minus one cable under xymesh,minhop comes up" run "$E2E_TMP/mesh-cut.net" "$out" --no-mft
grep -q "ibunion/xymesh: refusing: not a 2-D mesh: switch N(1,1) .*no link to its grid neighbour switch N(2,1)" \
  "$out/opensm.log" &&
  pass "xymesh refuses the cut mesh: $(grep -o "ibunion/xymesh: refusing:.*" "$out/opensm.log" | head -1 | sed 's/.*refusing: //')" ||
  fail "no refusal line naming N(1,1) and N(2,1)"
grep -q "minhop tables configured on all switches" "$out/opensm.log" && pass "cut mesh: OpenSM fell back to minhop" ||
  fail "cut mesh: no fallback to minhop"
check "cut mesh: the fallback tables reach every LID" "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump"

# A host powered off (H(2,2) and its cable not in the file): the switches
# still form the grid, so xymesh routes it (it refused, 'no host', and
# OpenSM fell back to minhop, whose mesh tables have credit loops).
awk 'BEGIN { RS = ""; ORS = "\n\n" } !/Hca\t1 "H\(2,2\)"/' "$TOPO/mesh-4x4.net" | grep -v '"H(2,2)"\[' \
  >"$E2E_TMP/mesh-nohost.net"
grep -c Hca "$E2E_TMP/mesh-nohost.net" | grep -qx 15 || fail "could not take H(2,2) out"
out=$E2E_TMP/nohost
check "mesh-4x4 without host H(2,2) under xymesh,minhop comes up" run "$E2E_TMP/mesh-nohost.net" "$out" --no-mft
grep -q "xymesh tables configured on all switches" "$out/opensm.log" &&
  grep -q "ibunion/xymesh: 1 switch(es) without a host (first switch N(2,2) " "$out/opensm.log" &&
  pass "xymesh routes the mesh with a host down, and says so" ||
  fail "xymesh did not route the mesh with a host down: $(grep -o "ibunion/xymesh: refusing.*" "$out/opensm.log" | head -1)"
check "mesh with a host down: every XY path port for port, all LIDs reachable" \
  "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump" --engine xymesh

out=$E2E_TMP/noqos
check "mesh-4x4 with xymesh_vls=2 and QoS off comes up" run "$TOPO/mesh-4x4.net" "$out" --no-mft \
  --plugin-options "xymesh_vls=2 xymesh_vl_mode=dedicated"
grep -q "the engine's tables use 2 VLs but QoS is off, so OpenSM never calls update_sl2vl and the ports keep" "$out/opensm.log" && pass "the log says VL modes need qos TRUE" ||
  fail "no QoS warning"
# On a fabric xymesh refuses, its VLs are never used: no QoS error beside
# the refusal (it was logged before the refusal, as if xymesh routed).
out=$E2E_TMP/noqos-ft
check "ft-4-3 with xymesh_vls=2 and QoS off under xymesh,minhop comes up" run "$TOPO/ft-4-3.net" "$out" --no-mft \
  --plugin-options "xymesh_vls=2"
grep -q "ibunion/xymesh: refusing:" "$out/opensm.log" && ! grep -q "QoS is off" "$out/opensm.log" &&
  pass "xymesh refuses the fat-tree without a QoS error" || fail "QoS error logged for a fabric xymesh refused"
finish
