#!/bin/bash
# How evenly mlid and slid spread the load of failed links: FT(M,N) with
# CUTS random switch cables unplugged (`ibunion topo --remove-links`, seeds
# 1..SEEDS), uniform traffic, the expected load of the busiest link
# (`ibunion sim --flows`: 1 = what one source offers; no model run), mean
# over the draws that leave every host pair a path. With --base, the same
# fabrics through another build in the same run, and the ratio base / this
# (above 1: this build's busiest link carries less).
#
#   sim-harness/bench/degraded_balance.sh [--base BIN] [--seeds S] [--tree M,N] [CUTS ...]
#                                         (default FT(8,3), 8 seeds, 1 2 4 8 16 32)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cur=$top/ibunion base="" seeds=8 m=8 n=3 cuts=()
bench=degraded_balance
source "$top/sim-harness/bench/bench_lib.sh"
while [ $# -gt 0 ]; do
  case $1 in
    --base) needs_value "$@"; base=$2; shift 2 ;;
    --seeds) needs_value "$@"; seeds=$2; shift 2 ;;
    --tree) needs_value "$@"; tree_value "$2" 8,3; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
    -*) usage_error "unknown option $1 (see --help)" ;;
    *) [[ $1 =~ ^[1-9][0-9]*$ ]] || usage_error "CUTS: expected a cable count, got '$1'"; cuts+=("$1"); shift ;;
  esac
done
[[ $seeds =~ ^[1-9][0-9]{0,2}$ ]] || usage_error "option --seeds: expected 1..999, got '$seeds'"
check_base "$base"
[ ${#cuts[@]} -gt 0 ] || cuts=(1 2 4 8 16 32)
[ -x "$cur" ] || bash "$top/sim-harness/setup.sh" || { echo "degraded_balance: setup failed" >&2; exit 2; }
make_temp_dir tmp "${TMPDIR:-/tmp}/ibunion-balance.XXXXXX"

# Every draw's fabric before the first row: topo's own reason for a tree
# or a cut it cannot make (an odd M had read "fewer than 1 switch cables",
# after the table's header).
for c in "${cuts[@]}"; do
  err=$("$cur" topo fattree "$m" "$n" --remove-links "$c" -o /dev/null 2>&1) ||
    usage_error "FT($m,$n) minus $c cables: ${err#ibunion topo: }"
done
busiest() {  # BIN ROUTING: the busiest link's expected load on $tmp/f.net, or nothing
  "$1" sim "$tmp/f.net" --guid2lid "$tmp/f.g2l" --routing "$2" --traffic uniform --flows --json --quiet 2>/dev/null |
    sed -n 's/.*"max_link_load":\([^,}]*\).*/\1/p' || true  # sim refused: nothing
}
printf '%-6s %5s %6s %10s %10s %7s\n' cuts draws engine this base ratio
engines=(mlid slid)
for c in "${cuts[@]}"; do
  declare -A sum=() sum_base=() count=()
  for r in "${engines[@]}"; do sum[$r]=0 sum_base[$r]=0 count[$r]=0; done
  for ((s = 1; s <= seeds; s++)); do  # each draw's fabric once, for every engine
    "$cur" topo fattree "$m" "$n" --guid2lid "$tmp/f.g2l" --remove-links "$c" --remove-seed "$s" -o "$tmp/f.net" 2>/dev/null
    for r in "${engines[@]}"; do
      v=$(busiest "$cur" "$r")
      [ -n "$v" ] || continue  # some host pair lost every up*/down* path: sim refuses the fabric
      if [ -n "$base" ]; then
        b=$(busiest "$base" "$r")
        [ -n "$b" ] || continue
        sum_base[$r]=$(awk -v a="${sum_base[$r]}" -v b="$b" 'BEGIN {print a + b}')
      fi
      sum[$r]=$(awk -v a="${sum[$r]}" -v b="$v" 'BEGIN {print a + b}')
      count[$r]=$((count[$r] + 1))
    done
  done
  for r in "${engines[@]}"; do
    awk -v c="$c" -v k="${count[$r]}" -v r=$r -v s="${sum[$r]}" -v b="${sum_base[$r]}" -v has_base="${base:+1}" 'BEGIN {
      if (!k) { printf "%-6s %5d %6s %10s %10s %7s\n", c, 0, r, "-", "-", "-"; exit }
      printf "%-6s %5d %6s %10.3f %10s %7s\n", c, k, r, s / k, has_base ? sprintf("%.3f", b / k) : "-",
        has_base ? sprintf("%.2fx", b / s) : "-" }'
  done
done
