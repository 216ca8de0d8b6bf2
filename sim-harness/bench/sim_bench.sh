#!/bin/bash
# Timing-model speed: simulated packet-hops per wall second of `ibunion sim`
# on fat-trees with uniform traffic near saturation (MLID routing, 4 VLs),
# this build against a baseline build measured in the same run (ratios), the
# two interleaved so that other work on the machine hits both alike.
#
#   sim-harness/bench/sim_bench.sh [--base BIN] [--reps N] [--instr] [--sweep]
#                                  [--traffic T] [--param K=V ...] [--base-param K=V ...]
#                                  [FABRIC:LOAD ...]
#                                  (default ft-8-3:0.6 ft-16-3:0.6)
#
# Each point also gets this build's cycles per packet-hop: the machine's
# effective clock (clock_probe: dependent adds per second, probed before
# and after the point's runs, the higher counts; the clock column) over the
# best rate. It corrects a rate for the clock speed and the share of the
# core the runs got, not for memory latency. The last lines say how many
# cycles per hop 20 M packet-hops/s allows at each point's clock.
#
# --base   baseline ibunion binary (e.g. built from an older commit); without
#          it only this build is measured
# --reps   runs per point and binary, the best one counts [3]
# --instr  also count instructions per packet-hop under callgrind (exact and
#          repeatable, unlike wall time; slow: FT(8,3) only is sensible)
# --sweep  also time the seed-001 FT(16,3) MLID uniform 4-VL curve as one
#          --sweep (28 points), and extrapolate the full seed-001 FT(16,3)
#          grid from its packet-hops in docs/figures/seed001-ft-16-3.csv
# --traffic the points' traffic [uniform], e.g. mcast:all:100% with
#          --param mcast_mode=unicast --param batch=1 and a point FABRIC:batch
#          (no --load: a batch run has none)
# --param  passed to every point run, e.g. measure_ns=2000000 for runs long
#          enough to time on a noisy machine (the default window is ~0.1 s)
#          kernel=lean goes to this build only: the base runs its default
#          (classic) kernel, which older builds know no key for, so the
#          ratio is lean against classic
# --base-param  passed to the base's runs only, after the --param ones:
#          --param kernel=lean --base-param kernel=lean times lean against
#          an older lean
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cur=$top/ibunion
base="" reps=3 instr=0 sweep=0 points=() params=() base_params=() traffic=uniform
bench=sim_bench
source "$top/sim-harness/bench/bench_lib.sh"
while [ $# -gt 0 ]; do
  case $1 in
    --base) needs_value "$@"; base=$2; shift 2 ;;
    --reps) needs_value "$@"; reps=$2; shift 2 ;;
    --instr) instr=1; shift ;;
    --sweep) sweep=1; shift ;;
    --param) needs_value "$@"; params+=(--param "$2"); shift 2 ;;
    --base-param) needs_value "$@"; base_params+=(--param "$2"); shift 2 ;;
    --traffic) needs_value "$@"; traffic=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) usage_error "unknown option $1 (see --help)" ;;
    *) points+=("$1"); shift ;;
  esac
done
# Checked before anything runs: a bad value used to surface mid-run as an
# unbound variable, or as `ibunion sim` refusing "--load ft-4-3".
[[ $reps =~ ^[1-9][0-9]{0,3}$ ]] || usage_error "option --reps: expected 1..9999, got '$reps'"
check_base "$base"
# The runs tell the base apart by its path: the same binary would get the
# base's arguments in both columns.
[ -z "$base" ] || ! [ "$base" -ef "$cur" ] ||
  usage_error "option --base $base: is this build's own binary (copy it to time a build against itself)"
[ ${#base_params[@]} -eq 0 ] || [ -n "$base" ] || usage_error "option --base-param: needs --base (there is no base run)"
for p in "${points[@]+"${points[@]}"}"; do
  [[ $p =~ ^([^:]+):([0-9]*\.?[0-9]+|batch)$ ]] && [ -f "$top/topologies/${BASH_REMATCH[1]}.net" ] ||
    usage_error "point '$p': expected FABRIC:LOAD or FABRIC:batch, FABRIC one of topologies/*.net (e.g. ft-8-3:0.6)"
  # Without a batch size sim would run its default load, not a batch.
  [[ $p != *:batch ]] || [[ " ${params[*]+${params[*]}} " == *" batch="* ]] ||
    usage_error "point '$p': a batch point needs --param batch=N"
done
[ ${#points[@]} -gt 0 ] || points=(ft-8-3:0.6 ft-16-3:0.6)
# The build and, for --instr, valgrind come from setup.sh, as for the
# other benchmarks (it says why when it cannot install). --instr without
# valgrind had printed the wall-time table alone, as if asked for nothing
# more: it is refused when setup.sh cannot provide it.
if [ $instr -eq 1 ] && ! command -v valgrind >/dev/null; then
  "$BASH" "$top/sim-harness/setup.sh" valgrind || true
  command -v valgrind >/dev/null ||
    usage_error "option --instr: valgrind not found in PATH, and sim-harness/setup.sh could not install it (see above)"
fi
probe=$top/sim-harness/bench/clock_probe
[ -x "$cur" ] && [ -x "$probe" ] || bash "$top/sim-harness/setup.sh" ||
  { echo "sim_bench: setup failed: $cur or $probe not built" >&2; exit 2; }
bins=("$cur")
[ -z "$base" ] || bins+=("$base")

field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2; }
# An array, not a string to split: a --param value or a checkout path with
# a space in it stays one argument.
point_args() {  # ARRAY FABRIC [LOAD] (none for a --sweep or batch: sim takes one or the other)
  local -n args_=$1
  local load=${3:-}
  [ "$load" != batch ] || load=""
  args_=("$top/topologies/$2.net" --guid2lid "$top/topologies/$2.guid2lid" --routing mlid --traffic "$traffic" --vls 4
    ${load:+--load "$load"} "${params[@]+"${params[@]}"}")
}
bin_args() {  # ARRAY BIN ARGS...: ARGS as BIN takes them (the base: no kernel=, its --base-param)
  local -n a_=$1
  local b=$2
  shift 2
  a_=()
  while [ $# -gt 0 ]; do
    if [ "$b" = "$base" ] && [ "$1" = --param ] && [[ ${2:-} == kernel=* ]]; then
      shift 2
    else
      a_+=("$1")
      shift
    fi
  done
  [ "$b" != "$base" ] || a_+=("${base_params[@]+"${base_params[@]}"}")
}
rate() {  # BIN ARGS...: packet_hops_per_s of one run
  local b=$1
  shift
  bin_args bargs "$b" "$@"
  local out
  out=$("$b" sim "${bargs[@]}" --json --quiet) ||
    { echo "sim_bench: a timed run failed: $b sim ${bargs[*]}" >&2; return 1; }
  echo "$out" | field packet_hops_per_s
}

# Other work on the machine lowers both columns alike (hence the ratios),
# but the absolute rates with it: say how busy the machine was before any
# run (afterwards the benchmark's own runs add about 1).
load_before=$(cut -d' ' -f1 /proc/loadavg)

# Every point's packet-hops (one untimed run) before the first timed one: a
# load or --param that sim refuses (ft-4-2:0, ft-4-2:7) surfaced only after
# the earlier points' timed runs.
declare -A hops_of=()
for p in "${points[@]}"; do
  point_args args "${p%%:*}" "${p#*:}"
  out=$("$cur" sim "${args[@]}" --json --quiet 2>&1) || usage_error "point '$p': ${out#ibunion sim: }"
  hops_of[$p]=$(echo "$out" | field packet_hops)
done

budget=""
higher() { awk -v a="$1" -v b="$2" 'BEGIN {print (b > a) ? b : a}'; }
printf '%-9s %5s %10s %14s %9s %14s %7s %7s\n' fabric load hops "this M/s" "cyc/hop" "base M/s" ratio "clock"
for p in "${points[@]}"; do
  f=${p%%:*} load=${p#*:} hops=${hops_of[$p]}
  declare -A best=()
  point_args args "$f" "$load"
  # Assigned first, then compared: a failing run or probe stops the script
  # (set -e), where inside another command's arguments it would read as 0.
  clock=$("$probe" 50)
  for ((i = 0; i < reps; i++)); do
    for b in "${bins[@]}"; do
      r=$(rate "$b" "${args[@]}")
      best[$b]=$(higher "${best[$b]:-0}" "$r")
    done
  done
  after=$("$probe" 50)
  clock=$(higher "$clock" "$after")
  c=${best[$cur]} bb=0
  [ -z "$base" ] || bb=${best[$base]}
  awk -v f="$f" -v l="$load" -v h="$hops" -v c="$c" -v b="$bb" -v g="$clock" 'BEGIN {
    printf "%-9s %5s %10d %14.2f %9s %14s %7s %6.2fG\n", f, l, h, c / 1e6,
      (c > 0 ? sprintf("%.0f", g * 1e9 / c) : "-"),
      (b > 0 ? sprintf("%.2f", b / 1e6) : "-"), (b > 0 ? sprintf("%.2fx", c / b) : "-"), g }'
  budget+="${budget:+, }$p: $(awk -v g="$clock" 'BEGIN {printf "%.0f", g * 1e9 / 20e6}')"
  unset best
  if [ $instr -eq 1 ]; then
    for b in "${bins[@]}"; do
      bin_args bargs "$b" "${args[@]}"
      # Only the simulation loop (Kernel<...>::Run, LeanKernel<...>::Run; a --base build may have
      # it as Engine<...>::Run, before the rename, or Simulator::Impl::Run,
      # before the specialisation), not the set-up.
      ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --collect-atstart=no \
        --toggle-collect='*Kernel*::Run()' --toggle-collect='*Engine*::Run()' \
        --toggle-collect='ibu::sim::Simulator::Impl::Run()' "$b" sim "${bargs[@]}" --json --quiet 2>&1 |
        awk '/refs:/ {gsub(",", "", $NF); print $NF}')
      echo "  instructions in the simulation loop ($b): $ir, $(awk -v i="$ir" -v h="$hops" 'BEGIN {printf "%.0f", i / h}') per packet-hop"
    done
  fi
done

echo "load average $load_before before the runs, $(cut -d' ' -f1 /proc/loadavg) after them (theirs included; $(nproc) CPUs)"
echo "cyc/hop: cycles per packet-hop of this build at the clock column's effective clock (G dependent adds/s);"
echo "  20 M packet-hops/s allows, in cycles per hop at each point's clock: $budget"

if [ $sweep -eq 1 ]; then
  f=ft-16-3
  echo "seed-001 $f mlid uniform 4 VLs, --sweep 0.025:0.7:0.025 (28 points, one job):"
  tmp=$(mktemp)
  trap 'trap "" INT TERM HUP; rm -f "$tmp"' EXIT
  trap 'exit 1' INT TERM HUP  # else a TERM sent twice (timeout(1) does) cut the EXIT trap short
  csv=$top/docs/figures/seed001-$f.csv
  full=$(awk -F, 'NR > 1 {s += $12} END {print s}' "$csv")
  declare -A sweep_s=()
  for b in "${bins[@]}"; do
    t0=$(date +%s.%N)
    point_args args "$f"
    bin_args bargs "$b" "${args[@]}"
    "$b" sim "${bargs[@]}" --sweep 0.025:0.7:0.025 --jobs 1 --quiet --csv "$tmp" >/dev/null
    t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
    hops=$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "packet_hops") c = i; next} {s += $c} END {print s + 0}' "$tmp")
    # The full grid at this curve's rate (its points are of the same kind).
    echo "  $b: $t s for $hops packet-hops; full grid ($(awk 'END {print NR - 1}' "$csv") points, $full packet-hops) extrapolated $(awk -v t="$t" -v h="$hops" -v F="$full" 'BEGIN {printf "%.0f", (h > 0 ? t * F / h : 0)}') s at one job"
    sweep_s[$b]=$t
  done
  # Both builds simulate the same packet-hops (same seed, same model), so
  # the ratio of times is the ratio of rates.
  [ -z "$base" ] || awk -v c="${sweep_s[$cur]}" -v b="${sweep_s[$base]}" \
    'BEGIN {printf "  this build over the base: %s\n", (c > 0 ? sprintf("%.2fx", b / c) : "-")}'
fi
