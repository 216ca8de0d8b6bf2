#!/bin/bash
# xymesh's virtual lanes inside OpenSM (qos TRUE) over ibsim, read back
# from the simulated ports with `smpquery sl2vl` (read-sl2vl): for 1, 2 and
# 4 data VLs, shared and dedicated, and paper multicast on its own VL, every
# cabled switch port's and every host's SL2VL table equals the mode's rule,
# and unicast + two SA-joined groups (with the SLs the SA gave them) are
# free of credit loops on the tables the switches hold (LFTs, MFTs and
# SL2VL all read back).
source "$(dirname "$0")/lib.sh"
[ -f "$PLUGIN_DIR/libibunion.so" ] || { echo "FAIL: $PLUGIN_DIR/libibunion.so not built"; exit 1; }
READ_SL2VL=$E2E_SRC/sim-harness/ibsim/read-sl2vl

group_a="H(2,2) H(0,3) H(0,4) H(3,3) H(4,0) H(4,2)"
group_b="H(0,0) H(4,4) H(1,3) H(3,1)"
joins_of() {  # MGID SL HOSTS...
  local mgid=$1 sl=$2 h
  shift 2
  for h in "$@"; do
    printf "%s" " SIM_HOST='$h' LD_PRELOAD=\$IBUNION_UMAD2SIM '$IBUNION' mcjoin join $mgid --sl $sl >>\$IBUNION_OUT/joins-$mgid.txt &&"
  done
}

# The rule of each mode, independent of the engine's code: VL of SL `sl`
# leaving through port `out` (generator ports: 1 E, 2 N, 3 W, 4 S, 5 host).
# Paper multicast (SL 15) rides VL vls. With one data VL and no multicast
# VL the engine leaves OpenSM's tables, here qos_sl2vl 0,1,0,1,...
rule_awk='
function want(out, sl) {
  if (vls == 1 && !paper) return sl % 2
  if (paper && sl == 15) return vls
  if (mode == "shared") return sl % vls
  if (vls == 1 || out == 5) return 0
  if (vls == 2) return (out == 1 || out == 2) ? 0 : 1
  return out - 1
}'

qos_sl2vl_alternating="qos_sl2vl 0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1"
check_mode() {  # NAME OPTIONS
  # Group SLs as the SA records them: A on SL 0 (SL 15, the multicast VL,
  # in paper mode), B on SL 3 (another class than its MLID's in shared
  # mode): the engine must root each tree for the VL its SL really rides.
  local name=$1 options=$2 out=$E2E_TMP/$1 vls mode paper=0 sl_a=0 sl_b=3
  vls=$(echo "$options" | sed -n 's/.*xymesh_vls=\([124]\).*/\1/p')
  mode=$(echo "$options" | sed -n 's/.*xymesh_vl_mode=\([a-z]*\).*/\1/p')
  case $options in *xymesh_mcast=paper*) paper=1 sl_a=15 ;; esac
  local joins
  # VL arbitration of N(2,2) (LID 38 in mesh-5x5.guid2lid) port 1 and of
  # host H(2,2) (LID 13), read back the same way.
  local vlarb_reads="LD_PRELOAD=\$IBUNION_UMAD2SIM smpquery vlarb 38 1 >\$IBUNION_OUT/vlarb.txt &&
    LD_PRELOAD=\$IBUNION_UMAD2SIM smpquery vlarb 13 >>\$IBUNION_OUT/vlarb.txt"
  joins="$(joins_of ff12:e001::5 $sl_a $group_a)$(joins_of ff12:e001::6 $sl_b $group_b)"
  check "$name: OpenSM + xymesh ($options, qos TRUE), 10 joins, SL2VL read back" \
    "$FABRIC_RUN" --net "$TOPO/mesh-5x5.net" --guid2lid "$TOPO/mesh-5x5.guid2lid" --engine xymesh,minhop \
    --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --plugin-options "$options" --conf-line "qos TRUE" \
    --conf-line "$qos_sl2vl_alternating" \
    --out "$out" --daemon --exec "$joins sleep 1 && '$READ_SL2VL' \$IBUNION_OUT && $vlarb_reads"
  [ -s "$out/sl2vl.dump" ] || { fail "$name: no sl2vl.dump"; return; }
  grep -q "xymesh tables configured on all switches" "$out/opensm.log" || { fail "$name: xymesh did not route"; return; }

  # The rule, on the centre switch N(2,2) (all five ports cabled) and every
  # host; then the whole fabric against the engine's policy.
  local centre
  centre=$(grep -o '# "N(2,2)" base port 0 lid [0-9]*' "$out/fabric.net" | awk '{print $NF}')
  local bad
  bad=$(awk -v centre="$centre" -v vls="$vls" -v mode="$mode" -v paper="$paper" "$rule_awk"'
    /^# SL2VL table: Lid/ {lid = $NF; next}
    /^ports:/ {
      split($0, half, ":"); split(half[2], io, ","); sub(/.*in */, "", io[1]); sub(/.*out */, "", io[2])
      in_port = io[1] + 0; out_port = io[2] + 0
      n = split(half[3], v, "|")
      if (lid == centre) { if (out_port == 0) next }
      else if (lid > 25) next          # other switches: compared with the engine below
      else out_port = 5                # a host sends on the VL its switch uses toward it
      rows++
      for (sl = 0; sl < 16; sl++) if (v[sl + 2] + 0 != want(out_port, sl)) {
        printf "LID %s in %d out %s SL %d: VL %d, mode wants %d\n", lid, in_port, io[2], sl, v[sl + 2], want(out_port, sl)
        exit
      }
    }
    END {if (rows < 25 + 30) print "only " rows " rows checked"}' "$out/sl2vl.dump")
  [ -z "$bad" ] && pass "$name: N(2,2) (in 0-5 x out 1-5) and 25 hosts hold the mode's SL2VL" ||
    fail "$name: $bad"

  [ "$centre" = 38 ] || fail "$name: N(2,2) has LID $centre, not 38 as in mesh-5x5.guid2lid"
  # Every VL in use (data VLs, plus the multicast VL in paper mode) once in
  # the low-priority table with weight 0x20, nothing in the high table.
  local used=$((vls + paper)) arb
  arb=$(awk -v used="$used" '
    /^# VLArbitration tables/ {tables++; part = ""}
    /^# Low/ {part = "low"} /^# High/ {part = "high"}
    /^VL/ {n = split($0, vl, "|")} 
    /^WEIGHT/ {
      split($0, w, "|")
      for (i = 2; i < n; i++) {
        e = i - 2; gsub(/ /, "", vl[i]); gsub(/ /, "", w[i])
        want_w = (part == "low" && e < used) ? "0x20" : "0x0"
        if (w[i] != want_w || (want_w == "0x20" && vl[i] != sprintf("0x%x", e))) {
          printf "table %d %s entry %d: VL %s weight %s", tables, part, e, vl[i], w[i]; exit
        }
      }
    }
    END {if (tables != 2) print "read " tables " VLArbitration tables, expected 2"}' "$out/vlarb.txt")
  if [ "$used" -eq 1 ]; then
    : # one VL: the engine leaves OpenSM's arbitration alone
  elif [ -z "$arb" ]; then
    pass "$name: VL arbitration (N(2,2) port 1, H(2,2)): VLs 0-$((used - 1)) equal weight, high table empty"
  else
    fail "$name: VL arbitration: $arb"
  fi

  local groups=$E2E_TMP/$name.groups
  : >"$groups"
  for g in "ff12:e001::5|$sl_a|$group_a" "ff12:e001::6|$sl_b|$group_b"; do
    IFS='|' read -r mgid sl hosts <<<"$g"
    echo "$(sort -u "$out/joins-$mgid.txt" | awk '{print $2}') sl=$sl $hosts" >>"$groups"
  done
  if [ "$used" -eq 1 ]; then
    # OpenSM's tables: no VL policy of the engine's to compare them with.
    grep -q "one data VL: the ports keep OpenSM's SL-to-VL tables" "$out/opensm.log" &&
      pass "$name: the log says the ports keep OpenSM's SL-to-VL tables" || fail "$name: no one-VL line in the log"
    check "$name: the engine's LFTs and MFTs; unicast + 2 groups exactly once and acyclic on OpenSM's SL2VL (2 VLs)" \
      "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump" --mft "$out/mfts.dump" --groups "$groups" \
      --sl2vl "$out/sl2vl.dump" --deadlock
    check "$name: read-back LFTs and MFTs are the engine's" "$IBUNION" verify "$out/fabric.net" \
      --lft "$out/lfts.dump" --mft "$out/mfts.dump" --groups "$groups" --engine xymesh --options "$options"
    return
  fi
  grep -q "its SL-to-VL tables ($used VLs) and equal VL arbitration replace OpenSM's QoS ones" "$out/opensm.log" &&
    pass "$name: the log says the engine's tables replace qos_sl2vl and qos_vlarb_*" ||
    fail "$name: no line about OpenSM's QoS tables being replaced"
  check "$name: every cabled port and host equals the engine's VL policy; unicast + 2 groups exactly once and acyclic on read-back LFT/MFT/SL2VL" \
    "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump" --mft "$out/mfts.dump" --groups "$groups" \
    --sl2vl "$out/sl2vl.dump" --deadlock --engine xymesh --options "$options"
}

check_mode vl1 "xymesh_vls=1 xymesh_vl_mode=shared"
check_mode vl2-shared "xymesh_vls=2 xymesh_vl_mode=shared"
check_mode vl2-dedicated "xymesh_vls=2 xymesh_vl_mode=dedicated"
check_mode vl4-shared "xymesh_vls=4 xymesh_vl_mode=shared"
check_mode vl4-dedicated "xymesh_vls=4 xymesh_vl_mode=dedicated"
check_mode vl4-dedicated-paper "xymesh_vls=4 xymesh_vl_mode=dedicated xymesh_mcast=paper"
check_mode vl1-paper "xymesh_vls=1 xymesh_vl_mode=shared xymesh_mcast=paper"

# Negative test: the vl4-dedicated fabric's read-back tables checked as if
# every SL were on VL 0 but with shared's rule expected: a mode mismatch
# must be caught, entry by entry.
expect_output "a dedicated fabric does not pass as shared (SL2VL compared entry by entry)" "SL2VL mismatch" \
  "$IBUNION" verify "$E2E_TMP/vl4-dedicated/fabric.net" --lft "$E2E_TMP/vl4-dedicated/lfts.dump" \
  --sl2vl "$E2E_TMP/vl4-dedicated/sl2vl.dump" --engine xymesh --options "xymesh_vls=4 xymesh_vl_mode=shared"

# Ports with fewer operational VLs than the engine uses (max_op_vls 3:
# VL0-3, while 4 data VLs + the paper multicast VL need VL0-4): OpenSM
# folds VL 4 onto VL 0 without a word, so the plugin must name a port.
out=$E2E_TMP/opvls
check "mesh-4x4, xymesh_vls=4 + paper (5 VLs), max_op_vls 3 (VL0-3): OpenSM comes up" \
  "$FABRIC_RUN" --net "$TOPO/mesh-4x4.net" --engine xymesh,minhop --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion \
  --plugin-options "xymesh_vls=4 xymesh_vl_mode=dedicated xymesh_mcast=paper" --conf-line "qos TRUE" \
  --conf-line "max_op_vls 3" --conf-line "qos_max_vls 4" --no-mft --out "$out"
needle="has 4 operational VLs (OperVLs VL0-3), but the engine maps SLs onto VLs 0-4: OpenSM folds VL 4 and above onto lower VLs"
grep -E "ibunion/xymesh: (switch|host) [^ ]+ \(0x[0-9a-f]{16}\) port [0-9]+ " "$out/opensm.log" | grep -qF -- "$needle" &&
  pass "too few operational VLs: the log names a port, its VLs and the VLs the engine uses" ||
  fail "too few operational VLs: no '... port N $needle' in the log"
# qos_max_vls caps the VLs an administrator wants used; the engine's five
# are set all the same (fewer could close credit loops), and said.
grep -qF "ibunion/xymesh: qos_max_vls 4 is below the 5 VLs the engine's tables use; they are set all the same" \
  "$out/opensm.log" && pass "qos_max_vls below the engine's VLs: an error line says so" ||
  fail "qos_max_vls 4 with 5 VLs: no error line"
finish
