#!/bin/bash
# Cyclic multicast inside OpenSM: groups joined through the SA with
# `ibunion mcjoin` from many simulated hosts, MFTs read back from the
# switches and checked (seed 002's example, exactly-once delivery, leaves,
# spreading of many groups over the top switches vs OpenSM's default).
source "$(dirname "$0")/lib.sh"
[ -f "$PLUGIN_DIR/libibunion.so" ] || { echo "FAIL: $PLUGIN_DIR/libibunion.so not built"; exit 1; }
write_join_exec "$E2E_TMP/apply.sh"
groups_line() { echo "$1 $(tr '\n' ' ' <"$2")"; }  # MLID MEMBERS-FILE

# --- seed 002's example on FT(4,3), paper mode -----------------------------
# The sender P(000) joins send-only, so it is in the group and (lowest PID)
# becomes the anchor; the paper's union of paths from it to P(200), P(201),
# P(210), P(211) (DLIDs 36, 40, 44, 48) plus what the bidirectional mask adds:
# the tree-parent ports (SW<00,1> 1, SW<00,0> 1, SW<20,1> 3, SW<20,2> 3,
# SW<21,2> 3) and P(000)'s own port 1 on SW<00,2>, since it is a member.
{
  for h in "P(200)" "P(201)" "P(210)" "P(211)"; do echo "join ff12:e001::2 full $h"; done
  echo "join ff12:e001::2 sendonly P(000)"  # a group is created by a full member
} >"$E2E_TMP/paper.plan"
out=$E2E_TMP/paper
check "FT(4,3) paper mode: OpenSM + mlid up, 5 joins through the SA" \
  "$FABRIC_RUN" --net "$TOPO/ft-4-3.net" --guid2lid "$TOPO/ft-4-3.guid2lid" --lmc 2 --engine mlid,minhop \
  --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --plugin-options mlid_rotate=off --daemon \
  --exec "bash $E2E_TMP/apply.sh $E2E_TMP/paper.plan $E2E_TMP/paper-live" --out "$out"
mlid=$(awk '{print $3}' "$E2E_TMP/paper-live.log" | sort -u)
[ -n "$mlid" ] && [ "$(echo "$mlid" | wc -l)" -eq 1 ] && pass "one MLID for the group: $mlid" || fail "MLIDs: '$mlid'"
"$IBUNION" trace "$E2E_TMP/paper-live/fabric.net" --mft "$E2E_TMP/paper-live/mfts.dump" --mlid "$mlid" | sort >"$E2E_TMP/masks"
printf '%s\n' "SW<00,0>: 1 3" "SW<00,1>: 1 3" "SW<00,2>: 1 3" "SW<20,1>: 1 2 3" "SW<20,2>: 1 2 3" "SW<21,2>: 1 2 3" >"$E2E_TMP/want"
if cmp -s "$E2E_TMP/masks" "$E2E_TMP/want"; then pass "masks read back are seed 002's unions (+ parent and member ports)"
else fail "masks differ from seed 002's example"; diff "$E2E_TMP/want" "$E2E_TMP/masks" || true; fi
echo "$mlid P(000) P(200) P(201) P(210) P(211)" >"$E2E_TMP/paper.groups"
check "exactly once from every member (read-back MFTs)" "$IBUNION" verify "$E2E_TMP/paper-live/fabric.net" \
  --lft "$E2E_TMP/paper-live/lfts.dump" --mft "$E2E_TMP/paper-live/mfts.dump" --groups "$E2E_TMP/paper.groups"
check "read-back MFTs are mlid's tree (mlid_rotate=off), entry for entry" "$IBUNION" verify \
  "$E2E_TMP/paper-live/fabric.net" --lft "$E2E_TMP/paper-live/lfts.dump" --mft "$E2E_TMP/paper-live/mfts.dump" \
  --groups "$E2E_TMP/paper.groups" --engine mlid --options mlid_rotate=off

# --- FT(8,3): groups of 2, 10%, 40%, 100% of the hosts, then leaves -------
host_list "$TOPO/ft-8-3.net" >"$E2E_TMP/hosts83"
: >"$E2E_TMP/sizes.plan"
i=0
for size in 2 13 51 128; do
  i=$((i + 1))
  sample $i $size "$E2E_TMP/hosts83" >"$E2E_TMP/members.$i"
  while read -r h; do echo "join ff12:e001::1$i full $h"; done <"$E2E_TMP/members.$i" >>"$E2E_TMP/sizes.plan"
done
# Then half of the 40% group leaves.
head -n 25 "$E2E_TMP/members.3" >"$E2E_TMP/leavers"
tail -n +26 "$E2E_TMP/members.3" >"$E2E_TMP/stayers"
while read -r h; do echo "leave ff12:e001::13 full $h"; done <"$E2E_TMP/leavers" >"$E2E_TMP/leave.plan"
out=$E2E_TMP/sizes
check "FT(8,3): 194 joins, then 25 leaves, through the SA" \
  "$FABRIC_RUN" --net "$TOPO/ft-8-3.net" --guid2lid "$TOPO/ft-8-3.guid2lid" --lmc 2 --engine mlid,minhop \
  --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --daemon --timeout 400 \
  --exec "bash $E2E_TMP/apply.sh $E2E_TMP/sizes.plan $E2E_TMP/joined" \
  --exec "bash $E2E_TMP/apply.sh $E2E_TMP/leave.plan $E2E_TMP/left" --out "$out"
: >"$E2E_TMP/sizes.groups"
i=0
for size in 2 13 51 128; do
  i=$((i + 1))
  mlid_i=$(awk -v g="ff12:e001::1$i" '$1 == g {print $3}' "$E2E_TMP/joined.log" | sort -u)
  [ "$(echo "$mlid_i" | wc -l)" -eq 1 ] || fail "group $i got MLIDs: $mlid_i"
  echo "$mlid_i $(tr '\n' ' ' <"$E2E_TMP/members.$i")" >>"$E2E_TMP/sizes.groups"
done
check "all four groups: exactly once from every member, nothing to non-members" "$IBUNION" verify \
  "$E2E_TMP/joined/fabric.net" --lft "$E2E_TMP/joined/lfts.dump" --mft "$E2E_TMP/joined/mfts.dump" --groups "$E2E_TMP/sizes.groups"
check "all four groups: read-back MFTs are mlid's trees, entry for entry" "$IBUNION" verify \
  "$E2E_TMP/joined/fabric.net" --lft "$E2E_TMP/joined/lfts.dump" --mft "$E2E_TMP/joined/mfts.dump" \
  --groups "$E2E_TMP/sizes.groups" --engine mlid
mlid3=$(sed -n 3p "$E2E_TMP/sizes.groups" | awk '{print $1}')
echo "$mlid3 $(tr '\n' ' ' <"$E2E_TMP/stayers")" >"$E2E_TMP/after.groups"
check "after 25 leaves: the 26 remaining members still get exactly one copy, the leavers none" "$IBUNION" verify \
  "$E2E_TMP/left/fabric.net" --lft "$E2E_TMP/left/lfts.dump" --mft "$E2E_TMP/left/mfts.dump" --groups "$E2E_TMP/after.groups"
check "after 25 leaves: the group's read-back MFTs are mlid's tree for the 26 left" "$IBUNION" verify \
  "$E2E_TMP/left/fabric.net" --lft "$E2E_TMP/left/lfts.dump" --mft "$E2E_TMP/left/mfts.dump" \
  --groups "$E2E_TMP/after.groups" --engine mlid
before=$("$IBUNION" trace "$E2E_TMP/joined/fabric.net" --mft "$E2E_TMP/joined/mfts.dump" --mlid "$mlid3" | awk '{n += NF - 1} END {print n}')
after=$("$IBUNION" trace "$E2E_TMP/left/fabric.net" --mft "$E2E_TMP/left/mfts.dump" --mlid "$mlid3" | awk '{n += NF - 1} END {print n}')
[ "$after" -lt "$before" ] && pass "the group's MFT ports shrank with the leaves ($before -> $after)" || fail "MFT ports $before -> $after"

# --- switch members: a managed switch's port 0 joins (IPoIB on the switch) --
# Two top switches, a leaf switch and two hosts join one group on FT(4,3).
# A tree without a valley has one root, so one of the top switches gets its
# port 0 in the mask and the other is named in OpenSM's log, once; the leaf
# switch is always served. (They used to get no copies at all.) A switch
# creates the group: under ibsim the SA refuses a switch's port 0 in a group
# a host created (its rate or MTU does not fit the group's).
printf 'join ff12:e001::30 full %s\n' "SW<00,0>" "SW<11,0>" "SW<20,2>" "P(000)" "P(311)" >"$E2E_TMP/switch.plan"
out=$E2E_TMP/switch
check "FT(4,3): two hosts and three switches join one group through the SA" \
  "$FABRIC_RUN" --net "$TOPO/ft-4-3.net" --guid2lid "$TOPO/ft-4-3.guid2lid" --lmc 2 --engine mlid,minhop \
  --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --daemon \
  --exec "bash $E2E_TMP/apply.sh $E2E_TMP/switch.plan $E2E_TMP/switch-live" --out "$out"
mlid=$(awk '{print $3}' "$E2E_TMP/switch-live.log" | sort -u)
"$IBUNION" trace "$E2E_TMP/switch-live/fabric.net" --mft "$E2E_TMP/switch-live/mfts.dump" --mlid "$mlid" \
  >"$E2E_TMP/switch.masks"
with_port0=$(awk '{for (i = 2; i <= NF; i++) if ($i == "0") print $1}' "$E2E_TMP/switch.masks" | tr -d : | sort | xargs)
left_out=$(grep -o 'multicast group [^:]*: switch SW<[0-9,]*> ([^)]*) joined (its port 0) and gets no copies: no up\*/down\* tree' \
  "$out/opensm.log" | sed 's/.*switch \(SW<[0-9,]*>\).*/\1/' | xargs)
case "$with_port0/$left_out" in
  "SW<00,0> SW<20,2>/SW<11,0>" | "SW<11,0> SW<20,2>/SW<00,0>")
    pass "port 0 in the masks of $with_port0; $left_out named once in OpenSM's log" ;;
  *) fail "port 0 set on '$with_port0', named as left out: '$left_out'"; cat "$E2E_TMP/switch.masks" ;;
esac
served_top=${with_port0%% *}  # the top switch sorts first
echo "$mlid P(000) P(311) $served_top SW<20,2>" >"$E2E_TMP/switch.groups"
check "exactly once between the hosts and the served switches, both ways; mlid's tree entry for entry" \
  "$IBUNION" verify "$E2E_TMP/switch-live/fabric.net" --lft "$E2E_TMP/switch-live/lfts.dump" \
  --mft "$E2E_TMP/switch-live/mfts.dump" --groups "$E2E_TMP/switch.groups" --engine mlid
echo "$mlid P(000) P(311) SW<00,0> SW<11,0> SW<20,2>" >"$E2E_TMP/switch-all.groups"
"$IBUNION" verify "$E2E_TMP/switch-live/fabric.net" --lft "$E2E_TMP/switch-live/lfts.dump" \
  --mft "$E2E_TMP/switch-live/mfts.dump" --groups "$E2E_TMP/switch-all.groups" >"$E2E_TMP/switch-all.out" 2>&1 &&
  fail "verify passed the group with the left-out switch" ||
  { grep -q "$left_out .*(member, port 0) gets 0 copies" "$E2E_TMP/switch-all.out" &&
    pass "verify names the left-out switch's missing copies" || fail "$(head -3 "$E2E_TMP/switch-all.out")"; }

# --- 64 groups of 10% of the hosts: spread over the top switches ----------
: >"$E2E_TMP/many.plan"
for g in $(seq 1 64); do
  sample $((100 + g)) 13 "$E2E_TMP/hosts83" | while read -r h; do printf 'join ff12:e001::%x full %s\n' $((256 + g)) "$h"; done
done >>"$E2E_TMP/many.plan"
spread() {  # ENGINE-CHAIN OUT [plugin args...]
  local chain=$1 dir=$2
  shift 2
  "$FABRIC_RUN" --net "$TOPO/ft-8-3.net" --guid2lid "$TOPO/ft-8-3.guid2lid" --engine "$chain" "$@" \
    --daemon --timeout 400 --exec "bash $E2E_TMP/apply.sh $E2E_TMP/many.plan $dir-live" --out "$dir" >/dev/null 2>&1 || return 1
  "$IBUNION" trace "$dir-live/fabric.net" --mft "$dir-live/mfts.dump" --groups-per-switch | awk '$3 == 0 {print $5}'
}
mlid_tops=$(spread mlid,minhop "$E2E_TMP/many-mlid" --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion) || fail "64 groups under mlid: run failed"
def_tops=$(spread minhop "$E2E_TMP/many-default") || fail "64 groups under OpenSM's default: run failed"
stats() { echo "$1" | awk 'NR == 1 || $1 < lo {lo = $1} $1 > hi {hi = $1} $1 > 0 {used++} {n++}
  END {printf "%d of %d top switches used, groups per top switch min %d max %d", used, n, lo, hi}'; }
echo "  mlid (cyclic):            $(stats "$mlid_tops")"
echo "  OpenSM default (minhop):  $(stats "$def_tops")"
lo=$(echo "$mlid_tops" | sort -n | head -1)
hi=$(echo "$mlid_tops" | sort -n | tail -1)
[ "$(echo "$mlid_tops" | wc -l)" -eq 16 ] && [ "$lo" -gt 0 ] && [ "$hi" -le $((2 * lo)) ] &&
  pass "mlid: every top switch carries groups, the busiest at most twice the least busy" ||
  fail "mlid spread: $(stats "$mlid_tops")"
finish
