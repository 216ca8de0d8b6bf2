#!/bin/bash
# sim-harness/experiments/run on bad options and files:
# each error names the option or file and what was expected (exit 2), and
# --summary / --replot neither create --out nor print empty tables.
# Runs no simulation beyond one point. Exit 0 pass, 1 fail.
set -uo pipefail
SRC=${IBUNION_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
export IBUNION_SRC=$SRC IBUNION_BUILD=${IBUNION_BUILD:-$SRC}
RUN=$SRC/sim-harness/experiments/run
FIG=$SRC/docs/figures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibunion-experr.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp  # run's own temp dirs land here: checked below
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() {  # NEEDLE CMD...: exit status 2 and NEEDLE on stderr, no traceback
  local needle=$1; shift
  "$@" >"$tmp/stdout" 2>"$tmp/err"; local rc=$?
  if [ $rc -eq 2 ] && grep -qF -- "$needle" "$tmp/err" && ! grep -q Traceback "$tmp/err"; then pass "$(tail -1 "$tmp/err")"
  else fail "'$*' -> rc $rc, stderr: $(tail -3 "$tmp/err") (wanted: $needle)"; fi
}

# --- run: options --------------------------------------------------------------
touch "$tmp/afile"
expect "--out $tmp/afile: not a directory" "$RUN" seed001 --quick --out "$tmp/afile"
expect "--work $tmp/afile: not a directory" "$RUN" seed001 --quick --out "$tmp/o" --work "$tmp/afile"
[ ! -e "$tmp/o" ] && pass "a refused run creates no --out" || fail "a refused run created $tmp/o"
expect "--summary and --replot" "$RUN" seed001 --summary --replot --out "$FIG"
# A value option twice: the last one won without a word.
expect "option --out given twice ('$tmp/o1' and again): give it once" "$RUN" seed001 --quick --out "$tmp/o1" --out "$tmp/o2"
expect "option --work given twice ('$tmp/w1' and again)" "$RUN" seed001 --quick --work "$tmp/w1" --work "$tmp/w2" --out "$tmp/o"
expect "option --jobs given twice ('2' and again)" "$RUN" seed001 --quick --jobs 2 --jobs 1 --out "$tmp/o"
# A forgotten value is not the next option ('--out --jobs 2' was read as
# the directory '--jobs' and then a second experiment name, '2').
expect "--out needs a directory (got the option --jobs)" "$RUN" seed001 --quick --out --jobs 2
[ ! -e "$tmp/o1" ] && [ ! -e "$tmp/o2" ] && [ ! -e "$tmp/o" ] && pass "a repeated option creates no --out" ||
  fail "a repeated option created $(ls -d "$tmp"/o* | xargs)"
# Found before any simulation: --jobs without a count (an unbound-variable
# crash, exit 1) or past the shell's integers (no limit at all), a
# SEED001_FABRICS name the topologies lack (found after the fabrics before
# it had run), an --out that cannot be written (found at the first CSV).
expect "--jobs needs a count 1..64" "$RUN" seed001 --quick --out "$tmp/o" --jobs
expect "--jobs needs a count 1..64, got '99999999999999999999'" "$RUN" seed001 --quick --out "$tmp/o" --jobs 99999999999999999999
expect "SEED001_FABRICS: 'ft-9-9': expected space-separated fat-trees of topologies/" \
  env SEED001_FABRICS="ft-4-3 ft-9-9" "$RUN" seed001 --quick --out "$tmp/o"
expect "SEED001_FABRICS: 'mesh-4x4': expected space-separated fat-trees of topologies/" \
  env SEED001_FABRICS="ft-4-3 mesh-4x4" "$RUN" seed001 --quick --out "$tmp/o"
expect "SEED001_FABRICS: 'ft-4-3,ft-8-3': expected space-separated" env SEED001_FABRICS=ft-4-3,ft-8-3 "$RUN" seed001 --quick --out "$tmp/o"
expect "--out /proc/ibunion-nope: cannot create it or write there" "$RUN" seed001 --quick --out /proc/ibunion-nope --work "$tmp/w"
[ ! -e "$tmp/o" ] && pass "refused before any run: no --out made" || fail "a refused run created $tmp/o"
expect "--out $tmp/afile/sub: cannot create it or write there" "$RUN" seed001 --quick --out "$tmp/afile/sub" --work "$tmp/w9"
[ ! -e "$tmp/w9" ] && pass "an --out that cannot be made: no --work made either" || fail "a refused run created $tmp/w9"
# SPREAD_SEEDS is seed001-spread's: another run does not read it.
if SPREAD_SEEDS=abc "$RUN" seed000 --summary --out "$FIG" >"$tmp/stdout" 2>"$tmp/err"; then
  pass "SPREAD_SEEDS=abc: not read by seed000"
else
  fail "SPREAD_SEEDS=abc stopped seed000 --summary: $(tail -1 "$tmp/err")"
fi
expect "SPREAD_SEEDS=abc: expected 2..100 seeds" env SPREAD_SEEDS=abc "$RUN" seed001-spread --quick --out "$tmp/o"

# --- seed001-spread: its seeds, and the seed001 curves it reruns --------------
expect "SPREAD_SEEDS=1: expected 2..100 seeds" env SPREAD_SEEDS=1 "$RUN" seed001-spread --out "$tmp/o"
expect "SPREAD_LOADS=x: expected 1..20 points per curve" env SPREAD_LOADS=x "$RUN" seed001-spread --out "$tmp/o"
expect "--out $tmp/o: no such directory (seed001-spread reruns the seed001 CSVs there)" "$RUN" seed001-spread --out "$tmp/o"
[ ! -e "$tmp/o" ] && pass "a refused spread run creates no --out" || fail "a refused spread run created $tmp/o"
mkdir -p "$tmp/nocurves"
expect "no seed001-ft-*.csv in $tmp/nocurves: run 'seed001 --quick --out $tmp/nocurves' first" \
  "$RUN" seed001-spread --quick --out "$tmp/nocurves" --work "$tmp/work"
expect "$tmp/nocurves/seed001-ft-4-4.csv: missing; the spread reruns seed001's curves" \
  "$RUN" seed001-spread --out "$tmp/nocurves" --work "$tmp/work"
sed '1s/,latency_p99_ns//' "$FIG/seed001-ft-8-3.csv" >"$tmp/nocurves/seed001-ft-8-3.csv"
expect "$tmp/nocurves/seed001-ft-8-3.csv:1: expected the header fabric,scheme,traffic,vls,load,offered,accepted,latency_avg_ns,latency_p99_ns," \
  "$RUN" seed001-spread --quick --out "$tmp/nocurves" --work "$tmp/work"
[ ! -e "$tmp/nocurves/spread-seed001.csv" ] && pass "a refused spread run writes no CSV" || fail "a refused spread run wrote a CSV"

# --- --summary / --replot: the CSVs must be there, in run's format ------------
for mode in --summary --replot; do
  expect "--out $tmp/none: no such directory" "$RUN" seed000 $mode --out "$tmp/none"
  [ ! -e "$tmp/none" ] && pass "$mode does not create --out" || fail "$mode created $tmp/none"
  mkdir -p "$tmp/empty"
  for n in seed001 seed001-spread seed002 seed000 beyond beyond-perm beyond-radix beyond-degraded beyond-mesh; do
    expect "no CSV of $n in $tmp/empty" "$RUN" $n $mode --out "$tmp/empty"
  done
  expect "no CSV of seed001, seed001-spread, seed002, seed000, beyond, beyond-perm, beyond-radix, beyond-degraded, beyond-mesh, beyond-mesh-perm in $tmp/empty" "$RUN" all $mode --out "$tmp/empty"
done
# A CSV of another layout (here: seed002's columns before `receivers`).
mkdir -p "$tmp/old"
sed '1s/,receivers//' "$FIG/seed002.csv" >"$tmp/old/seed002.csv"
expect "$tmp/old/seed002.csv:1: header scheme,sources,group,msg_bytes,completion_ns,packet_hops" "$RUN" seed002 --summary --out "$tmp/old"
expect "expected scheme,sources,group,msg_bytes,completion_ns,receivers," "$RUN" seed002 --replot --out "$tmp/old"
# `all` with some CSVs: the others are named, the rest summarised.
mkdir -p "$tmp/some"
cp "$FIG/beyond.csv" "$tmp/some/"
if "$RUN" all --summary --out "$tmp/some" >"$tmp/stdout" 2>"$tmp/err" && grep -q '^### beyond' "$tmp/stdout" &&
   ! grep -q '^### seed00' "$tmp/stdout" && grep -qF "no CSV of seed001, seed001-spread, seed002, seed000, beyond-perm, beyond-radix, beyond-degraded, beyond-mesh, beyond-mesh-perm in $tmp/some" "$tmp/err"; then
  pass "all --summary with beyond.csv only: its table, the missing ones named"
else
  fail "all --summary with beyond.csv only: rc, stdout $(head -c 300 "$tmp/stdout"), stderr $(cat "$tmp/err")"
fi

# --- an ibunion whose `sim --csv` has other columns ---------------------------
# (as a later version might): the real binary, one column added after load.
mkdir -p "$tmp/newer"
cat >"$tmp/newer/ibunion" <<EOF
#!/bin/bash
"$IBUNION_BUILD/ibunion" "\$@"; rc=\$?
while [ \$# -gt 0 ]; do [ "\$1" = --csv ] && sed -i '1s/^point,load,/point,load,load_bytes,/; 2,\$s/^\([^,]*,[^,]*,\)/\1-1,/' "\$2"; shift; done
exit \$rc
EOF
chmod +x "$tmp/newer/ibunion"
IBUNION_BUILD=$tmp/newer timeout 300 "$RUN" seed001 --quick --out "$tmp/newer-out" --work "$tmp/work" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && grep -qF "sim --csv wrote the header 'point,load,load_bytes,offered," "$tmp/err" &&
   grep -qF "expected 'point,load,offered," "$tmp/err" && [ -z "$(ls -A "$tmp/newer-out" 2>/dev/null)" ]; then
  pass "an ibunion sim with other CSV columns: refused, no CSV"
else
  fail "an ibunion sim with other CSV columns: exit $rc, $(ls "$tmp/newer-out" 2>/dev/null | xargs), $(grep -m2 . "$tmp/err")"
fi

# --- --summary reproduces docs/results.md's numbers ----------------------------
"$RUN" seed001 --summary --out "$FIG" >"$tmp/s1" 2>"$tmp/err" || fail "seed001 --summary: $(cat "$tmp/err")"
# FT(16,3), 10% centric, 1 VL (docs: SLID 0.00145, MLID 0.00269, paper
# tables 0.00267): each the most its curve in the CSV accepted, to 4
# significant digits (not 4 decimals: 0.0014, 0.0027, 0.0027).
most() { awk -F, -v s="$1" '$2 == s && $3 == "centric:0.1" && $4 == 1 && $7 > m {m = $7} END {printf "%.4g", m}' "$FIG/seed001-ft-16-3.csv"; }
want="| ft-16-3 | centric:0.1 | 1 | $(most slid) (738) | $(most mlid) (735) | $(most mlid-paper) (735) |"
if grep -qxF "$want" "$tmp/s1" && [[ $want == *"| 0.00144"[0-9]" (738) | 0.00269"[0-9]" (735) | 0.00266"[0-9]" (735) |" ]]; then
  pass "seed001 --summary keeps the small centric throughputs' digits: $want"
else
  fail "seed001 --summary, FT(16,3) centric 1 VL: $(grep 'ft-16-3 | centric:0.1 | 1 ' "$tmp/s1"); want $want"
fi

# seed002's 4-packet-buffer tables under their own heading, not seed002's.
"$RUN" seed002 --summary --out "$FIG" >"$tmp/s2" 2>"$tmp/err" || fail "seed002 --summary: $(cat "$tmp/err")"
if [ "$(grep '^#' "$tmp/s2" | cut -d'(' -f1)" = "$(printf '### seed002 \n### seed002 with 4-packet buffers ')" ]; then
  pass "seed002 --summary: one heading per table set, the 4-packet-buffer one named"
else
  fail "seed002 --summary headings: $(grep '^#' "$tmp/s2" | tr '\n' '|')"
fi

# --- --replot draws every curve it has data for --------------------------------
# gnuplot warns "Skipping data file with no valid points" for a curve or
# panel drawn empty; the checked-in CSVs and a seed002 CSV made without
# ibsim/OpenSM (no opensm rows) must draw without one.
if command -v gnuplot >/dev/null; then
  mkdir -p "$tmp/plots" "$tmp/noosm"
  cp "$FIG"/*.csv "$tmp/plots/"
  if "$RUN" all --replot --out "$tmp/plots" 2>"$tmp/err" && ! grep -q warning "$tmp/err" &&
     [ "$(ls "$tmp/plots"/*.png | wc -l)" -eq "$(ls "$FIG"/*.png | wc -l)" ]; then
    pass "all --replot of docs/figures' CSVs: $(ls "$tmp/plots"/*.png | wc -l) PNGs, no gnuplot warning"
  else
    fail "all --replot of docs/figures' CSVs: $(grep -m3 . "$tmp/err")"
  fi
  for f in seed002 seed002-buf4; do grep -v '^opensm,' "$FIG/$f.csv" >"$tmp/noosm/$f.csv"; done
  if "$RUN" seed002 --replot --out "$tmp/noosm" 2>"$tmp/err" && ! grep -q warning "$tmp/err" &&
     [ -s "$tmp/noosm/seed002-speedup.png" ]; then
    pass "seed002 --replot without OpenSM rows: no empty panel or curve"
  else
    fail "seed002 --replot without OpenSM rows: $(grep -c warning "$tmp/err") gnuplot warnings: $(grep -m2 warning "$tmp/err")"
  fi

  # An --out with a ' and a space in its path (gnuplot quotes names in '...').
  mkdir -p "$tmp/it's here"
  cp "$FIG/beyond.csv" "$FIG/seed002.csv" "$FIG/seed002-buf4.csv" "$tmp/it's here/"
  if "$RUN" all --replot --out "$tmp/it's here" 2>"$tmp/err" && [ -s "$tmp/it's here/beyond.png" ] &&
     [ -s "$tmp/it's here/seed002-speedup.png" ] && cmp -s "$tmp/it's here/beyond.png" "$tmp/plots/beyond.png"; then
    pass "--replot into a dir named \"it's here\""
  else
    fail "--replot into a dir named \"it's here\": $(grep -m3 . "$tmp/err")"
  fi
fi

# --- nothing left behind ------------------------------------------------------
left=$(ls -A "$tmp" | grep '^ibunion-run\.' || true)
[ -z "$left" ] && pass "no ibunion-run.* temp dir left" || fail "left behind: $left"

[ $fails -eq 0 ] && echo "all checks passed" || echo "$fails checks failed"
exit $(( fails > 0 ))
