#!/bin/bash
# A sweep written out with `ibunion sim --emit-jobs` and run by the real
# schedulers it is written for, then merged: GNU parallel (`parallel <
# jobs.txt`) and a one-node Slurm cluster started here (slurmctld + slurmd,
# `sbatch --wait slurm.sh`, a job array). Each merge must print exactly what
# the direct sweep prints (JSON, table and CSV without wall times, the
# per-link utilisation and the --plot PNG); a merge with a point missing
# must name it and its jobs.txt command; sbatch must accept slurm.sh for
# more than 1000 points (default MaxArraySize). Slurm needs root (slurmd
# starts the jobs); both daemons are stopped by PID, also on failure.
# Needs no OpenSM. Exit 0 pass, 1 fail, 77 skip (not root, for Slurm only).
set -euo pipefail
SRC=${IBUNION_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${IBUNION_BUILD:-$SRC}
IBUNION=$BUILD/ibunion
TOPO=$SRC/topologies
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibunion-jobs.XXXXXX")
daemons=()
cleanup() {
  local p
  for p in "${daemons[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${daemons[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

sweep=("$TOPO/ft-4-3.net" --guid2lid "$TOPO/ft-4-3.guid2lid" --routing mlid
  --traffic uniform --vls 2 --sweep 0.2:0.8:0.2)
"$IBUNION" sim "${sweep[@]}" --json --no-wall --quiet --csv "$tmp/direct.csv" --links "$tmp/direct.links" \
  >"$tmp/direct.json"
"$IBUNION" sim "${sweep[@]}" --no-wall --quiet --plot "$tmp/direct.png" >"$tmp/direct.table"
[ "$(wc -l <"$tmp/direct.json")" -eq 4 ] && pass "direct sweep: 4 points" || fail "direct sweep: $(wc -l <"$tmp/direct.json") lines"

# merge_matches NAME DIR: the merge of DIR prints the direct sweep's bytes.
merge_matches() {
  local name=$1 dir=$2
  if "$IBUNION" sim --merge "$dir" --json --no-wall --quiet --csv "$tmp/$name.csv" --links "$tmp/$name.links" \
    >"$tmp/$name.json" 2>"$tmp/$name.err" &&
    "$IBUNION" sim --merge "$dir" --no-wall --quiet --plot "$tmp/$name.png" >"$tmp/$name.table" 2>>"$tmp/$name.err" &&
    cmp -s "$tmp/$name.json" "$tmp/direct.json" && cmp -s "$tmp/$name.csv" "$tmp/direct.csv" &&
    cmp -s "$tmp/$name.table" "$tmp/direct.table" && cmp -s "$tmp/$name.links" "$tmp/direct.links" &&
    tail -n 1 "$tmp/$name.table" | grep -q '^# saturation: ' && cmp -s "$tmp/$name.png" "$tmp/direct.png" &&
    [ "$(head -c 4 "$tmp/$name.png" | tail -c 3)" = PNG ]; then
    pass "$name: merged sweep identical to the direct one (JSON, CSV, table with its saturation line, per-link CSV, --plot PNG)"
  else
    fail "$name: merge differs from the direct sweep"
    cat "$tmp/$name.err"; diff "$tmp/$name.json" "$tmp/direct.json" | head -n 10 || true
  fi
}

# --- GNU parallel ---
"$IBUNION" sim "${sweep[@]}" --emit-jobs "$tmp/par" 2>"$tmp/par.emit"
if parallel --halt now,fail=1 --jobs 2 <"$tmp/par/jobs.txt" >"$tmp/par.log" 2>&1; then
  pass "parallel ran $(wc -l <"$tmp/par/jobs.txt") jobs"
else
  fail "parallel < jobs.txt"; tail -n 20 "$tmp/par.log"
fi
merge_matches parallel "$tmp/par"

# A lost point is named, and nothing is printed as if the sweep were whole.
rm "$tmp/par/points/2.json"
if "$IBUNION" sim --merge "$tmp/par" --json >"$tmp/lost.out" 2>"$tmp/lost.err"; then
  fail "merge with point 2 missing succeeded"
elif grep -q 'not done (2)' "$tmp/lost.err" && grep -q -- '^  cd .* --point 2 --save ' "$tmp/lost.err" && [ ! -s "$tmp/lost.out" ]; then
  pass "merge with a point missing names it: $(head -n 1 "$tmp/lost.err")"
else
  fail "merge with point 2 missing: unclear error or partial output"; cat "$tmp/lost.err"
fi

# A build of ibunion is a version of the model: a point computed by another
# build (here the same binary with a byte appended, as a rebuild would
# differ) is refused by the merge, naming it; points of the set's own build
# merge as before.
"$IBUNION" sim "${sweep[@]}" --emit-jobs "$tmp/build" --quiet
cp "$IBUNION" "$tmp/other-build" && printf x >>"$tmp/other-build"
IBUNION_PROGRAM=$tmp/other-build "$tmp/other-build" sim "${sweep[@]}" --point 1 --save "$tmp/build/points/1.json" --quiet
for i in 0 2 3; do "$IBUNION" sim "${sweep[@]}" --point $i --save "$tmp/build/points/$i.json" --quiet; done
if ! "$IBUNION" sim --merge "$tmp/build" >/dev/null 2>"$tmp/build.err" &&
  grep -q 'points/1.json: computed by another build of ibunion than this job set' "$tmp/build.err"; then
  "$IBUNION" sim "${sweep[@]}" --point 1 --save "$tmp/build/points/1.json" --quiet
  if "$IBUNION" sim --merge "$tmp/build" --no-wall >/dev/null 2>&1; then
    pass "merge refuses a point of another build: $(cat "$tmp/build.err")"
  else fail "merge of a rerun point"; fi
else
  fail "merge of a point from another build: $(cat "$tmp/build.err")"
fi

# --jobs picks the threads of a whole sweep: the jobs (one point each) do
# not repeat it, and --emit-jobs or a --point given with it says it is
# unused (--emit-jobs dropped it without a word).
"$IBUNION" sim "${sweep[@]}" --jobs 2 --emit-jobs "$tmp/thr" 2>"$tmp/thr.emit"
"$IBUNION" sim "${sweep[@]}" --jobs 2 --point 1 --no-wall >"$tmp/thr.out" 2>"$tmp/thr.err"
if ! grep -q -- '--jobs' "$tmp/thr/jobs.txt" && grep -q -- '--point 1 ' "$tmp/thr/jobs.txt" &&
  grep -q -- 'note: --jobs 2 unused: --point runs one point' "$tmp/thr.err" &&
  grep -q -- 'note: --jobs 2 unused: each job runs one point' "$tmp/thr.emit"; then
  pass "--jobs: left out of the emitted jobs, named as unused there and with --point"
else
  fail "--jobs with --emit-jobs / --point"; head -n 2 "$tmp/thr/jobs.txt"; cat "$tmp/thr.err"
fi

# --- Slurm, one node, this machine ---
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: the Slurm part needs root (slurmd starts the jobs)"
  [ $fails -eq 0 ] && exit 77 || exit 1
fi
host=$(hostname -s)
cpus=$(nproc)
# start_slurm PORT: slurmctld and slurmd on PORT and PORT+1; true once the
# node is idle.
start_slurm() {
  local port=$1 conf=$tmp/slurm/slurm.conf
  rm -rf "$tmp/slurm"
  mkdir -p "$tmp/slurm/state" "$tmp/slurm/spool"
  cat >"$conf" <<EOF
ClusterName=ibunion-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/none
CredType=cred/none
SlurmUser=root
ProctrackType=proctrack/pgid
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
StateSaveLocation=$tmp/slurm/state
SlurmdSpoolDir=$tmp/slurm/spool
SlurmctldPidFile=$tmp/slurm/slurmctld.pid
SlurmdPidFile=$tmp/slurm/slurmd.pid
SlurmctldLogFile=$tmp/slurm/slurmctld.log
SlurmdLogFile=$tmp/slurm/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$conf
  slurmctld -D -i -f "$conf" >"$tmp/slurm/ctld.out" 2>&1 &
  daemons+=($!)
  slurmd -D -N "$host" -f "$conf" >"$tmp/slurm/d.out" 2>&1 &
  daemons+=($!)
  for _ in $(seq 100); do
    [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ] && return 0
    sleep 0.2
  done
  return 1
}
stop_slurm() {
  local p
  for p in "${daemons[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${daemons[@]}"; do wait "$p" 2>/dev/null || true; done
  daemons=()
}
started=0
for port in $((20000 + $$ % 20000)) $((21000 + RANDOM % 19000)) $((22000 + RANDOM % 18000)); do
  if start_slurm "$port"; then started=1; break; fi
  stop_slurm
done
if [ $started -eq 0 ]; then
  fail "Slurm did not come up (slurmctld/slurmd logs below)"
  tail -n 15 "$tmp/slurm/slurmctld.log" "$tmp/slurm/slurmd.log" "$tmp/slurm/ctld.out" "$tmp/slurm/d.out" 2>/dev/null || true
  exit 1
fi
pass "one-node Slurm cluster up ($host, $cpus CPUs, port $port)"

# A blank and a % in the directory: sbatch splits #SBATCH lines at blanks
# and expands % patterns in --output (slurm.sh quotes and escapes them).
sj="$tmp/slurm jobs %j"
"$IBUNION" sim "${sweep[@]}" --emit-jobs "$sj" 2>"$tmp/slurm.emit"
if timeout 300 sbatch --wait --quiet "$sj/slurm.sh" >"$tmp/sbatch.log" 2>&1; then
  pass "sbatch --wait: the job array of $(grep -o 'array=[0-9-]*' "$sj/slurm.sh") finished (directory with a blank and a %)"
else
  fail "sbatch slurm.sh"; cat "$tmp/sbatch.log"; tail -n 5 "$sj"/points/slurm-*.log 2>/dev/null || true
fi
logs=$(ls "$sj"/points/slurm-*.log 2>/dev/null | wc -l)
[ "$logs" -eq 4 ] && pass "one Slurm log per array task ($logs)" || fail "Slurm task logs in '$sj/points': $logs, expected 4"
merge_matches slurm "$sj"

# A sweep of more than 1000 points: sbatch refuses array indices of
# MaxArraySize (default 1001) and above, so slurm.sh runs consecutive
# points per task. --test-only: submitted and checked, not run.
"$IBUNION" sim "${sweep[@]:0:5}" --sweep 0.0005:0.6:0.0005 --emit-jobs "$tmp/big" 2>"$tmp/big.emit"
if sbatch --test-only "$tmp/big/slurm.sh" >"$tmp/big.log" 2>&1; then
  pass "sbatch accepts the 1200-point job set ($(grep -o 'array=[0-9-]*' "$tmp/big/slurm.sh"), $(grep -o '^per=[0-9]*' "$tmp/big/slurm.sh"))"
else
  fail "sbatch --test-only of a 1200-point job set"; cat "$tmp/big.log"
fi
sed 's/^#SBATCH --array=.*/#SBATCH --array=0-1199/' "$tmp/big/slurm.sh" >"$tmp/big/one-per-point.sh"
# Refused for the array's size, not for any reason (a broken script or
# an unreachable controller fails --test-only too).
if sbatch --test-only "$tmp/big/one-per-point.sh" >"$tmp/big.log" 2>&1; then
  fail "sbatch accepted --array=0-1199: this cluster's MaxArraySize is not Slurm's default"
elif grep -qi 'array' "$tmp/big.log"; then
  pass "sbatch refuses one task per point for 1200 points: $(head -n 1 "$tmp/big.log")"
else
  fail "sbatch refused --array=0-1199, but not for the array: $(head -n 1 "$tmp/big.log")"
fi
stop_slurm

[ $fails -eq 0 ] && { echo "all checks passed"; exit 0; }
echo "$fails checks failed"
exit 1
