#!/bin/bash
# The timing model replays what a real OpenSM run left behind exactly as the
# core's own tables: OpenSM + plugin over ibsim, LFTs read back with ibroute,
# SL-to-VL tables with smpquery (read-sl2vl), and the path-selection map the
# plugin dumped. Replaying that directory (dump:DIR) must print the same
# bytes as `ibunion sim --routing ENGINE` on the read-back fabric.net (same
# host order, same LIDs), and on the generator's own file, whose hosts come
# in another order; leaving out what it read back must change them,
# so the test shows each part is used. Also: the refusals a dump can hit.
source "$(dirname "$0")/lib.sh"
[ -f "$PLUGIN_DIR/libibunion.so" ] || { echo "FAIL: $PLUGIN_DIR/libibunion.so not built"; exit 1; }
READ_SL2VL=$E2E_SRC/sim-harness/ibsim/read-sl2vl
READ_PATH_SL=$E2E_SRC/sim-harness/ibsim/read-path-sl
export IBUNION  # read-path-sl's ibunion
# sim OUT ARGS...: the sweep's points in OUT (run_json: stderr in OUT.err);
# a run that fails leaves OUT.failed, and same/differ fail on it: two runs
# refused alike print the same error, which compared equal.
sim() {
  local out=$1
  shift
  rm -f "$out.failed"
  run_json "$out" "$IBUNION" sim "$@" --json --no-wall --quiet --sweep 0.1:0.7:0.3 --seed 3 || : >"$out.failed"
}
both_ran() {  # WHAT FILE_A FILE_B
  local f
  for f in "$2" "$3"; do
    [ -e "$f.failed" ] || continue
    fail "$1: the run writing $(basename "$f") failed: $(head -c 300 "$f.err")"
    return 1
  done
}
same() {  # WHAT FILE_A FILE_B: both ran, identical
  both_ran "$@" || return 0
  if cmp -s "$2" "$3"; then pass "$1"; else fail "$1"; diff "$2" "$3" | head -5; fi
}
differ() {  # WHAT FILE_A FILE_B: both ran, different
  both_ran "$@" || return 0
  if ! cmp -s "$2" "$3"; then pass "$1"; else fail "$1"; fi
}

# 1. xymesh, 2 data VLs, dedicated (VL by out direction): SL2VL read back.
mesh=$E2E_TMP/mesh
check "OpenSM + xymesh (2 VLs dedicated, qos TRUE) over ibsim, SL2VL read back" \
  "$FABRIC_RUN" --net "$TOPO/mesh-5x5.net" --guid2lid "$TOPO/mesh-5x5.guid2lid" --engine xymesh,minhop \
  --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --plugin-options "xymesh_vls=2 xymesh_vl_mode=dedicated" \
  --conf-line "qos TRUE" --out "$mesh" --daemon --exec "'$READ_SL2VL' \$IBUNION_OUT"
# The SA hands out SL 0 in dedicated mode; the VL comes from the port tables.
sim "$E2E_TMP/mesh-core.json" "$mesh/fabric.net" --routing xymesh --param engine.xymesh_vl_mode=dedicated \
  --vls 2 --param sl=0
sim "$E2E_TMP/mesh-dump.json" --routing "dump:$mesh" --vls 2 --param sl=0
same "mesh: replay of the read-back tables (LFT + SL2VL) = the core's tables" \
  "$E2E_TMP/mesh-core.json" "$E2E_TMP/mesh-dump.json"
grep -q '"vl_hops":\[[1-9][0-9]*,[1-9]' "$E2E_TMP/mesh-dump.json" && pass "mesh: replay uses both VLs" ||
  fail "mesh: replay does not use both VLs: $(head -c 300 "$E2E_TMP/mesh-dump.json")"
mv "$mesh/sl2vl.dump" "$mesh/sl2vl.aside"
sim "$E2E_TMP/mesh-nosl2vl.json" --routing "dump:$mesh" --vls 2 --param sl=0
mv "$mesh/sl2vl.aside" "$mesh/sl2vl.dump"
differ "mesh: without sl2vl.dump the replay differs (the tables are used)" \
  "$E2E_TMP/mesh-dump.json" "$E2E_TMP/mesh-nosl2vl.json"
# Dedicated tables leave the other SLs on OpenSM's defaults (VL = SL): a
# policy that sends on them is refused, naming the file, port pair and way out.
expect_output "mesh: SLs the tables map beyond --vls are refused" \
  "$mesh/sl2vl.dump: switch" "$IBUNION" sim --routing "dump:$mesh" --vls 2 --load 0.1
expect_output "mesh: ... with the options that fit" "give --param sl=N with an SL these tables map below VL 2" \
  "$IBUNION" sim --routing "dump:$mesh" --vls 2 --load 0.1

# 2. xymesh, 2 shared VLs: the SL of each path (the plugin's path_sl, as
# the SA hands it out) read back with PathRecords (read-path-sl). A QoS
# policy says SL 3 for everything: the engine's SLs keep its VLs
# deadlock-free, so they stand; mlid has no SL policy and leaves OpenSM's
# (it handed out SL 0 for every path, dropping the policy's).
printf 'qos-ulps\n    default : 3\nend-qos-ulps\n' >"$E2E_TMP/qos.policy"
shared=$E2E_TMP/shared
check "OpenSM + xymesh (2 VLs shared) over ibsim, SL2VL and the SA's path SLs read back" \
  "$FABRIC_RUN" --net "$TOPO/mesh-5x5.net" --guid2lid "$TOPO/mesh-5x5.guid2lid" --engine xymesh,minhop \
  --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --plugin-options "xymesh_vls=2" \
  --conf-line "qos TRUE" --conf-line "qos_policy_file $E2E_TMP/qos.policy" --out "$shared" --daemon \
  --exec "'$READ_SL2VL' \$IBUNION_OUT" --exec "'$READ_PATH_SL' \$IBUNION_OUT"
qosmlid=$E2E_TMP/qos-mlid
check "OpenSM + mlid with a QoS policy (SL 3) over ibsim, the SA's path SLs read back" \
  "$FABRIC_RUN" --net "$TOPO/ft-4-2.net" --guid2lid "$TOPO/ft-4-2.guid2lid" --lmc 1 --engine mlid,minhop \
  --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --conf-line "qos TRUE" \
  --conf-line "qos_policy_file $E2E_TMP/qos.policy" --out "$qosmlid" --daemon --no-mft \
  --exec "'$READ_PATH_SL' \$IBUNION_OUT"
[ "$(awk '!/^#/ {print $3}' "$qosmlid/path-sl.dump" | sort -u | xargs)" = 3 ] &&
  [ "$(cat "$qosmlid/engine")" = mlid ] &&
  pass "mlid (no SL policy): every path gets the QoS policy's SL 3 ($(grep -vc '^#' "$qosmlid/path-sl.dump") paths)" ||
  fail "mlid with a QoS policy: path SLs $(awk '!/^#/ {print $3}' "$qosmlid/path-sl.dump" | sort -u | xargs), engine $(cat "$qosmlid/engine" 2>&1)"
[ "$(awk '!/^#/ {print $3}' "$shared/path-sl.dump" | sort -u | xargs)" = "0 1" ] &&
  pass "xymesh shared: the engine's SLs 0 and 1 stand against the policy's 3" ||
  fail "xymesh shared with a QoS policy: path SLs $(awk '!/^#/ {print $3}' "$shared/path-sl.dump" | sort -u | xargs)"
[ "$(grep -vc '^#' "$shared/path-sl.dump")" = 600 ] && pass "path-sl.dump: 600 paths (25 hosts)" ||
  fail "path-sl.dump: $(grep -vc '^#' "$shared/path-sl.dump" 2>&1) paths, expected 600"
sim "$E2E_TMP/shared-core.json" "$shared/fabric.net" --routing xymesh --vls 2
sim "$E2E_TMP/shared-dump.json" --routing "dump:$shared" --vls 2
same "xymesh shared: replay with the SA's path SLs (sl=auto) = the core's engine" \
  "$E2E_TMP/shared-core.json" "$E2E_TMP/shared-dump.json"
grep -q '"vl_hops":\[[1-9][0-9]*,[1-9]' "$E2E_TMP/shared-dump.json" && pass "xymesh shared: both VLs used" ||
  fail "xymesh shared: $(head -c 300 "$E2E_TMP/shared-dump.json")"
sim "$E2E_TMP/shared-sl1.json" --routing "dump:$shared" --vls 2 --param sl=1
differ "xymesh shared: another SL policy differs (the path SLs are used)" \
  "$E2E_TMP/shared-dump.json" "$E2E_TMP/shared-sl1.json"

# 3. dfsssp on a 4x4 mesh: deadlock-free only on the SLs it hands out
# (layers on VLs 0..7). With them the replay saturates without a credit
# loop; the same tables all on SL 0 deadlock.
dfsssp=$E2E_TMP/dfsssp
check "OpenSM dfsssp (qos TRUE) on a 4x4 mesh over ibsim, SL2VL and path SLs read back" \
  "$FABRIC_RUN" --net "$TOPO/mesh-4x4.net" --guid2lid "$TOPO/mesh-4x4.guid2lid" --engine dfsssp \
  --conf-line "qos TRUE" --out "$dfsssp" --daemon \
  --exec "'$READ_SL2VL' \$IBUNION_OUT" --exec "'$READ_PATH_SL' \$IBUNION_OUT"
sls=$(awk '!/^#/ {print $3}' "$dfsssp/path-sl.dump" | sort -u | wc -l)
[ "$sls" -ge 2 ] && pass "dfsssp hands out $sls SLs" || fail "dfsssp hands out $sls SL(s), expected 2 or more"
"$IBUNION" sim --routing "dump:$dfsssp" --vls 8 --load 0.95 --json --no-wall --quiet \
  >"$E2E_TMP/dfsssp.json" 2>"$E2E_TMP/dfsssp.err" && grep -q '"deadlock":false' "$E2E_TMP/dfsssp.json" &&
  pass "dfsssp: replay on its path SLs at load 0.95, no credit loop" ||
  fail "dfsssp: $(cat "$E2E_TMP/dfsssp.err") $(head -c 300 "$E2E_TMP/dfsssp.json")"
status=0
"$IBUNION" sim --routing "dump:$dfsssp" --vls 8 --load 0.95 --param sl=0 --json --no-wall --quiet \
  >"$E2E_TMP/dfsssp-sl0.json" 2>/dev/null || status=$?
[ "$status" = 1 ] && grep -q '"deadlock":true' "$E2E_TMP/dfsssp-sl0.json" &&
  pass "dfsssp: the same tables all on SL 0 deadlock (exit 1)" ||
  fail "dfsssp on SL 0: exit $status, $(head -c 300 "$E2E_TMP/dfsssp-sl0.json")"
expect_output "dfsssp: path SLs on VLs beyond --vls are refused, naming the path SL file" \
  "path-sl.dump gives paths SLs 0..7" "$IBUNION" sim --routing "dump:$dfsssp" --vls 4 --load 0.1
# The verifier says the same of the tables the switches hold: acyclic on
# the SA's SLs (verify --path-sl), a credit loop with every path on SL 0.
check "dfsssp: verify --deadlock on the read-back SL2VL tables and the SA's path SLs: acyclic" \
  "$IBUNION" verify "$dfsssp/fabric.net" --lft "$dfsssp/lfts.dump" --sl2vl "$dfsssp/sl2vl.dump" \
  --path-sl "$dfsssp/path-sl.dump" --deadlock
status=0
"$IBUNION" verify "$dfsssp/fabric.net" --lft "$dfsssp/lfts.dump" --sl2vl "$dfsssp/sl2vl.dump" --deadlock \
  >"$E2E_TMP/dfsssp-verify-sl0.txt" 2>&1 || status=$?
[ "$status" = 1 ] && grep -q "deadlock: credit loop of" "$E2E_TMP/dfsssp-verify-sl0.txt" &&
  pass "dfsssp: verify --deadlock with every path on SL 0 finds the credit loop (exit 1)" ||
  fail "dfsssp verify on SL 0: exit $status, $(tail -n 3 "$E2E_TMP/dfsssp-verify-sl0.txt")"

# 4. mlid, LMC 2: the plugin's path-selection map picks each source's DLID.
ft=$E2E_TMP/ft
check "OpenSM + mlid (LMC 2) over ibsim, tables read back" \
  "$FABRIC_RUN" --net "$TOPO/ft-4-3.net" --guid2lid "$TOPO/ft-4-3.guid2lid" --lmc 2 --engine mlid \
  --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --out "$ft"
[ -s "$ft/ibunion-mlid-paths.dump" ] && pass "the plugin dumped its path-selection map" ||
  fail "no ibunion-mlid-paths.dump in $ft"
sim "$E2E_TMP/ft-core.json" "$ft/fabric.net" --routing mlid --traffic uniform
sim "$E2E_TMP/ft-dump.json" --routing "dump:$ft" --traffic uniform
same "mlid: replay with the plugin's path selection = the core's engine" "$E2E_TMP/ft-core.json" "$E2E_TMP/ft-dump.json"
# The same run on the generator's file, whose hosts come in another order
# (ibnetdiscover's P(311) first, the generator's P(000)): the traffic
# numbers hosts by address, so arrivals and destinations are the same.
hosts_in_order() { sed -n 's/^\(Ca\|Hca\).*"\(P([0-9]*)\)".*/\2/p' "$1" | head -n 3 | xargs; }
[ "$(hosts_in_order "$ft/fabric.net")" != "$(hosts_in_order "$TOPO/ft-4-3.net")" ] &&
  pass "the read-back fabric.net lists hosts in another order ($(hosts_in_order "$ft/fabric.net") ...)" ||
  fail "the read-back fabric.net lists hosts as the generator does: $(hosts_in_order "$ft/fabric.net")"
sim "$E2E_TMP/ft-gen.json" "$TOPO/ft-4-3.net" --guid2lid "$TOPO/ft-4-3.guid2lid" --routing mlid \
  --traffic uniform
same "mlid: replay = the core's engine on the generator's file, digit for digit" \
  "$E2E_TMP/ft-gen.json" "$E2E_TMP/ft-dump.json"
sim "$E2E_TMP/ft-base.json" --routing "dump:$ft" --traffic uniform --param dlid=base
differ "mlid: base LIDs instead differ (the map is used)" "$E2E_TMP/ft-dump.json" "$E2E_TMP/ft-base.json"
cp "$ft/ibunion-mlid-paths.dump" "$ft/ibunion-other-paths.dump"
expect_output "two engines' maps in one dump are refused" "path-selection maps of several engines" \
  "$IBUNION" sim --routing "dump:$ft" --load 0.1
rm "$ft/ibunion-other-paths.dump"
sed -i '2s/ [0-9]*$/ 1/' "$ft/ibunion-mlid-paths.dump"
expect_output "a map made with other LIDs names its line" "ibunion-mlid-paths.dump:2: DLID 1: expected one of" \
  "$IBUNION" sim --routing "dump:$ft" --load 0.1
finish
