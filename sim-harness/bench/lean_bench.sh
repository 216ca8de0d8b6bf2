#!/bin/bash
# The lean-kernel prototype (sim-harness/bench/lean_kernel/lean.cc) against
# `ibunion sim` on the same fabric and traffic: packet-hops per wall second
# of both, interleaved in one run (best of N, the ratio), and with --seeds
# their results side by side (mean and standard error over seeds), which
# must agree within seed noise for the prototype's speed to count. The
# prototype's scope: fat-trees, MLID tables, unicast uniform traffic,
# 4 VLs, one-packet buffers, 32-byte messages (sim_bench.sh's points);
# switches of a power-of-two radix up to 32 (it refuses others).
#
#   sim-harness/bench/lean_bench.sh [--reps N] [--seeds N] [--param measure_ns=NS] [FABRIC:LOAD ...]
#                                   (default ft-8-3:0.6 ft-16-3:0.6)
#
# --reps   timed runs per point and program, the best counts [5]
# --seeds  also compare results over seeds 1..N at each point [0: no]
# --param  only measure_ns=NS (a longer window to time on a noisy machine)
#
# The fabric's tables come from `ibunion route --engine mlid` (text LFTs:
# about 750 MB for FT(16,3), deleted once converted), converted per run by
# lean_kernel/prep.py; the work dir is removed at the end.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bench=lean_bench
source "$top/sim-harness/bench/bench_lib.sh"
help_if_asked "$0" "${1:-}"
reps=5 seeds=0 measure="" points=()
while [ $# -gt 0 ]; do
  case $1 in
    --reps) needs_value "$@"; reps=$2; shift 2 ;;
    --seeds) needs_value "$@"; seeds=$2; shift 2 ;;
    --param)
      needs_value "$@"
      [[ $2 =~ ^measure_ns=([1-9][0-9]{0,9})$ ]] ||
        usage_error "option --param $2: only measure_ns=NS is passed to both programs"
      measure=${BASH_REMATCH[1]}
      shift 2 ;;
    -*) usage_error "unknown option $1 (see --help)" ;;
    *) points+=("$1"); shift ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]{0,3}$ ]] || usage_error "option --reps: expected 1..9999, got '$reps'"
[[ $seeds =~ ^[0-9]{1,3}$ ]] || usage_error "option --seeds: expected 0..999, got '$seeds'"
[ ${#points[@]} -gt 0 ] || points=(ft-8-3:0.6 ft-16-3:0.6)
for p in "${points[@]}"; do
  [[ $p =~ ^(ft-(4|8|16|32)-[0-9]+):(0?\.[0-9]+|1(\.0*)?)$ ]] && [ -f "$top/topologies/${BASH_REMATCH[1]}.net" ] ||
    usage_error "point '$p': expected FATTREE:LOAD, LOAD in (0, 1], FATTREE one of topologies/ft-M-N.net with M a power of two up to 32, without a cut (e.g. ft-8-3:0.6)"
done
command -v python3 >/dev/null || usage_error "python3 not found (sim-harness/setup.sh installs it)"
[ -x "$top/ibunion" ] || bash "$top/sim-harness/setup.sh" || { echo "$bench: setup failed: $top/ibunion not built" >&2; exit 2; }

work=""
make_temp_dir work "${TMPDIR:-/tmp}/lean-bench.XXXXXX"
nice g++ -O2 -g -std=c++17 -o "$work/lean" "$top/sim-harness/bench/lean_kernel/lean.cc"

field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2; }
fab_of() {  # FABRIC: the prototype's fabric file, made once
  local f=$1 t=$top/topologies
  if [ ! -f "$work/$f.fab" ]; then
    "$top/ibunion" route "$t/$f.net" --guid2lid "$t/$f.guid2lid" --engine mlid \
      --lft "$work/$f.lft" --paths "$work/$f.paths" 2>/dev/null
    python3 "$top/sim-harness/bench/lean_kernel/prep.py" "$t/$f.net" "$t/$f.guid2lid" \
      "$work/$f.lft" "$work/$f.paths" "$work/$f.fab" >/dev/null
    rm -f "$work/$f.lft" "$work/$f.paths"
  fi
  echo "$work/$f.fab"
}
sim_run() {  # FABRIC LOAD SEED: ibunion sim's JSON
  "$top/ibunion" sim "$top/topologies/$1.net" --guid2lid "$top/topologies/$1.guid2lid" --routing mlid \
    --traffic uniform --vls 4 --load "$2" --seed "$3" ${measure:+--param measure_ns=$measure} --json --quiet
}
lean_run() {  # FABRIC LOAD SEED: the prototype's JSON
  "$work/lean" "$(fab_of "$1")" "$2" "$3" ${measure:+"$measure"}
}
conserved() {  # JSON WHO
  [ "$(echo "$1" | field conservation)" = '"ok"' ] || { echo "$bench: $2: conservation violated" >&2; exit 1; }
}

echo "fabric     load   sim M/s   lean M/s   ratio   (best of $reps, interleaved; load average $(cut -d' ' -f1 /proc/loadavg))"
for p in "${points[@]}"; do
  f=${p%%:*} load=${p#*:}
  fab_of "$f" >/dev/null
  best_sim=0 best_lean=0
  for r in $(seq "$reps"); do
    j=$(sim_run "$f" "$load" 1); conserved "$j" "ibunion sim $p"
    best_sim=$(awk -v a="$best_sim" -v b="$(echo "$j" | field packet_hops_per_s)" 'BEGIN {print (b > a) ? b : a}')
    j=$(lean_run "$f" "$load" 1); conserved "$j" "lean $p"
    best_lean=$(awk -v a="$best_lean" -v b="$(echo "$j" | field packet_hops_per_s)" 'BEGIN {print (b > a) ? b : a}')
  done
  awk -v f="$f" -v l="$load" -v s="$best_sim" -v n="$best_lean" \
    'BEGIN {printf "%-9s %5s %9.2f %10.2f %6.2fx\n", f, l, s / 1e6, n / 1e6, n / s}'
done

[ "$seeds" -gt 0 ] || exit 0
echo
echo "results over seeds 1..$seeds: mean (standard error); lean/sim in percent"
echo "fabric     load  metric           sim                     lean                    lean/sim"
for p in "${points[@]}"; do
  f=${p%%:*} load=${p#*:}
  for s in $(seq "$seeds"); do
    j=$(sim_run "$f" "$load" "$s"); conserved "$j" "ibunion sim $p seed $s"
    for k in accepted latency_avg_ns latency_p99_ns; do echo "sim $k $(echo "$j" | field $k)"; done
    echo "sim events_per_hop $(awk -v e="$(echo "$j" | field events)" -v h="$(echo "$j" | field packet_hops)" 'BEGIN {print e / h}')"
    j=$(lean_run "$f" "$load" "$s"); conserved "$j" "lean $p seed $s"
    for k in accepted latency_avg_ns latency_p99_ns; do echo "lean $k $(echo "$j" | field $k)"; done
    echo "lean events_per_hop $(awk -v e="$(echo "$j" | field events)" -v h="$(echo "$j" | field packet_hops)" 'BEGIN {print e / h}')"
  done | awk -v f="$f" -v l="$load" '
    { n[$1 " " $2]++; s[$1 " " $2] += $3; q[$1 " " $2] += $3 * $3 }
    function mean(k) { return s[k] / n[k] }
    function se(k,  v) { v = n[k] > 1 ? (q[k] - s[k] * s[k] / n[k]) / (n[k] - 1) : 0; return sqrt(v > 0 ? v : 0) / sqrt(n[k]) }
    END {
      split("accepted latency_avg_ns latency_p99_ns events_per_hop", keys, " ")
      for (i = 1; i <= 4; i++) {
        a = "sim " keys[i]; b = "lean " keys[i]
        printf "%-9s %5s  %-15s %10.6g (%-9.2g) %10.6g (%-9.2g) %+7.2f%%\n", f, l, keys[i],
          mean(a), se(a), mean(b), se(b), 100 * (mean(b) - mean(a)) / mean(a)
      }
    }'
done
