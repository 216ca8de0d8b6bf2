#!/bin/bash
# Time of the expected-load analysis, `ibunion sim --flows` under uniform
# traffic (no model run): on a generated X x Y mesh (xymesh, 1 VL, whose
# routes are long) and FT(M,N) (mlid at its default LMC, 4 VLs). With
# --base, the same through another build in the same run, on the same
# files, and the ratio base / this (above 1: this build is faster); a note
# on stderr if the two print different reports. Wall seconds, the best of
# --reps runs.
#
#   sim-harness/bench/flows_bench.sh [--base BIN] [--reps N] [--mesh X,Y] [--tree M,N]
#   (defaults: 64x64 mesh, FT(16,3), 3 runs)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cur=$top/ibunion base="" reps=3 mx=64 my=64 m=16 n=3
bench=flows_bench
source "$top/sim-harness/bench/bench_lib.sh"
while [ $# -gt 0 ]; do
  case $1 in
    --base) needs_value "$@"; base=$2; shift 2 ;;
    --reps) needs_value "$@"; reps=$2; shift 2 ;;
    --tree) needs_value "$@"; tree_value "$2" 16,3; shift 2 ;;
    --mesh) needs_value "$@"; mesh_value "$2" 64,64; shift 2 ;;
    -h|--help) help_if_asked "$0" "$1" ;;
    *) usage_error "unknown argument $1 (see --help)" ;;
  esac
done
check_timing_options
make_temp_dir tmp "${TMPDIR:-/tmp}/ibunion-flows-bench.XXXXXX"
cd "$top"
generate_net flows_bench "mesh $mx,$my" "$tmp/mesh.net" mesh "$mx" "$my" --guid2lid "$tmp/mesh.g2l"
generate_net flows_bench "tree $m,$n" "$tmp/tree.net" fattree "$m" "$n" --guid2lid "$tmp/tree.g2l"

flows() {  # BIN FABRIC ROUTING VLS
  "$1" sim "$tmp/$2.net" --guid2lid "$tmp/$2.g2l" --routing "$3" --vls "$4" --traffic uniform --flows --json --quiet
}
printf '%-22s %10s %10s %7s\n' fabric this_s base_s ratio
for spec in "mesh xymesh 1 ${mx}x${my}-mesh" "tree mlid 4 FT($m,$n)"; do
  read -r fabric routing vls label <<<"$spec"
  walls=$(best_walls "$tmp/report.json" flows "$fabric" "$routing" "$vls")
  read -r t b <<<"$walls"
  [ -z "$base" ] || cmp -s "$tmp/report.json" "$tmp/report.json.base" ||
    echo "flows_bench: note: $label: the two builds printed different reports" >&2
  ratio_row 22 "$label" "$t" "${b:-}"
done
