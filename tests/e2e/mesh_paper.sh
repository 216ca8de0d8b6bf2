#!/bin/bash
# Seed 000's 5x5 multicast example read back from the simulated switches:
# the xymesh engine with xymesh_mcast=paper inside OpenSM over ibsim, the
# paper's LID layout (LID of N(x,y) = 5x + y + 1), the group joined through
# the SA by its six hosts with `ibunion mcjoin --sl 15` (paper trees ride
# the multicast VL, reached by SL 15). Each switch's MFT mask must be the
# paper's out-port union plus exactly what every-member-as-sender adds.
source "$(dirname "$0")/lib.sh"
[ -f "$PLUGIN_DIR/libibunion.so" ] || { echo "FAIL: $PLUGIN_DIR/libibunion.so not built"; exit 1; }

# Ports of the generator: 1 east, 2 north, 3 west, 4 south, 5 host.
# The paper's unions (seed 000, section 3.3.2), for N(2,2) as the sender:
declare -A PAPER=(["N(2,2)"]="1 3" ["N(1,2)"]="3" ["N(0,2)"]="2" ["N(0,3)"]="2"
  ["N(3,2)"]="1 2" ["N(4,2)"]="4" ["N(4,1)"]="4")
# What the bidirectional mask adds so every member can send (IB floods to
# every mask port but the arrival port): on each tree switch the port back
# toward the anchor N(2,2), and each member's host port (N(2,2) is a member:
# a sender joins the group too).
declare -A ADDED=(["N(2,2)"]="5" ["N(1,2)"]="1" ["N(0,2)"]="1" ["N(0,3)"]="4 5"
  ["N(0,4)"]="4 5" ["N(3,2)"]="3" ["N(3,3)"]="4 5" ["N(4,2)"]="3 5" ["N(4,1)"]="2" ["N(4,0)"]="2 5")

members="H(2,2) H(0,3) H(0,4) H(3,3) H(4,0) H(4,2)"
joins=""
for h in $members; do
  joins="$joins SIM_HOST='$h' LD_PRELOAD=\$IBUNION_UMAD2SIM '$IBUNION' mcjoin join ff12:e001::5 --sl 15 >>\$IBUNION_OUT/joins.txt &&"
done
out=$E2E_TMP/paper
check "mesh-5x5, xymesh_mcast=paper, qos TRUE: six joins through the SA" \
  "$FABRIC_RUN" --net "$TOPO/mesh-5x5.net" --guid2lid "$TOPO/mesh-5x5.guid2lid" --engine xymesh,minhop \
  --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --plugin-options "xymesh_mcast=paper" \
  --conf-line "qos TRUE" --out "$out" --daemon --exec "$joins sleep 2"
grep -q "xymesh tables configured on all switches" "$out/opensm.log" && pass "routed by xymesh" ||
  fail "xymesh did not route"

# The paper's LID layout, as OpenSM assigned it.
lid_of() { grep -o "# \"$1\" lid [0-9]*" "$out/fabric.net" | head -1 | awk '{print $NF}'; }
lids=""
for h in $members; do lids="$lids $(lid_of "$h")"; done
[ "$lids" = " 13 4 5 19 21 23" ] && pass "paper LIDs: N(2,2)=13, members {4,5,19,21,23}" ||
  fail "LIDs of $members are$lids, expected 13 4 5 19 21 23"

mlid=$(sort -u "$out/joins.txt" | awk '{print $2}')
[ "$(echo "$mlid" | wc -w)" -eq 1 ] && pass "one MLID for the group: $mlid" || fail "MLIDs: $mlid"

# Mask ports of MLID on each switch, from `ibroute -M`: an x under a port
# number of the "Ports:" header.
awk -v mlid="$(printf '0x%04x' "$mlid")" '
  /^Multicast mlids/ {match($0, /N\([0-9]+,[0-9]+\)/); sw = substr($0, RSTART, RLENGTH)}
  /Ports:/ {header = $0}
  tolower($1) == mlid {
    ports = ""
    for (i = 1; i <= length(header); i++) {
      c = substr(header, i, 1)
      if (c ~ /[0-9]/ && substr(header, i - 1, 1) == " " && substr($0, i, 1) == "x") {
        p = substr(header, i); sub(/ .*/, "", p); ports = ports " " p
      }
    }
    print sw ports
  }' "$out/mfts.dump" >"$E2E_TMP/masks"
sorted() { tr ' ' '\n' | { grep . || true; } | sort -n | tr '\n' ' ' | sed 's/ $//'; }
for x in 0 1 2 3 4; do
  for y in 0 1 2 3 4; do
    sw="N($x,$y)"
    want=$(echo "${PAPER[$sw]:-} ${ADDED[$sw]:-}" | sorted)
    got=$(awk -v s="$sw" '$1 == s {$1 = ""; print}' "$E2E_TMP/masks" | sorted)
    if [ "$got" = "$want" ]; then
      [ -z "$want" ] || pass "$sw mask {$want} = paper {${PAPER[$sw]:-}} + bidirectional {${ADDED[$sw]:-}}"
    else
      fail "$sw mask {$got}, expected paper {${PAPER[$sw]:-}} + bidirectional {${ADDED[$sw]:-}}"
    fi
  done
done
! grep -q "its anchor tree would close" "$out/opensm.log" && pass "the anchor tree was admitted on the multicast VL" ||
  fail "the group fell back to a trunk-row tree"

# The read-back tables of run OUT, with GROUPS: each group exactly once to
# every member and nothing to others; no credit loop with the unicast routes.
delivers_once_acyclic() {  # OUT GROUPS WHAT
  check "$3: exactly once from every member, nothing to others (read-back LFTs + MFTs)" \
    "$IBUNION" verify "$1/fabric.net" --lft "$1/lfts.dump" --mft "$1/mfts.dump" --groups "$2"
  check "$3 and unicast: channel dependencies acyclic (multicast VL 1)" \
    "$IBUNION" verify "$1/fabric.net" --lft "$1/lfts.dump" --mft "$1/mfts.dump" --groups "$2" \
    --deadlock --engine xymesh --options "xymesh_mcast=paper"
}
echo "$mlid sl=15 $members" >"$E2E_TMP/groups"
delivers_once_acyclic "$out" "$E2E_TMP/groups" "the group"

# A join that no SL-15 tree fits: group A over four corners and H(2,0),
# then B over the same corners; H(2,4) joining B would close a credit loop
# on the multicast VL with A's tree whichever tree B takes. OpenSM clears
# the MLID before the engine builds it: B must keep the tree it had.
join() {  # MGID HOST...: commands for --exec, one join per host
  local mgid=$1 h cmds=""
  shift
  for h in "$@"; do
    cmds="$cmds SIM_HOST='$h' LD_PRELOAD=\$IBUNION_UMAD2SIM '$IBUNION' mcjoin join $mgid --sl 15 >>\$IBUNION_OUT/joins-$mgid.txt &&"
  done
  echo "$cmds"
}
paper_run() {  # OUT FABRIC-RUN-ARGS...: mesh-5x5, xymesh paper trees, OpenSM kept up for --exec
  "$FABRIC_RUN" --net "$TOPO/mesh-5x5.net" --guid2lid "$TOPO/mesh-5x5.guid2lid" --engine xymesh,minhop \
    --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --plugin-options "xymesh_mcast=paper" \
    --conf-line "qos TRUE" --out "$1" --daemon "${@:2}"
}
# Then a heavy sweep (SIGHUP: OpenSM routes again, then rebuilds every
# group) on the unchanged fabric: B must keep its tree. It used to lose its
# multicast (refused, no MFT entries): the new routing forgot the kept tree.
out=$E2E_TMP/keep
check "mesh-5x5 paper: groups A and B joined, then H(2,4) joins B, then a heavy sweep" paper_run "$out" \
  --exec "$(join ff12:e001::a 'H(0,0)' 'H(0,4)' 'H(4,0)' 'H(4,4)' 'H(2,0)') sleep 1" \
  --exec "$(join ff12:e001::b 'H(0,0)' 'H(0,4)' 'H(4,0)' 'H(4,4)') sleep 1" \
  --exec "$(join ff12:e001::b 'H(2,4)') sleep 2" \
  --exec "kill -HUP \$IBUNION_OSM_PID && sleep 4"
[ "$(grep -c "xymesh tables configured on all switches" "$out/opensm.log")" -ge 2 ] &&
  pass "the HUP routed the fabric again" || fail "no second routing after the HUP"
! grep -q "multicast group .* refused" "$out/opensm.log" && pass "no group refused, before or after the sweep" ||
  { fail "a group was refused"; grep "refused" "$out/opensm.log" | tail -n 3; }
mlid_b=$(awk '{print $2}' "$out/joins-ff12:e001::b.txt" | sort -u)
grep -q "multicast group $(printf '0x%04x' "$mlid_b"): SL 15 (the multicast VL) and no tree with its 5 members fits on it without a credit loop; it keeps its previous tree, which does not reach H(2,4)" \
  "$out/opensm.log" && pass "H(2,4)'s join: B keeps its previous tree, the error names H(2,4)" ||
  { fail "no 'keeps its previous tree' error for B ($mlid_b)"; grep -i "xymesh.*multicast" "$out/opensm.log" | tail -n 5; }
# B's members but H(2,4) still get exactly one copy from every member.
echo "$mlid_b sl=15 H(0,0) H(0,4) H(4,0) H(4,4)" >"$E2E_TMP/groups-b"
check "B's tree, read back after the join and the sweep, still serves its first four members exactly once" \
  "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump" --mft "$out/mfts.dump" --groups "$E2E_TMP/groups-b"
# The same, but A is gone before H(2,4) joins B: its one full member
# leaves (its corners joined send-only), and OpenSM deletes the group and
# clears its MLID without asking the engine. A's tree must no longer count
# on the multicast VL: it did, and B kept its 4-member tree as above.
sendonly() {  # MGID HOST...: send-only joins
  join "$@" | sed 's/ --sl 15 / --sl 15 --state sendonly /g'
}
out=$E2E_TMP/gone
check "mesh-5x5 paper: A joined and deleted (its full member left), then H(2,4) joins B" paper_run "$out" \
  --exec "$(join ff12:e001::a 'H(2,0)') $(sendonly ff12:e001::a 'H(0,0)' 'H(0,4)' 'H(4,0)' 'H(4,4)') sleep 1" \
  --exec "$(join ff12:e001::b 'H(0,0)' 'H(0,4)' 'H(4,0)' 'H(4,4)') sleep 1" \
  --exec "SIM_HOST='H(2,0)' LD_PRELOAD=\$IBUNION_UMAD2SIM '$IBUNION' mcjoin leave ff12:e001::a && sleep 1" \
  --exec "$(join ff12:e001::b 'H(2,4)') sleep 2"
mlid_b=$(awk '{print $2}' "$out/joins-ff12:e001::b.txt" | sort -u)
! grep -q -e "keeps its previous tree" -e "its anchor tree would close" "$out/opensm.log" &&
  pass "A deleted: H(2,4)'s join gives B its anchor tree (no credit-loop refusal from A's stale tree)" ||
  { fail "B refused after A was deleted"; grep -i "xymesh.*multicast" "$out/opensm.log" | tail -n 5; }
echo "$mlid_b sl=15 H(0,0) H(0,4) H(4,0) H(4,4) H(2,4)" >"$E2E_TMP/groups-b5"
delivers_once_acyclic "$out" "$E2E_TMP/groups-b5" "B with its five members"
finish
