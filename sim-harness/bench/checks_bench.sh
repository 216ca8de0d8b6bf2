#!/bin/bash
# Time of three steps that grew with the fabric: refusing a damaged mesh
# (`ibunion inspect` on an X x Y mesh with --cut cables unplugged: the
# search for one missing or extra cable), `ibunion verify --mft` (FT(M,N)
# at LMC 0, 4,096 groups of 8 hosts drawn with a fixed seed; and a 48x48
# mesh with 400 groups of 256 hosts, where each of a group's senders
# floods a tree of 1,500-1,700 switches; the unicast check is in
# both), and xymesh_mcast=paper's admission of anchor trees
# (`ibunion route` on the intact X x Y mesh with 2,048 groups of 8 hosts;
# the LFTs' text, written to /dev/null, is in it too). With --base, the same through another build in the same run,
# on the same files, and the ratio base / this (above 1: this build is
# faster); a note on stderr if the two print different output. Wall
# seconds, the best of --reps runs.
#
#   sim-harness/bench/checks_bench.sh [--base BIN] [--reps N] [--mesh X,Y] [--cut K] [--tree M,N]
#   (defaults: 90x90 mesh, 2 cables, FT(24,3), 3 runs)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cur=$top/ibunion base="" reps=3 mx=90 my=90 cut=2 m=24 n=3
bench=checks_bench
source "$top/sim-harness/bench/bench_lib.sh"
while [ $# -gt 0 ]; do
  case $1 in
    --base) needs_value "$@"; base=$2; shift 2 ;;
    --reps) needs_value "$@"; reps=$2; shift 2 ;;
    --tree) needs_value "$@"; tree_value "$2" 24,3; shift 2 ;;
    --cut)
      needs_value "$@"
      [[ $2 =~ ^[1-9][0-9]*$ ]] || usage_error "option --cut: expected a cable count >= 1, got '$2'"
      cut=$2
      shift 2 ;;
    --mesh) needs_value "$@"; mesh_value "$2" 90,90; shift 2 ;;
    -h|--help) help_if_asked "$0" "$1" ;;
    *) usage_error "unknown argument $1 (see --help)" ;;
  esac
done
check_timing_options
make_temp_dir tmp "${TMPDIR:-/tmp}/ibunion-checks-bench.XXXXXX"
cd "$top"
generate_net checks_bench "mesh $mx,$my" "$tmp/mesh.net" mesh "$mx" "$my" --remove-links "$cut"
generate_net checks_bench "mesh $mx,$my" "$tmp/whole.net" mesh "$mx" "$my" --guid2lid "$tmp/whole.g2l"
generate_net checks_bench "tree $m,$n" "$tmp/tree.net" fattree "$m" "$n" --lmc 0 --guid2lid "$tmp/tree.g2l"
generate_net checks_bench "mesh 48,48" "$tmp/mid.net" mesh 48 48 --guid2lid "$tmp/mid.g2l"
# COUNT groups of SIZE (8) distinct hosts of NET, by their node descriptions.
draw_groups() {  # NET COUNT OUT [SIZE]
  awk -F'"' '/^(Hca|Ca)\t/ {print $2}' "$1" >"$tmp/hosts"
  awk -v count="$2" -v size="${4:-8}" 'BEGIN {srand(3)} {h[NR - 1] = $0} END {
    for (g = 0; g < count; g++) {
      line = sprintf("0x%04X", 49153 + g); delete used
      for (k = 0; k < size && k < NR; ) { i = int(rand() * NR); if (!(i in used)) { used[i] = 1; line = line " \"" h[i] "\""; k++ } }
      print line } }' "$tmp/hosts" >"$3"
}
draw_groups "$tmp/tree.net" 4096 "$tmp/groups"
draw_groups "$tmp/whole.net" 2048 "$tmp/mesh-groups"
draw_groups "$tmp/mid.net" 400 "$tmp/mid-groups" 256
"$cur" route "$tmp/tree.net" --guid2lid "$tmp/tree.g2l" --engine mlid --lft "$tmp/tree.lft" \
  --groups "$tmp/groups" --mft "$tmp/tree.mft" >/dev/null 2>&1 || { echo "checks_bench: route failed" >&2; exit 1; }
"$cur" route "$tmp/mid.net" --guid2lid "$tmp/mid.g2l" --engine xymesh --lft "$tmp/mid.lft" \
  --groups "$tmp/mid-groups" --mft "$tmp/mid.mft" >/dev/null 2>&1 ||
  { echo "checks_bench: route of the mesh failed" >&2; exit 1; }

# A refusal exits 2: that is the output timed here.
refuse() { ! "$1" inspect "$tmp/mesh.net"; }
paper_trees() {
  "$1" route "$tmp/whole.net" --guid2lid "$tmp/whole.g2l" --engine xymesh --options xymesh_mcast=paper \
    --groups "$tmp/mesh-groups" --lft /dev/null --mft /dev/stdout 2>&1
}
verify_groups() { "$1" verify "$tmp/tree.net" --guid2lid "$tmp/tree.g2l" --lft "$tmp/tree.lft" --mft "$tmp/tree.mft" --groups "$tmp/groups"; }
verify_large_groups() {
  "$1" verify "$tmp/mid.net" --guid2lid "$tmp/mid.g2l" --lft "$tmp/mid.lft" --mft "$tmp/mid.mft" \
    --groups "$tmp/mid-groups"
}
walls=$(best_walls "$tmp/refuse" refuse)
read -r t_refuse b_refuse <<<"$walls"
walls=$(best_walls "$tmp/verify" verify_groups)
read -r t_mcast b_mcast <<<"$walls"
walls=$(best_walls "$tmp/verify-large" verify_large_groups)
read -r t_large b_large <<<"$walls"
walls=$(best_walls "$tmp/paper" paper_trees)
read -r t_paper b_paper <<<"$walls"
if [ -n "$base" ]; then
  for f in refuse verify verify-large paper; do
    cmp -s "$tmp/$f" "$tmp/$f.base" || { echo "checks_bench: note: the two builds printed different $f output:" >&2; diff "$tmp/$f" "$tmp/$f.base" | head -4 >&2; }
  done
fi
printf '%-34s %10s %10s %7s\n' check this_s base_s ratio
ratio_row 34 "refuse ${mx}x${my} mesh minus $cut" "$t_refuse" "$b_refuse"
ratio_row 34 "verify --mft FT($m,$n), 4096 x 8" "$t_mcast" "$b_mcast"
ratio_row 34 "verify --mft 48x48 mesh, 400 x 256" "$t_large" "$b_large"
ratio_row 34 "paper trees ${mx}x${my}, 2048 x 8" "$t_paper" "$b_paper"
