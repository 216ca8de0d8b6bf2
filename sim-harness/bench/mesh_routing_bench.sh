#!/bin/bash
# Routing-phase benchmark on 2-D meshes, all in one run and on the same
# ibsim fabrics: OpenSM's routing time for xymesh (the ibunion plugin) and
# OpenSM's own dor and minhop, with ratios (how many times xymesh is faster).
#
#   sim-harness/bench/mesh_routing_bench.sh [XxY...]   (default: 16x16 32x32)
#
# Meshes come from `ibunion topo mesh X Y` (one host per switch, LMC 0).
# The routing phase is read from OpenSM's own log (log_flags 0x07), as in
# routing_bench.sh: from "building routing with '<engine>'" to "<engine>
# tables configured on all switches". Each engine routes three times in one
# OpenSM run (two SIGHUP-forced heavy sweeps after the first): the median
# is reported. xymesh runs with xymesh_dump=off, QoS off (VLs do not change
# the unicast work). OpenSM runs from the centre host H(X/2,Y/2): directed-
# route SMPs reach at most 63 hops, and from a corner the far corner of a
# 32x32 mesh is 64 hops away (its host stays undiscovered and xymesh
# rightly refuses a switch without a host).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/sim-harness/bench/bench_lib.sh"  # help_if_asked, generate_net, fabric_run, phases, median
help_if_asked "$0" "${1:-}"
cd "$top"
meshes=("$@")
[ ${#meshes[@]} -gt 0 ] || meshes=(16x16 32x32)
# All checked before the first (long) run, not when the loop reaches them.
declare -A named=()
for mesh in "${meshes[@]}"; do
  [[ $mesh =~ ^([1-9][0-9]*)x([1-9][0-9]*)$ ]] || { echo "mesh_routing_bench: expected XxY, got '$mesh'" >&2; exit 2; }
  [ -z "${named[$mesh]:-}" ] || { echo "mesh_routing_bench: mesh '$mesh' named twice" >&2; exit 2; }
  named[$mesh]=1
  # The farthest host from the centre one, in links (host, grid, host):
  # beyond 63 OpenSM cannot discover it and xymesh refuses the mesh.
  x=${BASH_REMATCH[1]} y=${BASH_REMATCH[2]}
  far=$(( (x / 2 > x - 1 - x / 2 ? x / 2 : x - 1 - x / 2) + (y / 2 > y - 1 - y / 2 ? y / 2 : y - 1 - y / 2) + 2 ))
  [ $far -le 63 ] || { echo "mesh_routing_bench: mesh '$mesh': its farthest host is $far links from the" \
    "centre host OpenSM runs from; directed-route SMPs reach 63" >&2; exit 2; }
done
[ -x ./ibunion ] && [ -f plugin/osm/.libs/libibunion.so ] || bash sim-harness/setup.sh
make_temp_dir work "${TMPDIR:-/tmp}/mesh-routing-bench.XXXXXX" stop_fabric_run

# Every net generated before the first run (1x1 passed the pattern and was
# refused only when the loop reached it, after the others' runs).
for mesh in "${meshes[@]}"; do
  generate_net mesh_routing_bench "$mesh" "$work/mesh-$mesh.net" mesh "${mesh%x*}" "${mesh#*x}"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf (a > 0 && b > 0) ? "%.1fx" : "-", a / b}'; }

printf '%-7s %-8s %10s %12s\n' mesh engine "route s" "vs xymesh"
for mesh in "${meshes[@]}"; do
  [[ $mesh =~ ^([0-9]+)x([0-9]+)$ ]]
  net=$work/mesh-$mesh.net
  centre="H($((BASH_REMATCH[1] / 2)),$((BASH_REMATCH[2] / 2)))"
  xymesh_s=""
  for engine in xymesh dor minhop; do
    out=$work/$mesh-$engine
    chain=$engine
    plugin=()
    [ "$engine" != xymesh ] || { chain=xymesh,minhop; plugin=(--plugin-dir plugin/osm/.libs --plugin-name ibunion --plugin-options "xymesh_dump=off"); }
    if ! resweep_run "$out" --net "$net" --sm-host "$centre" --engine "$chain" "${plugin[@]+"${plugin[@]}"}"; then
      printf '%-7s %-8s %10s\n' "$mesh" "$engine" "run failed"; tail -n 5 "$out.log"; continue
    fi
    s=$(phases "$out/opensm.log" "$engine" | median)
    [ "$engine" != xymesh ] || xymesh_s=$s
    grep -q "$engine tables configured on all switches" "$out/opensm.log" ||
      grep -E "refusing|cannot build" "$out/opensm.log" | head -n 2
    printf '%-7s %-8s %10s %12s\n' "$mesh" "$engine" "$s" "$(ratio "$s" "${xymesh_s:-nan}")"
  done
done
