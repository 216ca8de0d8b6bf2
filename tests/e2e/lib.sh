# Shared by the end-to-end tests (source it). Finds the build, skips (77)
# only when ibsim/OpenSM are not installed, and gives each test a private
# temp dir that is removed on exit.
set -euo pipefail
E2E_SRC=${IBUNION_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
E2E_BUILD=${IBUNION_BUILD:-$E2E_SRC}
IBUNION=$E2E_BUILD/ibunion
FABRIC_RUN=$E2E_SRC/sim-harness/ibsim/fabric-run
TOPO=$E2E_SRC/topologies
PLUGIN_DIR=$E2E_BUILD/plugin/osm/.libs
for tool in ibsim opensm ibroute; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || { echo "SKIP: $tool is not installed"; exit 77; }
done
# Removed on exit, also when a TERM comes twice (timeout(1) sends it to the
# test and to its process group), the second while it is being removed.
# shellcheck source=../../sim-harness/ibsim/temp-dir.sh
source "$E2E_SRC/sim-harness/ibsim/temp-dir.sh"
E2E_TMP=""
make_temp_dir E2E_TMP "${TMPDIR:-/tmp}/ibunion-e2e.XXXXXX"
E2E_FAILS=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; E2E_FAILS=$((E2E_FAILS + 1)); }
# check "what" command...: runs it, PASS/FAIL by exit status, output kept on failure.
check() {
  local what=$1 log
  shift
  log=$E2E_TMP/check.$RANDOM.log
  if "$@" >"$log" 2>&1; then pass "$what"; else fail "$what"; tail -n 30 "$log"; fi
}
# expect_output "what" "needle" command...: the command's output contains needle.
expect_output() {
  local what=$1 needle=$2 log
  shift 2
  log=$E2E_TMP/check.$RANDOM.log
  "$@" >"$log" 2>&1 || true
  if grep -qF -- "$needle" "$log"; then pass "$what"; else fail "$what (no '$needle')"; tail -n 30 "$log"; fi
}
finish() { [ "$E2E_FAILS" -eq 0 ] && echo "all checks passed" || echo "$E2E_FAILS checks failed"; exit $(( E2E_FAILS > 0 )); }
# Processes still alive among the PIDs a fabric-run recorded; a run that
# recorded none (no pids file, or an empty one) says so, so that a check
# for "nothing left" cannot pass on a run that never started.
survivors() {
  [ -s "$1/pids" ] || { echo "(no PIDs recorded in $1/pids)"; return 0; }
  awk '{print $2}' "$1/pids" | while read -r p; do kill -0 "$p" 2>/dev/null && echo "$p"; done || true
}
# run_json OUT CMD...: CMD's stdout in OUT, its stderr in OUT.err; status 0
# only when CMD exits 0 and printed a point ("packets_delivered"). Two runs
# that failed alike printed the same error text, which compared equal.
run_json() {
  local out=$1
  shift
  "$@" >"$out" 2>"$out.err" && grep -q '"packets_delivered"' "$out"
}
# quick_experiment NAME: `sim-harness/experiments/run NAME --quick` with this
# build, CSV and PNG in $E2E_TMP/out, OpenSM's tables in $E2E_TMP/work/quick, its
# log in $E2E_TMP/log; the test stops there if the run fails.
quick_experiment() {
  if IBUNION_SRC=$E2E_SRC IBUNION_BUILD=$E2E_BUILD "$E2E_SRC/sim-harness/experiments/run" "$1" --quick \
      --out "$E2E_TMP/out" --work "$E2E_TMP/work" >"$E2E_TMP/log" 2>&1; then
    local curves  # sweeps only: seed002's cells are no curves
    curves=$(grep -c ' points, ' "$E2E_TMP/log" || true)
    if [ "$curves" -gt 0 ]; then pass "run $1 --quick ($curves curves)"; else pass "run $1 --quick"; fi
  else
    fail "run $1 --quick"; tail -n 30 "$E2E_TMP/log"; finish
  fi
}
# write_join_exec FILE: an --exec script `bash FILE PLAN OUT` that joins (or
# leaves) the "join|leave MGID STATE HOST" lines of PLAN through the SA with
# `ibunion mcjoin` from each simulated HOST, logging "MGID reply" lines to
# OUT.log, then reads the tables into OUT once OpenSM has settled.
write_join_exec() {
  cat >"$1" <<EOS
#!/bin/bash
set -euo pipefail
while read -r verb mgid state host; do
  [ -n "\$verb" ] || continue
  reply=\$(SIM_HOST="\$host" LD_PRELOAD=\$IBUNION_UMAD2SIM "$IBUNION" mcjoin \$verb "\$mgid" --state "\$state")
  echo "\$mgid \$reply" >>"\$2.log"
done <"\$1"
sleep 2  # OpenSM recomputes and pushes the MFTs after the last join
"$E2E_SRC/sim-harness/ibsim/read-tables" "\$2" >/dev/null
EOS
}
# The hosts of a net file, one name per line.
host_list() { "$IBUNION" inspect "$1" | awk '$1 == "host" {print $NF}'; }
# A deterministic pseudo-random sample of COUNT hosts: sample SEED COUNT FILE
sample() { awk -v seed="$1" -v n="$2" 'BEGIN {srand(seed)} {h[NR] = $0} END {
  for (i = NR; i > 1; i--) { j = int(rand() * i) + 1; t = h[i]; h[i] = h[j]; h[j] = t }
  for (i = 1; i <= n; i++) print h[i] }' "$3"; }
# --- experiments' curve CSVs (beyond-perm, beyond-radix) --------------------
# quick_curves NAME CURVES: quick_experiment NAME, then its CSV
# ($out/NAME.csv) has run's curve layout, exactly the CURVES
# ("fabric/scheme/traffic/VLs ...", sorted), each rising to saturation
# (saturation_curves: BEST).
quick_curves() {
  local csv=$E2E_TMP/out/$1.csv curves
  quick_experiment "$1"
  local want="fabric,scheme,traffic,vls,load,offered,accepted,latency_avg_ns,latency_p99_ns,ops_measured,ops_unfinished,packet_hops,wall_s,packet_hops_per_s"
  [ "$(head -n 1 "$csv")" = "$want" ] && pass "CSV header" || fail "CSV header: $(head -n 1 "$csv")"
  curves=$(awk -F, 'NR > 1 {print $1 "/" $2 "/" $3 "/" $4}' "$csv" | sort -u | xargs)
  [ "$curves" = "$2" ] && pass "curves: $2" || fail "curves: $curves, expected $2"
  saturation_curves "$csv"
}
# saturation_curves CSV: per curve (scheme/traffic), loads rising and the
# last point saturated (the runner's rule); sets BEST to "curve max" lines,
# the most each curve accepted.
BEST=""
saturation_curves() {
  BEST=$(awk -F, 'NR > 1 {
    k = $2 "/" $3
    if (k in last && $5 <= last[k]) print "FAIL: " k ": load " $5 " after " last[k]
    last[k] = $5; sat[k] = ($7 < 0.95 * $6 || $11 > 0); if ($7 > max[k]) max[k] = $7
  } END { for (k in last) { if (!sat[k]) print "FAIL: " k ": ends unsaturated at load " last[k]; print k, max[k] } }' "$1")
  if grep -q '^FAIL' <<<"$BEST"; then fail "curve shapes"; grep '^FAIL' <<<"$BEST"; else pass "every curve rises to saturation"; fi
  echo "$BEST" | grep -v '^FAIL' | sort | sed 's/^/  saturation throughput /'
}
# within LO HI CURVE...: the curves of BEST whose saturation throughput is
# outside LO..HI times one flow's limit on one VL with one-packet buffers
# (a credit comes back 2F+R+Lb = 268 ns after its packet started, which
# took Lb = 128 ns: 0.25 x 128/268 = 0.1194 bytes/ns); "" when none.
within() {
  local lo=$1 hi=$2 c v bad=""
  shift 2
  for c in "$@"; do
    v=$(awk -v k="$c" '$1 == k {print $2}' <<<"$BEST")
    awk -v v="${v:-0}" -v lo="$lo" -v hi="$hi" 'BEGIN {lim = 0.25 * 128 / 268; exit !(v >= lo * lim && v <= hi * lim)}' ||
      bad+=" $c=${v:-none}"
  done
  echo "$bad"
}
# check_flows NAME SCHEME/TRAFFIC=K...: NAME-flows.csv (ibunion sim --flows
# over the curves' own tables) puts K flows on the busiest link of each
# curve named, and at each curve's best point the model accepted 95-101%
# of the fluid max-min rate at that load (the ideal it can only fall
# short of).
check_flows() {
  local csv=$E2E_TMP/out/$1-flows.csv e got bad=""
  shift
  [ "$(head -n 1 "$csv")" = "fabric,scheme,traffic,vls,flows,max_link_flows,max_channel_flows,fluid_saturated,load,fluid_at_load,model_at_load" ] &&
    pass "flows CSV header" || fail "flows CSV header: $(head -n 1 "$csv")"
  for e in "$@"; do
    got=$(awk -F, -v k="${e%=*}" 'NR > 1 && $2 "/" $3 == k {print $6}' "$csv")
    [ "$got" = "${e#*=}" ] || bad+=" ${e%=*}: ${got:-no row} (expected ${e#*=})"
  done
  [ -z "$bad" ] && pass "flows on the busiest link: $*" || fail "flows on the busiest link:$bad"
  bad=$(awk -F, 'NR > 1 && !($11 >= 0.95 * $10 && $11 <= 1.01 * $10) {print " " $2 "/" $3 ": model " $11 ", fluid " $10 " at load " $9}' "$csv")
  [ -z "$bad" ] && pass "every curve's best point at 95-101% of the fluid rate at its load" || fail "model vs fluid:$bad"
}
check_png() {  # FILE: a PNG, where gnuplot is installed
  if command -v gnuplot >/dev/null; then
    [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = "211PNG" ] && pass "PNG written" || fail "no PNG"
  fi
}
