#!/bin/bash
# sim-harness/experiments/run on bad options and files:
# each error names the option or file and what was expected (exit 2), and
# --summary / --replot neither create --out nor print empty tables.
# Runs no simulation. Exit 0 pass, 1 fail.
set -uo pipefail
SRC=${IBUNION_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
export IBUNION_SRC=$SRC IBUNION_BUILD=${IBUNION_BUILD:-$SRC}
RUN=$SRC/sim-harness/experiments/run
SHARING=$SRC/sim-harness/experiments/link-sharing
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

# --- --summary / --replot: the CSVs must be there, in run's format ------------
for mode in --summary --replot; do
  expect "--out $tmp/none: no such directory" "$RUN" seed000 $mode --out "$tmp/none"
  [ ! -e "$tmp/none" ] && pass "$mode does not create --out" || fail "$mode created $tmp/none"
  mkdir -p "$tmp/empty"
  for n in seed001 seed002 seed000 beyond; do
    expect "no CSV of $n in $tmp/empty" "$RUN" $n $mode --out "$tmp/empty"
  done
  expect "no CSV of seed001, seed002, seed000, beyond in $tmp/empty" "$RUN" all $mode --out "$tmp/empty"
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
   ! grep -q '^### seed00' "$tmp/stdout" && grep -qF "no CSV of seed001, seed002, seed000 in $tmp/some" "$tmp/err"; then
  pass "all --summary with beyond.csv only: its table, the missing ones named"
else
  fail "all --summary with beyond.csv only: rc, stdout $(head -c 300 "$tmp/stdout"), stderr $(cat "$tmp/err")"
fi

# --- nothing left behind ------------------------------------------------------
left=$(ls -A "$tmp" | grep '^ibunion-run\.' || true)
[ -z "$left" ] && pass "no ibunion-run.* temp dir left" || fail "left behind: $left"

[ $fails -eq 0 ] && echo "all checks passed" || echo "$fails checks failed"
exit $(( fails > 0 ))
