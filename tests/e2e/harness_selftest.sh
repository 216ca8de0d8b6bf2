#!/bin/bash
# fabric-run itself: results, clean stop by PID (also on failure and
# timeout), usage errors, two runs side by side.
source "$(dirname "$0")/lib.sh"
net=$TOPO/ft-4-2.net

out=$E2E_TMP/ok
# Files of an earlier run into the same DIR (another engine's, a mesh's)
# must not pass for this run's: sim dump: and verify would read them.
mkdir -p "$out"
touch "$out/ibunion-mlid-paths.dump" "$out/sl2vl.dump" "$out/path-sl.dump" "$out/keep.txt"
check "a run produces fabric.net, lfts.dump, mfts.dump" "$FABRIC_RUN" --net "$net" --engine minhop --out "$out"
[ ! -e "$out/ibunion-mlid-paths.dump" ] && [ ! -e "$out/sl2vl.dump" ] && [ ! -e "$out/path-sl.dump" ] && [ -e "$out/keep.txt" ] &&
  pass "an earlier run's dumps in DIR are removed, other files kept" || fail "stale files left: $(ls "$out" | xargs)"
switches=$(grep -c '^Switch' "$net")
[ "$(grep -c 'Unicast lids' "$out/lfts.dump")" -eq "$switches" ] && pass "one LFT per switch ($switches)" || fail "LFT count"
[ "$(grep -c 'Multicast mlids' "$out/mfts.dump")" -eq "$switches" ] && pass "one MFT per switch" || fail "MFT count"
[ -z "$(survivors "$out")" ] && pass "ibsim and OpenSM stopped" || fail "processes survive a good run"

st=0; "$FABRIC_RUN" --net "$net" --out "$E2E_TMP/x" --lmc 9 >"$E2E_TMP/usage.log" 2>&1 || st=$?
[ $st -eq 2 ] && grep -q -- "--lmc: expected 0..7" "$E2E_TMP/usage.log" && pass "bad option: exit 2, option named" || fail "bad option gave $st"
st=0; "$FABRIC_RUN" --net "$E2E_TMP/none.net" --out "$E2E_TMP/x" >"$E2E_TMP/usage.log" 2>&1 || st=$?
[ $st -eq 2 ] && grep -q "none.net: cannot read" "$E2E_TMP/usage.log" && pass "missing net file: exit 2, file named" || fail "missing file gave $st"
# An input kept in --out under a result's name was removed with the earlier
# results before it was read (the README reuses run/fabric.net).
mkdir -p "$E2E_TMP/in"; cp "$net" "$E2E_TMP/in/fabric.net"
st=0; "$FABRIC_RUN" --net "$E2E_TMP/in/fabric.net" --out "$E2E_TMP/in" --engine minhop >"$E2E_TMP/usage.log" 2>&1 || st=$?
[ $st -eq 2 ] && cmp -s "$net" "$E2E_TMP/in/fabric.net" && grep -q "fabric.net: an input inside --out" "$E2E_TMP/usage.log" &&
  pass "--net inside --out under a result's name: exit 2, the file kept" || fail "--net inside --out gave $st: $(tail -n 1 "$E2E_TMP/usage.log")"
: >"$E2E_TMP/empty.net"
st=0; "$FABRIC_RUN" --net "$E2E_TMP/empty.net" --out "$E2E_TMP/x" >"$E2E_TMP/usage.log" 2>&1 || st=$?
[ $st -eq 2 ] && grep -q "empty.net: no Switch records" "$E2E_TMP/usage.log" && pass "empty net file: exit 2, file named" || fail "empty net file gave $st"
# The read-back helpers took --help for OUTDIR (read-path-sl made './--help').
for helper in read-tables read-sl2vl read-path-sl; do
  st=0; (cd "$E2E_TMP" && "$E2E_SRC/sim-harness/ibsim/$helper" --help) >"$E2E_TMP/usage.log" 2>&1 || st=$?
  st2=0; (cd "$E2E_TMP" && "$E2E_SRC/sim-harness/ibsim/$helper" -x) >/dev/null 2>&1 || st2=$?
  [ $st -eq 0 ] && grep -q "^$helper OUTDIR" "$E2E_TMP/usage.log" && [ $st2 -eq 2 ] && [ ! -e "$E2E_TMP/--help" ] &&
    pass "$helper --help: its header, exit 0; an option for OUTDIR: exit 2" || fail "$helper --help gave $st, -x $st2"
done

# LIDs run out (here at the LID limit ibsim is given): OpenSM repeats
# "has LID 0" for every port, so the run says the cause instead.
out=$E2E_TMP/nolids
st=0; "$FABRIC_RUN" --net "$TOPO/ft-4-3.net" --engine minhop --lmc 7 --no-mft --ibsim-args "-L 1024" --out "$out" \
  >"$E2E_TMP/nolids.log" 2>&1 || st=$?
[ $st -eq 1 ] && grep -q "fabric-run: OpenSM ran out of LIDs (ERR 0307 in $out/opensm.log): .*ft-4-3.net has 16 end ports and 20 switches; at LMC 7 .* up to 4672 LIDs .*ibsim (-L)" \
  "$E2E_TMP/nolids.log" && [ -z "$(survivors "$out")" ] && pass "LIDs run out: exit 1, the cause and the LMC named" ||
  fail "LIDs run out gave $st: $(tail -n 1 "$E2E_TMP/nolids.log")"

out=$E2E_TMP/timeout
st=0; TMPDIR=$E2E_TMP "$FABRIC_RUN" --net "$net" --engine minhop --daemon --timeout 8 --exec 'sleep 60' --keep \
  --out "$out" >"$E2E_TMP/t.log" 2>&1 || st=$?
[ $st -eq 1 ] && grep -q "did not finish within --timeout 8s" "$E2E_TMP/t.log" && pass "a run that times out exits 1, --timeout named" ||
  fail "timeout run gave $st: $(tail -n 1 "$E2E_TMP/t.log")"
# --keep names the temp dir it keeps (cleanup had sent stderr to /dev/null).
kept=$(sed -n 's/^fabric-run: kept //p' "$E2E_TMP/t.log")
[ -n "$kept" ] && [ -d "$kept" ] && pass "--keep prints the temp dir it kept" || fail "--keep: no 'kept DIR' line"
[ -s "$out/pids" ] && [ -z "$(survivors "$out")" ] && pass "nothing survives a timed-out run" || fail "processes survive a timeout"

out=$E2E_TMP/badexec
# The first --exec leaves a helper running in the background (it outlived
# the run); the second fails.
st=0; "$FABRIC_RUN" --net "$net" --engine minhop --daemon --exec 'sleep 300 & echo $! >$IBUNION_OUT/helper.pid' \
  --exec 'exit 3' --out "$out" >/dev/null 2>&1 || st=$?
[ $st -eq 1 ] && [ -z "$(survivors "$out")" ] && pass "a failing --exec stops everything, exit 1" || fail "failing exec gave $st"
helper=$(cat "$out/helper.pid")
kill -0 "$helper" 2>/dev/null && { fail "a helper an --exec left in the background survives the run"; kill "$helper"; } ||
  pass "a helper an --exec left in the background is stopped with the run"

# A run is stopped mid---exec: by TERM (it was held off until the command
# ended), by ibsim dying (the run hung until --timeout), by its parent dying
# (a killed test does not signal fabric-run). Each must end within seconds,
# nothing left; the --exec would hold on for 40 s.
in_exec() {  # OUT: wait (up to 60 s) until the run's --exec has started
  for _ in $(seq 600); do [ -e "$1/in-exec" ] && return 0; sleep 0.1; done; return 1
}
gone_within() {  # SECONDS PID...: every PID exits within SECONDS
  local i p alive
  for i in $(seq $(($1 * 10))); do
    alive=0
    for p in "${@:2}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive -eq 1 ] || return 0
    sleep 0.1
  done; return 1
}
hold='touch $IBUNION_OUT/in-exec; sleep 40'
out=$E2E_TMP/term
"$FABRIC_RUN" --net "$net" --engine minhop --daemon --exec "$hold" --out "$out" >"$E2E_TMP/term.log" 2>&1 & fr=$!
in_exec "$out" && kill -TERM $fr
gone_within 10 $fr && [ -z "$(survivors "$out")" ] && pass "TERM during --exec: stopped at once, nothing survives" ||
  fail "TERM during --exec: fabric-run or $(survivors "$out" | xargs) still alive 10 s later"
st=0; wait $fr || st=$?; [ $st -eq 143 ] || fail "TERM during --exec gave $st, not 143 (died of TERM)"
# TERM twice (a caller's timeout(1) sends it to fabric-run and to its
# group): the second came during the clean-up, which had reset the traps, and
# killed fabric-run before it stopped OpenSM and ibsim and removed its temp
# dir. The --exec ignores TERM here, so the clean-up waits 3 s for it.
out=$E2E_TMP/term2
mkdir -p "$E2E_TMP/term2-tmp"
TMPDIR=$E2E_TMP/term2-tmp "$FABRIC_RUN" --net "$net" --engine minhop --daemon --exec "trap '' TERM; $hold" \
  --out "$out" >"$E2E_TMP/term2.log" 2>&1 & fr=$!
in_exec "$out" && { kill -TERM $fr; sleep 1; kill -TERM $fr; }
st=0; gone_within 15 $fr && wait $fr || st=$?
[ $st -eq 143 ] && gone_within 5 $(awk '{print $2}' "$out/pids") && [ -z "$(ls -A "$E2E_TMP/term2-tmp")" ] &&
  pass "TERM twice: the clean-up is not cut short, nothing survives, no temp dir left" ||
  fail "TERM twice gave $st; alive: $(survivors "$out" | xargs); left: $(ls -A "$E2E_TMP/term2-tmp" | xargs)"
for p in $(survivors "$out" | grep -x '[0-9]*'); do kill -KILL "$p" 2>/dev/null || true; done
# INT to the whole process group (Ctrl-C): fabric-run died of SIGINT, not
# exit 1, or its caller took it for a failed run and went on (a benchmark
# to its next engine).
out=$E2E_TMP/int
timeout -s INT 8 bash -c '"$@"; echo "the caller went on"' caller "$FABRIC_RUN" --net "$net" --engine minhop \
  --daemon --exec "$hold" --out "$out" >"$E2E_TMP/int.log" 2>&1 || true
! grep -q "the caller went on" "$E2E_TMP/int.log" && gone_within 10 $(awk '{print $2}' "$out/pids") &&
  pass "INT to the process group: fabric-run and its caller stop, nothing survives" ||
  fail "INT to the process group: $(tail -n 1 "$E2E_TMP/int.log"); alive: $(survivors "$out" | xargs)"
out=$E2E_TMP/ibsimdies
st=0; timeout 30 "$FABRIC_RUN" --net "$net" --engine minhop --daemon --timeout 100 --out "$out" \
  --exec 'kill -9 $(awk "/^ibsim/ {print \$2}" $IBUNION_OUT/pids); sleep 40' >"$E2E_TMP/ibsimdies.log" 2>&1 || st=$?
[ $st -eq 1 ] && grep -q "ibsim (PID [0-9]*) exited during --exec" "$E2E_TMP/ibsimdies.log" && [ -z "$(survivors "$out")" ] &&
  pass "ibsim killed mid-run: the run fails at once, naming it" || fail "ibsim killed mid-run gave $st: $(tail -n 1 "$E2E_TMP/ibsimdies.log")"
# ... and during the read-back (once mode): read-tables' temp dir in DIR
# goes too. Its EXIT trap's rm raced the TERMs to the read-back's process
# group (fabric-run's, then timeout(1)'s): one that came while rm ran killed
# it (bash printed "Terminated") and the dir stayed. The plain run is the
# one CI saw fail under load; in the second an rm first on PATH sends that
# TERM itself, so the race is lost every time. The reason is the last line:
# an ibroute still running when fabric-run named ibsim's death (the third
# run's hangs, as a tool under libumad2sim can) was stopped after that, and
# read-tables' "Terminated" came last.
mkdir -p "$E2E_TMP/term-rm" "$E2E_TMP/hung-ibroute"
# (It also serves the e2e temp dir check below.)
printf '#!/bin/bash\ncase "$*" in *.read-tables.??????|*/ibunion-e2e.??????) kill -TERM 0; sleep 0.5 ;; esac\nexec %q "$@"\n' \
  "$(command -v rm)" >"$E2E_TMP/term-rm/rm"
printf '#!/bin/bash\n%q "$@" || { sleep 30; exit 1; }\n' \
  "$(command -v ibroute || echo /usr/sbin/ibroute)" >"$E2E_TMP/hung-ibroute/ibroute"
chmod +x "$E2E_TMP/term-rm/rm" "$E2E_TMP/hung-ibroute/ibroute"
for shim in "" term-rm hung-ibroute; do
  out=$E2E_TMP/readback${shim:+-$shim}
  PATH=${shim:+$E2E_TMP/$shim:}$PATH "$FABRIC_RUN" --net "$TOPO/ft-4-3.net" --engine minhop --out "$out" >"$out.log" 2>&1 & fr=$!
  for _ in $(seq 600); do ls -d "$out"/.read-tables.* >/dev/null 2>&1 && break; sleep 0.1; done
  kill -9 "$(awk '/^ibsim/ {print $2}' "$out/pids")"
  st=0; wait $fr || st=$?
  [ $st -eq 1 ] && tail -n 1 "$out.log" | grep -q "^fabric-run: ibsim (PID [0-9]*) exited during the read-back$" &&
    [ -z "$(survivors "$out")" ] && [ -z "$(ls -d "$out"/.read-tables.* 2>/dev/null)" ] &&
    pass "ibsim killed during the read-back${shim:+ ($shim)}: the run fails at once naming it last, no temp dir left" ||
    fail "ibsim killed during the read-back${shim:+ ($shim)} gave $st: $(tail -n 1 "$out.log"); left: $(ls -A "$out" | xargs)"
done
# A read-back stuck in a command that ignores TERM (here its last one, wc)
# is KILLed 3 s later, so its own trap never removes its temp dir in DIR:
# fabric-run does.
mkdir -p "$E2E_TMP/stubborn-wc"
cat >"$E2E_TMP/stubborn-wc/wc" <<'EOF'
#!/bin/bash
trap '' TERM
kill -9 "$(awk '/^ibsim/ {print $2}' "$IBUNION_OUT/pids")"
exec sleep 30
EOF
chmod +x "$E2E_TMP/stubborn-wc/wc"
out=$E2E_TMP/readback-stubborn
st=0
PATH=$E2E_TMP/stubborn-wc:$PATH "$FABRIC_RUN" --net "$net" --engine minhop --out "$out" >"$out.log" 2>&1 || st=$?
[ $st -eq 1 ] && tail -n 1 "$out.log" | grep -q "^fabric-run: ibsim (PID [0-9]*) exited during the read-back$" &&
  [ -z "$(survivors "$out")" ] && [ -z "$(ls -d "$out"/.read-tables.* 2>/dev/null)" ] &&
  pass "a read-back stuck past TERM: KILLed, its temp dir in DIR removed all the same" ||
  fail "a read-back stuck past TERM gave $st: $(tail -n 1 "$out.log"); left: $(ls -A "$out" | xargs)"
# A simulated tool killed midway leaves libumad2sim's ./sys-PID tree in its
# working directory: the read-back's tools (and OpenSM) run in temp dirs,
# not in the caller's. Here ibsim dies just after an ibroute made its tree,
# so that ibroute hangs until it is stopped. An ibroute can end before the
# shim sees its tree (12 of them on FT(4,2), a few ms each: 3 runs in 10
# missed them all on an idle machine, and the run then passed for a
# failure): the shim notes each catch, and a run without one is repeated.
mkdir -p "$E2E_TMP/midway-ibroute" "$E2E_TMP/caller-cwd"
cat >"$E2E_TMP/midway-ibroute/ibroute" <<EOF
#!/bin/bash
$(printf '%q' "$(command -v ibroute || echo /usr/sbin/ibroute)") "\$@" & p=\$!
while kill -0 \$p 2>/dev/null && [ ! -d sys-\$p ]; do sleep 0.01; done
[ ! -d sys-\$p ] || { echo caught >>"$E2E_TMP/midway-caught"; kill -9 \$(awk '/^ibsim/ {print \$2}' "\$IBUNION_OUT/pids"); }
wait \$p
EOF
chmod +x "$E2E_TMP/midway-ibroute/ibroute"
out=$E2E_TMP/readback-midway
for attempt in 1 2 3 4 5; do
  rm -rf "$out" "$E2E_TMP/midway-caught"
  st=0
  (cd "$E2E_TMP/caller-cwd" && PATH=$E2E_TMP/midway-ibroute:$PATH "$FABRIC_RUN" --net "$TOPO/ft-4-3.net" \
    --engine minhop --out "$out") >"$out.log" 2>&1 || st=$?
  [ -s "$E2E_TMP/midway-caught" ] && break
done
if [ ! -s "$E2E_TMP/midway-caught" ]; then
  fail "a read-back tool killed midway: the shim caught no ibroute midway in 5 runs (exit $st: $(tail -n 1 "$out.log"))"
else
  [ $st -eq 1 ] && grep -q "ibsim (PID [0-9]*) exited during the read-back" "$out.log" &&
    [ -z "$(ls -A "$E2E_TMP/caller-cwd")" ] && [ -z "$(survivors "$out")" ] &&
    pass "a read-back tool killed midway leaves nothing in the caller's directory (run $attempt)" ||
    fail "a read-back tool killed midway gave $st: $(tail -n 1 "$out.log"); left in the caller's directory: $(ls -A "$E2E_TMP/caller-cwd" | xargs)"
fi
# fabric-run itself killed with KILL runs no trap: its watchdog (a session
# of its own) stops ibsim, OpenSM and the --exec command's group, and
# removes the temp dir. Before, all three ran on.
out=$E2E_TMP/killed
mkdir -p "$E2E_TMP/killed-tmp"
TMPDIR=$E2E_TMP/killed-tmp "$FABRIC_RUN" --net "$net" --engine minhop --daemon --exec "$hold" --out "$out" \
  >/dev/null 2>&1 & fr=$!
# Only a run that reached its --exec, recorded its PIDs and was killed
# there counts: gone_within passes on no PIDs at all.
killed=0
in_exec "$out" && kill -KILL $fr && killed=1
wait $fr 2>/dev/null || true
helper=$(awk '/^helper/ {print $2}' "$out/pids" 2>/dev/null)
[ $killed -eq 1 ] && [ -s "$out/pids" ] && [ -n "$helper" ] &&
  gone_within 10 $(awk '{print $2}' "$out/pids") && ! kill -0 -- "-$helper" 2>/dev/null &&
  [ -z "$(ls -A "$E2E_TMP/killed-tmp")" ] &&
  pass "fabric-run killed with KILL: ibsim, OpenSM and the --exec command stop, the temp dir goes" ||
  fail "fabric-run killed with KILL (reached --exec and killed: $killed): alive: $(survivors "$out" | xargs) (--exec group $helper: $(kill -0 -- "-$helper" 2>/dev/null && echo alive || echo gone)); left: $(ls -A "$E2E_TMP/killed-tmp" | xargs)"
out=$E2E_TMP/orphan
# The parent is started from a subshell, not as a job of this one: no
# "Killed" notice.
parent=$( (bash -c '"$@"; true' parent "$FABRIC_RUN" --net "$net" --engine minhop --daemon --exec "$hold" \
  --out "$out" >/dev/null 2>&1 & echo $!))
killed=0
in_exec "$out" && kill -KILL $parent && killed=1
[ $killed -eq 1 ] && [ -s "$out/pids" ] && gone_within 10 $(awk '{print $2}' "$out/pids") &&
  pass "parent killed: fabric-run stops ibsim and OpenSM" ||
  fail "parent killed (reached --exec and killed: $killed): $(survivors "$out" | xargs) still alive 10 s later"

# A script's temp dir goes when timeout(1) stops it: TERM to it, then to its
# process group (the second TERM cut an EXIT-only trap short): here an e2e
# test (this lib.sh); run-default.sh and the benchmarks have the same trap.
# With the rm above, a TERM comes again while the temp dir is removed.
printf 'source "%s"\necho "$E2E_TMP" >"%s"\nsleep 30\n' "$E2E_SRC/tests/e2e/lib.sh" "$E2E_TMP/mini.tmp" >"$E2E_TMP/mini.sh"
for shim in "" term-rm; do
  PATH=${shim:+$E2E_TMP/$shim:}$PATH timeout -s TERM 3 bash "$E2E_TMP/mini.sh" >/dev/null 2>&1 || true
  mini=$(cat "$E2E_TMP/mini.tmp")
  [ -n "$mini" ] && [ ! -e "$mini" ] && pass "an e2e test stopped by timeout(1) removes its temp dir${shim:+ ($shim)}" ||
    { fail "an e2e test stopped by timeout(1)${shim:+ ($shim)} left $mini"; rm -rf "$mini"; }
done

# The soak benchmark on a fabric other than its default: its members were
# FT(4,3)'s hosts, and a failing soak passed for one (its --exec piped into
# tee). One sweep, its memory reported after it too (only every 100th
# was); the bench runs from the source tree's build.
if [ "$E2E_SRC" = "$E2E_BUILD" ]; then
  st=0; bash "$E2E_SRC/sim-harness/bench/sweep_soak.sh" 1 "$net" >"$E2E_TMP/soak.log" 2>&1 || st=$?
  [ $st -eq 0 ] && grep -q "^sweep 0 rss_kb [0-9]" "$E2E_TMP/soak.log" &&
    grep -q "^sweep 1 rss_kb [0-9]" "$E2E_TMP/soak.log" && grep -q "^routings by mlid: 2;" "$E2E_TMP/soak.log" &&
    pass "sweep_soak.sh 1 on FT(4,2): joins, one sweep, numbers" || fail "sweep_soak.sh on FT(4,2) gave $st: $(tail -n 2 "$E2E_TMP/soak.log" | xargs)"
  # TERM to the soak alone (`kill PID`, not its group) stops OpenSM and
  # ibsim at once: bash held its trap until the foreground fabric-run had
  # run every sweep, OpenSM sweeping on meanwhile.
  mkdir -p "$E2E_TMP/soakterm"
  TMPDIR=$E2E_TMP/soakterm bash "$E2E_SRC/sim-harness/bench/sweep_soak.sh" 1000000 "$net" >"$E2E_TMP/soakterm.log" 2>&1 &
  soak=$!
  for _ in $(seq 600); do grep -qs "^sweep 0" "$E2E_TMP"/soakterm/sweep-soak.*/rss && break; sleep 0.1; done
  started=$(cat "$E2E_TMP"/soakterm/sweep-soak.*/out/pids 2>/dev/null | awk '{print $2}' | xargs || true)
  kill -TERM $soak
  [ -n "$started" ] && gone_within 10 $soak $started && [ -z "$(ls -A "$E2E_TMP/soakterm")" ] &&
    pass "TERM to sweep_soak.sh: it, OpenSM and ibsim gone within 10 s, no temp dir left" ||
    fail "TERM to sweep_soak.sh: of $soak ${started:-(never started)} alive: $(for p in $soak $started; do kill -0 $p 2>/dev/null && echo $p; done | xargs); left: $(ls -A "$E2E_TMP/soakterm" | xargs)"
  kill $started 2>/dev/null || true  # (OpenSM gone, fabric-run fails: the soak ends)
  wait $soak 2>/dev/null || true
fi

"$FABRIC_RUN" --net "$net" --engine minhop --out "$E2E_TMP/p1" >"$E2E_TMP/p1.log" 2>&1 & a=$!
"$FABRIC_RUN" --net "$TOPO/ft-4-3.net" --engine updn --out "$E2E_TMP/p2" >"$E2E_TMP/p2.log" 2>&1 & b=$!
sa=0; wait $a || sa=$?; sb=0; wait $b || sb=$?
[ $sa -eq 0 ] && [ $sb -eq 0 ] && "$IBUNION" verify "$E2E_TMP/p2/fabric.net" --lft "$E2E_TMP/p2/lfts.dump" >/dev/null &&
  pass "two runs side by side" || fail "parallel runs: $sa $sb"
# A 2x16 mesh: its top LID is 64, a multiple of 64, whose LFT block ibroute
# never reads (the LID was missing from every switch's read-back table),
# and hosts 17 switches apart, beyond the 16 switches ibsim forwards a
# LID-routed SMP over (read-sl2vl's queries by LID failed). Both read-backs
# go by directed route; the top LID's entry comes from smpdump.
"$IBUNION" topo mesh 2 16 -o "$E2E_TMP/m216.net" --guid2lid "$E2E_TMP/m216.g2l" >/dev/null
out=$E2E_TMP/m216
check "2x16 mesh (top LID 64, 17 switches across): xymesh over ibsim, LFTs and SL2VL read back" \
  "$FABRIC_RUN" --net "$E2E_TMP/m216.net" --guid2lid "$E2E_TMP/m216.g2l" --engine xymesh,minhop \
  --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --plugin-options "xymesh_vls=2 xymesh_vl_mode=dedicated" \
  --conf-line "qos TRUE" --out "$out" --daemon --exec "'$E2E_SRC/sim-harness/ibsim/read-sl2vl' \$IBUNION_OUT" \
  --exec "SIM_HOST='H(1,15)' LD_PRELOAD=\$IBUNION_UMAD2SIM '$IBUNION' mcjoin join ff12:e1b0::5 >'$E2E_TMP/far.log' 2>&1;
          echo \$? >>'$E2E_TMP/far.log'"
# An SA client 17 switches from the SM's host: ibsim drops its request,
# and mcjoin said it had waited the whole timeout when it had not.
grep -q "no answer from the SA at LID .* (the MAD was lost after [0-9]* ms, before the 1000 ms timeout: ibsim forwards a LID-routed MAD over at most 16 switches)" \
  "$E2E_TMP/far.log" && [ "$(tail -n 1 "$E2E_TMP/far.log")" = 1 ] &&
  pass "mcjoin 17 switches from the SM: exit 1, the lost MAD and ibsim's 16-switch limit named" ||
  fail "mcjoin 17 switches from the SM: $(xargs <"$E2E_TMP/far.log")"
# A client whose own link is down (unlinked in ibsim): its MAD is lost at
# once too, and the message blamed ibsim's 16-switch limit.
check "4x4 mesh, H(3,3)'s link unlinked: OpenSM up, mcjoin run from H(3,3)" \
  "$FABRIC_RUN" --net "$TOPO/mesh-4x4.net" --guid2lid "$TOPO/mesh-4x4.guid2lid" --engine minhop --out "$E2E_TMP/down" --daemon \
  --exec "echo 'Unlink \"H(3,3)\"[1]' >\"\$IBUNION_IBSIM_CONSOLE\"; sleep 1;
          SIM_HOST='H(3,3)' LD_PRELOAD=\$IBUNION_UMAD2SIM '$IBUNION' mcjoin join ff12:e1b0::6 >'$E2E_TMP/down.log' 2>&1;
          echo \$? >>'$E2E_TMP/down.log'"
grep -q "no answer from the SA at LID [0-9]*: the local port is Down, not Active" "$E2E_TMP/down.log" &&
  [ "$(tail -n 1 "$E2E_TMP/down.log")" = 1 ] && ! grep -q "16 switches" "$E2E_TMP/down.log" &&
  pass "mcjoin from a host whose link is down: exit 1, the local port's state named" ||
  fail "mcjoin from a host whose link is down: $(xargs <"$E2E_TMP/down.log")"
check "2x16 mesh: every switch's LFT holds top LID 64, port for port xymesh's" \
  "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump" --engine xymesh
check "2x16 mesh: SL2VL of all 32 switches and 32 CA ports, dedicated VLs, no credit loop" \
  "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump" --sl2vl "$out/sl2vl.dump" --deadlock \
  --engine xymesh --options "xymesh_vls=2 xymesh_vl_mode=dedicated"

# An --engine chain separated by a blank, as OpenSM's routing_engine takes
# it: read as one engine named "mlid minhop", it warned that mlid's tables
# were not that engine's and turned no dump on (sim dump:DIR then replayed
# base LIDs).
out=$E2E_TMP/chain
st=0; "$FABRIC_RUN" --net "$TOPO/ft-4-2.net" --guid2lid "$TOPO/ft-4-2.guid2lid" --engine "mlid minhop" \
  --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --out "$out" >/dev/null 2>"$E2E_TMP/chain.err" || st=$?
[ $st -eq 0 ] && [ "$(cat "$out/engine")" = mlid ] && ! grep -q warning "$E2E_TMP/chain.err" && [ -s "$out/ibunion-mlid-paths.dump" ] &&
  grep -qx "routing_engine mlid,minhop" "$out/opensm.conf" &&
  pass "the chain is mlid then minhop: routed by mlid, no fallback warning, mlid's dumps written" ||
  fail "--engine 'mlid minhop': exit $st, engine '$(cat "$out/engine" 2>/dev/null)', $(grep -e warning -e error "$E2E_TMP/chain.err")"

# A plugin OpenSM cannot load (here a truncated build): OpenSM routes on
# with minhop, and the run passed (exit 0) with a warning that OpenSM has
# no engine mlid. It now fails, quoting OpenSM's reason, and stops all.
mkdir -p "$E2E_TMP/broken-plugin"
head -c 100 "$PLUGIN_DIR/libibunion.so" >"$E2E_TMP/broken-plugin/libibunion.so"
out=$E2E_TMP/broken
st=0; "$FABRIC_RUN" --net "$TOPO/ft-4-2.net" --engine mlid,minhop --plugin-dir "$E2E_TMP/broken-plugin" \
  --plugin-name ibunion --no-readback --out "$out" >/dev/null 2>"$E2E_TMP/broken.err" || st=$?
[ $st -eq 1 ] && grep -q "^fabric-run: OpenSM could not load plugin ibunion from $E2E_TMP/broken-plugin/libibunion.so: .*Failed to open event plugin \"libibunion.so\"" "$E2E_TMP/broken.err" &&
  [ -z "$(survivors "$out")" ] &&
  pass "a plugin OpenSM cannot load fails the run (exit 1), OpenSM's reason quoted, nothing left running" ||
  fail "a plugin OpenSM cannot load: exit $st, $(tail -n 1 "$E2E_TMP/broken.err"), left running: $(survivors "$out" | xargs)"

# The shipped ft-16-3.guid2lid places LIDs up to 0x815f: at the default
# --lmc fabric-run sized ibsim's LID limit from the counts alone, and
# OpenSM gave up with every port on LID 0 ("exited before SUBNET UP").
check "FT(16,3) with its guid2lid (LIDs up to 0x815f) at the default --lmc comes up" \
  "$FABRIC_RUN" --net "$TOPO/ft-16-3.net" --guid2lid "$TOPO/ft-16-3.guid2lid" --engine minhop --no-readback \
  --out "$E2E_TMP/ft163"

# OpenSM on a switch: the read-back walks its directed routes from that
# switch (they assumed a host and found "no directed route").
out=$E2E_TMP/smsw
check "--sm-host 'SW<0,1>' (a switch): OpenSM there, tables read back" "$FABRIC_RUN" --net "$TOPO/ft-4-2.net" \
  --guid2lid "$TOPO/ft-4-2.guid2lid" --engine mlid,minhop --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion \
  --sm-host 'SW<0,1>' --out "$out"
check "... the read-back from the switch: every switch's LFT, mlid's own" \
  "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump" --engine mlid
finish
