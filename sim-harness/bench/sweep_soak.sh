#!/bin/bash
# Soak: N forced heavy sweeps in a row (default 1000) of OpenSM with the
# ibunion plugin routing (mlid, and a multicast group to rebuild each time),
# reporting OpenSM's resident memory every 100 sweeps and after the last
# one, and any error line from the plugin. Not a test: a long run with
# numbers to read.
#   sim-harness/bench/sweep_soak.sh [SWEEPS] [NETFILE]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/sim-harness/bench/bench_lib.sh"  # help_if_asked, generate_net, fabric_run, phases, median
help_if_asked "$0" "${1:-}"
sweeps=${1:-1000}
# NETFILE is the caller's path: read before the cd (it was looked up in the
# source tree, so ./my.net in the caller's directory was "not readable").
net=${2:-$top/topologies/ft-4-3.net}
[[ $net == /* ]] || net=$PWD/$net
cd "$top"
[[ $sweeps =~ ^[1-9][0-9]{0,6}$ ]] || { echo "sweep_soak: SWEEPS: expected 1..9999999, got '$sweeps'" >&2; exit 2; }
[ -f "$net" ] && [ -r "$net" ] || { echo "sweep_soak: NETFILE $net: not a readable file" >&2; exit 2; }
# The group's two members: the fabric's first and last host (the names were
# FT(4,3)'s, so with any other NETFILE every join failed).
read -r first_host last_host < <(awk -F'"' '/^[ \t]*(Hca|Ca)[ \t]/ { if (f == "") f = $2; l = $2 } END { print f, l }' "$net")
[ -n "$last_host" ] || { echo "sweep_soak: NETFILE $net: no Hca records" >&2; exit 2; }
make_temp_dir work "${TMPDIR:-/tmp}/sweep-soak.XXXXXX" stop_fabric_run
cat >"$work/soak.sh" <<EOS
set -euo pipefail
SIM_HOST='$first_host' LD_PRELOAD=\$IBUNION_UMAD2SIM "$top/ibunion" mcjoin join ff12:e001::7 >/dev/null
SIM_HOST='$last_host' LD_PRELOAD=\$IBUNION_UMAD2SIM "$top/ibunion" mcjoin join ff12:e001::7 >/dev/null
rss() { ps -o rss= -p "\$IBUNION_OSM_PID" | tr -d ' '; }
echo "sweep 0 rss_kb \$(rss)"
for i in \$(seq $sweeps); do
  before=\$(grep -c "tables configured on all switches" "\$IBUNION_OUT/opensm.log")
  kill -HUP "\$IBUNION_OSM_PID"
  until [ "\$(grep -c "tables configured on all switches" "\$IBUNION_OUT/opensm.log")" -gt "\$before" ]; do sleep 0.05; done
  [ \$((i % 100)) -ne 0 ] && [ \$i -ne $sweeps ] || echo "sweep \$i rss_kb \$(rss)"
done
EOS
fabric_run --net "$net" --engine mlid,minhop --plugin-dir plugin/osm/.libs --plugin-name ibunion \
  --plugin-options mlid_dump=off --daemon --no-readback --timeout 7200 --exec "bash $work/soak.sh >$work/rss" \
  --out "$work/out" >"$work/fabric-run.log" 2>&1 || st=$?
# The memory figures so far are printed whatever happened: a run that
# failed at sweep 900 lost them all (set -e ended the script first).
cat "$work/rss" 2>/dev/null || true
if [ "${st:-0}" -ne 0 ]; then
  echo "sweep_soak: fabric-run failed ($st); the end of its output:" >&2
  tail -n 15 "$work/fabric-run.log" >&2
  exit "$st"
fi
routed=$(grep -c "mlid tables configured on all switches" "$work/out/opensm.log")
errors=$(grep -c "ibunion.*\(refusing\|error\|cannot\)" "$work/out/opensm.log" || true)
echo "routings by mlid: $routed; plugin error lines: $errors"
