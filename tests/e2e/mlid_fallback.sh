#!/bin/bash
# What mlid cannot route it refuses with the reason, and OpenSM carries on
# with minhop: a mesh, a fat-tree with one extra cable or one on the wrong
# switch (host pairs only a valley would join), a host on a top
# switch, bad options (an unknown key, a key given twice, a key of an engine
# the plugin lacks; a key of an engine not in routing_engine is only
# listed); and beside another event plugin, its keys are left to it. A
# leaf whose hosts are all off is routed, not refused, and ft-4-2 with one
# top left and a hostless leaf on it is routed as FT(4,2).
source "$(dirname "$0")/lib.sh"
[ -f "$PLUGIN_DIR/libibunion.so" ] || { echo "FAIL: $PLUGIN_DIR/libibunion.so not built"; exit 1; }
run() {  # NET OUT OPTIONS
  "$FABRIC_RUN" --net "$1" --engine mlid,minhop --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion \
    --plugin-options "$3" --no-mft --out "$2"
}
expect_fallback() {  # WHAT OUT NEEDLE
  grep -qF -- "$3" "$2/opensm.log" && pass "$1: refusal logged: $(grep -F -- "$3" "$2/opensm.log" | head -1 | sed 's/.*-> //')" ||
    fail "$1: no '$3' in the log"
  grep -q "minhop tables configured on all switches" "$2/opensm.log" && pass "$1: OpenSM fell back to minhop" ||
    fail "$1: no fallback to minhop"
  "$IBUNION" verify "$2/fabric.net" --lft "$2/lfts.dump" >/dev/null && pass "$1: the fallback tables verify" ||
    fail "$1: fallback tables broken"
}

check "mesh-4x4 comes up" run "$TOPO/mesh-4x4.net" "$E2E_TMP/mesh" ""
expect_fallback "mesh-4x4" "$E2E_TMP/mesh" "ibunion/mlid: refusing: not an m-port n-tree: switch N("

# ft-4-3 plus one cable between two leaves (a fifth port on each).
sed -e 's/^Switch\t4 "SW<00,2>"$/Switch\t5 "SW<00,2>"\n[5]\t"SW<11,2>"[5]/' \
    -e 's/^Switch\t4 "SW<11,2>"$/Switch\t5 "SW<11,2>"\n[5]\t"SW<00,2>"[5]/' "$TOPO/ft-4-3.net" >"$E2E_TMP/cross.net"
grep -c '\[5\]' "$E2E_TMP/cross.net" | grep -qx 2 || fail "could not build the cross-linked fabric"
check "ft-4-3 with a cross link comes up" run "$E2E_TMP/cross.net" "$E2E_TMP/cross" ""
expect_fallback "ft-4-3 + cross link" "$E2E_TMP/cross" "port 5: link to a switch of level 2 from level 2; links join adjacent levels only"

# ft-4-3 with one cable plugged into the wrong top (SW<00,1>[3] on a fifth
# port of SW<10,0>, not on SW<00,0>[1]): every link is legal in FT(16,2),
# so mlid read it as that tree, gutted, and routed it, dropping 192 host
# pairs; updn or minhop routes every pair. It now refuses the fabric.
awk '/^Switch/ {sw = $0}
  sw ~ /"SW<00,0>"/ && /^\[1\]\t"SW<00,1>"\[3\]$/ {next}
  /^Switch\t4 "SW<10,0>"$/ {print "Switch\t5 \"SW<10,0>\""; print "[5]\t\"SW<00,1>\"[3]"; next}
  sw ~ /"SW<00,1>"/ && /^\[3\]\t"SW<00,0>"\[1\]$/ {print "[3]\t\"SW<10,0>\"[5]"; next}
  {print}' "$TOPO/ft-4-3.net" >"$E2E_TMP/wrongtop.net"
[ "$(diff "$TOPO/ft-4-3.net" "$E2E_TMP/wrongtop.net" | grep -c '^[<>]')" = 6 ] ||
  fail "could not move the cable to the wrong top"
check "ft-4-3 with a cable on the wrong top comes up" run "$E2E_TMP/wrongtop.net" "$E2E_TMP/wrongtop" ""
expect_fallback "ft-4-3 + a cable on the wrong top" "$E2E_TMP/wrongtop" \
  "192 host pairs have no up*/down* path left (first: P(100) -> P(000); mlid refuses the fabric, for the next engine of routing_engine: updn routes every pair, deadlock-free)"

# A management node cabled to a top switch (a fifth port): mlid names that
# cable rather than a leaf's host count, and OpenSM routes it with minhop.
sed -e 's/^Switch\t4 "SW<00,0>"$/Switch\t5 "SW<00,0>"\n[5]\t"MGMT"[1]/' "$TOPO/ft-4-3.net" >"$E2E_TMP/tophost.net"
printf '\ncaguid=0x0000000000900000\nHca\t1 "MGMT"\n[1]\t"SW<00,0>"[5]\n' >>"$E2E_TMP/tophost.net"
check "ft-4-3 with a host on a top switch comes up" run "$E2E_TMP/tophost.net" "$E2E_TMP/tophost" ""
expect_fallback "ft-4-3 + host on a top switch" "$E2E_TMP/tophost" \
  "port 5: host MGMT is cabled to a switch with 4 links to other switches, as a top or middle switch has"

# What mlid can route it does not refuse: ft-4-3 with the hosts of leaf
# SW<11,2> powered off (not in the net file) is a degraded tree, and the
# hostless leaf was once taken for a top, so OpenSM fell back to minhop.
awk 'BEGIN { RS = ""; ORS = "\n\n" } !/Hca\t1 "P\(11[01]\)"/' "$TOPO/ft-4-3.net" |
  grep -v '"P(11[01])"\[1\]' >"$E2E_TMP/hostless.net"
grep -c Hca "$E2E_TMP/hostless.net" | grep -qx 14 || fail "could not build the fabric with a hostless leaf"
check "ft-4-3 with a hostless leaf comes up" run "$E2E_TMP/hostless.net" "$E2E_TMP/hostless" ""
grep -qF "ibunion/mlid: degraded FT(4,3): 0 of 32 switch links, 0 of 20 switches and 2 of 16 hosts missing" \
  "$E2E_TMP/hostless/opensm.log" && grep -q "mlid tables configured on all switches" "$E2E_TMP/hostless/opensm.log" &&
  ! grep -q "minhop tables configured" "$E2E_TMP/hostless/opensm.log" &&
  pass "hostless leaf: mlid routes the degraded tree, no fallback" || fail "hostless leaf: mlid did not route"
check "hostless leaf: every host reaches every host LID" \
  "$IBUNION" verify "$E2E_TMP/hostless/fabric.net" --lft "$E2E_TMP/hostless/lfts.dump" --host-lids

# ft-4-2 with top SW<1,0> gone and the hosts of leaf SW<3,1> off: that leaf
# hangs on the one top left and is the only switch with every neighbour
# nearer the hosts, so the tops' distance was never tried and mlid routed
# the tree as FT(4,3) or FT(8,3).
awk 'BEGIN { RS = ""; ORS = "\n\n" } !/Switch\t4 "SW<1,0>"/ && !/Hca\t1 "P\(3[01]\)"/' "$TOPO/ft-4-2.net" |
  grep -v '"SW<1,0>"\[\|"P(3[01])"\[1\]' >"$E2E_TMP/onetop.net"
grep -c Hca "$E2E_TMP/onetop.net" | grep -qx 6 || fail "could not build the fabric with one top left"
check "ft-4-2 with one top left and a hostless leaf comes up" run "$E2E_TMP/onetop.net" "$E2E_TMP/onetop" ""
grep -qF "ibunion/mlid: degraded FT(4,2): 4 of 8 switch links, 1 of 6 switches and 2 of 8 hosts missing" \
  "$E2E_TMP/onetop/opensm.log" && ! grep -q "minhop tables configured" "$E2E_TMP/onetop/opensm.log" &&
  pass "one top left: mlid routes it as the FT(4,2) it is" ||
  fail "one top left: $(grep -o "ibunion/mlid: [a-z]* FT([0-9,]*)" "$E2E_TMP/onetop/opensm.log" | head -1)"
check "one top left: every host reaches every host LID" \
  "$IBUNION" verify "$E2E_TMP/onetop/fabric.net" --lft "$E2E_TMP/onetop/lfts.dump" --host-lids

# ft-4-3 less two cables (SW<01,1>[2]-SW<01,2>[4], SW<10,0>[1]-SW<01,1>[3])
# and the hosts of leaf SW<00,2>: SW<00,2> keeps one link toward the hosts
# and none to its own, and was put above SW<01,1> as an extra top, so mlid
# read the fabric as FT(6,3). The unit tests' first extra-top recipe
# (degraded_test.cc, ExtraTopsTriedBelow), here through OpenSM and ibsim.
awk 'BEGIN { RS = ""; ORS = "\n\n" } !/Hca\t1 "P\(00[01]\)"/' "$TOPO/ft-4-3.net" |
  grep -v '"P(00[01])"\[1\]\|"SW<01,2>"\[4\]\|"SW<01,1>"\[2\]\|"SW<10,0>"\[1\]\|"SW<01,1>"\[3\]' >"$E2E_TMP/extratop.net"
[ "$(grep -c Hca "$E2E_TMP/extratop.net")" = 14 ] && [ "$(grep -c '^\[' "$E2E_TMP/extratop.net")" = 88 ] ||
  fail "could not build the fabric less two cables and a leaf's hosts"
check "ft-4-3 less two cables and a leaf's hosts comes up" run "$E2E_TMP/extratop.net" "$E2E_TMP/extratop" ""
grep -qF "ibunion/mlid: degraded FT(4,3): 2 of 32 switch links, 0 of 20 switches and 2 of 16 hosts missing" \
  "$E2E_TMP/extratop/opensm.log" && ! grep -q "minhop tables configured" "$E2E_TMP/extratop/opensm.log" &&
  pass "two cables and a leaf's hosts gone: mlid routes it as the FT(4,3) it is" ||
  fail "two cables and a leaf's hosts gone: $(grep -o "ibunion/mlid: [a-z]* FT([0-9,]*)[^;]*" "$E2E_TMP/extratop/opensm.log" | head -1)"
check "two cables and a leaf's hosts gone: every host reaches every host LID, no credit loop" \
  "$IBUNION" verify "$E2E_TMP/extratop/fabric.net" --lft "$E2E_TMP/extratop/lfts.dump" --host-lids --deadlock

check "ft-4-3 with a bad option comes up" run "$TOPO/ft-4-3.net" "$E2E_TMP/badopt" "mlid_bogus=1"
grep -q "bad event_plugin_options: option 'mlid_bogus=1': unknown key for engine mlid" "$E2E_TMP/badopt/opensm.log" &&
  pass "bad option named in the log" || fail "bad option not named"
expect_fallback "bad option" "$E2E_TMP/badopt" "ibunion/mlid: refusing: bad event_plugin_options"

# A key given twice: which value was meant is a guess, so it is refused too.
check "ft-4-3 with a repeated option comes up" run "$TOPO/ft-4-3.net" "$E2E_TMP/twice" "mlid_rotate=on mlid_rotate=off"
expect_fallback "repeated option" "$E2E_TMP/twice" \
  "ibunion/mlid: refusing: bad event_plugin_options: option 'mlid_rotate=off': key mlid_rotate given twice (first as 'mlid_rotate=on')"

# slid is the CLI's engine, not one the plugin registers: nothing in OpenSM
# would ever read a slid_ key, so it is unknown, not silently skipped.
check "ft-4-3 with a slid_ option comes up" run "$TOPO/ft-4-3.net" "$E2E_TMP/slid" "slid_rotate=off"
expect_fallback "slid_ option" "$E2E_TMP/slid" \
  "ibunion/mlid: refusing: bad event_plugin_options: option 'slid_rotate=off': unknown key (keys start with mlid_ or xymesh_)"

# An option of an ibunion engine OpenSM never calls (xymesh is not in
# routing_engine here): it was logged as a bad option making xymesh refuse
# every fabric, beside mlid routing fine. Now listed once as not used.
check "ft-4-3 with an option of an engine not in routing_engine comes up" run "$TOPO/ft-4-3.net" "$E2E_TMP/unused" \
  "mlid_rotate=off xymesh_vls=3"
grep -q "ibunion/xymesh: not in routing_engine mlid,minhop, so these event_plugin_options are not used (nor checked): xymesh_vls=3" \
  "$E2E_TMP/unused/opensm.log" && ! grep -q "bad event_plugin_options" "$E2E_TMP/unused/opensm.log" &&
  grep -q "mlid tables configured" "$E2E_TMP/unused/opensm.log" &&
  pass "an unused engine's option: listed once as not used, no error, mlid routes" ||
  fail "unused engine's option: $(grep -m1 'xymesh' "$E2E_TMP/unused/opensm.log")"

# Beside another event plugin (OpenSM hands it the same options string),
# a key without an ibunion prefix is left to it and mlid routes; ours are
# still read (mlid_rotate=off is in force) and checked.
check "ft-4-3 beside another event plugin comes up" \
  "$FABRIC_RUN" --net "$TOPO/ft-4-3.net" --engine mlid,minhop --plugin-dir "$PLUGIN_DIR" \
  --plugin-name "ibunion ibunion-e2e-absent" --plugin-options "absent_interval=10 mlid_rotate=off" \
  --no-mft --out "$E2E_TMP/shared"
grep -q "left to the other event plugins: absent_interval=10" "$E2E_TMP/shared/opensm.log" &&
  pass "the other plugin's key left to it, said in the log" || fail "no 'left to the other event plugins' line"
grep -q "mlid tables configured" "$E2E_TMP/shared/opensm.log" && ! grep -q "bad event_plugin_options" "$E2E_TMP/shared/opensm.log" &&
  pass "mlid routes beside another plugin's options" || fail "mlid did not route beside another plugin's options"
"$IBUNION" verify "$E2E_TMP/shared/fabric.net" --lft "$E2E_TMP/shared/lfts.dump" --engine mlid --options mlid_rotate=off \
  >/dev/null && pass "the tables are mlid's with mlid_rotate=off" || fail "tables are not mlid_rotate=off's"

# OpenSM reads 1,022 characters of an opensm.conf line: here another
# plugin's long word, then ours, the last cut to "mlid_dump=o" and "ff" read
# as a line of its own. The cut word is refused as a bad value, and the log
# says the string was at OpenSM's limit, so the lost words are not a mystery.
long_word="absent_pad=$(printf 'A%.0s' $(seq 962))"
read_part="$long_word mlid_rotate=off mlid_dump=o"  # what fits in the line
cut_options="${read_part}ff"
[ ${#read_part} -eq 1001 ] || fail "the cut is not where the test means it"
check "ft-4-3 with event_plugin_options cut by OpenSM comes up" \
  "$FABRIC_RUN" --net "$TOPO/ft-4-3.net" --engine mlid,minhop --plugin-dir "$PLUGIN_DIR" \
  --plugin-name "ibunion ibunion-e2e-absent" --plugin-options "$cut_options" --no-mft --out "$E2E_TMP/cut"
grep -q "ibunion/mlid: event_plugin_options is 1001 characters, at OpenSM's limit (1001 after the key" \
  "$E2E_TMP/cut/opensm.log" && pass "cut options: the log says the string reached OpenSM's line limit" ||
  fail "cut options: no line about OpenSM's limit"
expect_fallback "cut options" "$E2E_TMP/cut" \
  "bad event_plugin_options: option 'mlid_dump=o': expected on or off"
grep -F "option 'mlid_dump=o'" "$E2E_TMP/cut/opensm.log" | grep -q "at OpenSM's limit" &&
  pass "cut options: the refusal names the cut word and the limit" || fail "cut options: refusal without the limit"

# ibunion listed twice: OpenSM loads it twice; the first copy's engines
# route, the second's cannot register the same names and say why.
check "ft-4-3 with ibunion listed twice comes up" \
  "$FABRIC_RUN" --net "$TOPO/ft-4-3.net" --engine mlid,minhop --plugin-dir "$PLUGIN_DIR" \
  --plugin-name "ibunion ibunion" --no-mft --out "$E2E_TMP/twice-listed"
grep -q "ibunion: cannot register routing engine 'mlid': an engine of that name is registered already (is ibunion listed twice in event_plugin_name?)" \
  "$E2E_TMP/twice-listed/opensm.log" && grep -q "mlid tables configured" "$E2E_TMP/twice-listed/opensm.log" &&
  pass "listed twice: mlid routes, the second copy says why it registers nothing" ||
  fail "listed twice: $(grep -m1 'cannot register' "$E2E_TMP/twice-listed/opensm.log")"
finish
