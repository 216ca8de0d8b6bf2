#!/bin/bash
# The main job on the embedded default fabric, FT(4,3) (16 hosts, 20
# switches, LMC 2, the papers' LID layout made legal):
#   1. the real OpenSM with the ibunion plugin (routing_engine mlid,minhop)
#      over ibsim; a multicast group joined through the SA with
#      `ibunion mcjoin`; LFTs and MFTs read back from the simulated switches;
#   2. verification of what was read back: reachability, no loops, equal to
#      the MLID scheme, disjoint paths, multicast exactly once;
#   3. OpenSM's own ftree and minhop on the same fabric, checked for reachability
#      and loops (no group is joined for them);
#   4. the timing model replaying all of them under the same uniform traffic
#      (the mlid replay with the plugin's exported path selection must equal
#      the core's mlid exactly, and ftree's replay the core's slid).
# Set-up first (packages, configure, build). Exit 0 when every check passed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# No options: '--help' ran the whole job (tens of minutes for the tests).
case ${1-} in
  "") ;;
  -h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
  *) echo "$(basename "$0"): takes no arguments, got '$1' (see --help)" >&2; exit 2 ;;
esac
bash "$top/sim-harness/setup.sh"
cd "$top"

net=topologies/ft-4-3.net
g2l=topologies/ft-4-3.guid2lid
source "$top/sim-harness/ibsim/temp-dir.sh"
make_temp_dir work "${TMPDIR:-/tmp}/ibunion-default.XXXXXX"
failures=0
exec 3>&1  # the job's own report, also from inside a redirected call
step() { printf '\n== %s\n' "$*"; }
ok() { printf '  ok    %s\n' "$*"; }
bad() { printf '  FAIL  %s\n' "$*" >&3; failures=$((failures + 1)); }
run_check() {  # WHAT COMMAND...: ok/bad by exit status; the command's summary lines are shown
  local what=$1 log=$work/check.$RANDOM
  shift
  if "$@" >"$log" 2>&1; then ok "$what"; else bad "$what"; fi
  grep -E '^(unicast|path length|scheme|disjoint|multicast|groups per|error)' "$log" | sed 's/^/        /' | head -12 || true
}
finish() {
  {
    echo
    if [ $failures -eq 0 ]; then echo "default job: all checks passed"; else echo "default job: $failures checks FAILED"; fi
  } >&3
  exit $(( failures > 0 ))
}
# WHAT FABRIC-RUN-ARGS...: a run that did not complete (its own message
# above says why) is a failed check, and what needs its tables is skipped.
fabric_run() {
  local what=$1
  shift
  if ! sim-harness/ibsim/fabric-run "$@" | sed 's/^/  /'; then
    bad "$what: fabric-run failed; the checks that need its tables are skipped"
    finish
  fi
}

step "OpenSM + ibunion (mlid) on FT(4,3) under ibsim; group ff12:e001::1 joined by 6 hosts"
members="P(000) P(011) P(101) P(200) P(210) P(311)"
joins=""
for h in $members; do
  joins="$joins SIM_HOST='$h' LD_PRELOAD=\$IBUNION_UMAD2SIM '$top/ibunion' mcjoin join ff12:e001::1 >>\$IBUNION_OUT/joins.txt &&"
done
joins="$joins sleep 2"  # OpenSM programs the MFTs after the joins
fabric_run "OpenSM + ibunion (mlid)" --net "$net" --guid2lid "$g2l" --lmc 2 --engine mlid,minhop \
  --plugin-dir plugin/osm/.libs --plugin-name ibunion --daemon --exec "$joins" --out "$work/mlid"
grep -q "mlid tables configured on all switches" "$work/mlid/opensm.log" && ok "OpenSM routed with mlid" ||
  bad "OpenSM did not use mlid"
grep "ibunion/mlid: routed" "$work/mlid/opensm.log" | sed 's/.*-> log_to_osm: /        /' || true
mlid_hex=$(sort -u "$work/mlid/joins.txt" | awk '{print $2}')
[ "$(sort -u "$work/mlid/joins.txt" | wc -l)" -eq 1 ] && ok "the SA gave every member MLID $mlid_hex" || bad "joins: $(cat "$work/mlid/joins.txt")"
echo "$mlid_hex $members" >"$work/groups.txt"

step "Verification of the tables read back from the switches"
run_check "every LID reachable from every host, no loop, no black hole; equal to the MLID scheme" \
  ./ibunion verify "$work/mlid/fabric.net" --lft "$work/mlid/lfts.dump" --engine mlid
run_check "sources of one subtree leave it on different up links (plugin's path selection)" \
  ./ibunion verify "$work/mlid/fabric.net" --lft "$work/mlid/lfts.dump" --disjoint \
  --paths "$work/mlid/ibunion-mlid-paths.dump"
run_check "multicast: each member gets exactly one copy from every member, nothing else; the cyclic tree" \
  ./ibunion verify "$work/mlid/fabric.net" --lft "$work/mlid/lfts.dump" --mft "$work/mlid/mfts.dump" \
  --groups "$work/groups.txt" --engine mlid

step "OpenSM's own engines on the same fabric (ftree needs LMC 0)"
for engine in ftree minhop; do
  fabric_run "OpenSM ($engine)" --net "$net" --guid2lid "$g2l" --engine "$engine" --no-mft \
    --out "$work/$engine" >/dev/null
  grep -q "$engine tables configured" "$work/$engine/opensm.log" && ok "OpenSM routed with $engine" ||
    bad "OpenSM did not use $engine"
  run_check "$engine: every LID reachable, no loop" ./ibunion verify "$work/$engine/fabric.net" --lft "$work/$engine/lfts.dump"
done

step "Timing model: uniform traffic, 32-byte messages, 1 VL (seed 001's parameters)"
printf '  %-34s %8s %12s %14s %12s\n' tables load "offered" "accepted" "latency ns"
sim_row() {  # LABEL ARGS...
  local label=$1
  shift
  local rows
  if ! rows=$(./ibunion sim "$@" --traffic uniform --msg 32 --vls 1 --seed 1 --sweep 0.1:0.7:0.3 --json --quiet \
    2>"$work/sim.err"); then
    bad "timing model on $label: $(tail -n 1 "$work/sim.err")"
    return
  fi
  awk -v l="$label" -F'[,:]' '{
      for (i = 1; i < NF; i++) v[$i] = $(i + 1)
      printf "  %-34s %8.2f %12.4f %14.4f %12.0f\n", l, v["\"load\""], v["\"offered\""], v["\"accepted\""], v["\"latency_avg_ns\""]
    }' <<<"$rows"
}
# The core's rows on the generator's file, the replays on the fabric as
# OpenSM discovered it (ibnetdiscover lists the hosts in reverse): the
# traffic numbers hosts by their tree address, so the same seed makes the
# same run on both.
sim_row "mlid, MLID path selection (core)" "$net" --guid2lid "$g2l" --routing mlid
sim_row "mlid read back + plugin's paths" --routing "dump:$work/mlid"
sim_row "mlid read back, base LIDs" --routing "dump:$work/mlid" --param dlid=base
sim_row "slid (core)" "$net" --guid2lid "$g2l" --routing slid
sim_row "OpenSM ftree read back" --routing "dump:$work/ftree"
sim_row "OpenSM minhop read back" --routing "dump:$work/minhop"
# Two replays must print exactly what a core engine does (all of --json,
# not only the columns above): the switches' tables with the plugin's
# exported path selection, core mlid's; OpenSM's ftree tables (D-Mod-K on
# a complete tree), core slid's.
sim_json() { ./ibunion sim "$@" --traffic uniform --vls 1 --seed 1 --sweep 0.1:0.7:0.3 --json --no-wall --quiet; }
same_run() {  # WHAT ENGINE DUMP
  if sim_json "$net" --guid2lid "$g2l" --routing "$2" >"$work/core-$2.json" 2>&1 &&
    sim_json --routing "dump:$3" >"$work/replay-$2.json" 2>&1 && cmp -s "$work/core-$2.json" "$work/replay-$2.json"; then
    ok "$1 = core $2, byte for byte"
  else
    bad "$1 differs from core $2"
  fi
}
same_run "replay of the read-back tables + plugin's path selection" mlid "$work/mlid"
same_run "replay of OpenSM ftree's read-back tables" slid "$work/ftree"

finish
