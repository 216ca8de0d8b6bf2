#!/bin/bash
# A multicast group whose MLID lies beyond the switches' MulticastFDBCap,
# under the real OpenSM + mlid over ibsim: the plugin refuses that group
# (logged with its MLID, no MFT entry), the other groups keep correct trees
# and OpenSM stays up.
#
# How the real stack gets there. ibsim gives every switch one
# MulticastFDBCap, `ibsim -M` (sim_net.c new_switch); here 32: MLIDs
# 0xC000-0xC01F, one MFT block. OpenSM clamps the SA's MLID allocation to
# the smallest cap of the switches it has discovered (osm_sw_info_rcv.c
# si_rcv_process_new, osm_sa_mcmember_record.c get_new_mlid), so once the
# switches are known the SA never hands out an MLID beyond the cap. But it
# lowers that limit only when it discovers a switch, and groups keep the
# MLIDs they have. So the SM's host P(00) starts cabled straight to P(01)
# (no switch, no limit), P(01) creates groups until the SA hands out
# 0xC020, then both hosts are cabled into their leaf through ibsim's
# console (a complete FT(4,2)) and OpenSM sweeps. Joins to the 0xC020
# group from other hosts make OpenSM ask the plugin for its tree
# (osm_sm_reroute_mlid -> mcast_mgr_process_mlid), beyond the MFT OpenSM
# sized for the cap. On a real fabric the same happens when a switch with a
# smaller MulticastFDBCap joins a fabric whose groups use higher MLIDs.
# (OpenSM's own multicast, asked the same, writes past its MFT table and
# sends the switches MFT block 1.)
#
# OpenSM's MFTs (what it programs) come from its own dump, opensm.mcfdbs
# (log_flags with ROUTING); the switches' from ibroute -M, which reads up
# to the cap each switch reports. VERBOSE too, for the engine's per-rebuild
# lines. About 10 s.
source "$(dirname "$0")/lib.sh"
[ -f "$PLUGIN_DIR/libibunion.so" ] || { echo "FAIL: $PLUGIN_DIR/libibunion.so not built"; exit 1; }
CAP=32
BEYOND=$(printf '0x%04x' $((0xC000 + CAP)))  # the first MLID beyond the cap

# FT(4,2) with P(00)[1] and P(01)[1] cabled to each other instead of to SW<0,1>.
awk '/^(Hca|Switch)/ { node = $3 }
  node == "\"P(00)\"" && /^\[1\]/ { print "[1]\t\"P(01)\"[1]"; next }
  node == "\"P(01)\"" && /^\[1\]/ { print "[1]\t\"P(00)\"[1]"; next }
  node == "\"SW<0,1>\"" && /^\[[12]\]/ { next }
  { print }' "$TOPO/ft-4-2.net" >"$E2E_TMP/start.net"

cat >"$E2E_TMP/live.sh" <<EOS
#!/bin/bash
set -euo pipefail
log=\$IBUNION_OUT/opensm.log
join() {  # HOST MGID: prints the MLID the SA answered with
  SIM_HOST="\$1" LD_PRELOAD=\$IBUNION_UMAD2SIM "$IBUNION" mcjoin join "\$2" --state full | awk '{print \$2}'
}
sweep() {  # force a heavy sweep and wait (bounded) for its SUBNET UP
  local before=\$(grep -c "SUBNET UP" "\$log")
  kill -HUP "\$IBUNION_OSM_PID"
  for i in \$(seq 150); do
    [ "\$(grep -c "SUBNET UP" "\$log")" -gt "\$before" ] && { sleep 1; return 0; }
    sleep 0.2
  done
  echo "no SUBNET UP within 30 s" >&2; return 1
}
# 1. No switch in the subnet: groups from P(01) until one gets $BEYOND.
for g in \$(seq 1 40); do
  mgid=ff12:e0fc::\$(printf %x \$g)
  mlid=\$(join "P(01)" \$mgid)
  echo "\$mgid \$mlid" >>"\$IBUNION_OUT/created"
  [ \$((mlid)) -lt \$(($BEYOND)) ] || break
done
# 2. Cable both hosts into SW<0,1>; wait until ibsim has (all 6 switches
# reachable), then sweep: OpenSM discovers the switches and their cap.
printf '%s\n' 'Unlink "P(00)"[1]' 'Link "P(00)"[1] "SW<0,1>"[1]' 'Link "P(01)"[1] "SW<0,1>"[2]' >"\$IBUNION_IBSIM_CONSOLE"
for i in \$(seq 50); do
  [ "\$(LD_PRELOAD=\$IBUNION_UMAD2SIM ibnetdiscover 2>/dev/null | grep -c '^Switch')" -eq 6 ] && break
  sleep 0.2
done
sweep
cp "\$log" "\$IBUNION_OUT/log.cabled"
LD_PRELOAD=\$IBUNION_UMAD2SIM smpquery -D switchinfo 0,1 >"\$IBUNION_OUT/switchinfo" 2>&1 || true
# 3. Joins from other hosts to the beyond-cap group and to the first group,
# interleaved (the same reroute pass), then one more join to the first group
# after the refusal, and another heavy sweep.
first=\$(head -n 1 "\$IBUNION_OUT/created" | awk '{print \$1}')
last=\$(tail -n 1 "\$IBUNION_OUT/created" | awk '{print \$1}')
for h in "P(10)" "P(31)"; do
  echo "\$last \$h \$(join "\$h" \$last)" >>"\$IBUNION_OUT/joined"
  echo "\$first \$h \$(join "\$h" \$first)" >>"\$IBUNION_OUT/joined"
done
sleep 2
cp "\$log" "\$IBUNION_OUT/log.refused"
echo "\$first P(20) \$(join "P(20)" \$first)" >>"\$IBUNION_OUT/joined"
sleep 2
sweep
kill -0 "\$IBUNION_OSM_PID" && echo alive >"\$IBUNION_OUT/osm.alive"
EOS

out=$E2E_TMP/run
check "FT(4,2), MulticastFDBCap $CAP: groups created before any switch was known, hosts cabled in, joins" \
  "$FABRIC_RUN" --net "$E2E_TMP/start.net" --guid2lid "$TOPO/ft-4-2.guid2lid" --engine mlid,minhop \
  --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --ibsim-args "-M $CAP" --conf-line "log_flags 0x47" \
  --daemon --timeout 100 --exec "bash $E2E_TMP/live.sh" --out "$out"
since() { awk -v skip="$( [ -f "$2" ] && wc -l <"$2" || echo 0)" 'NR > skip' "$1"; }  # lines of $1 after $2's
lc() { tr 'A-F' 'a-f'; }

# --- the set-up really is what it claims -----------------------------------
n=$(wc -l <"$out/created" 2>/dev/null || echo 0)
last_mlid=$(tail -n 1 "$out/created" 2>/dev/null | awk '{print $2}' | lc || true)
inside=$(head -n -1 "$out/created" 2>/dev/null | awk '{print $2}' | lc | sort -u || true)
outside=0
for m in $inside; do [ $((m)) -lt $((BEYOND)) ] || outside=1; done
[ "$last_mlid" = "$BEYOND" ] && [ -n "$inside" ] && [ $outside -eq 0 ] &&
  pass "$n groups created from P(01) with no switch known: $((n - 1)) inside the cap ($(echo "$inside" | head -1)..$(echo "$inside" | tail -1)), the last got $last_mlid" ||
  fail "the SA did not hand out $BEYOND before the switches were cabled in (got: $(awk '{print $2}' "$out/created" 2>/dev/null | xargs))"
caps=$(grep -o 'Multicast mlids \[0xc000-0x[0-9a-f]*\]' "$out/mfts.dump" 2>/dev/null | sort | uniq -c | awk '{print $1, $4}' || true)
[ "$caps" = "6 [0xc000-0x$(printf %04x $((0xC000 + CAP - 1)))]" ] &&
  grep -q "^McastFdbCap:\.*$CAP$" "$out/switchinfo" 2>/dev/null &&
  pass "the 6 switches report MulticastFDBCap $CAP (SwitchInfo, ibroute -M ranges)" || fail "switch caps: $caps / $(grep McastFdbCap "$out/switchinfo" 2>/dev/null)"
grep -q "ibunion/mlid: routed 6 switches, 8 end ports" "$out/log.cabled" &&
  ! grep -q "ibunion/mlid: degraded" "$out/log.cabled" && grep -q "mlid tables configured on all switches" "$out/log.cabled" &&
  ! grep -q "minhop tables configured" "$out/log.cabled" &&
  pass "after the cabling, mlid routes the complete FT(4,2)" || fail "mlid did not route the cabled-in FT(4,2)"

# --- the refusal -------------------------------------------------------------
# The line names a switch of this fabric and its cap.
cap_text="($CAP MLIDs, up to 0x$(printf %04x $((0xC000 + CAP - 1))))"
msg="refused: MLID beyond the MulticastFDBCap of switch 0x[0-9a-f]\{16\} $cap_text; other groups are unaffected"
refused=$(since "$out/log.refused" "$out/log.cabled" | grep -o "ibunion/mlid: multicast group 0x[0-9a-f]* $msg" | sort -u || true)
refused_guid=$(printf '%s\n' "$refused" | grep -o 'switch 0x[0-9a-f]*' | awk '{print $2}' | head -1)
refused_ever=$(grep -o "multicast group 0x[0-9a-f]* refused" "$out/opensm.log" 2>/dev/null | awk '{print $3}' | sort -u | xargs || true)
[ "$(printf '%s\n' "$refused" | wc -l)" -eq 1 ] && [ "${refused%% refused*}" = "ibunion/mlid: multicast group $BEYOND" ] &&
  [ -n "$refused_guid" ] && grep -qi "guid $refused_guid" "$out/mfts.dump" 2>/dev/null && [ "$refused_ever" = "$BEYOND" ] &&
  pass "the plugin refused group $BEYOND when the joins came, naming switch $refused_guid $cap_text; no other group was ever refused" ||
  { fail "refused after the joins: '${refused:-none}'; refused in the whole run: '${refused_ever:-none}'"
    since "$out/log.refused" "$out/log.cabled" | grep -i "ibunion\|ERR" | head || true; }
since "$out/log.refused" "$out/log.cabled" | grep -ci "ERR 0A17: Unable to create spanning tree (IB_ERROR) for mlid $BEYOND" >/dev/null &&
  pass "OpenSM got the failure for $BEYOND from the engine (ERR 0A17)" || fail "no ERR 0A17 for $BEYOND"
joined_beyond=$(awk -v g="$(tail -n 1 "$out/created" 2>/dev/null | awk '{print $1}')" '$1 == g {print $3}' "$out/joined" 2>/dev/null | lc | sort -u || true)
[ "$joined_beyond" = "$BEYOND" ] && pass "the SA still answers joins to the refused group with $BEYOND" ||
  fail "joins to the refused group answered with: '${joined_beyond:-nothing}'"
# The refusal is the refused group's only line: the engine's verbose
# "tree of N members rebuilt" came before it, for a tree that was never set.
rebuilt_beyond=$(grep -c "ibunion/mlid: multicast group $BEYOND: tree of .* rebuilt" "$out/opensm.log" 2>/dev/null || true)
rebuilt_first=$(grep -c "ibunion/mlid: multicast group $(head -n 1 "$out/created" 2>/dev/null | awk '{print $2}' | lc): tree of .* rebuilt" \
  "$out/opensm.log" 2>/dev/null || true)
[ "${rebuilt_beyond:-0}" -eq 0 ] && [ "${rebuilt_first:-0}" -ge 1 ] &&
  pass "no rebuild line for the refused group $BEYOND, only its refusal (the first group has $rebuilt_first)" ||
  fail "rebuild lines: ${rebuilt_beyond:-?} for the refused group $BEYOND (expected none), ${rebuilt_first:-?} for the first group (expected some)"
hit=$(grep -ci "^$BEYOND :" "$out/opensm.mcfdbs" 2>/dev/null || true)
top=$(grep -o '^0x[0-9A-F]* :' "$out/opensm.mcfdbs" 2>/dev/null | awk '{print $1}' | sort | tail -1 | lc || true)
[ -s "$out/opensm.mcfdbs" ] && [ "${hit:-0}" -eq 0 ] && [ $((top)) -lt $(($BEYOND)) ] &&
  ! grep -q "ERR 0802" "$out/opensm.log" &&
  pass "no MFT entry for $BEYOND: OpenSM's MFTs (opensm.mcfdbs) end at $top, no MFT block beyond the cap was set" ||
  fail "OpenSM's MFTs hold $BEYOND on ${hit:-?} switches (highest MLID ${top:-none}) or an MFT block beyond the cap failed"

# --- the other groups ----------------------------------------------------------
first_mlid=$(head -n 1 "$out/created" 2>/dev/null | awk '{print $2}' || true)
{
  echo "$first_mlid P(01) P(10) P(20) P(31)"
  head -n -1 "$out/created" 2>/dev/null | tail -n +2 | awk '{print $2, "P(01)"}'
} >"$E2E_TMP/groups"
check "the $(wc -l <"$E2E_TMP/groups") groups inside the cap (the first with P(20), who joined after the refusal): exactly once, nothing to non-members (MFTs read back)" \
  "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump" --mft "$out/mfts.dump" --groups "$E2E_TMP/groups"
masks=$("$IBUNION" trace "$out/fabric.net" --mft "$out/mfts.dump" --mlid "$first_mlid" 2>/dev/null | wc -l || true)
[ "$masks" -eq 5 ] && pass "group $first_mlid spans its 4 members' leaves and one top switch" ||
  fail "group $first_mlid: $masks switches hold it, expected 5"

# --- OpenSM stays up -------------------------------------------------------------
[ -f "$out/osm.alive" ] && [ "$(since "$out/opensm.log" "$out/log.refused" | grep -c "SUBNET UP")" -ge 1 ] &&
  pass "OpenSM stays up: a later join and a heavy sweep (SUBNET UP) after the refusal" || fail "OpenSM did not stay up"
[ -z "$(survivors "$out")" ] && pass "nothing left running" || fail "processes survive: $(survivors "$out")"
! grep -q "ibunion.*internal error" "$out/opensm.log" 2>/dev/null && pass "no internal error from the plugin" || fail "plugin internal error"

# --- switches without multicast --------------------------------------------------
# MulticastFDBCap 0 (`ibsim -M 0`): OpenSM's subnet-wide MLID limit ignores
# such switches, so the SA hands MLIDs out; the refusal said "(0 MLIDs, up
# to 0xbfff)".
out=$E2E_TMP/cap0
check "FT(4,2), MulticastFDBCap 0: two joins" \
  "$FABRIC_RUN" --net "$TOPO/ft-4-2.net" --guid2lid "$TOPO/ft-4-2.guid2lid" --engine mlid,minhop \
  --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --ibsim-args "-M 0" --daemon --no-readback --out "$out" \
  --exec "for h in 'P(00)' 'P(31)'; do SIM_HOST=\"\$h\" LD_PRELOAD=\$IBUNION_UMAD2SIM '$IBUNION' mcjoin join ff12:e001::7 || exit 1; done; sleep 1"
grep -q "ibunion/mlid: multicast group 0xc00[0-9a-f] refused: switch 0x[0-9a-f]\{16\} supports no multicast (MulticastFDBCap 0); other groups are unaffected" "$out/opensm.log" &&
  ! grep -q "0 MLIDs, up to" "$out/opensm.log" &&
  pass "the refusal says the switch supports no multicast" ||
  fail "cap 0: $(grep -o 'ibunion/mlid: multicast group .* refused.*' "$out/opensm.log" | head -1)"
finish
