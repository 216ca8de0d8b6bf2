#!/bin/bash
# Time spent on the routing tables' text at scale: `ibunion route --lft`
# (routes, then writes one ibroute line per (switch, LID)), `ibunion
# verify` (reads the file back and checks it), and `ibunion verify
# --disjoint --paths` (reads the LFTs and the path-selection map, one line
# per pair of end ports, and checks the paths are disjoint) on a generated FT(M,N),
# mlid at its default LMC. With --base, the same three steps through another
# build in the same run, on the same files, and the ratio base / this
# (above 1: this build is faster). Wall seconds, the best of --reps runs.
#
#   sim-harness/bench/table_io.sh [--base BIN] [--reps N] [--tree M,N]   (default FT(16,3), 3 runs)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cur=$top/ibunion base="" reps=3 m=16 n=3
bench=table_io
source "$top/sim-harness/bench/bench_lib.sh"
while [ $# -gt 0 ]; do
  case $1 in
    --base) needs_value "$@"; base=$2; shift 2 ;;
    --reps) needs_value "$@"; reps=$2; shift 2 ;;
    --tree) needs_value "$@"; tree_value "$2" 16,3; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
    *) usage_error "unknown argument $1 (see --help)" ;;
  esac
done
check_timing_options
make_temp_dir tmp "${TMPDIR:-/tmp}/ibunion-table-io.XXXXXX"

"$cur" topo fattree "$m" "$n" --guid2lid "$tmp/f.g2l" -o "$tmp/f.net" 2>/dev/null ||
  usage_error "ibunion topo fattree $m $n failed (see ibunion topo --help for the sizes it makes)"
route() { "$1" route "$tmp/f.net" --guid2lid "$tmp/f.g2l" --engine mlid --lft "$tmp/$BENCH_ROLE.lft"; }
verify() { "$1" verify "$tmp/f.net" --guid2lid "$tmp/f.g2l" --lft "$tmp/this.lft"; }  # the same file for both
walls=$(best_walls /dev/null route)
read -r t_route b_route <<<"$walls"
if [ -n "$base" ] && ! cmp -s "$tmp/this.lft" "$tmp/base.lft"; then echo "table_io: note: the two builds wrote different tables" >&2; fi
echo "FT($m,$n): $(grep -c . "$tmp/this.lft") lines, $(($(stat -c %s "$tmp/this.lft") / 1000000)) MB of LFT text"
printf '%-8s %10s %10s %7s\n' step this_s base_s ratio
ratio_row 8 route "$t_route" "${b_route:-}"
walls=$(best_walls /dev/null verify)
read -r t_verify b_verify <<<"$walls"
ratio_row 8 verify "$t_verify" "${b_verify:-}"
"$cur" route "$tmp/f.net" --guid2lid "$tmp/f.g2l" --engine mlid --lft /dev/null --paths "$tmp/this.paths" 2>/dev/null ||
  { echo "table_io: route --paths failed" >&2; exit 1; }
paths() { "$1" verify "$tmp/f.net" --guid2lid "$tmp/f.g2l" --lft "$tmp/this.lft" --disjoint --paths "$tmp/this.paths"; }
walls=$(best_walls /dev/null paths)
read -r t_paths b_paths <<<"$walls"
ratio_row 8 paths "$t_paths" "${b_paths:-}"
