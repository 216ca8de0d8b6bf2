# Shared by the benchmarks (source it): option checks, fabric-run stoppable
# by its PID, OpenSM log phases, medians.

# fabric-run in the background, awaited: bash runs a TERM trap only once
# its foreground child has ended, so `kill BENCH-PID` left OpenSM sweeping
# to the end of the run (a soak: all its sweeps), then lost the output. The
# benchmark's EXIT trap calls stop_fabric_run (fabric-run stops OpenSM and
# ibsim on TERM).
fabric_run_pid=""
# make_temp_dir VAR TEMPLATE stop_fabric_run: the benchmark's work dir.
source "$(dirname "${BASH_SOURCE[0]}")/../ibsim/temp-dir.sh"
# Option checks: set `bench` (the script's name, for messages) before
# sourcing. They run before any build or measurement; a bad value exits 2
# naming the option.

usage_error() { echo "$bench: $*" >&2; exit 2; }

# OPTION ARGS...: the option's value is there and is not the next option
# ('--base --reps 2' took '--reps' for the binary).
needs_value() {
  [ $# -ge 2 ] || usage_error "option $1 needs a value (see --help)"
  [[ $2 != --?* ]] || usage_error "option $1 needs a value (got the option $2; see --help)"
}

# BIN: empty, or a baseline build to measure against.
check_base() {
  [ -z "$1" ] || { [ -x "$1" ] && [ ! -d "$1" ]; } || usage_error "option --base $1: not an executable file"
}

# VALUE EXAMPLE: --tree M,N into the caller's m and n.
tree_value() {
  [[ $1 =~ ^([0-9]+),([0-9]+)$ ]] || usage_error "option --tree: expected M,N (e.g. $2), got '$1'"
  m=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]}
}

# VALUE EXAMPLE: --mesh X,Y into the caller's mx and my.
mesh_value() {
  [[ $1 =~ ^([0-9]+),([0-9]+)$ ]] || usage_error "option --mesh: expected X,Y (e.g. $2), got '$1'"
  mx=${BASH_REMATCH[1]} my=${BASH_REMATCH[2]}
}
# -h/--help: the script's header comment (they took it for a fabric or a
# sweep count and refused it).
help_if_asked() {  # SCRIPT FIRST-ARG
  case ${2:-} in -h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$1"; exit 0 ;; esac
}
fabric_run() {  # FABRIC-RUN-ARGS... (redirect the call); fabric-run's status
  sim-harness/ibsim/fabric-run "$@" &
  fabric_run_pid=$!
  local st=0
  wait "$fabric_run_pid" || st=$?
  fabric_run_pid=""
  return $st
}
stop_fabric_run() {
  [ -z "$fabric_run_pid" ] || { kill -TERM "$fabric_run_pid" 2>/dev/null; wait "$fabric_run_pid" 2>/dev/null; } || true
}

# Seconds of each routing phase in an OpenSM log, one per line, to the
# log's microsecond (with 4 decimals a small fabric's phase printed 0.0000
# and its ratio "-").
phases() {  # LOG ENGINE
  awk -v e="$2" '
    function t(line,  a, h) { split($3, h, ":"); return h[1] * 3600 + h[2] * 60 + h[3] + $4 / 1e6 }
    index($0, "building routing with \047" e "\047") { start = t($0) }
    index($0, e " tables configured on all switches") && start { printf "%.6f\n", t($0) - start; start = 0 }' "$1"
}
# `ibunion topo TOPO-ARGS` written to OUT, or exit 2 naming the fabric and
# why `topo` refused it (run from the source tree, like the benchmarks).
generate_net() {  # PROG NAME OUT TOPO-ARGS...
  local prog=$1 name=$2 out=$3 err
  shift 3
  err=$(./ibunion topo "$@" -o "$out" 2>&1) || { echo "$prog: fabric '$name': ${err#ibunion topo: }" >&2; exit 2; }
}
# After the options of a benchmark that times ibunion against --base:
# --reps is 1..99, --base an executable, and this build ($cur) is made.
check_timing_options() {
  [[ $reps =~ ^[1-9][0-9]?$ ]] || usage_error "option --reps: expected 1..99, got '$reps'"
  check_base "$base"
  [ -x "$cur" ] || bash "$top/sim-harness/setup.sh" || { echo "$bench: setup failed" >&2; exit 2; }
}
# WIDTH LABEL THIS BASE: a row of this build's and the base's seconds and
# base / this ("-" without a base).
ratio_row() {
  awk -v w="$1" -v s="$2" -v a="$3" -v b="$4" 'BEGIN {
    printf "%-" w "s %10.2f %10s %7s\n", s, a, b == "" ? "-" : sprintf("%.2f", b), b == "" ? "-" : sprintf("%.2fx", b / a) }'
}
# Seconds of one run of COMMAND, its output to OUT; a failure exits 1
# naming it.
wall_once() {  # OUT COMMAND...
  local out=$1 t0 t1 last
  shift
  t0=$(date +%s.%N)
  if ! "$@" >"$out" 2>&1; then
    last=$([ -f "$out" ] && tail -1 "$out" || true)
    echo "$bench: failed: $*${last:+ ($last)}" >&2
    exit 1
  fi
  t1=$(date +%s.%N)
  awk -v x="$t0" -v y="$t1" 'BEGIN {print y - x}'
}
least() { awk -v a="$1" -v t="$2" 'BEGIN {print (a == "" || t < a) ? t : a}'; }
# The least wall time of $reps runs of `COMMAND BIN ARGS...` for this
# build ($cur) and, with --base, for the baseline: "THIS [BASE]". The two
# take turns, run by run, so that whatever else the machine does hits
# both alike; all of one build's runs first had made a build look up to
# 2.5x faster than itself. BENCH_ROLE is "this" or "base" during a run;
# the output goes to OUT, the baseline's to OUT.base (/dev/null stays
# /dev/null). Call it as
# `walls=$(best_walls ...)`: a failed run then stops the benchmark under
# set -e (`read ... <<<"$(...)"` would go on without the numbers).
best_walls() {  # OUT COMMAND ARGS...
  local out=$1 cmd=$2 r t best_this="" best_base="" base_out=$1.base
  [ "$out" != /dev/null ] || base_out=/dev/null  # not /dev/null.base, a file beside the device
  shift 2
  for ((r = 0; r < reps; r++)); do
    BENCH_ROLE=this
    t=$(wall_once "$out" "$cmd" "$cur" "$@") || exit 1
    best_this=$(least "$best_this" "$t")
    [ -n "$base" ] || continue
    BENCH_ROLE=base
    t=$(wall_once "$base_out" "$cmd" "$base" "$@") || exit 1
    best_base=$(least "$best_base" "$t")
  done
  echo "$best_this${base:+ $best_base}"
}
# Median of numbers on stdin ("nan" when none).
median() { sort -g | awk '{v[NR] = $1} END {print (NR ? v[int((NR + 1) / 2)] : "nan")}'; }
# OpenSM under fabric-run (daemon mode, no read-back) made to route three
# times: the first sweep, then two more by SIGHUP, each awaited in its log.
# Extra fabric-run arguments (--net, --engine, plugin options) follow OUT;
# its output goes to OUT.log. Exit status is fabric-run's.
resweep_run() {  # OUT FABRIC-RUN-ARGS...
  local out=$1
  shift
  local resweep='for i in 1 2; do before=$(grep -c "tables configured on all switches" $IBUNION_OUT/opensm.log);
      kill -HUP $IBUNION_OSM_PID;
      while [ $(grep -c "tables configured on all switches" $IBUNION_OUT/opensm.log) -le $before ]; do sleep 0.5; done; done'
  fabric_run "$@" --conf-line "log_flags 0x07" --daemon --no-readback --timeout 3600 \
    --exec "$resweep" --out "$out" >"$out.log" 2>&1
}
