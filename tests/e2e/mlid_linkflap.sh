#!/bin/bash
# Link flaps under the live OpenSM (daemon) with the plugin: a cable of
# FT(4,3) goes down through ibsim's console, OpenSM re-sweeps, mlid refuses
# the degraded tree with the reason and minhop keeps every pair connected;
# the cable comes back and the next sweep restores exactly the healthy
# tables. Three different cables, each checked; bounded in count and time.
source "$(dirname "$0")/lib.sh"
[ -f "$PLUGIN_DIR/libibunion.so" ] || { echo "FAIL: $PLUGIN_DIR/libibunion.so not built"; exit 1; }
READ_TABLES=$E2E_SRC/sim-harness/ibsim/read-tables

cat >"$E2E_TMP/flap.sh" <<EOS
#!/bin/bash
# Runs inside fabric-run --daemon: snapshot, then per cable: down, sweep,
# snapshot, up, sweep, snapshot.
set -euo pipefail
sweep() {  # force a heavy sweep and wait (bounded) for the next routing
  local before=\$(grep -c "tables configured on all switches" "\$IBUNION_OUT/opensm.log")
  kill -HUP "\$IBUNION_OSM_PID"
  for i in \$(seq 150); do
    [ "\$(grep -c "tables configured on all switches" "\$IBUNION_OUT/opensm.log")" -gt "\$before" ] && { sleep 1; return 0; }
    sleep 0.2
  done
  echo "no re-routing within 30 s" >&2; return 1
}
"$READ_TABLES" "\$IBUNION_OUT/healthy" >/dev/null
n=0
for cable in '"SW<00,2>"[3]' '"SW<11,1>"[4]' '"SW<11,0>"[2]'; do
  n=\$((n + 1))
  echo "Unlink \$cable" >"\$IBUNION_IBSIM_CONSOLE"
  sweep
  cp "\$IBUNION_OUT/opensm.log" "\$IBUNION_OUT/log.down\$n"
  "$READ_TABLES" "\$IBUNION_OUT/down\$n" >/dev/null
  echo "ReLink \$cable" >"\$IBUNION_IBSIM_CONSOLE"
  sweep
  cp "\$IBUNION_OUT/opensm.log" "\$IBUNION_OUT/log.up\$n"
  "$READ_TABLES" "\$IBUNION_OUT/up\$n" >/dev/null
done
EOS
out=$E2E_TMP/run
check "OpenSM (daemon) + mlid: three cables down and up again through ibsim's console" \
  "$FABRIC_RUN" --net "$TOPO/ft-4-3.net" --guid2lid "$TOPO/ft-4-3.guid2lid" --lmc 2 --engine mlid,minhop \
  --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --daemon --timeout 300 --exec "bash $E2E_TMP/flap.sh" --out "$out"
for n in 1 2 3; do
  [ -d "$out/down$n" ] || { fail "cable $n: no snapshot"; continue; }
  since() { awk -v skip="$(wc -l <"$2")" 'NR > skip' "$1"; }  # log lines after the previous snapshot
  prev=$out/log.up$((n - 1)); [ -f "$prev" ] || prev=/dev/null
  since "$out/log.down$n" "$prev" | grep -q "ibunion/mlid: refusing: not an m-port n-tree" &&
    pass "cable $n down: mlid refuses the degraded tree and says why" || fail "cable $n down: no refusal line"
  since "$out/log.down$n" "$prev" | grep -q "minhop tables configured on all switches" &&
    pass "cable $n down: OpenSM fell back to minhop" || fail "cable $n down: no fallback"
  check "cable $n down: every LID still reachable from every host, no loop" \
    "$IBUNION" verify "$out/down$n/fabric.net" --lft "$out/down$n/lfts.dump"
  since "$out/log.up$n" "$out/log.down$n" | grep -q "mlid tables configured on all switches" &&
    pass "cable $n up: mlid routes again" || fail "cable $n up: mlid did not route"
  cmp -s "$out/healthy/lfts.dump" "$out/up$n/lfts.dump" &&
    pass "cable $n up: the switches hold exactly the healthy tables again" || fail "cable $n up: tables differ from healthy"
done
[ -z "$(survivors "$out")" ] && pass "nothing left running" || fail "processes survive"
! grep -q "ibunion.*internal error" "$out/opensm.log" && pass "no internal error from the plugin" || fail "plugin internal error"
finish
