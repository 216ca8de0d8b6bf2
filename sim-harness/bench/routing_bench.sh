#!/bin/bash
# Routing-phase benchmark, all in one run and on the same ibsim fabrics:
# OpenSM's routing time for mlid (the ibunion plugin), ftree, updn and
# minhop, plus the core alone, with ratios against ftree. The core rows
# time recognition and routing without OpenSM (no discovery, no LFT
# blocks queued): no ratio against ftree's OpenSM time, but their share of
# mlid's OpenSM routing phase at the same LMC.
#
#   sim-harness/bench/routing_bench.sh [FABRIC...]   (default: ft-8-3 ft-16-3)
#   FABRIC = ft-M-N, e.g. ft-32-3 or ft-16-4 (8192 hosts: discovery alone
#   takes minutes under ibsim; allow ~10 min per engine)
#
# The routing phase is read from OpenSM's own log (log_flags 0x07): from
# "building routing with '<engine>'" to "<engine> tables configured on all
# switches" — the engine's callbacks plus OpenSM queuing the LFT blocks.
# Each engine routes three times in one OpenSM run (two SIGHUP-forced heavy
# sweeps after the first): the median is reported. LMC 0 for all (ftree
# refuses LMC > 0 and falls back to minhop), plus mlid and minhop at the
# largest LMC the LID space allows.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/sim-harness/bench/bench_lib.sh"  # help_if_asked, generate_net, fabric_run, phases, median
help_if_asked "$0" "${1:-}"
cd "$top"
fabrics=("$@")
[ ${#fabrics[@]} -gt 0 ] || fabrics=(ft-8-3 ft-16-3)
# All checked before the first (long) run: a typo in the last one was found
# hours later, by `ibunion topo` refusing empty arguments.
# A fabric named twice ran twice into the same output directories.
declare -A named=()
for fabric in "${fabrics[@]}"; do
  [[ $fabric =~ ^ft-[1-9][0-9]*-[1-9][0-9]*$ ]] ||
    { echo "routing_bench: fabric '$fabric': expected ft-M-N (e.g. ft-8-3)" >&2; exit 2; }
  [ -z "${named[$fabric]:-}" ] || { echo "routing_bench: fabric '$fabric' named twice" >&2; exit 2; }
  named[$fabric]=1
done
[ -x ./ibunion ] && [ -f plugin/osm/.libs/libibunion.so ] || bash sim-harness/setup.sh
make_temp_dir work "${TMPDIR:-/tmp}/routing-bench.XXXXXX" stop_fabric_run

# Every net generated before the first run: ft-6-3 passed the pattern and
# was refused (odd M) only when the loop reached it, after the others' runs.
for fabric in "${fabrics[@]}"; do
  IFS=- read -r _ m n <<<"$fabric"
  generate_net routing_bench "$fabric" "$work/$fabric.net" fattree "$m" "$n"
done
max_lmc() {  # HOSTS SWITCHES
  local l=7
  while [ $(( $1 * (1 << l) + $2 )) -gt 49151 ]; do l=$((l - 1)); done
  echo $l
}

printf '%-9s %-14s %4s %10s %9s\n' fabric engine lmc "route s" "vs ftree"
for fabric in "${fabrics[@]}"; do
  IFS=- read -r _ m n <<<"$fabric"
  net=$work/$fabric.net
  hosts=$(grep -c '^Hca' "$net")
  switches=$(grep -c '^Switch' "$net")
  big=$(max_lmc "$hosts" "$switches")
  declare -A secs=()
  for spec in "ftree 0" "mlid 0" "minhop 0" "updn 0" "mlid $big" "minhop $big"; do
    read -r engine lmc <<<"$spec"
    out=$work/$fabric-$engine-$lmc
    chain=$engine
    plugin=()
    [ "$engine" != mlid ] || { chain=mlid,minhop; plugin=(--plugin-dir plugin/osm/.libs --plugin-name ibunion --plugin-options "mlid_dump=off"); }
    if ! resweep_run "$out" --net "$net" --engine "$chain" --lmc "$lmc" "${plugin[@]+"${plugin[@]}"}"; then
      printf '%-9s %-14s %4s %10s\n' "$fabric" "$engine" "$lmc" "run failed"; tail -n 5 "$out.log"; continue
    fi
    s=$(phases "$out/opensm.log" "$engine" | median)
    secs[$engine-$lmc]=$s
    ratio=$(awk -v a="${secs[ftree-0]:-nan}" -v b="$s" 'BEGIN {printf (a > 0 && b > 0) ? "%.1fx" : "-", a / b}')
    printf '%-9s %-14s %4s %10s %9s\n' "$fabric" "$engine" "$lmc" "$s" "$ratio"
  done
  for lmc in 0 "$big"; do
    line=$(sim-harness/bench/core_route_bench "$m" "$n" "$lmc")
    s=$(echo "$line" | awk '{print $(NF-1)}')
    # ftree's time holds OpenSM's work too (queuing the LFT blocks): a
    # ratio to the core alone overstated mlid (34.9x on FT(4,2)).
    share=$(awk -v a="$s" -v b="${secs[mlid-$lmc]:-nan}" \
      'BEGIN {if (a > 0 && b > 0) printf "%.0f%% of mlid in OpenSM", 100 * a / b}')
    printf '%-9s %-14s %4s %10s %9s  %s\n' "$fabric" "core mlid" "$lmc" "$s" "-" "$share"
  done
  unset secs
done
