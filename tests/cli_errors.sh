#!/bin/bash
# Bad options and files: every error names what was wrong (exit 2), and no
# command leaves output files behind, complete or partial, when it fails.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
IBUNION=${IBUNION_BUILD:-$top}/ibunion
net=$top/topologies/ft-4-2.net
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibunion-cli.XXXXXX")
ibsim_pid=""  # an ibsim the libumad2sim cases start, stopped by PID
trap '[ -z "$ibsim_pid" ] || { kill "$ibsim_pid"; kill -CONT "$ibsim_pid"; } 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
expect() {  # NEEDLE CMD...: exit status 2 and NEEDLE on stderr
  local needle=$1; shift
  "$@" >/dev/null 2>"$tmp/err"; local rc=$?
  if [ $rc -eq 2 ] && grep -qF -- "$needle" "$tmp/err"; then echo "PASS: $(tail -1 "$tmp/err")"
  else echo "FAIL: '$*' -> rc $rc, stderr: $(tail -1 "$tmp/err") (wanted: $needle)"; fails=$((fails + 1)); fi
}
nothing_left() {  # WHAT: the output dir holds no file at all (temporaries included)
  if [ -z "$(ls -A "$tmp/out")" ]; then echo "PASS: $1: no output file left behind"
  else echo "FAIL: $1: left $(ls -A "$tmp/out" | xargs)"; fails=$((fails + 1)); fi
  rm -rf "$tmp/out"; mkdir -p "$tmp/out"
}
mkdir -p "$tmp/out"
expect "/nonexistent.net: cannot open topology file (No such file or directory)" "$IBUNION" route /nonexistent.net --engine mlid
# A LID space overflow says what would fit.
expect "8192 end ports at LMC 3 do not fit in the unicast LID space (0xBFFF); LMC 2 is the largest that fits" \
  "$IBUNION" topo fattree 32 3 --lmc 3 --guid2lid "$tmp/lids-big.g2l" -o "$tmp/lids-big.net"
expect "mesh: 160x160 exceeds the unicast LID space (0xBFFF): 25600 switches and as many hosts need 51200 LIDs, 49151 exist (X*Y at most 24575, e.g. 156x156)" \
  "$IBUNION" topo mesh 160 160 -o "$tmp/lids-big.net"
expect "/nonexistent: cannot open guid2lid file" "$IBUNION" route "$net" --engine mlid --guid2lid /nonexistent
# A guid2lid file of another fabric: none of its GUIDs is here.
sed 's/^0x00000000002/0x00000000009/; s/^0x00000000001/0x00000000008/' "$top/topologies/ft-4-2.guid2lid" >"$tmp/alien"
# A file of one line: no "other 0 GUIDs".
printf '0x0000000000900001 0x0004 0x0007\n' >"$tmp/alien1"
expect "$tmp/alien1:1: GUID 0x0000000000900001 is not an end port or switch of this fabric (the file's only GUID): expected the port GUIDs" \
  "$IBUNION" route "$net" --engine mlid --guid2lid "$tmp/alien1"
expect "$tmp/alien:1: GUID 0x0000000000800001 is not an end port or switch of this fabric, and neither is any of the file's other 13 GUIDs: expected the port GUIDs" \
  "$IBUNION" route "$net" --engine mlid --guid2lid "$tmp/alien"
expect "$tmp/alien:1: GUID 0x0000000000800001 is not an end port or switch" \
  "$IBUNION" sim "$net" --routing mlid --guid2lid "$tmp/alien"
# One from a node removed since (OpenSM keeps its LIDs): a warning, the run goes on.
{ cat "$top/topologies/ft-4-2.guid2lid"; echo "0x0000000000abcdef 0x0100 0x0100"; echo "0x0000000000abcdf0 0x0101 0x0101"; } >"$tmp/extra"
if "$IBUNION" route "$net" --engine mlid --guid2lid "$tmp/extra" --lft "$tmp/extra.lft" 2>"$tmp/err" && [ -s "$tmp/extra.lft" ] &&
  [ "$(grep -c warning "$tmp/err")" -eq 1 ] &&
  grep -qF "warning: $tmp/extra:29: GUID 0x0000000000abcdef is not an end port or switch of this fabric (nor are 1 more of the file's 16 GUIDs)" "$tmp/err"
then echo "PASS: $(grep warning "$tmp/err")"
else echo "FAIL: route --guid2lid with a removed node's GUID: $(cat "$tmp/err")"; fails=$((fails + 1)); fi
# OpenSM's cache holds each GUID once and each LID once: a repeated GUID
# (e.g. two files concatenated) or overlapping ranges name both lines.
g2l=$top/topologies/ft-4-2.guid2lid
{ cat "$g2l"; echo "0x0000000000100005 0x0100 0x0101"; } >"$tmp/dup"
expect "$tmp/dup:29: GUID 0x0000000000100005 appears again (first at line 5)" \
  "$IBUNION" route "$net" --engine mlid --guid2lid "$tmp/dup"
cat "$g2l" "$g2l" >"$tmp/twice"
expect "$tmp/twice:29: GUID 0x0000000000100001 appears again (first at line 1)" \
  "$IBUNION" verify "$net" --lft /dev/null --guid2lid "$tmp/twice"
sed 's/^\(0x0000000000100005\) .*/\1 0x0004 0x0005/' "$g2l" >"$tmp/overlap"
expect "$tmp/overlap:5: GUID 0x0000000000100005 (LIDs 4-5) overlaps GUID 0x0000000000100003 (LIDs 4-5, line 3)" \
  "$IBUNION" route "$net" --engine mlid --guid2lid "$tmp/overlap"
# LID blocks aligned to their size, end port or switch alike (an end
# port's was refused later without a line, a switch's accepted).
sed 's/^0x0000000000100003 .*/0x0000000000100003 0x0101 0x0102/' "$g2l" >"$tmp/unaligned"
expect "$tmp/unaligned:3: LID range 257-258 is not aligned to its 2 LIDs (LMC 1): expected a base LID that is a multiple of 2" \
  "$IBUNION" route "$net" --engine mlid --guid2lid "$tmp/unaligned"
# topo --remove-links lays the guid2lid file out on the complete tree (LMC
# 2 on FT(4,3)); a fabric damaged past recognition defaults to LMC 0 in a
# command given the net file alone: said, so the LIDs do not silently differ.
"$IBUNION" topo fattree 4 3 --remove-links 16 --remove-seed 3 -o "$tmp/rm.net" --guid2lid "$tmp/rm.g" 2>"$tmp/err"
if grep -qF "ibunion: note: without the removed links the fabric's default LMC is 0, not 2: give $tmp/rm.g (--guid2lid) to every command that reads this net file, or its LIDs will differ" "$tmp/err" &&
  "$IBUNION" topo fattree 4 3 --remove-links 2 -o "$tmp/rm.net" --guid2lid "$tmp/rm.g" 2>"$tmp/err" && ! grep -q "removed links the fabric" "$tmp/err"
then echo "PASS: topo --remove-links says when the damaged fabric's default LMC differs from its guid2lid file's (only then)"
else echo "FAIL: topo --remove-links LMC note: $(cat "$tmp/err")"; fails=$((fails + 1)); fi
# OpenSM reads guid2lid LIDs with strtoul(s, 0, 0): '0100' is octal 64
# there; it was taken as 100 here, another LID than the SM's.
sed 's/^0x0000000000100003 .*/0x0000000000100003 0100 0101/' "$g2l" >"$tmp/octal"
expect "$tmp/octal:3: LID '0100' has a leading 0, so OpenSM reads it as octal (64, 0x0040): expected 0x hex, as OpenSM writes it, or decimal without leading zeros" \
  "$IBUNION" inspect "$net" --guid2lid "$tmp/octal"
sed 's/^\(0x0000000000200000\) .*/\1 0x0059 0x005a/' "$g2l" >"$tmp/unaligned-sw"
expect "$tmp/unaligned-sw:17: LID range 89-90 is not aligned to its 2 LIDs (LMC 1)" \
  "$IBUNION" verify "$net" --lft /dev/null --guid2lid "$tmp/unaligned-sw"
# A port of the fabric the file lacks would be left at LID 0: named, with the file.
sed '/^0x0000000000100005 /d' "$g2l" >"$tmp/gap"
expect "$tmp/gap: end port P(10) (port GUID 0x0000000000100005) has no line, so no LID: expected a line '0x0000000000100005 0xMINLID 0xMAXLID'" \
  "$IBUNION" route "$net" --engine mlid --guid2lid "$tmp/gap"
expect "$tmp/gap: end port P(10) (port GUID 0x0000000000100005) has no line" \
  "$IBUNION" sim "$net" --routing mlid --guid2lid "$tmp/gap"
sed '/^0x0000000000200005 /d' "$g2l" >"$tmp/nosw"
expect "$tmp/nosw: switch SW<3,1> (port 0 GUID 0x0000000000200005) has no line, so no LID" \
  "$IBUNION" inspect "$net" --guid2lid "$tmp/nosw"
# A directory opened as an empty file: no group built, no config read.
expect "$tmp: cannot open group file (Is a directory)" \
  "$IBUNION" route "$net" --engine mlid --groups "$tmp" --mft "$tmp/out/mft"
nothing_left "route --groups DIR"
expect "$tmp: cannot open topology file (Is a directory)" "$IBUNION" route "$tmp" --engine mlid
expect "$tmp: cannot open guid2lid file (Is a directory)" "$IBUNION" inspect "$net" --guid2lid "$tmp"
expect "--config $tmp: cannot open (Is a directory)" "$IBUNION" sim "$net" --routing mlid --config "$tmp"
expect "unknown routing engine 'bogus'" "$IBUNION" route "$net" --engine bogus
expect "option 'mlid_rotate=maybe': expected on or off" "$IBUNION" route "$net" --engine mlid --options mlid_rotate=maybe
# The words on/off options take besides on and off are named (README), so
# that TRUE, as opensm.conf writes its own, is not left a puzzle.
expect "option 'mlid_rotate=TRUE': expected on or off (or 1/0, yes/no, true/false; lower case)" \
  "$IBUNION" route "$net" --engine mlid --options mlid_rotate=TRUE
# A command runs one engine: another engine's key would be ignored unread.
expect "option 'mlid_rotate=off': unknown key (keys start with slid_)" \
  "$IBUNION" route "$net" --engine slid --options mlid_rotate=off
expect "--param engine.xymesh_vls=2: option 'xymesh_vls=2': unknown key (keys start with mlid_)" \
  "$IBUNION" sim "$net" --routing mlid --param engine.xymesh_vls=2 --load 0.1
# With blanks around '=' too: its key is what is wrong (closing the blanks
# was offered as the fix), and the first word's problem comes first.
for given in "xymesh_vls= 2|option 'xymesh_vls= 2': unknown key (keys start with mlid_)" \
  "mlid_rotat=off mlid_rotate = on|option 'mlid_rotat=off': unknown key for engine mlid" \
  "mlid_rotate = on|option 'mlid_rotate = on': blanks around '='; expected key=value as one word (mlid_rotate=on)"; do
  expect "${given#*|}" "$IBUNION" route "$net" --engine mlid --options "${given%%|*}"
done
expect "option --lmc: expected 0..7, got 9" "$IBUNION" route "$net" --engine mlid --lmc 9
expect "unknown option --bogus" "$IBUNION" route "$net" --engine mlid --bogus
expect "/nonexistent: cannot open LFT dump" "$IBUNION" verify "$net" --lft /nonexistent
expect "$net:1: expected ibroute output: a 'Unicast lids [...] of switch Lid N guid 0x...' header" \
  "$IBUNION" verify "$net" --lft "$net"
expect "/dev/null: no LFT in it (expected ibroute output" "$IBUNION" verify "$net" --lft /dev/null
expect "$top/topologies/ft-4-2.guid2lid:1: LFT entry before any 'Unicast lids' header" \
  "$IBUNION" verify "$net" --lft "$top/topologies/ft-4-2.guid2lid"
# An LFT entry's out port as ibroute prints it (%03u), nothing else: '0x1'
# was read as port 0.
"$IBUNION" route "$net" --engine mlid --lft "$tmp/good.lft" 2>/dev/null
sed '4s/ 001 / 0x1 /' "$tmp/good.lft" >"$tmp/hexport.lft"
expect "$tmp/hexport.lft:4: port field '0x1': expected the out port as ibroute prints it, 3 decimal digits 000..255" \
  "$IBUNION" verify "$net" --lft "$tmp/hexport.lft"
# Two dumps concatenated: a switch's second table used to replace its first.
cat "$tmp/good.lft" "$tmp/good.lft" >"$tmp/twice.lft"
first=$(($(wc -l <"$tmp/good.lft") + 1))
expect "$tmp/twice.lft:$first: the LFT of switch SW<0,0> (0x0000000000200000, LID 18) appears again (first at line 1)" \
  "$IBUNION" verify "$net" --lft "$tmp/twice.lft"
# An MFT dump without any table is refused, as an LFT dump is (it was read
# as "no switch forwards any group").
printf '0xC001 P(00) P(01)\n' >"$tmp/one.groups"
expect "/dev/null: no MFT in it (expected \`ibroute -M\` output" \
  "$IBUNION" verify "$net" --lft "$tmp/good.lft" --mft /dev/null --groups "$tmp/one.groups"
expect "fattree: M must be at least 4, got 3" "$IBUNION" topo fattree 3 2
# Sizes far beyond the LID space are refused before anything is built:
# 2*(M/2)^N overflowed, and FT(4,64) ate all memory (bounded here, in case;
# not under ASan, which needs its address space).
limit="ulimit -v 2000000"; [ -n "${ASAN_OPTIONS:-}" ] && limit=:
expect "fattree: FT(4,64) has more than 49151 hosts (2*(m/2)^n), beyond the unicast LID space (0xBFFF)" \
  bash -c "$limit; exec timeout 20 \"\$0\" topo fattree 4 64 -o $tmp/out/big.net" "$IBUNION"
expect "fattree: FT(4,1000000) has more than 49151 hosts" bash -c "$limit; exec timeout 20 \"\$0\" topo fattree 4 1000000" "$IBUNION"
expect "fattree: FT(128,20) has more than 49151 hosts" bash -c "$limit; exec timeout 20 \"\$0\" topo fattree 128 20" "$IBUNION"
# Hosts within the LID space, hosts and switches together beyond it.
expect "fattree: FT(4,14) has 32768 hosts and 221184 switches, one LID each; together they exceed the unicast LID space (0xBFFF)" \
  bash -c "$limit; exec timeout 20 \"\$0\" topo fattree 4 14 -o $tmp/out/big.net" "$IBUNION"
nothing_left "topo fattree beyond the LID space"
expect "cannot remove 9 switch-to-switch links: the fabric has 8" "$IBUNION" topo fattree 4 2 --remove-links 9 -o "$tmp/out/cut.net"
expect "option --remove-seed only applies together with --remove-links N" "$IBUNION" topo fattree 4 2 --remove-seed 3
nothing_left "topo --remove-links beyond the cables"
# The removed cables are named by the ports of the file written, also when
# --shuffle renumbers them (the note gave the ports before the shuffle).
"$IBUNION" topo fattree 8 3 --remove-links 2 --shuffle 5 -o "$tmp/cut.net" 2>"$tmp/cut.err"
named=0 bad=""
while read -r _ _ _ a _ pa _ b _ pb; do
  for end in "$a $pa" "$b $pb"; do
    named=$((named + 1))
    awk -v sw="\"${end% *}\"" -v port="[${end#* }]" '$1 == "Switch" {on = ($3 == sw)} on && index($0, port "\t") == 1 {found = 1}
      END {exit found}' "$tmp/cut.net" || bad+=" $end"
  done
done <"$tmp/cut.err"
if [ $named -eq 4 ] && [ -z "$bad" ]; then echo "PASS: topo --remove-links --shuffle: the 4 named ports are unconnected in the file"
else echo "FAIL: topo --remove-links --shuffle: $named ports named, connected in the file:$bad"; fails=$((fails + 1)); fi
expect "--param fly_ns=abc: expected an integer" "$IBUNION" sim "$net" --routing mlid --param fly_ns=abc
expect "--config /nonexistent: cannot open (No such file or directory)" "$IBUNION" sim "$net" --routing mlid --config /nonexistent
short="--param measure_ns=2000 --param warmup_ns=100"  # short sim runs for the good cases
# ibunion sim: a setting is named as given, on the command line or as
# FILE:LINE of --config (key = value).
printf 'traffic = foo\n' >"$tmp/c.conf"
expect "$tmp/c.conf:1: traffic = foo: unknown pattern 'foo'" "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf"
# A NUL cut the message at that byte, the reason with it; an editor's
# byte-order mark made the first key unknown, the mark invisible.
printf 'load = 0.2\0x\n' >"$tmp/c.conf"
expect "$tmp/c.conf:1: a NUL byte at column 11: expected text lines 'key = value'" "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf"
printf '\xEF\xBB\xBFtraffic = foo\n' >"$tmp/c.conf"
expect "$tmp/c.conf:1: traffic = foo: unknown pattern 'foo'" "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf"
# Options that pick the kind of run stay on the command line: said so, not
# "unknown key".
printf 'load = 0.2\nsave = x.json\n' >"$tmp/c.conf"
expect "$tmp/c.conf:2: 'save' is an option of the command line only (--save), not a config file's key" \
  "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf"
printf 'load = 0.2\nrouting = foo\n' >"$tmp/c.conf"
expect "$tmp/c.conf:2: routing = foo: unknown routing engine (known: mlid, slid, xymesh, dump:DIR)" \
  "$IBUNION" sim "$net" --config "$tmp/c.conf"
expect "--param engine.foo=1: option 'foo=1': unknown key" "$IBUNION" sim "$net" --routing mlid --param engine.foo=1
# A config file's net file that cannot be opened: named with the config's
# line, and where a relative path is taken from (it said only "cannot open
# topology file", naming neither).
printf 'routing = mlid\nnet = no/such.net\n' >"$tmp/c.conf"
expect "$tmp/c.conf:2: net = no/such.net: cannot open (No such file or directory); a relative path is taken from the working directory, not from the config file's folder" \
  "$IBUNION" sim --config "$tmp/c.conf"
# Settings only some runs read are refused elsewhere, not ignored.
expect "--param hot=3: only with --traffic centric:F" "$IBUNION" sim "$net" --routing mlid --param hot=3
# max_ns bounds batch runs only: a steady run ran past max_ns=1, exit 0.
expect "--param max_ns=1: only with --param batch=N" "$IBUNION" sim "$net" --routing mlid --param max_ns=1
printf 'shift = 2\n' >"$tmp/c.conf"
expect "$tmp/c.conf:1: shift = 2: only with --traffic shift" "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf"
expect "--param mlid=49153: only with --routing dump:DIR and multicast traffic" \
  "$IBUNION" sim "$net" --routing mlid --param mlid=49153
expect "--param host_order=tree: expected address or file" "$IBUNION" sim "$net" --routing mlid --traffic bitrev \
  --param host_order=tree
expect "--param vls=4: not with --vls 2, which sets it too" "$IBUNION" sim "$net" --routing mlid --vls 2 --param vls=4
expect "--param kernel=fast: expected classic or lean" "$IBUNION" sim "$net" --routing mlid --param kernel=fast
# What the lean kernel does not run is refused before any point runs
# (it failed the point: status 1 and a zero row), named where kernel= was.
expect "--param kernel=lean: supports unicast traffic with in_buf=out_buf=1" \
  "$IBUNION" sim "$net" --routing mlid --traffic mcast:all:all --load 0.1 --param kernel=lean
printf 'kernel = lean\nin_buf = 2\n' >"$tmp/lean.conf"
expect "$tmp/lean.conf:1: kernel = lean: supports unicast traffic with in_buf=out_buf=1, 1, 2, 4 or 8 VLs and switches of at most 63 ports; got in_buf=2 out_buf=1" \
  "$IBUNION" sim "$net" --routing mlid --load 0.1 --config "$tmp/lean.conf"
# A permutation that moves no host (bitrev on two) sends nothing: refused.
"$IBUNION" topo mesh 1 2 -o "$tmp/m12.net" --guid2lid "$tmp/m12.g2l" 2>/dev/null
expect "--traffic bitrev: every one of the fabric's 2 hosts maps to itself, so nothing is sent" \
  "$IBUNION" sim "$tmp/m12.net" --guid2lid "$tmp/m12.g2l" --routing xymesh --traffic bitrev
# mcast:1:1 draws one member and one source; seed 24 draws the same host.
expect "--traffic mcast:1:1: the group drawn (seed 24) is its one source P(31) alone, so nothing is sent" \
  "$IBUNION" sim "$net" --routing mlid --traffic mcast:1:1 --seed 24
# A fraction of hosts that rounds to none is refused (it was one host), and
# a shift distance is an integer as integers are read (1e3 was a thousand).
expect "--traffic mcast:all:0.0001: GROUP 0.0001 of the fabric's 8 hosts rounds to no host (give a fraction of at least 0.0625, or a host count)" \
  "$IBUNION" sim "$net" --routing mlid --traffic mcast:all:0.0001
expect "--traffic shift:1e3: shift distance must be an integer 1..10000000" "$IBUNION" sim "$net" --routing mlid --traffic shift:1e3
# A shift distance is below the host count: 9 on 8 hosts wrapped to 1, and
# a multiple of 8 moved no host, like the permutation above.
expect "--traffic shift:8: every one of the fabric's 8 hosts maps to itself (8 is a multiple of 8), so nothing is sent (expected a shift distance 1..7)" \
  "$IBUNION" sim "$net" --routing mlid --traffic shift:8
expect "--traffic shift:9: shift 9 is not below the fabric's 8 hosts (expected a shift distance 1..7; it is not taken mod 8)" \
  "$IBUNION" sim "$net" --routing mlid --traffic shift:9
printf 'traffic = shift\nshift = 16\n' >"$tmp/c.conf"
expect "$tmp/c.conf:2: shift = 16: every one of the fabric's 8 hosts maps to itself (16 is a multiple of 8)" \
  "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf"
expect "--param shift=5: not with --traffic shift:3, which sets it too" \
  "$IBUNION" sim "$net" --routing mlid --traffic shift:3 --param shift=5
# More MLIDs than sources: the extra ones were dropped without a word.
expect "--param mcast_trees=3: more MLIDs than the 2 source(s) spread over them (give 1..2, or 0 for one per source)" \
  "$IBUNION" sim "$net" --routing mlid --traffic mcast:2:all --param mcast_trees=3
# One tree per source on FT(48,3)'s 27,648 hosts: more than the MLIDs
# 0xC001-0xFFFE (tree 16,383 got the permissive LID, later ones wrapped
# into unicast LIDs).
"$IBUNION" topo fattree 48 3 -o "$tmp/ft48.net" 2>/dev/null
expect "27648 multicast sources with one tree each need 27648 MLIDs, and 16382 exist (0xC001-0xFFFE): give mcast_trees=N" \
  "$IBUNION" sim "$tmp/ft48.net" --routing slid --traffic mcast:all:2 --load 0.1
expect "--param mcast_trees=16383: expected an integer in [0, 16382]" "$IBUNION" sim "$net" --routing mlid --traffic mcast:2:all --param mcast_trees=16383
# Source trees (xymesh_mcast=source) are free of credit loops for their
# anchor's packets only: one tree per source, and verify floods them from
# their anchors (from every member they loop).
mesh5=$top/topologies/mesh-5x5.net
expect "engine.xymesh trees (xymesh_mcast=source) carry their anchor's packets only, and mcast_trees = 1 puts 4 sources on them" \
  "$IBUNION" sim "$mesh5" --routing xymesh --traffic mcast:4:all --param batch=1 --param engine.xymesh_mcast=source \
  --param mcast_trees=1
printf '0xC001 H(0,0) H(4,4) H(2,2) H(0,4) H(4,0) anchor=H(0,3)\n0xC002 H(0,0) H(4,4) H(2,2) H(0,4) H(4,0) anchor=H(3,0)\n' \
  >"$tmp/source.groups"
if "$IBUNION" route "$mesh5" --engine xymesh --options xymesh_mcast=source --lft "$tmp/source.lft" \
  --groups "$tmp/source.groups" --mft "$tmp/source.mft" 2>/dev/null &&
  "$IBUNION" verify "$mesh5" --lft "$tmp/source.lft" --mft "$tmp/source.mft" --groups "$tmp/source.groups" \
    --engine xymesh --options xymesh_mcast=source --deadlock >"$tmp/source.out" &&
  grep -q 'acyclic (.* and 2 multicast senders' "$tmp/source.out" &&
  ! "$IBUNION" verify "$mesh5" --lft "$tmp/source.lft" --mft "$tmp/source.mft" --groups "$tmp/source.groups" \
    --deadlock >/dev/null; then
  echo "PASS: xymesh_mcast=source: verify --deadlock floods each tree from its anchor (acyclic), from every member it loops"
else echo "FAIL: xymesh_mcast=source verify: $(grep deadlock "$tmp/source.out" 2>/dev/null)"; fails=$((fails + 1)); fi
expect "--param mcast_trees=2: only with --traffic mcast:S:G, hardware multicast (mcast_mode hw) and an engine's --routing" \
  "$IBUNION" sim "$net" --routing mlid --traffic mcast:2:all --mcast-mode unicast --param mcast_trees=2
# Bernoulli arrivals are one trial per message time: a load above 1 ran as
# 1 under its own label. Exponential arrivals take it.
expect "--load 1.5: expected an offered load in (0, 1] with Bernoulli arrivals (arrival=bernoulli, the default: at most one message per message time); arrival=exp or periodic offer up to 64" \
  "$IBUNION" sim "$net" --routing mlid --load 1.5
expect "--sweep 0.5:2:0.5: expected 0 < FROM <= TO <= 1 and STEP > 0 with Bernoulli arrivals (--param arrival=bernoulli: at most" \
  "$IBUNION" sim "$net" --routing mlid --sweep 0.5:2:0.5 --param arrival=bernoulli
# shellcheck disable=SC2086
if "$IBUNION" sim "$net" --routing mlid --load 1.5 --param arrival=exp $short --json --quiet 2>"$tmp/err" >"$tmp/exp.json" &&
  grep -qF '"load":1.5,' "$tmp/exp.json"
then echo "PASS: --load 1.5 with arrival=exp runs"
else echo "FAIL: --load 1.5 --param arrival=exp: $(cat "$tmp/err")"; fails=$((fails + 1)); fi
# The largest message, 1 GiB, can be written as the limit says it: 1G.
# shellcheck disable=SC2086
if "$IBUNION" sim "$net" --routing mlid --msg 1G $short 2>"$tmp/err" >/dev/null && grep -qF "msg 1073741824 B" "$tmp/err"
then echo "PASS: --msg 1G is 1 GiB"
else echo "FAIL: --msg 1G: $(cat "$tmp/err")"; fails=$((fails + 1)); fi
expect "--msg 2G: message larger than 1 GiB" "$IBUNION" sim "$net" --routing mlid --msg 2G
# A batch run has no arrivals: a load, an arrival process or a window was ignored.
expect "--load 0.5: not with --param batch=2 (a batch run queues its messages at t=0 and runs to completion)" \
  "$IBUNION" sim "$net" --routing mlid --param batch=2 --load 0.5
printf 'batch = 1\nmeasure_ns = 5000\n' >"$tmp/c.conf"
expect "$tmp/c.conf:2: measure_ns = 5000: not with $tmp/c.conf:1: batch = 1" \
  "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf"
expect "--param arrival=exp: not with --param batch=1" "$IBUNION" sim "$net" --routing mlid --param batch=1 --param arrival=exp
printf 'hot = 99\n' >"$tmp/c.conf"
expect "$tmp/c.conf:1: hot = 99: expected a host number 0..7, the fabric has 8 hosts" \
  "$IBUNION" sim "$net" --routing mlid --traffic centric:0.5 --config "$tmp/c.conf"
expect "--param hot=8: expected a host number 0..7, the fabric has 8 hosts" \
  "$IBUNION" sim "$net" --routing mlid --traffic centric:0.5 --param hot=8
printf 'engine.mlid_rotate = maybe\n' >"$tmp/c.conf"
expect "$tmp/c.conf:1: engine.mlid_rotate = maybe: option 'mlid_rotate=maybe': expected on or off" \
  "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf"
expect "--param engine.mlid_rotate=off: no routing engine runs with --routing dump:DIR" \
  "$IBUNION" sim --routing dump:"$tmp" --param engine.mlid_rotate=off
expect "--msg 1.5K: expected a message size in bytes" "$IBUNION" sim "$net" --routing mlid --msg 1.5K
printf 'msg = 2X\n' >"$tmp/c.conf"
expect "$tmp/c.conf:1: msg = 2X: expected a message size in bytes" "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf"
# Nothing given is dropped or changed without a word: VL counts a port can
# have, host counts the fabric has, one source of loads, one of LIDs, each
# config key once.
expect "--vls 3: expected a VL count 1, 2, 4 or 8" "$IBUNION" sim "$net" --routing mlid --vls 3
expect "--vls 7: expected a VL count 1, 2, 4 or 8" "$IBUNION" sim "$net" --routing mlid --vls 7
expect "--param vls=5: expected a VL count 1, 2, 4 or 8" "$IBUNION" sim "$net" --routing mlid --param vls=5
expect "--vls 8: xymesh takes 1, 2 or 4 data VLs" "$IBUNION" sim "$top/topologies/mesh-4x4.net" --routing xymesh --vls 8
expect "--traffic mcast:50:0.5: SOURCES 50 is more hosts than the fabric's 8" \
  "$IBUNION" sim "$net" --routing mlid --traffic mcast:50:0.5
expect "--traffic mcast:2:9: GROUP 9 is more hosts than the fabric's 8" "$IBUNION" sim "$net" --routing mlid --traffic mcast:2:9
printf 'traffic = mcast:1:20\n' >"$tmp/c.conf"
expect "$tmp/c.conf:1: traffic = mcast:1:20: GROUP 20 is more hosts" "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf"
expect "--load 0.2: not with --sweep 0.1:0.3:0.1 (one load or a sweep of loads, not both)" \
  "$IBUNION" sim "$net" --routing mlid --load 0.2 --sweep 0.1:0.3:0.1
# Real numbers are decimal: strtod's hex floats and leading blanks were
# taken (--load 0x0.8p0 ran at 0.5).
expect "--load 0x0.8p0: expected an offered load > 0" "$IBUNION" sim "$net" --routing mlid --load 0x0.8p0
expect "--load  0.2: expected an offered load > 0" "$IBUNION" sim "$net" --routing mlid --load ' 0.2'
expect "--traffic centric:0x0.1: '0x0.1' is not a number (hot fraction)" "$IBUNION" sim "$net" --routing mlid --traffic centric:0x0.1
expect "--sweep 0x1p-3:0.5:0.1: expected FROM:TO:STEP with numbers" "$IBUNION" sim "$net" --routing mlid --sweep 0x1p-3:0.5:0.1
# A TO off the STEP grid ended the sweep below it without a word.
"$IBUNION" sim "$net" --routing mlid --sweep 0.1:0.35:0.1 >"$tmp/o" 2>"$tmp/err"
if grep -qxF "ibunion sim: note: --sweep 0.1:0.35:0.1: TO is off the STEP grid; the last point is load 0.3" "$tmp/err" &&
  "$IBUNION" sim "$net" --routing mlid --sweep 0.1:0.3:0.1 >"$tmp/o" 2>"$tmp/err" && ! grep -q "off the STEP grid" "$tmp/err"
then echo "PASS: sim --sweep with TO off the STEP grid says where it ends (on the grid: nothing)"
else echo "FAIL: sim --sweep TO off the grid: $(cat "$tmp/err")"; fails=$((fails + 1)); fi
# A sweep's points are loads as --load takes them, and its spec has three
# fields exactly (a trailing ':' was dropped, TO had no limit).
expect "--sweep 0.1:0.3:0.1:: expected FROM:TO:STEP" "$IBUNION" sim "$net" --routing mlid --sweep 0.1:0.3:0.1:
expect "--sweep 10:1e300:1e299: expected 0 < FROM <= TO <= 64 and STEP > 0" \
  "$IBUNION" sim "$net" --routing mlid --sweep 10:1e300:1e299
# A TO above Bernoulli's 1 is refused first: no note about its last point.
expect "--sweep 0.1:1.05:0.1: expected 0 < FROM <= TO <= 1 and STEP > 0 with Bernoulli arrivals" \
  "$IBUNION" sim "$net" --routing mlid --sweep 0.1:1.05:0.1
if grep -q "off the STEP grid" "$tmp/err"; then echo "FAIL: a refused sweep noted its last point first"; fails=$((fails + 1))
else echo "PASS: a refused sweep notes nothing before it"; fi
expect "--load 0: expected an offered load in (0, 64] (1 with Bernoulli arrivals, the default; 64 with arrival=exp or periodic)" \
  "$IBUNION" sim "$net" --routing mlid --load 0
printf 'sweep = 0.1:0.3:0.1\nload = 0.2\n' >"$tmp/c.conf"
expect "$tmp/c.conf:1: sweep = 0.1:0.3:0.1: not with $tmp/c.conf:2: load = 0.2" \
  "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf"
expect "--lmc 1: not with --guid2lid $g2l (the guid2lid file fixes the LIDs" \
  "$IBUNION" sim "$net" --routing mlid --lmc 1 --guid2lid "$g2l"
printf 'guid2lid = %s\n' "$g2l" >"$tmp/c.conf"
expect "--lmc 1: not with $tmp/c.conf:1: guid2lid = $g2l" "$IBUNION" sim "$net" --routing mlid --lmc 1 --config "$tmp/c.conf"
expect "--lmc 1: not with --routing dump:DIR" "$IBUNION" sim --routing dump:"$tmp" --lmc 1
expect "--lmc 8: expected an LMC 0..7" "$IBUNION" sim "$net" --routing mlid --lmc 8
printf 'vls = 2\n# 4 is better\nvls = 4\n' >"$tmp/c.conf"
expect "$tmp/c.conf:3: 'vls' again (first at line 1)" "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf"
printf 'engine.mlid_rotate = off\nengine.mlid_rotate = on\n' >"$tmp/c.conf"
expect "$tmp/c.conf:2: 'engine.mlid_rotate' again (first at line 1)" "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf"
# On the command line too: an option given twice is refused, not the last taken.
expect "--param fly_ns=40: 'fly_ns' again (first --param fly_ns=30); give each key once" \
  "$IBUNION" sim "$net" --routing mlid --param fly_ns=30 --param fly_ns=40
expect "--param engine.mlid_rotate=off: 'engine.mlid_rotate' again (first --param engine.mlid_rotate=on)" \
  "$IBUNION" sim "$net" --routing mlid --param engine.mlid_rotate=on --param engine.mlid_rotate=off
# A --param replaces the config file's line for its key (options win): the
# engine gets one mlid_rotate, the command line's.
printf 'engine.mlid_rotate = on\n' >"$tmp/c.conf"
# shellcheck disable=SC2086
if "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf" --param engine.mlid_rotate=off $short 2>"$tmp/err" >/dev/null &&
  grep -q "rotation off" "$tmp/err" && ! grep -q "rotation on" "$tmp/err"
then echo "PASS: --param engine.mlid_rotate=off replaces the config's engine.mlid_rotate = on"
else echo "FAIL: --param over a config's engine option: $(cat "$tmp/err")"; fails=$((fails + 1)); fi
expect "--vls given twice ('2', then '4'): give it once" "$IBUNION" sim "$net" --routing mlid --vls 2 --vls 4
# Every other command refuses a repeated option the same way (sim's --param
# is the one option meant to repeat); a repeated flag is the same flag.
expect "ibunion route: --lmc given twice ('2', then '3'): give it once" "$IBUNION" route "$net" --engine mlid --lmc 2 --lmc 3
expect "ibunion verify: --engine given twice ('mlid', then 'slid'): give it once" \
  "$IBUNION" verify "$net" --lft /dev/null --engine mlid --engine=slid
expect "ibunion trace: --dlid given twice ('4', then '8')" "$IBUNION" trace "$net" --lft /dev/null --from 'P(00)' --dlid 4 --dlid 8
# A net-file line is quoted shortened (60 characters, then ...): a 100 KB
# line made a 100 KB message.
head -c 100000 /dev/zero | tr '\0' X >"$tmp/long.net"; echo >>"$tmp/long.net"
"$IBUNION" inspect "$tmp/long.net" >/dev/null 2>"$tmp/err"
if [ "$(wc -c <"$tmp/err")" -lt 400 ] && grep -q "got 'X\{60\}\.\.\.'$" "$tmp/err"; then echo "PASS: a 100 KB net-file line is quoted as 60 characters and '...'"
else echo "FAIL: a 100 KB net-file line: $(wc -c <"$tmp/err") bytes of message"; fails=$((fails + 1)); fi
# A switch's LID as --from was "no such host": it says whose LID it is.
expect "ibunion trace: --from 18: LID 18 is switch SW<0,0>'s, not a host's; routes start at hosts" \
  "$IBUNION" trace "$net" --lft "$tmp/good.lft" --from 18 --dlid 4
# ... and a CA's node GUID, ibnetdiscover's H-<GUID> name or a switch's
# GUID: "no such host" alone left the slip to be guessed.
expect "ibunion trace: --from 0x0000000000100000: no such host in $net (0x0000000000100000: the node GUID of CA 'P(00)'; its port 1 is 0x0000000000100001)" \
  "$IBUNION" trace "$net" --lft "$tmp/good.lft" --from 0x0000000000100000 --dlid 4
expect "(H-0000000000100002: the node GUID of CA 'P(01)'; its port 1 is 0x0000000000100003)" \
  "$IBUNION" trace "$net" --lft "$tmp/good.lft" --from H-0000000000100002 --dlid 4
expect "ibunion trace: --from 0x100001: no such host in $net (a port GUID is written with all 16 hex digits: 0x0000000000100001)" \
  "$IBUNION" trace "$net" --lft "$tmp/good.lft" --from 0x100001 --dlid 4
# A switch's GUID as a member is that switch's port 0 (a switch member);
# as the anchor, which must be an end port, it is named as a switch's.
printf '0xC001 P(00) anchor=0x0000000000200000\n' >"$tmp/swguid.groups"
expect "anchor '0x0000000000200000' is not an end port of the fabric (the GUID of switch SW<0,0> (0x0000000000200000" \
  "$IBUNION" route "$net" --engine mlid --groups "$tmp/swguid.groups" --mft /dev/null --lft /dev/null
printf '0xC001 P(00) 0x00000000002000ff\n' >"$tmp/nosuch.groups"
expect "member '0x00000000002000ff' is neither an end port nor a switch of the fabric (name, port GUID or LID)" \
  "$IBUNION" route "$net" --engine mlid --groups "$tmp/nosuch.groups" --mft /dev/null --lft /dev/null
expect "ibunion inspect: --guid2lid given twice ('$g2l', then '/nonexistent')" \
  "$IBUNION" inspect "$net" --guid2lid "$g2l" --guid2lid /nonexistent
expect "ibunion topo: -o given twice ('$tmp/out/a.net', then '$tmp/out/b.net')" \
  "$IBUNION" topo fattree 4 2 -o "$tmp/out/a.net" -o "$tmp/out/b.net"
nothing_left "topo with -o twice"
# A forgotten value: the next option is not taken for it (`-o --guid2lid`
# wrote the net file to a file named "--guid2lid", `--csv --json` the CSV
# to "--json", both with exit 0).
expect "ibunion topo: option -o needs a value (got the option --guid2lid)" env -C "$tmp/out" "$IBUNION" topo fattree 4 2 -o --guid2lid
nothing_left "topo -o without its value"
expect "ibunion sim: option --csv needs a value (got the option --json)" env -C "$tmp/out" "$IBUNION" sim "$net" --routing mlid --csv --json
nothing_left "sim --csv without its value"
expect "ibunion route: option --lft needs a value (got the option --paths)" "$IBUNION" route "$net" --engine mlid --lft --paths "$tmp/out/p"
expect "ibunion sim: option --guid2lid needs a value (got the option --routing)" "$IBUNION" sim "$net" --guid2lid --routing mlid
nothing_left "route --lft without its value"
expect "ibunion mcjoin: --state given twice ('full', then 'sendonly')" "$IBUNION" mcjoin join ff12::1 --state full --state sendonly
# The word refused is named (both said only "expected join|leave and an MGID").
expect "ibunion mcjoin: unknown verb 'frob': expected join or leave" "$IBUNION" mcjoin frob ff12::1
expect "ibunion mcsetup: unknown verb 'frob': expected measure, burst or effective" "$IBUNION" mcsetup frob
expect "ibunion topo: unexpected argument 'extra': expected a kind and two sizes" "$IBUNION" topo fattree 4 3 extra
expect "ibunion mcjoin: unexpected argument 'extra' after the MGID" "$IBUNION" mcjoin join ff12::1 extra
# --port-guid by the core's GUID rule, 0x and 1..16 hex digits, refused
# before any SA is opened (strtoull's base 0 took decimal and octal).
for g in 123 0123 200001 0x 0x00000000000000001 0x12zz +0x1 0x0; do
  expect "option --port-guid: expected a port GUID, 0x and 1..16 hex digits (not zero) such as 0x0002c90300000001, got '$g'" \
    "$IBUNION" mcjoin join ff12::1 --port-guid "$g"
done
# mcjoin's MGID is a multicast GID (ff..), :: only for a join (the SA
# assigns one); a leave sends no group parameters, so none is taken with
# it. All refused before any port is opened, not sent for the SA to refuse.
for m in fe80::1 2001:db8::1 0:ff12::1; do
  expect "MGID '$m': expected a multicast GID, ff followed by flags and scope such as ff12:401b::1 (or :: to let the SA assign one)" \
    "$IBUNION" mcjoin join "$m"
  expect "MGID '$m': expected a multicast GID, ff followed by flags and scope such as ff12:401b::1" "$IBUNION" mcjoin leave "$m"
done
expect "MGID 'ff12:401b:0:0:0:0:0:0:1': expected IPv6 notation such as ff12:401b::1" "$IBUNION" mcjoin join ff12:401b:0:0:0:0:0:0:1
expect "MGID '::': a leave names the group's MGID (:: asks the SA for a new one, join only)" "$IBUNION" mcjoin leave ::
for o in "--qkey 0x1" "--pkey 0x7fff" "--sl 3" "--mtu 4" "--rate 3"; do
  # shellcheck disable=SC2086
  expect "ibunion mcjoin: ${o% *}: only with join (a leave sends MGID, port and --state)" "$IBUNION" mcjoin leave ff12::1 $o
done
expect "ibunion mcsetup: --reps given twice ('1', then '2')" "$IBUNION" mcsetup measure "$net" --reps 1 --reps 2
"$IBUNION" inspect "$net" --guid2lid "$g2l" --help --help >/dev/null 2>&1 &&
  echo "PASS: a flag given twice is taken once" || { echo "FAIL: inspect --help --help"; fails=$((fails + 1)); }
# --lmc next to --guid2lid: the file fixes the LIDs (and so the LMC), in
# every command that reads a net file, as in sim.
for cmd in "route $net --engine mlid" "verify $net --lft /dev/null" "trace $net --lft /dev/null --base-lid-load" \
  "inspect $net" "mcsetup measure $net"; do
  # shellcheck disable=SC2086
  expect "ibunion ${cmd%% *}: --lmc 1: not with --guid2lid $g2l (the guid2lid file fixes the LIDs; give one or the other)" \
    "$IBUNION" $cmd --lmc 1 --guid2lid "$g2l"
done
# mcsetup works on the live subnet: the LIDs are the SM's, from NET's
# ibnetdiscover comments or its guid2lid file, never the generator's layout.
expect "$net: no LIDs; give the subnet as ibnetdiscover prints it on the live fabric (or --guid2lid FILE)" \
  "$IBUNION" mcsetup measure "$net"
expect "$net: no LIDs" "$IBUNION" mcsetup burst "$net"
expect "ibunion mcsetup: --lmc 1: a live subnet's LIDs are the SM's (in NET or --guid2lid FILE)" \
  "$IBUNION" mcsetup measure "$net" --lmc 1
# mcsetup's verbs share one option list: another verb's option is refused,
# not accepted and ignored.
# effective's CSVs: a directory, a trailing empty cell (getline dropped it
# and miscounted), hex floats and fractional or huge group sizes.
expect "$tmp: cannot open CSV file (Is a directory)" "$IBUNION" mcsetup effective --setup "$tmp" --costs "$tmp"
# effective's --csv onto its --costs replaced the costs it had read.
cp "$top/docs/mcast-setup/costs.csv" "$tmp/costs.csv"
expect "ibunion mcsetup: $tmp/costs.csv: named for an output, but it is an input of this command" \
  "$IBUNION" mcsetup effective --setup "$top/docs/mcast-setup/setup.csv" --costs "$tmp/costs.csv" --csv "$tmp/costs.csv"
cmp -s "$top/docs/mcast-setup/costs.csv" "$tmp/costs.csv" && echo "PASS: effective's --costs kept" ||
  { echo "FAIL: effective replaced its --costs"; fails=$((fails + 1)); }
head -2 "$top/docs/mcast-setup/costs.csv" | sed '2s/$/,/' >"$tmp/costs.csv"
expect "$tmp/costs.csv:2: expected 4 fields, found 5" \
  "$IBUNION" mcsetup effective --setup "$top/docs/mcast-setup/setup.csv" --costs "$tmp/costs.csv"
for bad in 0x4 4.5 1e9; do
  printf 'label,size,p2p_msg_us,hw_bcast_us\nft-4-3/mlid,%s,17.632,9.056\n' "$bad" >"$tmp/costs.csv"
  expect "$tmp/costs.csv:2: column size: expected" \
    "$IBUNION" mcsetup effective --setup "$top/docs/mcast-setup/setup.csv" --costs "$tmp/costs.csv"
done
printf 'label,size,p2p_msg_us,hw_bcast_us\nft-4-3/mlid,1e9,17.632,9.056\nft-4-3/slid,4,-1,9\n' >"$tmp/costs.csv"
expect "$tmp/costs.csv:2: column size: expected a number 0..49151, got '1e9'" \
  "$IBUNION" mcsetup effective --setup "$top/docs/mcast-setup/setup.csv" --costs "$tmp/costs.csv"
sed -i 2d "$tmp/costs.csv"
expect "$tmp/costs.csv:2: column p2p_msg_us: expected a number >= 0, got '-1'" \
  "$IBUNION" mcsetup effective --setup "$top/docs/mcast-setup/setup.csv" --costs "$tmp/costs.csv"
# ... a broadcast cost of zero, a group of fewer than 2 (no broadcast), a
# cost given twice and a measure CSV with no rows are named by file and
# line, before any table is printed; so is a --csv that cannot be written.
setup=$top/docs/mcast-setup/setup.csv
effective_refuses() {  # NEEDLE ARGS...: exit 2, NEEDLE on stderr, nothing on stdout
  local needle=$1; shift
  "$IBUNION" mcsetup effective "$@" >"$tmp/o" 2>"$tmp/err"; local rc=$?
  if [ $rc -eq 2 ] && [ ! -s "$tmp/o" ] && grep -qF -- "$needle" "$tmp/err"; then echo "PASS: $(tail -1 "$tmp/err")"
  else echo "FAIL: effective $*: rc $rc, stdout $(wc -l <"$tmp/o") lines, $(tail -1 "$tmp/err") (wanted: $needle)"; fails=$((fails + 1)); fi
}
for cols in "4,0,9.056|p2p_msg_us: expected a time > 0, got '0'" "4,17.632,0|hw_bcast_us: expected a time > 0, got '0'" \
  "1,17.632,9.056|size: expected a group of 2 or more members, got '1'"; do
  { head -1 "$top/docs/mcast-setup/costs.csv"; echo "ft-4-3/mlid,${cols%%|*}"; sed 1,2d "$top/docs/mcast-setup/costs.csv"; } >"$tmp/costs.csv"
  effective_refuses "$tmp/costs.csv:2: column ${cols#*|}" --setup "$setup" --costs "$tmp/costs.csv"
done
{ cat "$top/docs/mcast-setup/costs.csv"; echo "ft-4-3/mlid,4,99,9"; } >"$tmp/costs.csv"
effective_refuses "$tmp/costs.csv:16: label ft-4-3/mlid size 4 again (first at line 2): expected one row per label and size" \
  --setup "$setup" --costs "$tmp/costs.csv"
head -1 "$setup" >"$tmp/setup.csv"
effective_refuses "$tmp/setup.csv: no rows after the header: expected one per group and repetition" \
  --setup "$tmp/setup.csv" --costs "$top/docs/mcast-setup/costs.csv"
{ head -1 "$setup"; sed -n 2p "$setup" | sed 's/^\([^,]*\),4,/\1,0,/'; } >"$tmp/setup.csv"
effective_refuses "$tmp/setup.csv:2: column size: expected a group of 2 or more members, got '0'" \
  --setup "$tmp/setup.csv" --costs "$top/docs/mcast-setup/costs.csv"
grep -v '^ft-8-3/mlid,128,' "$top/docs/mcast-setup/costs.csv" >"$tmp/costs.csv"
effective_refuses "$tmp/costs.csv: no broadcast costs for label ft-8-3/mlid size 128" --setup "$setup" --costs "$tmp/costs.csv"
effective_refuses "/nonexistent-dir/e.csv: cannot write (No such file or directory)" \
  --setup "$setup" --costs "$top/docs/mcast-setup/costs.csv" --csv /nonexistent-dir/e.csv
effective_refuses "ibunion mcsetup: effective takes no NET or other word, got '$net'" \
  "$net" --setup "$setup" --costs "$top/docs/mcast-setup/costs.csv"
# effective --csv -: the CSV is all of stdout (the tables go to stderr, as
# measure's report does); it was printed after the tables, one stream.
"$IBUNION" mcsetup effective --setup "$setup" --costs "$top/docs/mcast-setup/costs.csv" --csv - >"$tmp/o" 2>"$tmp/err"
if [ $? -eq 0 ] && [ "$(head -1 "$tmp/o")" = "label,size,iterations,original_us,basic_us,lazy_us,pool_us,basic_over_lazy,basic_over_pool" ] &&
  [ "$(awk -F, 'NF != 9' "$tmp/o" | wc -l)" -eq 0 ] && grep -q "^label .*create+joins" "$tmp/err"
then echo "PASS: mcsetup effective --csv -: only the CSV on stdout ($(wc -l <"$tmp/o") lines), the tables on stderr"
else echo "FAIL: mcsetup effective --csv -: stdout starts '$(head -1 "$tmp/o")', $(awk -F, 'NF != 9' "$tmp/o" | wc -l) non-CSV lines"; fails=$((fails + 1)); fi
# CSVs saved with CRLF line ends (a spreadsheet on Windows) read as with
# LF: the CR stuck to the last column ("header has no column 'hw_bcast_us'").
sed 's/$/\r/' "$setup" >"$tmp/setup-crlf.csv"
sed 's/$/\r/' "$top/docs/mcast-setup/costs.csv" >"$tmp/costs-crlf.csv"
if "$IBUNION" mcsetup effective --setup "$tmp/setup-crlf.csv" --costs "$tmp/costs-crlf.csv" --csv - >"$tmp/o-crlf" 2>"$tmp/err" &&
  cmp -s "$tmp/o" "$tmp/o-crlf"
then echo "PASS: mcsetup effective: CRLF CSVs give the same effective.csv as LF ones"
else echo "FAIL: mcsetup effective with CRLF CSVs: $(tail -1 "$tmp/err")"; fails=$((fails + 1)); fi
expect "ibunion mcsetup: --reps is not an option of mcsetup effective (it is one of measure)" \
  "$IBUNION" mcsetup effective --setup "$tmp/none" --costs "$tmp/none" --reps 3
expect "ibunion mcsetup: --sizes is not an option of mcsetup burst (it is one of measure)" \
  "$IBUNION" mcsetup burst "$net" --sizes 4
# An option two other verbs take is named with both (it named the first).
expect "ibunion mcsetup: --csv is not an option of mcsetup burst (it is one of effective and measure)" \
  "$IBUNION" mcsetup burst "$net" --csv x
# A net file with the SM's LIDs keeps them: --lmc (the generator's layout)
# is refused there rather than replacing them without a word.
live=$top/tests/fuzz/corpus/netfile/ibnetdiscover.net
for cmd in "route $live --engine slid" "verify $live --lft $tmp/none" "inspect $live" \
  "trace $live --lft $tmp/none --from Hca1 --dlid 4"; do
  expect "ibunion ${cmd%% *}: --lmc 1: not with $live, which carries LIDs (ibnetdiscover's, the SM's)" \
    "$IBUNION" $cmd --lmc 1
done
expect "--lmc 1: not with $live, which carries LIDs" "$IBUNION" sim "$live" --routing slid --lmc 1
# ... and a guid2lid file giving its ports other LIDs is another SM run's:
# it was taken for the ports it lists and the net file for the rest.
printf '0x0000000000200001 0x0003 0x0003\n0x0000000000100004 0x0004 0x0004\n' >"$tmp/live.g2l"
"$IBUNION" inspect "$live" --guid2lid "$tmp/live.g2l" >/dev/null 2>&1 &&
  echo "PASS: inspect: a guid2lid file agreeing with the net file's LIDs" ||
  { echo "FAIL: inspect $live --guid2lid $tmp/live.g2l"; fails=$((fails + 1)); }
printf '0x0000000000100004 0x0008 0x0009\n' >"$tmp/other.g2l"
expect "ibunion inspect: $tmp/other.g2l:1: end port Hca2 (0x0000000000100004) has LIDs 8-9 here, but LID 4 in the net file: expected the guid2lid file of the SM the net file was discovered under, or only one of the two" \
  "$IBUNION" inspect "$live" --guid2lid "$tmp/other.g2l"
# Usage shown for an error goes to stderr with exit 2, stdout stays empty;
# --help prints it on stdout with exit 0.
for cmd in "" topo route verify inspect trace mcjoin mcsetup pathsl sim bogus; do
  # shellcheck disable=SC2086
  "$IBUNION" $cmd >"$tmp/o" 2>"$tmp/e"; rc=$?
  if [ $rc -eq 2 ] && [ ! -s "$tmp/o" ] && grep -q "usage: ibunion" "$tmp/e"; then echo "PASS: 'ibunion${cmd:+ $cmd}' alone: usage on stderr, exit 2"
  else echo "FAIL: 'ibunion${cmd:+ $cmd}' alone: rc $rc, stdout $(wc -c <"$tmp/o") bytes"; fails=$((fails + 1)); fi
  [ "$cmd" = bogus ] && continue
  # shellcheck disable=SC2086
  "$IBUNION" $cmd --help >"$tmp/o" 2>"$tmp/e"; rc=$?
  if [ $rc -eq 0 ] && [ ! -s "$tmp/e" ] && grep -q "usage: ibunion" "$tmp/o"; then echo "PASS: 'ibunion${cmd:+ $cmd} --help': usage on stdout, exit 0"
  else echo "FAIL: 'ibunion${cmd:+ $cmd} --help': rc $rc, stderr $(head -c 200 "$tmp/e")"; fails=$((fails + 1)); fi
done
# Integers are decimal or 0x hex, never octal: --seed 010 is seed 10. Each
# run must succeed and print a point, and the seed must matter (seed 8,
# octal 010, gives another run): two failures, or a dropped --seed,
# compared equal.
seed_run() {  # SEED: the point's JSON, or FAILED
  "$IBUNION" sim "$net" --routing mlid --load 0.2 --seed "$1" --json --no-wall --quiet 2>/dev/null |
    grep '"packets_delivered"' || echo FAILED
}
s010=$(seed_run 010) s10=$(seed_run 10) s8=$(seed_run 8) s0x10=$(seed_run 0x10) s16=$(seed_run 16)
if [ "$s010" != FAILED ] && [ "$s010" = "$s10" ] && [ "$s010" != "$s8" ] && [ "$s0x10" != FAILED ] &&
   [ "$s0x10" = "$s16" ] && [ "$s0x10" != "$s10" ]; then
  echo "PASS: --seed 010 is 10 (not 8) and --seed 0x10 is 16"
else echo "FAIL: --seed 010 / 0x10 not read as decimal / hex (or a run failed: $s010 $s0x10)"; fails=$((fails + 1)); fi
expect "--param nic_msgs=0x-5: expected an integer" "$IBUNION" sim "$net" --routing mlid --param nic_msgs=0x-5
# The other commands read integers the same way: 010 is ten, not eight.
expect "M must be even (m/2 ports down, m/2 up), got 11" "$IBUNION" topo fattree 011 2 -o "$tmp/out/t.net"
nothing_left "topo with a bad M"
# A config file's sweep gives way to --load on the command line (options win),
# and no-wall is a config key like json and quiet.
printf 'sweep = 0.1:0.3:0.1\njson = yes\nno-wall = yes\nquiet = yes\n' >"$tmp/c.conf"
# shellcheck disable=SC2086
if out=$("$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf" --load 0.2 $short 2>"$tmp/err") &&
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && grep -qF '"load":0.2,' <<<"$out" && ! grep -q wall_s <<<"$out" &&
  [ ! -s "$tmp/err" ]
then echo "PASS: --load replaces the config's sweep; no-wall, json, quiet from the config"
else echo "FAIL: config sweep + --load: $out $(cat "$tmp/err")"; fails=$((fails + 1)); fi
# The file's vls and --param vls set the same thing: the command line's wins
# (it was refused as "which sets it too", though --vls won).
printf 'vls = 4\n' >"$tmp/vls.conf"
# shellcheck disable=SC2086
if out=$("$IBUNION" sim "$net" --routing mlid --config "$tmp/vls.conf" --param vls=2 --json --quiet $short 2>"$tmp/err") &&
  grep -qE '"vl_hops":\[[0-9]+,[0-9]+\]' <<<"$out"
then echo "PASS: --param vls replaces the config file's vls"
else echo "FAIL: --param vls over the config's vls: $out $(cat "$tmp/err")"; fails=$((fails + 1)); fi
# A point that measured no message (1 GiB messages at load 0.1: none in a
# 2 us window) says so; its latency fields, 0, are no result.
if "$IBUNION" sim "$net" --routing mlid --msg 1024M $short 2>"$tmp/err" >/dev/null &&
  grep -qF "note: point 0 (load 0.1): no message with a receiver was measured" "$tmp/err"
then echo "PASS: a point without a measured message says so"
else echo "FAIL: a point without a measured message: $(cat "$tmp/err")"; fails=$((fails + 1)); fi
# A saturated point whose measured messages all stay undelivered (the
# warm-up's backlog ahead of them) says its latency fields are no result
# either, not that latency is over the delivered ones.
if "$IBUNION" sim "$net" --routing mlid --traffic mcast:all:all --param mcast_trees=1 --load 1 \
  --param warmup_ns=20000 --param measure_ns=2000 --param drain_ns=100 2>"$tmp/err" >/dev/null &&
  grep -qF "measured messages undelivered after drain_ns (saturated); none was delivered, so the latency fields are 0" "$tmp/err"
then echo "PASS: a saturated point with nothing delivered says its latency is no result"
else echo "FAIL: a saturated point with nothing delivered: $(cat "$tmp/err")"; fails=$((fails + 1)); fi
# The LFT dump of dump:DIR: only ibroute's lines; a stray one is named, an
# empty dump is refused (both used to fail later as "no LFT entry").
mkdir -p "$tmp/dump"
cp "$net" "$tmp/dump/fabric.net"
"$IBUNION" route "$net" --guid2lid "$g2l" --engine mlid --lft "$tmp/dump/lfts.dump" 2>/dev/null
# shellcheck disable=SC2086
"$IBUNION" sim --routing dump:"$tmp/dump" --guid2lid "$g2l" --quiet $short >/dev/null &&
  echo "PASS: sim on a dump of ibunion route" || { echo "FAIL: sim on a dump of ibunion route"; fails=$((fails + 1)); }
# NETFILE given as the dump's own fabric.net (as README shows it): no note
# that one is used instead of the other.
# shellcheck disable=SC2086
"$IBUNION" sim "$tmp/dump/fabric.net" --routing dump:"$tmp/dump" --guid2lid "$g2l" $short 2>"$tmp/err" >/dev/null &&
  ! grep -q "note: using" "$tmp/err" && echo "PASS: sim DIR/fabric.net --routing dump:DIR: no 'using X, not X' note" ||
  { echo "FAIL: sim DIR/fabric.net --routing dump:DIR: $(grep "note: using" "$tmp/err")"; fails=$((fails + 1)); }
# shellcheck disable=SC2086
"$IBUNION" sim "$net" --routing dump:"$tmp/dump" --guid2lid "$g2l" $short 2>"$tmp/err" >/dev/null &&
  grep -qF "note: using $tmp/dump/fabric.net (with the LIDs the SM assigned), not $net" "$tmp/err" &&
  grep -qF "ibunion sim: $tmp/dump/fabric.net: " "$tmp/err" &&
  echo "PASS: sim OTHER.net --routing dump:DIR says DIR/fabric.net is used, and names it in its heading" ||
  { echo "FAIL: sim OTHER.net --routing dump:DIR: no note, or a heading naming another file: $(cat "$tmp/err")"; fails=$((fails + 1)); }
# An output of sim on one of its inputs replaced it (`--csv x.net` left
# the CSV where the net file was; so did one onto the dump's tables or the
# --config file). Refused before the run, by any name of the file, and the
# inputs kept.
cp "$tmp/dump/fabric.net" "$tmp/keep.net"; cp "$tmp/dump/lfts.dump" "$tmp/keep.lfts"
cp "$g2l" "$tmp/keep.g2l"; printf 'routing = mlid\n' >"$tmp/keep.conf"; echo minhop >"$tmp/dump/engine"
for out in "--routing mlid --csv $tmp/keep.net|$tmp/keep.net" \
  "--routing mlid --links $tmp/../${tmp##*/}/keep.net|$tmp/../${tmp##*/}/keep.net" \
  "--config $tmp/keep.conf --csv $tmp/keep.conf|$tmp/keep.conf" \
  "--routing dump:$tmp/dump --guid2lid $tmp/keep.g2l --csv $tmp/dump/lfts.dump|$tmp/dump/lfts.dump" \
  "--routing dump:$tmp/dump --guid2lid $tmp/keep.g2l --csv $tmp/dump/engine|$tmp/dump/engine" \
  "--routing dump:$tmp/dump --guid2lid $tmp/keep.g2l --plot $tmp/keep.g2l --sweep 0.1:0.2:0.1|$tmp/keep.g2l"; do
  # shellcheck disable=SC2086
  expect "ibunion sim: ${out#*|}: named for an output, but it is an input of this command" \
    "$IBUNION" sim "$tmp/keep.net" ${out%%|*} $short
done
cmp -s "$tmp/dump/fabric.net" "$tmp/keep.net" && cmp -s "$tmp/dump/lfts.dump" "$tmp/keep.lfts" &&
  cmp -s "$g2l" "$tmp/keep.g2l" && [ "$(cat "$tmp/dump/engine")" = minhop ] &&
  [ "$(cat "$tmp/keep.conf")" = "routing = mlid" ] && echo "PASS: sim's inputs kept" ||
  { echo "FAIL: sim replaced an input"; fails=$((fails + 1)); }
# The plugin's path-selection map holds every pair: a cut-off one would
# leave the pairs it lost on base LIDs without a word.
"$IBUNION" route "$net" --guid2lid "$g2l" --engine mlid --lft /dev/null --paths "$tmp/paths" 2>/dev/null
head -n 50 "$tmp/paths" >"$tmp/dump/ibunion-mlid-paths.dump"
expect "$tmp/dump/ibunion-mlid-paths.dump: 50 of the fabric's 56 (source, destination) pairs, the first missing" \
  "$IBUNION" sim --routing dump:"$tmp/dump" --guid2lid "$g2l"
# verify --disjoint too: it passed the map without its first line, and with
# 50 of 56 lines checked the missing pairs' base LIDs.
"$IBUNION" route "$net" --guid2lid "$g2l" --engine mlid --lft "$tmp/paths.lft" 2>/dev/null
expect "$tmp/dump/ibunion-mlid-paths.dump: 50 of the fabric's 56 (source, destination) pairs, the first missing" \
  "$IBUNION" verify "$net" --guid2lid "$g2l" --lft "$tmp/paths.lft" --disjoint --paths "$tmp/dump/ibunion-mlid-paths.dump"
sed 1d "$tmp/paths" >"$tmp/paths-1"
expect "$tmp/paths-1: 55 of the fabric's 56 (source, destination) pairs, the first missing P(00) -> P(01)" \
  "$IBUNION" verify "$net" --guid2lid "$g2l" --lft "$tmp/paths.lft" --disjoint --paths "$tmp/paths-1"
rm "$tmp/dump/ibunion-mlid-paths.dump"
sed -i '5a\0x0003 1 : damaged' "$tmp/dump/lfts.dump"
sed -i '6s/^0x/  0x/' "$tmp/dump/lfts.dump"
expect "$tmp/dump/lfts.dump:6: expected ibroute output" "$IBUNION" sim --routing dump:"$tmp/dump" --guid2lid "$g2l"
: >"$tmp/dump/lfts.dump"
expect "$tmp/dump/lfts.dump: no LFT in it" "$IBUNION" sim --routing dump:"$tmp/dump" --guid2lid "$g2l"
# mlid on a net file without LIDs: the LMC it wants (FT(4,3): 4 paths, LMC
# 2), as with --lmc 2 and the checked-in guid2lid; not LMC 0 (= slid).
ft43=$top/topologies/ft-4-3.net
# shellcheck disable=SC2086
run() { "$IBUNION" sim "$ft43" --routing mlid --json --no-wall --quiet --load 0.5 $short "$@" 2>&1; }
if [ "$(run)" = "$(run --lmc 2)" ] && [ "$(run)" = "$(run --guid2lid "$top/topologies/ft-4-3.guid2lid")" ] &&
  [ "$(run)" != "$(run --lmc 0)" ] &&
  "$IBUNION" sim "$ft43" --routing mlid $short 2>"$tmp/err" >/dev/null &&
  grep -qF "FT(4,3): 4 selectable paths per pair (LMC 2)" "$tmp/err"
then echo "PASS: sim mlid without LIDs runs at the LMC it wants (2 on FT(4,3))"
else echo "FAIL: sim mlid without LIDs: $(run | head -c 200)"; fails=$((fails + 1)); fi
# An LMC above the tree's: the LIDs beyond its paths repeat them, and the
# note says so on power-of-two trees too (it did only for m/2 = 3, 9, ...).
if "$IBUNION" route "$ft43" --engine mlid --lmc 7 --lft /dev/null 2>"$tmp/err" &&
  grep -qF "note: FT(4,3): 4 selectable paths per pair (LMC 7); the 124 LIDs beyond them repeat paths" "$tmp/err"
then echo "PASS: mlid at LMC 7 on FT(4,3): the 124 LIDs beyond its 4 paths are said to repeat them"
else echo "FAIL: mlid at LMC 7 on FT(4,3): $(cat "$tmp/err")"; fails=$((fails + 1)); fi
# Every option of the usage lines has its description.
help=$("$IBUNION" sim --help)
undescribed=""
for o in $(printf '%s\n' "$help" | sed -n '1,/^$/p' | grep -oE -- '--[a-z0-9-]+' | sort -u); do
  grep -qE -- "^  $o( |\$)" <<<"$help" || undescribed="$undescribed $o"
done
if [ -z "$undescribed" ]; then echo "PASS: sim --help describes every option of its usage lines"
else echo "FAIL: sim --help: no description for$undescribed"; fails=$((fails + 1)); fi
# --help is a request, not a mistake: usage on stdout and exit 0 for every
# command (inspect used to exit 2 when no NETFILE came with it).
for c in topo route verify inspect trace mcjoin mcsetup pathsl sim; do
  st=0; "$IBUNION" $c --help >"$tmp/help" 2>"$tmp/err" || st=$?
  if [ $st -eq 0 ] && grep -q "^usage: ibunion $c" "$tmp/help"; then echo "PASS: $c --help: usage on stdout, exit 0"
  else echo "FAIL: $c --help -> rc $st: $(head -1 "$tmp/help") $(head -1 "$tmp/err")"; fails=$((fails + 1)); fi
done
expect "ibunion inspect: expected one NETFILE" "$IBUNION" inspect
expect "ibunion pathsl: expected one NETFILE" "$IBUNION" pathsl
# Where the file would go is checked before the SA is asked (a query per
# path: minutes on a large fabric, all lost to a mistyped --out).
expect "ibunion pathsl: /nonexistent-dir/p: cannot write (No such file or directory)" \
  "$IBUNION" pathsl "$net" --out /nonexistent-dir/p
# A file without LIDs got the generator's layout, which the SM need not
# have used: the queries went to other ports (switches among them), exit 0.
expect "ibunion pathsl: $top/topologies/mesh-4x4.net: no LIDs; give the subnet as ibnetdiscover prints it" \
  "$IBUNION" pathsl "$top/topologies/mesh-4x4.net"
expect "ibunion pathsl: --lmc 0: a live subnet's LIDs are the SM's (in NET or --guid2lid FILE), not the generator's layout" \
  "$IBUNION" pathsl "$top/topologies/mesh-4x4.net" --lmc 0
# Its --out onto its --guid2lid replaced the LIDs it had read.
cp "$top/topologies/mesh-4x4.guid2lid" "$tmp/p.g2l"
expect "ibunion pathsl: $tmp/p.g2l: named for an output, but it is an input of this command" \
  "$IBUNION" pathsl "$top/topologies/mesh-4x4.net" --guid2lid "$tmp/p.g2l" --out "$tmp/p.g2l"
cmp -s "$top/topologies/mesh-4x4.guid2lid" "$tmp/p.g2l" && echo "PASS: pathsl's --guid2lid kept" ||
  { echo "FAIL: pathsl replaced its --guid2lid"; fails=$((fails + 1)); }
# Several outputs: one bad path and none of them is written.
expect "/nonexistent-dir/p: cannot write (No such file or directory)" \
  "$IBUNION" route "$net" --engine mlid --lft "$tmp/out/lft" --paths /nonexistent-dir/p
nothing_left "route --lft with a bad --paths"
# Killed while writing (SIGTERM; SIGINT and SIGHUP alike): the temporary
# is removed and the target kept (an interrupted route left a FILE.tmp.PID
# of hundreds of MB). The paths map goes to a pipe nobody reads, so the
# command waits there with its LFT file written as a temporary.
echo keep >"$tmp/out/sig.lft"
mkfifo "$tmp/fifo"
sleep 60 <"$tmp/fifo" & reader=$!
"$IBUNION" route "$top/topologies/ft-8-3.net" --guid2lid "$top/topologies/ft-8-3.guid2lid" --engine mlid \
  --lft "$tmp/out/sig.lft" --paths - >"$tmp/fifo" 2>/dev/null & writer=$!
for _ in $(seq 100); do [ -e "$tmp/out/sig.lft.tmp.$writer" ] && break; sleep 0.1; done
seen=no; [ -e "$tmp/out/sig.lft.tmp.$writer" ] && seen=yes
kill -TERM "$writer"; wait "$writer"; st=$?
kill "$reader" 2>/dev/null; wait "$reader" 2>/dev/null; rm -f "$tmp/fifo"
if [ $seen = yes ] && [ $st -eq 143 ] && [ "$(ls -A "$tmp/out")" = sig.lft ] && [ "$(cat "$tmp/out/sig.lft")" = keep ]
then echo "PASS: route killed while writing: its temporary removed, the target kept"
else echo "FAIL: route killed while writing: temporary seen $seen, rc $st, left $(ls -A "$tmp/out" | xargs)"; fails=$((fails + 1)); fi
rm -rf "$tmp/out"; mkdir -p "$tmp/out"
# Killed while gnuplot draws a sweep: the plot's data, script and image
# temporaries in TMPDIR go too (they were left behind). A stand-in gnuplot
# answers the terminal probe, then notes its PID and waits.
mkdir -p "$tmp/fakegp" "$tmp/plottmp"
printf '#!/bin/sh\n[ "$1" = -e ] && exit 0\necho $$ >"%s/gp.pid"\nexec sleep 60\n' "$tmp" >"$tmp/fakegp/gnuplot"
chmod +x "$tmp/fakegp/gnuplot"
TMPDIR="$tmp/plottmp" PATH="$tmp/fakegp:$PATH" "$IBUNION" sim "$top/topologies/ft-4-2.net" --routing mlid \
  --sweep 0.1:0.2:0.1 --plot "$tmp/out/sweep.png" >/dev/null 2>&1 & plotter=$!
for _ in $(seq 300); do [ -s "$tmp/gp.pid" ] && break; sleep 0.1; done
seen=$(ls "$tmp/plottmp" | grep -c '^ibunion-plot-')
kill -TERM "$plotter"; wait "$plotter"; st=$?
[ -s "$tmp/gp.pid" ] && kill "$(cat "$tmp/gp.pid")" 2>/dev/null
if [ "$seen" -gt 0 ] && [ $st -eq 143 ] && [ -z "$(ls -A "$tmp/plottmp")" ] && [ -z "$(ls -A "$tmp/out")" ]
then echo "PASS: sim killed while plotting: its $seen plot temporaries removed, no image written"
else echo "FAIL: sim killed while plotting: $seen temporaries seen, rc $st, left $(ls -A "$tmp/plottmp" "$tmp/out" | xargs)"; fails=$((fails + 1)); fi
rm -rf "$tmp/out" "$tmp/fakegp" "$tmp/plottmp" "$tmp/gp.pid"; mkdir -p "$tmp/out"
expect "/nonexistent: cannot open group file" \
  "$IBUNION" route "$net" --engine mlid --lft "$tmp/out/lft" --groups /nonexistent --mft "$tmp/out/mft"
nothing_left "route with a missing --groups file"
expect "/nonexistent-dir/x.net: cannot write" "$IBUNION" topo fattree 4 2 -o /nonexistent-dir/x.net --guid2lid "$tmp/out/g"
nothing_left "topo with a bad -o"
# An empty value is no file name (it meant stdout, or no file at all).
expect "ibunion topo: option --guid2lid: expected a value, got an empty one" "$IBUNION" topo fattree 4 2 --guid2lid ''
expect "ibunion route: option --paths: expected a value, got an empty one" \
  "$IBUNION" route "$net" --engine mlid --lft "$tmp/out/lft" --paths=
nothing_left "route with an empty --paths"
expect "ibunion sim: option --csv: expected a value, got an empty one" "$IBUNION" sim "$net" --routing mlid --csv ''
printf 'load = 0.2\ncsv =\n' >"$tmp/c.conf"
expect "$tmp/c.conf:2: csv = : expected a value after '='" "$IBUNION" sim "$net" --routing mlid --config "$tmp/c.conf"
# Two outputs into one file shared a temporary: the net file was renamed
# into place, then "cannot rename" for the guid2lid file.
expect "$tmp/out/same: named for two outputs; give each output a file of its own" \
  "$IBUNION" topo fattree 4 2 -o "$tmp/out/same" --guid2lid "$tmp/out/same"
nothing_left "topo with -o and --guid2lid the same file"
expect "$tmp/out/./same: named for two outputs" \
  "$IBUNION" route "$net" --engine mlid --lft "$tmp/out/same" --paths "$tmp/out/./same"
nothing_left "route with --lft and --paths the same file"
# ... and two into standard output came out one after the other.
expect "ibunion topo: '-' (standard output) named for two outputs" "$IBUNION" topo fattree 4 2 -o - --guid2lid -
expect "ibunion route: '-' (standard output) named for two outputs" \
  "$IBUNION" route "$net" --engine mlid --lft - --paths -
expect "/nonexistent-dir/l: cannot write" "$IBUNION" sim "$net" --routing mlid --load 0.1 \
  --param measure_ns=2000 --param warmup_ns=100 --csv "$tmp/out/c.csv" --links /nonexistent-dir/l --quiet
nothing_left "sim --csv with a bad --links"
# Named before the run, not after it (a long sweep's results were printed,
# then its CSV lost): nothing on stdout.
"$IBUNION" sim "$net" --routing mlid --load 0.1 --param measure_ns=2000 --param warmup_ns=100 --quiet \
  --csv /nonexistent-dir/c.csv >"$tmp/o" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && [ ! -s "$tmp/o" ] && grep -qF "/nonexistent-dir/c.csv: cannot write (No such file or directory)" "$tmp/err"
then echo "PASS: sim --csv into a missing directory refused before the run"
else echo "FAIL: sim --csv into a missing directory: rc $rc, stdout $(wc -c <"$tmp/o") bytes, $(cat "$tmp/err")"; fails=$((fails + 1)); fi
expect "$tmp: cannot write (Is a directory)" "$IBUNION" sim "$net" --routing mlid --sweep 0.1:0.2:0.1 --save "$tmp" --point 0
# A file written to stdout ('-') is all of stdout: the table went there
# too, and the CSV could not be piped. Two such outputs are refused.
expect "ibunion sim: --csv - and --links -: both would go to standard output" \
  "$IBUNION" sim "$net" --routing mlid --load 0.1 --csv - --links -
expect "ibunion sim: --json and --csv -: both would go to standard output" \
  "$IBUNION" sim "$net" --routing mlid --load 0.1 --json --csv -
"$IBUNION" sim "$net" --routing mlid --load 0.1 --param measure_ns=2000 --param warmup_ns=100 --quiet \
  --csv - >"$tmp/o" 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ] && [ "$(head -c 10 "$tmp/o")" = "point,load" ] && [ "$(wc -l <"$tmp/o")" -eq 2 ] &&
  grep -q "lat_avg_ns" "$tmp/err"
then echo "PASS: sim --csv - writes the CSV alone on stdout, the table on stderr"
else echo "FAIL: sim --csv -: rc $rc, stdout $(head -c 60 "$tmp/o" | tr '\n' '|')"; fails=$((fails + 1)); fi
# And the good case writes every file.
"$IBUNION" route "$net" --engine mlid --lft "$tmp/out/lft" --paths "$tmp/out/p" 2>/dev/null &&
  [ -s "$tmp/out/lft" ] && [ -s "$tmp/out/p" ] && [ "$(ls -A "$tmp/out" | wc -l)" -eq 2 ] &&
  echo "PASS: route writes --lft and --paths, no temporaries" || { echo "FAIL: route outputs"; fails=$((fails + 1)); }
# An existing file keeps its permissions when it is replaced (a 0600 file
# became 0644, readable by all).
echo old >"$tmp/private.net"; chmod 600 "$tmp/private.net"
if "$IBUNION" topo fattree 4 2 -o "$tmp/private.net" && [ "$(stat -c %a "$tmp/private.net")" = 600 ] &&
  grep -q '^Switch' "$tmp/private.net"
then echo "PASS: topo -o over a 0600 file: replaced, still 0600"
else echo "FAIL: topo -o over a 0600 file: mode $(stat -c %a "$tmp/private.net")"; fails=$((fails + 1)); fi
# A target that is no regular file (a FIFO here; /dev/null alike) is written
# in place: a rename would replace the pipe or device with a file.
mkfifo "$tmp/fifo"
timeout 20 cat "$tmp/fifo" >"$tmp/fifo.out" &
reader=$!
"$IBUNION" route "$net" --engine mlid --lft "$tmp/fifo" 2>/dev/null
wait $reader
"$IBUNION" route "$net" --engine mlid --lft "$tmp/ref.lft" 2>/dev/null
if [ -p "$tmp/fifo" ] && [ -s "$tmp/ref.lft" ] && cmp -s "$tmp/fifo.out" "$tmp/ref.lft" && [ -z "$(ls "$tmp" | grep 'fifo\.tmp')" ]
then echo "PASS: route --lft into a FIFO writes through it and leaves it a FIFO"
else echo "FAIL: route --lft into a FIFO"; fails=$((fails + 1)); fi
# A net file without LIDs: every command lays them out by one rule (on a
# fat-tree the LMC that gives mlid its paths per pair, LMC 2 on FT(4,3)),
# says so, and route -> verify -> trace agree; topo --guid2lid writes the same.
"$IBUNION" topo fattree 4 3 -o "$tmp/nolid.net" --guid2lid "$tmp/nolid.g2l" 2>"$tmp/topo.err"
# topo says the LMC of the guid2lid file it lays out (it said nothing, so
# OpenSM's lmc had to be guessed); at LMC 0 (a mesh) or with --lmc, nothing.
if grep -qxF "ibunion: note: $tmp/nolid.g2l: the generator's layout at LMC 2 (the fat-tree's paths per pair; --lmc L to choose; give OpenSM this lmc or a lower one)" "$tmp/topo.err" &&
  "$IBUNION" topo fattree 4 3 --lmc 2 -o "$tmp/lmc2.net" --guid2lid "$tmp/lmc2.g2l" 2>"$tmp/err" && [ ! -s "$tmp/err" ] &&
  cmp -s "$tmp/lmc2.g2l" "$tmp/nolid.g2l" &&
  "$IBUNION" topo mesh 3 3 -o "$tmp/m33.net" --guid2lid "$tmp/m33.g2l" 2>"$tmp/err" && [ ! -s "$tmp/err" ]
then echo "PASS: topo --guid2lid notes the default LMC it laid the file out at (not at LMC 0, not with --lmc)"
else echo "FAIL: topo --guid2lid note: stderr was: $(head -3 "$tmp/topo.err")"; fails=$((fails + 1)); fi
if "$IBUNION" route "$tmp/nolid.net" --engine mlid --lft "$tmp/nolid.lft" 2>"$tmp/err" &&
  grep -qF "ibunion: note: $tmp/nolid.net has no LIDs: the generator's layout at LMC 2" "$tmp/err" &&
  grep -qF "note: FT(4,3): 4 selectable paths per pair (LMC 2)" "$tmp/err" &&
  "$IBUNION" verify "$tmp/nolid.net" --lft "$tmp/nolid.lft" --engine mlid --disjoint >"$tmp/v" 2>&1 &&
  grep -q "scheme mlid: 0 entries differ" "$tmp/v" &&
  [ "$("$IBUNION" trace "$tmp/nolid.net" --lft "$tmp/nolid.lft" --from 'P(000)' --dlid 36 2>/dev/null)" = \
    "$("$IBUNION" trace "$tmp/nolid.net" --guid2lid "$tmp/nolid.g2l" --lft "$tmp/nolid.lft" --from 'P(000)' --dlid 36 2>/dev/null)" ] &&
  grep -q "^0x0000000000100001 0x0004 0x0007$" "$tmp/nolid.g2l"
then echo "PASS: no LIDs in the net file: LMC 2 on FT(4,3) for topo --guid2lid, route, verify and trace alike"
else echo "FAIL: no LIDs in the net file: $(cat "$tmp/err" "$tmp/v" 2>/dev/null | head -5)"; fails=$((fails + 1)); fi
# An engine that cannot route the fabric is refused before the report's
# first line (the unicast part was printed, then exit 2).
if "$IBUNION" route "$tmp/m33.net" --engine xymesh --lft "$tmp/m33.lft" 2>/dev/null; then
  "$IBUNION" verify "$tmp/m33.net" --lft "$tmp/m33.lft" --engine mlid >"$tmp/v" 2>"$tmp/err"; rc=$?
else rc=0; fi
if [ $rc -eq 2 ] && [ ! -s "$tmp/v" ] && grep -q "not an m-port n-tree" "$tmp/err"
then echo "PASS: verify --engine mlid on a mesh: refused (exit 2) before any report line"
else echo "FAIL: verify --engine mlid on a mesh: rc $rc, stdout: $(head -2 "$tmp/v")"; fails=$((fails + 1)); fi
# An SL2VL dump without one switch's tables: refused naming it (verify read
# the switch as all VL 0 and passed; sim refused it in its own words).
if "$IBUNION" route "$tmp/m33.net" --engine xymesh --options xymesh_vls=2 --lft "$tmp/m33v.lft" \
  --sl2vl "$tmp/m33v.sl2vl" 2>/dev/null; then
  awk '/^# SL2VL table: Lid/ {skip = ($5 == 10)} !skip' "$tmp/m33v.sl2vl" >"$tmp/m33cut.sl2vl"
fi
expect "$tmp/m33cut.sl2vl: no SL2VL table for switch N(0,0) (0x0000000000200000, LID 10) (read-sl2vl and route --sl2vl write every switch's" \
  "$IBUNION" verify "$tmp/m33.net" --lft "$tmp/m33v.lft" --sl2vl "$tmp/m33cut.sl2vl" --deadlock
# sim lays out the same LIDs and says so too (it used to pick the LMC
# without a word); --quiet keeps it quiet.
# shellcheck disable=SC2086
if "$IBUNION" sim "$tmp/nolid.net" --routing mlid --load 0.1 $short >/dev/null 2>"$tmp/err" &&
  grep -qF "ibunion sim: note: $tmp/nolid.net has no LIDs: the generator's layout at LMC 2" "$tmp/err" &&
  "$IBUNION" sim "$tmp/nolid.net" --routing mlid --load 0.1 --quiet $short >/dev/null 2>"$tmp/err" && [ ! -s "$tmp/err" ]
then echo "PASS: sim on a net file without LIDs notes the layout's LMC (not with --quiet)"
else echo "FAIL: sim without LIDs: $(head -3 "$tmp/err")"; fails=$((fails + 1)); fi
# Tables made at another LMC than the one they are read at: each LID would
# be another destination (trace went on and named the wrong host). The
# headers' switch LIDs give it away.
"$IBUNION" route "$tmp/nolid.net" --engine mlid --lmc 0 --lft "$tmp/lmc0.lft" 2>/dev/null
expect "$tmp/lmc0.lft:1: switch SW<00,0> (0x0000000000200000) has LID 68 in the fabric but LID 17 in this table's header: the tables were made for other LIDs" \
  "$IBUNION" trace "$tmp/nolid.net" --lft "$tmp/lmc0.lft" --from 'P(000)' --dlid 8
"$IBUNION" trace "$tmp/nolid.net" --lmc 0 --lft "$tmp/lmc0.lft" --from 'P(000)' --dlid 8 >/dev/null 2>&1 &&
  echo "PASS: trace at the LMC the tables were made with" || { echo "FAIL: trace --lmc 0 of LMC-0 tables"; fails=$((fails + 1)); }
# A mesh at LMC 2: topo writes the layout route and verify use at --lmc 2
# (it refused, claiming meshes need LMC 0), and xymesh routes every LID.
if "$IBUNION" topo mesh 3 3 --lmc 2 --guid2lid "$tmp/m.guid2lid" -o "$tmp/m.net" 2>"$tmp/err" &&
  grep -q "^0x0000000000100001 0x0004 0x0007$" "$tmp/m.guid2lid" &&
  "$IBUNION" route "$tmp/m.net" --guid2lid "$tmp/m.guid2lid" --engine xymesh --lft "$tmp/m.lft" 2>/dev/null &&
  "$IBUNION" verify "$tmp/m.net" --lmc 2 --lft "$tmp/m.lft" --engine xymesh --deadlock >/dev/null
then echo "PASS: topo mesh --lmc 2 writes the LMC-2 layout, routed and verified"
else echo "FAIL: topo mesh --lmc 2: $(head -3 "$tmp/err")"; fails=$((fails + 1)); fi
# inspect knows meshes too (it refused them as fat-trees, so setup-bench
# --fabrics mesh-5x5 counted 0 hosts); neither shape: both reasons.
"$IBUNION" inspect "$top/topologies/mesh-5x5.net" >"$tmp/o" 2>"$tmp/err"
if [ "$(head -1 "$tmp/o")" = "mesh 5x5 25 switches 25 hosts" ] && [ "$(grep -c '^host .* H([0-4],[0-4])$' "$tmp/o")" -eq 25 ] &&
  grep -q "^switch 0x0000000000200000 lid [0-9]* N(0,0) E=1 N=2 W=- S=- host=5$" "$tmp/o"
then echo "PASS: inspect labels a mesh"
else echo "FAIL: inspect of mesh-5x5: $(head -2 "$tmp/o") $(head -2 "$tmp/err")"; fails=$((fails + 1)); fi
# --dor-order: OpenSM's port order for dor, of a mesh only; never onto an input.
cp "$top/topologies/mesh-4x4.net" "$tmp/m.net"
mkdir -p "$tmp/dor"
expect "ibunion inspect: --dor-order: $net is a fat-tree; dor's port order is for a 2-D mesh" \
  "$IBUNION" inspect "$net" --dor-order "$tmp/dor/order"
[ -z "$(ls -A "$tmp/dor")" ] && echo "PASS: inspect --dor-order of a fat-tree: no file left" ||
  { echo "FAIL: inspect --dor-order of a fat-tree left $(ls -A "$tmp/dor")"; fails=$((fails + 1)); }
expect "ibunion inspect: $tmp/m.net: named for an output, but it is an input of this command" \
  "$IBUNION" inspect "$tmp/m.net" --dor-order "$tmp/m.net"
cmp -s "$tmp/m.net" "$top/topologies/mesh-4x4.net" && echo "PASS: inspect --dor-order NETFILE: net file kept" ||
  { echo "FAIL: inspect --dor-order NETFILE replaced the net file"; fails=$((fails + 1)); }
expect "ibunion inspect: option --dor-order: expected a value, got an empty one" "$IBUNION" inspect "$tmp/m.net" --dor-order ""
if "$IBUNION" inspect "$tmp/m.net" --dor-order - 2>"$tmp/err" >"$tmp/o" && [ "$(grep -c '^0x' "$tmp/o")" -eq 16 ] &&
  grep -qx '0x0000000000200005 1 3 2 4' "$tmp/o" && [ "$(head -1 "$tmp/err")" = "mesh 4x4 16 switches 16 hosts" ]
then echo "PASS: inspect --dor-order -: the order on stdout (E W N S ports), the listing on stderr"
else echo "FAIL: inspect --dor-order -: $(head -3 "$tmp/o") / $(head -2 "$tmp/err")"; fails=$((fails + 1)); fi
# A fat-tree with a cable gone: inspect printed the header of a complete
# one and said nothing; what is missing goes to stderr (stdout unchanged),
# with the cable by the listing's labels: the one between 0x...0c and
# 0x...04, named SW<00,2> and SW<00,1> in the file and labelled so still
# (they were SW<01,2> and SW<01,1> while digits were numbered from a
# switch that had lost the cable).
grep -v -e '^\[1\]	"SW<00,2>"\[3\]$' -e '^\[3\]	"SW<00,1>"\[1\]$' "$top/topologies/ft-4-3.net" >"$tmp/deg.net"
if "$IBUNION" inspect "$tmp/deg.net" --guid2lid "$top/topologies/ft-4-3.guid2lid" >"$tmp/o" 2>"$tmp/err" &&
  grep -qxF "ibunion: note: degraded FT(4,3): 1 of 32 switch links, 0 of 20 switches and 0 of 16 hosts missing" "$tmp/err" &&
  grep -qxF "ibunion: note: missing, by the labels below: links SW<00,2>-SW<00,1>" "$tmp/err" &&
  grep -qx "switch 0x0000000000200004 lid 72 SW<00,1>" "$tmp/o" && grep -qx "switch 0x000000000020000c lid 80 SW<00,2>" "$tmp/o" &&
  [ "$(head -1 "$tmp/o")" = "fattree FT(4,3) 20 switches 16 hosts" ] &&
  "$IBUNION" inspect "$top/topologies/ft-4-3.net" --guid2lid "$top/topologies/ft-4-3.guid2lid" >/dev/null 2>"$tmp/err" && [ ! -s "$tmp/err" ]
then echo "PASS: inspect of a degraded fat-tree says what is missing on stderr (a complete one: nothing)"
else echo "FAIL: inspect of a degraded fat-tree: $(head -2 "$tmp/err")"; fails=$((fails + 1)); fi
# A switch the degraded labelling leaves out (both down links of SW<00,1>
# gone) was printed as 'SW<,-1>': inspect shows '-', trace its GUID.
grep -v -e '^\[1\]	"SW<00,2>"\[3\]$' -e '^\[3\]	"SW<00,1>"\[1\]$' -e '^\[2\]	"SW<01,2>"\[3\]$' \
  -e '^\[3\]	"SW<00,1>"\[2\]$' "$top/topologies/ft-4-3.net" >"$tmp/cut.net"
g43=$top/topologies/ft-4-3.guid2lid
if "$IBUNION" inspect "$tmp/cut.net" --guid2lid "$g43" >"$tmp/o" 2>/dev/null &&
  grep -qx "switch 0x0000000000200004 lid 72 -" "$tmp/o" && ! grep -q "SW<,-1>" "$tmp/o" &&
  "$IBUNION" route "$tmp/cut.net" --guid2lid "$g43" --engine mlid --lft "$tmp/cut.lft" 2>/dev/null &&
  "$IBUNION" trace "$tmp/cut.net" --guid2lid "$g43" --lft "$tmp/cut.lft" --base-lid-load >"$tmp/o" 2>/dev/null &&
  grep -qx "0x0000000000200004 level -1 routes 0" "$tmp/o" && ! grep -q "SW<,-1>" "$tmp/o"
then echo "PASS: a left-out switch of a degraded tree: '-' in inspect, its GUID in trace, no 'SW<,-1>'"
else echo "FAIL: a left-out switch: $(grep -e '200004' -e 'SW<,-1>' "$tmp/o" | head -2)"; fails=$((fails + 1)); fi
# A switch whose host is down has no host port: '-' as for a border (it
# printed host=0, port 0 being the switch's own management port).
awk 'BEGIN { RS = ""; ORS = "\n\n" } !/Hca\t1 "H\(2,2\)"/' "$top/topologies/mesh-5x5.net" | grep -v '"H(2,2)"\[' >"$tmp/nohost.net"
"$IBUNION" inspect "$tmp/nohost.net" >"$tmp/o" 2>"$tmp/err"
if grep -q "^switch 0x[0-9a-f]* lid [0-9]* N(2,2) E=1 N=2 W=3 S=4 host=-$" "$tmp/o"
then echo "PASS: inspect shows a switch whose host is down with host=-"
else echo "FAIL: inspect of a mesh with H(2,2) down: $(grep 'N(2,2)' "$tmp/o") $(head -2 "$tmp/err")"; fails=$((fails + 1)); fi
sed -e '/^\[1\]\t"N(1,0)"\[3\]$/d' -e '/^\[3\]\t"N(0,0)"\[1\]$/d' "$top/topologies/mesh-5x5.net" >"$tmp/cut.net"
expect "not an m-port n-tree: switch N(0,0) (0x0000000000200000, LID 26): every one of the 25 switches has hosts; an m-port n-tree with more than one switch has switches without hosts above its leaves" "$IBUNION" inspect "$tmp/cut.net"
expect "; not a 2-D mesh: switch N(0,0) (0x0000000000200000, LID 26): no link to its grid neighbour switch N(1,0)" \
  "$IBUNION" inspect "$tmp/cut.net"
# A single switch is FT(m,1), m hosts on it ("a leaf has 3 hosts; m/2
# must be ..." was once said of it, and 3/2 is no m/2); a mesh is no
# fat-tree because no switch lies above its leaves ("a leaf has 1 hosts").
"$IBUNION" topo fattree 4 1 -o "$tmp/ft41.net"
sed '13,16d;/"P(3)"/d' "$tmp/ft41.net" >"$tmp/ft41-3.net"
expect "not an m-port n-tree: switch SW<,0> (0x0000000000200000, LID 4): a single switch with 3 hosts; FT(m,1) has m hosts, m even and >= 4" \
  "$IBUNION" inspect "$tmp/ft41-3.net"
# ... and why it is not read with a host missing either: "no top switch:
# no switch has only links toward the hosts" was said of a switch with
# nothing else.
expect "FT(m,1) has m hosts, m even and >= 4; nor is it one with parts missing: a single switch is labelled only whole, with m hosts (any engine routes one switch alike)" \
  "$IBUNION" inspect "$tmp/ft41-3.net"
# --save on a sweep without --point, and --point out of range, are refused
# before the fabric is read and routed (the engine's notes came first, and
# a large fabric was routed only to be refused): the error is all of stderr.
mkdir -p "$tmp/save" && rm -f "$tmp/save/"*
for bad in "--save $tmp/save/p.rec" "--point 9"; do
  # shellcheck disable=SC2086
  "$IBUNION" sim "$top/topologies/ft-4-3.net" --routing mlid --sweep 0.1:0.5:0.1 $bad >/dev/null 2>"$tmp/err"
  rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qE "one point per file|expected a point index 0..4" "$tmp/err"
  then echo "PASS: sim $bad on a 5-point sweep refused before routing: $(cat "$tmp/err")"
  else echo "FAIL: sim $bad: rc $rc, stderr: $(head -3 "$tmp/err" | tr '\n' '|')"; fails=$((fails + 1)); fi
done
[ -z "$(ls -A "$tmp/save")" ] && echo "PASS: sim --save refused: no file written" ||
  { echo "FAIL: sim --save refused, yet left $(ls -A "$tmp/save")"; fails=$((fails + 1)); }
# A host on a top or middle switch (a management node on a spine): both
# labellings took that switch for a leaf and blamed its host count or a
# link; the refusal names the host's cable instead.
sed -e 's/^Switch\t4 "SW<00,0>"$/Switch\t5 "SW<00,0>"\n[5]\t"MGMT"[1]/' "$top/topologies/ft-4-3.net" >"$tmp/top-host.net"
printf '\ncaguid=0x0000000000900000\nHca\t1 "MGMT"\n[1]\t"SW<00,0>"[5]\n' >>"$tmp/top-host.net"
expect "not an m-port n-tree: switch SW<00,0> (0x0000000000200000, LID 18) port 5: host MGMT is cabled to a switch with 4 links to other switches, as a top or middle switch has (4 on the switches without hosts); hosts belong on leaves" \
  "$IBUNION" route "$tmp/top-host.net" --engine mlid --lft "$tmp/out/lft"
sed -e 's/^Switch\t4 "SW<01,1>"$/Switch\t5 "SW<01,1>"\n[5]\t"MGMT"[1]/' "$top/topologies/ft-4-3.net" >"$tmp/mid-host.net"
printf '\ncaguid=0x0000000000900000\nHca\t1 "MGMT"\n[1]\t"SW<01,1>"[5]\n' >>"$tmp/mid-host.net"
expect "SW<01,1> (0x0000000000200005, LID 23) port 5: host MGMT is cabled to a switch with 4 links" "$IBUNION" inspect "$tmp/mid-host.net"
# No IB port here (no ibsim, no preload): the hint names the libumad2sim.so
# configure found, by its full path (a bare name is not found by ld.so).
if [ -n "${IBUNION_UMAD2SIM:-}" ]; then
  expect "under ibsim: is LD_PRELOAD=$IBUNION_UMAD2SIM set" env -u LD_PRELOAD "$IBUNION" mcjoin join ff12:e001::1
fi
# Under libumad2sim. Not under the sanitizers: ASan aborts a program with a
# library preloaded ahead of it. libumad2sim writes ./sys-PID: run in $tmp.
if [ -n "${IBUNION_UMAD2SIM:-}" ] && [ -z "${ASAN_OPTIONS:-}" ]; then
  umad() { env -C "$tmp" LD_PRELOAD="$IBUNION_UMAD2SIM" timeout 60 "$@"; }
  # No ibsim: libumad2sim retries the refused socket every 2 s, forever, so
  # mcjoin hung; now an error naming the socket within seconds.
  start=$SECONDS
  expect "ibunion mcjoin: ibsim is not reachable: nothing serves ibsim's socket '@ibunion-cli-none-$$:ctl' (abstract Unix socket; IBSIM_SOCKNAME=ibunion-cli-none-$$)" \
    umad env IBSIM_SOCKNAME=ibunion-cli-none-$$ "$IBUNION" mcjoin join ff12:e001::1
  if [ $((SECONDS - start)) -le 15 ]; then echo "PASS: mcjoin with no ibsim gave up in $((SECONDS - start)) s"
  else echo "FAIL: mcjoin with no ibsim took $((SECONDS - start)) s"; fails=$((fails + 1)); fi
  # mcsetup's SA workers say it too, without their protocol word ("fail ibsim ...").
  expect "SA worker on host 'P(000)': ibsim is not reachable: nothing serves ibsim's socket" \
    umad env IBSIM_SOCKNAME=ibunion-cli-none-$$ "$IBUNION" mcsetup burst "$top/topologies/ft-4-3.net" \
    --guid2lid "$top/topologies/ft-4-3.guid2lid" --groups 1 --members 2 --workers 1
  if command -v ibsim >/dev/null; then
    # An ibsim of our own, stopped by PID (the EXIT trap too, on failure).
    sock=ibunion-cli-$$
    IBSIM_SOCKNAME=$sock ibsim -s "$net" </dev/null >"$tmp/ibsim.log" 2>&1 &
    ibsim_pid=$!
    for _ in $(seq 300); do
      grep -q "Network simulator ready" "$tmp/ibsim.log" && break
      kill -0 $ibsim_pid 2>/dev/null || break
      sleep 0.1
    done
    # An unknown SIM_HOST: libumad2sim's exit status 255 and "connect
    # failed"; now named, with ibsim's socket, status 2.
    expect "ibunion: ibsim's socket '@$sock:ctl' (abstract Unix socket; IBSIM_SOCKNAME=$sock) refused to attach this process at SIM_HOST='P(99)': no node of its fabric has that node name or node description" \
      umad env IBSIM_SOCKNAME=$sock SIM_HOST='P(99)' "$IBUNION" mcjoin join ff12:e001::1
    # SIM_HOST unset: ibsim's default node, which the error names (no SM
    # runs here, so every join fails), and that SIM_HOST chooses it.
    expect "no subnet manager known to the local port (SM LID is 0) (under ibsim with SIM_HOST unset, so at ibsim's default node 'P(00)'; SIM_HOST or --sim-host chooses the node)" \
      umad env -u SIM_HOST IBSIM_SOCKNAME=$sock "$IBUNION" mcjoin join ff12:e001::1
    expect "no subnet manager known to the local port (SM LID is 0) (under ibsim at SIM_HOST='P(01)')" \
      umad env IBSIM_SOCKNAME=$sock "$IBUNION" mcjoin join ff12:e001::1 --sim-host 'P(01)'
    # A CA or port the simulated node does not have: named as such (it
    # asked whether LD_PRELOAD was set and ibsim running, both true).
    expect "cannot open local IB port bogus port 1: no such CA or port here (CAs: " \
      umad env IBSIM_SOCKNAME=$sock "$IBUNION" mcjoin join ff12:e001::1 --sim-host 'P(01)' --ca bogus --port 1
    # mcsetup's SA workers die with the harness when it is killed (they were
    # left running, reparented to init, holding ibsim client slots): here
    # they hang on an ibsim that is stopped (SIGSTOP: its socket is there,
    # nothing answers), the harness gets SIGTERM.
    kill -STOP $ibsim_pid
    IBSIM_SOCKNAME=$sock LD_PRELOAD=$IBUNION_UMAD2SIM "$IBUNION" mcsetup measure "$net" --guid2lid "$g2l" \
      --sizes 4 --workers 2 >/dev/null 2>&1 &
    harness=$!
    workers=""
    for _ in $(seq 100); do  # both workers forked: up to 20 s on a loaded machine
      workers=$(pgrep -P $harness | xargs)
      [ "$(wc -w <<<"$workers")" -ge 2 ] && break
      sleep 0.2
    done
    kill $harness; wait $harness 2>/dev/null
    sleep 0.5
    left=$(for w in $workers; do ps -o pid= -o stat= -p "$w" | grep -v ' Z'; done)
    if [ -n "$workers" ] && [ -z "$left" ]; then echo "PASS: mcsetup's SA workers ($workers) die with the killed harness"
    else echo "FAIL: mcsetup workers '$workers' after SIGTERM to the harness: left $left"; fails=$((fails + 1)); kill $workers 2>/dev/null; fi
    kill $ibsim_pid; kill -CONT $ibsim_pid; wait $ibsim_pid 2>/dev/null
    ibsim_pid=""
  fi
fi
# fabric-run checks its options before it starts anything: '08' was taken
# for octal (the deadline failed to compute and the run went on without
# one), a directory for --net reached awk, and a --plugin-dir without the
# plugin gave a "successful" run on the fallback engine.
fr=$top/sim-harness/ibsim/fabric-run
mkdir -p "$tmp/noplugin"
expect "option --timeout: expected seconds 1..999999, got '08'" "$fr" --net "$net" --timeout 08 --out "$tmp/fr-out"
expect "option --net $tmp/noplugin: not a readable file" "$fr" --net "$tmp/noplugin" --out "$tmp/fr-out"
expect "option --guid2lid $tmp/noplugin: not a readable file" "$fr" --net "$net" --guid2lid "$tmp/noplugin" --out "$tmp/fr-out"
expect "option --plugin-dir $tmp/noplugin: no libibunion.so there (--plugin-name ibunion): build the plugin or fix the path" \
  "$fr" --net "$net" --plugin-dir "$tmp/noplugin" --plugin-name ibunion --out "$tmp/fr-out"
expect "option --sm-host P(99): no node of $net has that name or description" "$fr" --net "$net" --sm-host 'P(99)' --out "$tmp/fr-out"
# A misspelt flag last on the line is unknown, not an option without its
# value; a net file given without --net is named as such.
expect "fabric-run: unknown option --no-mtf (see --help)" "$fr" --net "$net" --out "$tmp/fr-out" --no-mtf
# OpenSM's log without INFO holds neither SUBNET UP nor the engine: a run
# that came up was reported as "OpenSM exited before SUBNET UP".
expect "fabric-run: --conf-line 'log_flags 0x01': fabric-run reads SUBNET UP and the engine that routed from OpenSM's log, both logged at INFO (0x02); use log_flags 0x03" \
  "$fr" --net "$net" --out "$tmp/fr-out" --conf-line "log_flags 0x01"
# ... and a log elsewhere, or held in OpenSM's buffers, likewise (a timeout).
expect "fabric-run: --conf-line 'log_file /tmp/x.log': fabric-run sets log_file itself (it reads OpenSM's log in --out DIR as it is written)" \
  "$fr" --net "$net" --out "$tmp/fr-out" --conf-line "log_file /tmp/x.log"
# A line that overrides --engine, --lmc or the plugin: OpenSM took it, and
# the run said mlid had fallen back when it never ran.
expect "fabric-run: --conf-line 'routing_engine xymesh,minhop': use --engine (fabric-run reports the run by it)" \
  "$fr" --net "$net" --out "$tmp/fr-out" --engine mlid,minhop --conf-line "routing_engine xymesh,minhop"
expect "fabric-run: --conf-line 'lmc 7': use --lmc" "$fr" --net "$net" --out "$tmp/fr-out" --conf-line "lmc 7"
expect "fabric-run: --conf-line 'event_plugin_options mlid_rotate=off': use --plugin-options" \
  "$fr" --net "$net" --out "$tmp/fr-out" --conf-line "event_plugin_options mlid_rotate=off"
expect "fabric-run: --conf-line 'force_log_flush FALSE': fabric-run sets force_log_flush itself" \
  "$fr" --net "$net" --out "$tmp/fr-out" --conf-line "force_log_flush FALSE"
expect "fabric-run: unexpected argument '$net': every argument is an option" "$fr" "$net" --out "$tmp/fr-out"
expect "fabric-run: option --out needs a value" "$fr" --net "$net" --out
# A forgotten value is not the next option ('--out --net F' made a
# directory named '--net').
expect "fabric-run: option --out needs a value (got the option --net; see --help)" env -C "$tmp" "$fr" --out --net "$net"
[ ! -e "$tmp/--net" ] && echo "PASS: fabric-run --out without its value: no directory '--net'" ||
  { echo "FAIL: fabric-run --out --net made $tmp/--net"; fails=$((fails + 1)); }
# A net file ibsim cannot load: ibsim names no line, ibunion's parser does.
if command -v ibsim >/dev/null; then
  sed 's/^Switch\t4 "SW<0,1>"$/Swtch\t4 "SW<0,1>"/' "$net" >"$tmp/badkw.net"
  line=$(grep -n '^Swtch' "$tmp/badkw.net" | cut -d: -f1)
  timeout 120 "$fr" --net "$tmp/badkw.net" --engine minhop --out "$tmp/fr-bad" >/dev/null 2>"$tmp/err"; rc=$?
  if [ $rc -eq 1 ] && [ -n "$line" ] &&
    grep -qF "fabric-run: ibsim exited while loading $tmp/badkw.net; ibunion reads it as: $tmp/badkw.net:$line: expected a node header" "$tmp/err"
  then echo "PASS: fabric-run names the net file's bad line ($line) when ibsim cannot load it"
  else echo "FAIL: fabric-run on a bad net file: rc $rc, $(tail -1 "$tmp/err")"; fails=$((fails + 1)); fi
  rm -rf "$tmp/fr-bad"
fi
touch "$tmp/fr-file"
expect "option --out $tmp/fr-file: exists and is not a directory" "$fr" --net "$net" --out "$tmp/fr-file"
[ ! -e "$tmp/fr-out" ] && echo "PASS: fabric-run with bad options: no output directory made" ||
  { echo "FAIL: fabric-run with bad options made $tmp/fr-out"; fails=$((fails + 1)); }
# sim_bench checks its options and points before it runs anything (they
# surfaced mid-run as "unbound variable" or as sim refusing "--load ft-4-3").
sb=$top/sim-harness/bench/sim_bench.sh
expect "sim_bench: option --reps: expected 1..9999, got '0'" bash "$sb" --reps 0 ft-4-2:0.5
expect "sim_bench: option --reps needs a value (see --help)" bash "$sb" ft-4-2:0.5 --reps
expect "sim_bench: option --base needs a value (got the option --reps; see --help)" bash "$sb" --base --reps 2 ft-4-2:0.5
lb=$top/sim-harness/bench/lean_bench.sh
expect "lean_bench: point 'ft-8-3-cut8:0.6': expected FATTREE:LOAD" bash "$lb" ft-8-3-cut8:0.6
expect "lean_bench: option --param route_ns=3: only measure_ns=NS is passed to both programs" bash "$lb" --param route_ns=3
# The README's two commands take no arguments: '--help' ran the whole job.
for script in sim-harness/run-default.sh tests/run-all.sh; do
  if bash "$top/$script" --help | grep -q '^Set-up first\|make check' && [ "${PIPESTATUS[0]}" -eq 0 ]; then
    echo "PASS: $script --help prints its header and runs nothing"
  else echo "FAIL: $script --help"; fails=$((fails + 1)); fi
  expect "$(basename "$script"): takes no arguments, got '--frobnicate' (see --help)" bash "$top/$script" --frobnicate
done
# The other benchmarks check their options the same way, before any run.
tio=$top/sim-harness/bench/table_io.sh db=$top/sim-harness/bench/degraded_balance.sh
expect "table_io: option --tree: expected M,N (e.g. 16,3), got '8'" bash "$tio" --tree 8
expect "table_io: option --base needs a value (got the option --reps; see --help)" bash "$tio" --base --reps 2
expect "table_io: option --reps: expected 1..99, got '0'" bash "$tio" --reps 0
# A baseline whose run fails stops the benchmark (exit 1, naming the run),
# now that the two builds take turns inside one function.
bash "$tio" --tree 4,2 --reps 2 --base /bin/false >"$tmp/tio.out" 2>"$tmp/tio.err"; rc=$?
if [ $rc -eq 1 ] && grep -qF "table_io: failed: route /bin/false" "$tmp/tio.err" && ! grep -q '^route' "$tmp/tio.out"; then
  echo "PASS: table_io --base /bin/false: $(head -1 "$tmp/tio.err"), exit 1, no row printed"
else echo "FAIL: table_io --base /bin/false -> rc $rc, stderr: $(head -2 "$tmp/tio.err" | xargs)"; fails=$((fails + 1)); fi
# With a real baseline whose output table_io drops, nothing is written
# beside /dev/null (the baseline's output went to /dev/null.base, a
# regular file as root and a failed run otherwise).
[ -f /dev/null.base ] && rm -f /dev/null.base
if bash "$tio" --tree 4,2 --reps 1 --base "$IBUNION" >"$tmp/tio.out" 2>"$tmp/tio.err" && grep -q '^route ' "$tmp/tio.out" &&
  [ ! -e /dev/null.base ]; then
  echo "PASS: table_io --base: both builds timed, their dropped output not written to /dev/null.base"
else echo "FAIL: table_io --base $IBUNION: $(head -2 "$tmp/tio.err" | xargs) (/dev/null.base: $(ls -l /dev/null.base 2>&1))"; fails=$((fails + 1)); fi
fb=$top/sim-harness/bench/flows_bench.sh
expect "flows_bench: option --mesh: expected X,Y (e.g. 64,64), got '8'" bash "$fb" --mesh 8
expect "flows_bench: option --tree needs a value (got the option --reps; see --help)" bash "$fb" --tree --reps 2
expect "flows_bench: option --base $tmp/none: not an executable file" bash "$fb" --base "$tmp/none"
cb=$top/sim-harness/bench/checks_bench.sh
expect "checks_bench: option --cut: expected a cable count >= 1, got '0'" bash "$cb" --cut 0
expect "checks_bench: option --mesh: expected X,Y (e.g. 90,90), got '90x90'" bash "$cb" --mesh 90x90
expect "checks_bench: option --reps: expected 1..99, got '100'" bash "$cb" --reps 100
expect "degraded_balance: option --seeds: expected 1..999, got '0'" bash "$db" --seeds 0
expect "degraded_balance: CUTS: expected a cable count, got 'x'" bash "$db" x
# A tree or cut topo cannot make: topo's reason, before the table's header.
expect "degraded_balance: FT(7,3) minus 1 cables: fattree: M must be even" bash "$db" --tree 7,3
expect "degraded_balance: FT(4,2) minus 99 cables: cannot remove 99 switch-to-switch links: the fabric has 8" \
  bash "$db" --tree 4,2 1 99
[ -z "$(bash "$db" --tree 4,2 1 99 2>/dev/null)" ] && echo "PASS: degraded_balance: nothing on stdout before refusing a cut" ||
  { echo "FAIL: degraded_balance printed before refusing a cut"; fails=$((fails + 1)); }
expect "sim_bench: unknown option --frobnicate (see --help)" bash "$sb" --frobnicate
expect "sim_bench: option --base $tmp/none: not an executable file" bash "$sb" --base "$tmp/none" ft-4-2:0.5
expect "sim_bench: option --base-param: needs --base (there is no base run)" bash "$sb" --base-param kernel=lean ft-4-2:0.5
if [ -x "$top/ibunion" ]; then  # sim_bench times the source tree's build
  ln -s "$top/ibunion" "$tmp/same-ibunion"
  expect "sim_bench: option --base $tmp/same-ibunion: is this build's own binary" bash "$sb" --base "$tmp/same-ibunion" ft-4-2:0.5
  # A base whose timed runs fail stops the benchmark, naming the run (the
  # failure had read as a rate of 0 and printed "-" as if there were no base).
  printf '#!/bin/sh\nexit 3\n' >"$tmp/failing-ibunion"
  chmod +x "$tmp/failing-ibunion"
  bash "$sb" --reps 1 --base "$tmp/failing-ibunion" ft-4-2:0.5 >/dev/null 2>"$tmp/err"
  rc=$?
  if [ $rc -eq 1 ] && grep -qF "sim_bench: a timed run failed: $tmp/failing-ibunion sim " "$tmp/err"; then
    echo "PASS: $(tail -1 "$tmp/err")"
  else
    echo "FAIL: sim_bench with a failing base -> rc $rc, stderr: $(tail -1 "$tmp/err")"
    fails=$((fails + 1))
  fi
fi
expect "sim_bench: point 'ft-4-2': expected FABRIC:LOAD or FABRIC:batch, FABRIC one of topologies/*.net (e.g. ft-8-3:0.6)" bash "$sb" ft-4-2
expect "sim_bench: point 'ft-4-2:batch': a batch point needs --param batch=N" bash "$sb" ft-4-2:batch
expect "sim_bench: point 'ft-4-2:batch': --traffic nosuch" bash "$sb" --traffic nosuch --param batch=1 ft-4-2:batch
# A --param value with a space reaches sim as one argument (it was split).
expect "sim_bench: point 'ft-4-2:0.5': --param nosuch=a b: unknown parameter 'nosuch'" \
  timeout 60 bash "$sb" --reps 1 --param "nosuch=a b" ft-4-2:0.5
# --instr without valgrind is refused, not dropped (PATH: dirname only, so
# sim-harness/setup.sh cannot install it either).
mkdir -p "$tmp/novg" && ln -sf "$(command -v dirname)" "$tmp/novg/dirname"
expect "sim_bench: option --instr: valgrind not found in PATH" env PATH="$tmp/novg" "$BASH" "$sb" --instr --reps 1 ft-4-2:0.5
# A load sim refuses is found before the first point's timed runs.
expect "sim_bench: point 'ft-4-2:0': --load 0: expected an offered load in (0, 64]" timeout 60 bash "$sb" --reps 1 ft-4-2:0.5 ft-4-2:0
# The core benchmarks check their words: atoi took "x" for LMC 0, --repeat 0
# indexed an empty vector (segfault), a misspelt option was dropped.
crb=${IBUNION_BUILD:-$top}/sim-harness/bench/core_route_bench
cmb=${IBUNION_BUILD:-$top}/sim-harness/bench/core_mcast_bench
expect "core_route_bench: option --repeat: expected 1..1000000, got '0'" "$crb" 4 2 0 --repeat 0
expect "core_route_bench: LMC: expected 0..7, got 'x'" "$crb" 4 2 x
expect "core_route_bench: option --repeat needs a value" "$crb" 4 2 0 mlid --repeat
expect "core_route_bench: unexpected argument '--repaet'" "$crb" 4 2 0 --repaet 3
expect "core_mcast_bench: option --repeat: expected 1..1000000, got '-3'" "$cmb" 4 2 3 --repeat -3
expect "core_mcast_bench: unexpected argument '--rep'" "$cmb" 4 2 3 --rep 5
expect "core_mcast_bench: option --repeat needs a value" "$cmb" 4 2 3 --repeat
# A tiny fabric's route time is not printed as 0 (its ratio was "-"). Any
# non-zero time: the pattern once wanted it below 0.0001 s, which a loaded
# machine or the sanitized build overran now and then (0.000123 failed).
out=$("$crb" 4 2 0)
grep -qE "median ([1-9]|0\.[0-9]*[1-9])" <<<"$out" && echo "PASS: core_route_bench FT(4,2): a non-zero time" ||
  { echo "FAIL: core_route_bench FT(4,2) printed $out"; fails=$((fails + 1)); }
# The routing benchmarks check every fabric before the first (long) run
# (TMPDIR unusable: the old order failed at mktemp, before any run).
expect "routing_bench: fabric 'ft-8-x': expected ft-M-N (e.g. ft-8-3)" env TMPDIR="$tmp/none" bash "$top/sim-harness/bench/routing_bench.sh" ft-4-2 ft-8-x
expect "mesh_routing_bench: expected XxY, got '5by5'" env TMPDIR="$tmp/none" bash "$top/sim-harness/bench/mesh_routing_bench.sh" 4x4 5by5
# A fabric named twice ran twice into the same directories; a mesh whose
# farthest host is beyond directed-route reach from the centre was routed
# by OpenSM only to be refused by xymesh for the hosts it never found.
expect "routing_bench: fabric 'ft-4-2' named twice" env TMPDIR="$tmp/none" bash "$top/sim-harness/bench/routing_bench.sh" ft-4-2 ft-4-2
expect "mesh_routing_bench: mesh '4x4' named twice" env TMPDIR="$tmp/none" bash "$top/sim-harness/bench/mesh_routing_bench.sh" 4x4 4x4
expect "mesh_routing_bench: mesh '1x130': its farthest host is 67 links from the centre host" \
  env TMPDIR="$tmp/none" bash "$top/sim-harness/bench/mesh_routing_bench.sh" 1x130
# ... and every fabric `ibunion topo` refuses (odd M, a 1x1 mesh) before
# the first fabric's OpenSM runs, its temp dir removed. They run from the
# source tree's build (they would build it first).
if [ -x "$top/ibunion" ] && [ -f "$top/plugin/osm/.libs/libibunion.so" ]; then
  mkdir -p "$tmp/rb"
  expect "routing_bench: fabric 'ft-5-3': fattree: M must be even (m/2 ports down, m/2 up), got 5" \
    env TMPDIR="$tmp/rb" timeout 60 bash "$top/sim-harness/bench/routing_bench.sh" ft-4-2 ft-5-3
  expect "mesh_routing_bench: fabric '1x1': mesh: X and Y must be at least 1 and X*Y at least 2, got 1x1" \
    env TMPDIR="$tmp/rb" timeout 60 bash "$top/sim-harness/bench/mesh_routing_bench.sh" 2x2 1x1
  [ -z "$(ls -A "$tmp/rb")" ] && echo "PASS: routing benchmarks refusing a fabric: no temp dir left" ||
    { echo "FAIL: routing benchmarks refusing a fabric left $(ls -A "$tmp/rb" | xargs)"; fails=$((fails + 1)); }
fi
expect "sweep_soak: SWEEPS: expected 1..9999999, got 'ten'" bash "$top/sim-harness/bench/sweep_soak.sh" ten
expect "sweep_soak: NETFILE $tmp/none.net: not a readable file" bash "$top/sim-harness/bench/sweep_soak.sh" 10 "$tmp/none.net"
# A NETFILE relative to the caller's directory, not to the source tree.
printf 'Switch 4 "S1"\n' >"$tmp/nohca.net"
expect "sweep_soak: NETFILE $tmp/nohca.net: no Hca records" \
  bash -c 'cd "$1" && bash "$2" 1 nohca.net' - "$tmp" "$top/sim-harness/bench/sweep_soak.sh"
# --help prints each benchmark's header (it was refused as a fabric or a count).
for b in routing_bench mesh_routing_bench sweep_soak; do
  h=$(bash "$top/sim-harness/bench/$b.sh" --help 2>&1) && grep -q "sim-harness/bench/$b.sh \[" <<<"$h" && ! grep -q "^set -e" <<<"$h" &&
    echo "PASS: $b.sh --help prints its usage" || { echo "FAIL: $b.sh --help: $(head -n 2 <<<"$h" | xargs)"; fails=$((fails + 1)); }
done
# setup-bench refuses a fabric named twice before it runs anything.
expect "setup-bench: --fabrics ft-4-3,ft-8-3,ft-4-3: ft-4-3 given twice; name each fabric once" \
  env TMPDIR="$tmp" "$top/sim-harness/mcast/setup-bench" --fabrics ft-4-3,ft-8-3,ft-4-3 --out "$tmp/sb-out"
[ ! -e "$tmp/sb-out" ] && echo "PASS: setup-bench with a fabric named twice: no output directory made" ||
  { echo "FAIL: setup-bench with a fabric named twice made $tmp/sb-out"; fails=$((fails + 1)); }
# ... and every other fabric, --quick next to --fabrics and an output
# directory it cannot write, all at once (timeout: a run started is a
# failure): an unknown fabric was found after the ones before it had run,
# a mesh after both of its OpenSM runs (the timing model's mlid refuses
# it), --fabrics with --quick was replaced by ft-4-3 without a word, and
# the output directory was written only after every run.
sb() { expect "$1" env TMPDIR="$tmp" timeout 30 "$top/sim-harness/mcast/setup-bench" "${@:2}"; }
sb "setup-bench: --fabrics ft-4-2,ft-9-9: no topology ft-9-9 ($top/topologies/ft-9-9.net and .guid2lid)" \
  --fabrics ft-4-2,ft-9-9 --out "$tmp/sb-out"
sb "setup-bench: --fabrics mesh-4x4: mesh-4x4 is not a fat-tree (ft-M-N): the mlid engine measured here routes m-port n-trees only" \
  --fabrics mesh-4x4 --out "$tmp/sb-out"
sb "setup-bench: --quick measures ft-4-3 only, not with --fabrics ft-8-3" --quick --fabrics ft-8-3 --out "$tmp/sb-out"
sb "setup-bench: --fabrics ft-4-3,ft-16-3: ft-16-3 has 16-port switches; ibsim's multicast tables are unusable past 15 ports" \
  --fabrics ft-4-3,ft-16-3 --out "$tmp/sb-out"
sb "setup-bench: output directory /sys/kernel/ibunion-sb: cannot create it or write there" --out /sys/kernel/ibunion-sb
# A value option given twice (the last one won) or without its value.
sb "setup-bench: option --out given twice: give it once" --out "$tmp/sb-out" --out "$tmp/sb-out2"
sb "setup-bench: option --fabrics given twice: give it once" --fabrics ft-4-3 --fabrics ft-8-3 --out "$tmp/sb-out"
sb "setup-bench: --out needs a directory (got the option --quick)" --out --quick
[ ! -e "$tmp/sb-out" ] && echo "PASS: setup-bench refusals: no output directory made" ||
  { echo "FAIL: setup-bench refusals made $tmp/sb-out"; fails=$((fails + 1)); }
# Two runs into one directory (both --quick runs' default) took each
# other's staged files; the second is refused while the first writes.
mkdir -p "$tmp/sb-busy"
exec {busy}<"$tmp/sb-busy"
flock -n "$busy" || { echo "FAIL: could not hold a lock on $tmp/sb-busy"; fails=$((fails + 1)); }
sb "setup-bench: output directory $tmp/sb-busy: another setup-bench run is writing there (give each run its own --out)" \
  --quick --out "$tmp/sb-busy"
exec {busy}>&-
# A net file with LIDs on some ports only: refused at the first port without
# one, not given the generated layout everywhere (its own LIDs dropped).
sed '3s/$/\t# lid 4 lmc 0/' "$net" >"$tmp/partial.net"
rm -rf "$tmp/out"; mkdir -p "$tmp/out"
expect "$tmp/partial.net:7: port 1 of \"P(01)\" has no LID (no 'lid N', or 'lid 0', in its comment), but port 1 of \"P(00)\" (line 3) has one: expected LIDs on all switches and end ports or on none" \
  "$IBUNION" route "$tmp/partial.net" --engine mlid --lft "$tmp/out/partial.lft"
nothing_left "route of a partly LIDded net file"
expect "$tmp/partial.net:7: port 1 of \"P(01)\" has no LID" "$IBUNION" sim "$tmp/partial.net" --routing mlid
# Text after a port reference names the line and the text.
sed '3s/$/junk/' "$net" >"$tmp/junk.net"
expect "$tmp/junk.net:3: unexpected 'junk' after \"SW<0,1>\"[1]: expected a '#' comment or the end of the line" \
  "$IBUNION" inspect "$tmp/junk.net"
# trace: a DLID nothing has is no "broken route" of the tables (exit 1);
# options of another use of trace are not ignored.
expect "ibunion trace: option --dlid: no end port or switch of $net has LID 1000 (its LIDs run from 2 to 23" \
  "$IBUNION" trace "$net" --lft "$tmp/good.lft" --from 'P(00)' --dlid 1000
expect "ibunion trace: --base-lid-load: not with --from/--dlid (one use of trace at a time)" \
  "$IBUNION" trace "$net" --lft "$tmp/good.lft" --from 'P(00)' --dlid 4 --base-lid-load
expect "ibunion trace: --mft: not with --from/--dlid (it follows the LFTs only" \
  "$IBUNION" trace "$net" --lft "$tmp/good.lft" --mft /dev/null --from 'P(00)' --dlid 4
expect "ibunion trace: --lft: not with --mlid (it reads the MFTs only" \
  "$IBUNION" trace "$net" --lft "$tmp/good.lft" --mft /dev/null --mlid 0xc001
expect "ibunion trace: --lft: not with --groups-per-switch (it reads the MFTs only" \
  "$IBUNION" trace "$net" --lft "$tmp/good.lft" --groups-per-switch
# Each use asks for its own file before any is read: --mft alone was told
# 'this use needs --lft FILE' once the MFTs were read.
expect "ibunion trace: --mft goes with --mlid MLID or --groups-per-switch; routes (--from/--dlid, --base-lid-load, --link-sharing) follow --lft FILE" \
  "$IBUNION" trace "$net" --mft /dev/null
expect "ibunion trace: --mlid needs --mft FILE" "$IBUNION" trace "$net" --mlid 0xc001
expect "ibunion trace: --groups-per-switch needs --mft FILE" "$IBUNION" trace "$net" --groups-per-switch
expect "ibunion trace: expected NETFILE and --lft FILE or --mft FILE" "$IBUNION" trace "$net"
"$IBUNION" route "$top/topologies/mesh-3x7.net" --engine xymesh --lft "$tmp/mesh.lft" 2>/dev/null
expect "ibunion trace: --base-lid-load needs a fat-tree" \
  "$IBUNION" trace "$top/topologies/mesh-3x7.net" --lft "$tmp/mesh.lft" --base-lid-load
# trace --link-sharing (a Python helper once, with files read its own
# way): files that do not belong together, path maps of other LIDs or
# none at all, and who shares the links of the paper's tables.
"$IBUNION" route "$net" --engine mlid --lft "$tmp/m42.lft" --paths "$tmp/m42.paths" 2>/dev/null
expect "ibunion trace: --paths goes with --link-sharing" "$IBUNION" trace "$net" --lft "$tmp/m42.lft" --paths "$tmp/m42.paths"
expect "ibunion trace: --paths: not with --base-lid-load (--paths goes with --link-sharing)" \
  "$IBUNION" trace "$net" --lft "$tmp/m42.lft" --paths "$tmp/m42.paths" --base-lid-load
expect "ibunion trace: --link-sharing needs a fat-tree (up and down are its levels)" \
  "$IBUNION" trace "$top/topologies/mesh-3x7.net" --lft "$tmp/mesh.lft" --link-sharing
expect "$tmp/m42.lft:1: expected 'src_port_guid dst_port_guid dlid'" \
  "$IBUNION" trace "$net" --lft "$tmp/m42.lft" --paths "$tmp/m42.lft" --link-sharing
awk 'NR == 1 {$3 = 17} {print}' "$tmp/m42.paths" >"$tmp/other.paths"
expect "$tmp/other.paths:1: DLID 17: expected one of" \
  "$IBUNION" trace "$net" --lft "$tmp/m42.lft" --paths "$tmp/other.paths" --link-sharing
head -n 3 "$tmp/m42.paths" >"$tmp/short.paths"
expect "$tmp/short.paths: 3 of the fabric's 56 (source, destination) pairs, the first missing" \
  "$IBUNION" trace "$net" --lft "$tmp/m42.lft" --paths "$tmp/short.paths" --link-sharing
awk '{printf "%s %s 00%s\n", $1, $2, $3}' "$tmp/m42.paths" >"$tmp/m42z.paths"
if "$IBUNION" trace "$net" --lft "$tmp/m42.lft" --paths "$tmp/m42.paths" --link-sharing >"$tmp/plain.out" 2>/dev/null &&
  "$IBUNION" trace "$net" --lft "$tmp/m42.lft" --paths "$tmp/m42z.paths" --link-sharing >"$tmp/zeros.out" 2>/dev/null &&
  cmp -s "$tmp/plain.out" "$tmp/zeros.out" && [ "$(wc -l <"$tmp/plain.out")" = 2 ] &&
  grep -q "^up   links    8: distinct sources mean    1.0 max    1; " "$tmp/plain.out"
then echo "PASS: trace --link-sharing: FT(4,2)'s MLID tables give each up link one source (DLIDs with leading zeros decimal)"
else echo "FAIL: trace --link-sharing: $(head -2 "$tmp/plain.out" | xargs) / $(head -2 "$tmp/zeros.out" | xargs)"; fails=$((fails + 1)); fi
# Error paths of the other commands that no other check reaches.
expect "ibunion topo: unknown topology kind 'torus' (expected fattree or mesh)" "$IBUNION" topo torus 4 4
expect "ibunion route: missing --engine" "$IBUNION" route "$net"
expect "ibunion route: --groups FILE and --mft FILE go together" \
  "$IBUNION" route "$net" --engine mlid --groups /dev/null
expect "ibunion mcjoin: option --state: expected full, sendonly, nonmember or sendonlyfull, got 'bogus'" \
  "$IBUNION" mcjoin join ff12:401b::1 --state bogus
expect "ibunion mcsetup: expected a verb: measure, burst or effective" "$IBUNION" mcsetup
expect "ibunion mcsetup: effective needs --setup CSV and --costs CSV" "$IBUNION" mcsetup effective
: >"$tmp/empty.csv"
expect "ibunion mcsetup: $tmp/empty.csv:1: expected a header line" \
  "$IBUNION" mcsetup effective --setup "$tmp/empty.csv" --costs "$tmp/empty.csv"
printf '%s\n' 'switchguid=0x0000000000200000' 'Switch	4 "S-0000000000200000"	# "sw0" base port 0 lid 1 lmc 0' \
  '[1]	"H-0000000000100000"[1](0000000000100001) 	# "h0" lid 2 4xSDR' '' 'caguid=0x0000000000100000' \
  'Ca	2 "H-0000000000100000"	# "h0"' '[1](0000000000100001) 	"S-0000000000200000"[1]	# lid 2 lmc 0 "sw0" lid 1 4xSDR' \
  >"$tmp/one-host.net"
expect "ibunion pathsl: $tmp/one-host.net: fewer than two end ports with a LID: no path to ask about" \
  "$IBUNION" pathsl "$tmp/one-host.net"
# A group the engine refuses (no up*/down* tree left in a degraded tree:
# FT(4,3) less 3 cables, draw 2, where every host pair still has a route)
# gets a warning and no MFT entries, the others their trees, as under
# OpenSM; the first refusal ended route with exit 2 and no file.
"$IBUNION" topo fattree 4 3 --remove-links 3 --remove-seed 2 -o "$tmp/cut.net" 2>/dev/null
printf '0xC001 P(111) P(301) P(311) P(010)\n0xC002 P(000) P(001)\n0xC003 P(100) P(201)\n' >"$tmp/cut.groups"
if "$IBUNION" route "$tmp/cut.net" --engine mlid --groups "$tmp/cut.groups" --mft "$tmp/cut.mft" --lft "$tmp/cut.lft" \
  2>"$tmp/err" && grep -qF "warning: multicast group 0xc001 refused: in the degraded tree no member reaches all others over up*/down* links (no MFT entries for it)" "$tmp/err" &&
  ! grep -q "^0xc001" "$tmp/cut.mft" && grep -q "^0xc002" "$tmp/cut.mft" && grep -q "^0xc003" "$tmp/cut.mft"
then echo "PASS: route on a degraded FT(4,3): group 0xc001 refused with a warning, 0xc002 and 0xc003 built (exit 0)"
else echo "FAIL: route with a refused group: $(grep -v '^note' "$tmp/err" | tail -2)"; fails=$((fails + 1)); fi
# A shuffled tree is relabelled: its descriptions P(..) are other hosts'
# labels (inspect's P(30) may be the host described P(00)); the group
# file's words keep naming hosts by description, and route says so once.
"$IBUNION" topo fattree 4 2 --shuffle 1 -o "$tmp/shuffled.net" 2>/dev/null
printf '0xC001 P(00) P(10)\n0xC002 P(20) P(30)\n0xC003 P(00) P(20)\n' >"$tmp/shuffled.groups"
"$IBUNION" route "$tmp/shuffled.net" --engine mlid --groups "$tmp/shuffled.groups" --mft "$tmp/shuffled.mft" \
  --lft "$tmp/shuffled.lft" 2>"$tmp/err"
grep -qF "ibunion route: note: $tmp/shuffled.groups: 6 word(s) are node descriptions that inspect and trace print as other hosts' labels" "$tmp/err" &&
  echo "PASS: route notes group words that are other hosts' labels" ||
  { echo "FAIL: no note on group words that are other hosts' labels: $(grep -c . "$tmp/err") lines"; fails=$((fails + 1)); }
# Bad input is no refusal: a source tree's group without its anchor= still
# ends the run (exit 2, no file).
"$IBUNION" topo mesh 3 3 -o "$tmp/m3src.net" 2>/dev/null
echo "0xC001 H(0,0) H(2,2)" >"$tmp/noanchor.groups"
expect "multicast group 0xc001: xymesh_mcast=source roots the tree at the group's one sender, and it names none (anchor=)" \
  "$IBUNION" route "$tmp/m3src.net" --engine xymesh --options xymesh_mcast=source --groups "$tmp/noanchor.groups" \
  --mft "$tmp/out/noanchor.mft" --lft "$tmp/out/noanchor.lft"
nothing_left "route with a group missing its anchor"
# ... and in verify's reference tables: bad input, not "builds no tree" (exit 1).
sed 's/$/ anchor=H(0,0)/' "$tmp/noanchor.groups" >"$tmp/anchor.groups"
"$IBUNION" route "$tmp/m3src.net" --engine xymesh --options xymesh_mcast=source --groups "$tmp/anchor.groups" \
  --mft "$tmp/m3src.mft" --lft "$tmp/m3src.lft" 2>/dev/null
expect "multicast group 0xc001: xymesh_mcast=source roots the tree at the group's one sender, and it names none (anchor=)" \
  "$IBUNION" verify "$tmp/m3src.net" --lft "$tmp/m3src.lft" --mft "$tmp/m3src.mft" --groups "$tmp/noanchor.groups" \
  --engine xymesh --options xymesh_mcast=source
# An MLID no switch has printed nothing with status 0 (a typo as an answer).
echo "0xc001 P(00) P(31)" >"$tmp/trace-mlid.groups"
"$IBUNION" route "$net" --engine mlid --lft /dev/null --groups "$tmp/trace-mlid.groups" --mft "$tmp/trace-mlid.mft" 2>/dev/null
"$IBUNION" trace "$net" --mft "$tmp/trace-mlid.mft" --mlid 0xc0ff >"$tmp/out.txt" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$tmp/out.txt" ] && grep -qF "ibunion trace: no switch of $net has MLID 0xc0ff in $tmp/trace-mlid.mft" "$tmp/err"
then echo "PASS: $(tail -n 1 "$tmp/err")"
else echo "FAIL: trace --mlid of no switch -> rc $rc: $(cat "$tmp/err")"; fails=$((fails + 1)); fi
# verify --disjoint --paths with --engine: the map must be the engine's
# selection. Two sources of one subtree sharing a DLID passed (the rule
# excuses shared DLIDs, which a folded LMC forces).
"$IBUNION" route "$ft43" --engine mlid --options mlid_rotate=off --lft "$tmp/r.lft" --paths "$tmp/r.paths" 2>/dev/null
sed 's/^0x0000000000100001 0x0000000000100019 52$/0x0000000000100001 0x0000000000100019 53/' "$tmp/r.paths" >"$tmp/p.paths"
"$IBUNION" verify "$ft43" --lft "$tmp/r.lft" --disjoint --paths "$tmp/p.paths" --engine mlid --options mlid_rotate=off \
  >"$tmp/out.txt" 2>/dev/null
rc=$?
if [ $rc -eq 1 ] && ! cmp -s "$tmp/p.paths" "$tmp/r.paths" &&
  grep -qF "error: path map: P(000) -> P(300) uses DLID 53, mlid selects 52" "$tmp/out.txt"
then echo "PASS: verify --disjoint: a path map that is not the engine's selection is named (exit 1)"
else echo "FAIL: verify --disjoint of a changed map -> rc $rc: $(tail -n 3 "$tmp/out.txt")"; fails=$((fails + 1)); fi
expect "ibunion verify: --path-sl FILE: only with --deadlock (the SLs the credit-loop check walks the routes on)" \
  "$IBUNION" verify "$ft43" --lft /dev/null --path-sl /dev/null
# MFT rows of an MLID the groups file leaves out are not walked: said.
printf '0xc001 P(000) P(311)\n0xc00f P(100) P(200)\n' >"$tmp/unchecked2.groups"
head -n 1 "$tmp/unchecked2.groups" >"$tmp/unchecked1.groups"
"$IBUNION" route "$ft43" --engine mlid --lft "$tmp/unchecked.lft" --groups "$tmp/unchecked2.groups" \
  --mft "$tmp/unchecked.mft" 2>/dev/null
if "$IBUNION" verify "$ft43" --lft "$tmp/unchecked.lft" --mft "$tmp/unchecked.mft" --groups "$tmp/unchecked1.groups" \
  >"$tmp/out.txt" 2>/dev/null &&
  grep -qF "note: 1 MLID(s) in the MFTs are not in --groups and were not checked: 0xc00f" "$tmp/out.txt"
then echo "PASS: verify names the MLIDs of the MFTs it did not check (0xc00f)"
else echo "FAIL: verify with an MLID left out of --groups: $(tail -n 2 "$tmp/out.txt")"; fails=$((fails + 1)); fi
# route --sl2vl of an engine with one data VL wrote an empty file (exit 0)
# that verify then refused as bad input.
expect "ibunion route: --sl2vl: engine mlid has one data VL and sets no SL-to-VL tables" \
  "$IBUNION" route "$net" --engine mlid --lft "$tmp/sl.lft" --sl2vl "$tmp/sl.sl2vl"
[ ! -e "$tmp/sl.sl2vl" ] && [ ! -e "$tmp/sl.lft" ] && echo "PASS: ... and writes neither file" ||
  { echo "FAIL: route --sl2vl refused but left a file"; fails=$((fails + 1)); }
# --from takes the label trace prints: on a shuffled tree the host whose
# description is P(122) is another host, and trace printed a five-hop route
# "from P(122) to P(122)". To its own LID a host's route is one hop.
"$IBUNION" topo fattree 8 3 --shuffle 7 --guid2lid "$tmp/sh.g2l" -o "$tmp/sh.net" &&
  "$IBUNION" route "$tmp/sh.net" --guid2lid "$tmp/sh.g2l" --engine mlid --lft "$tmp/sh.lft" 2>/dev/null
lid=$("$IBUNION" inspect "$tmp/sh.net" --guid2lid "$tmp/sh.g2l" 2>/dev/null | awk '$1 == "host" && $NF == "P(122)" {print $4}')
out=$("$IBUNION" trace "$tmp/sh.net" --guid2lid "$tmp/sh.g2l" --lft "$tmp/sh.lft" --from 'P(122)' --dlid "$lid" 2>&1)
if [ -n "$lid" ] && [[ $out =~ ^SW\<[0-9]+,2\>:[0-9]+\ -\>\ P\(122\)$ ]]; then echo "PASS: trace --from a label on a shuffled tree: $out"
else echo "FAIL: trace --from 'P(122)' to its own LID $lid on a shuffled tree: $out"; fails=$((fails + 1)); fi
# trace ends a route where it reaches the DLID's owner, and only there with
# status 0: one delivered to another host or to a switch's own port 0 was
# printed as if it had arrived (status 0), a loop circled for 64 hops and
# was called "nowhere". SW<3,1>'s entry for LID 16 (P(31), port 2) is bent.
bent() {  # NEEDLE SED: status 1 and NEEDLE on stdout for P(00) -> LID 16
  sed "$2" "$tmp/good.lft" >"$tmp/bent.lft"
  "$IBUNION" trace "$net" --lft "$tmp/bent.lft" --from 'P(00)' --dlid 16 >"$tmp/out.txt" 2>/dev/null
  local rc=$?
  if [ $rc -eq 1 ] && grep -qF -- "$1" "$tmp/out.txt"; then echo "PASS: trace: $(cat "$tmp/out.txt")"
  else echo "FAIL: trace of a bent route -> rc $rc: $(cat "$tmp/out.txt") (wanted: $1)"; fails=$((fails + 1)); fi
}
sw31='/^Unicast lids .*(SW<3,1>):$/,/valid lids dumped/'
bent "SW<3,1>:1 -> P(30), not LID 16's owner P(31) (wrong destination)" "${sw31}s/^0x0010 002 /0x0010 001 /"
bent "SW<3,1>:0 -> SW<3,1> itself (port 0), not LID 16's owner P(31) (wrong destination)" "${sw31}s/^0x0010 002 /0x0010 000 /"
bent "SW<0,1>:4 SW<1,0>:4 SW<3,1>:4 -> loop: back at SW<1,0> (LID 16 is P(31)'s)" "${sw31}s/^0x0010 002 /0x0010 004 /"
bent "SW<0,1>:4 SW<1,0>:4 SW<3,1>:- -> nowhere: SW<3,1> has no LFT entry for LID 16 (broken route)" \
  "${sw31}{/^0x0010 002 /d;s/^22 valid/21 valid/}"
# --base-lid-load counted a loop's routes on every hop up to the hop limit
# (loads 2-3 times too high, status 0): routes that do not arrive are left
# out of the loads, counted on stderr with the first one, status 1.
bent_load() {  # NEEDLE SED
  sed "$2" "$tmp/good.lft" >"$tmp/bent.lft"
  "$IBUNION" trace "$net" --lft "$tmp/bent.lft" --base-lid-load >"$tmp/out.txt" 2>"$tmp/err"
  local rc=$? max
  max=$(awk '{print $NF}' "$tmp/out.txt" | sort -n | tail -1)
  if [ $rc -eq 1 ] && grep -qF -- "$1" "$tmp/err" && [ "$max" -le "$good_max" ]; then echo "PASS: trace --base-lid-load: $(grep 'do not reach' "$tmp/err")"
  else echo "FAIL: trace --base-lid-load of a bent route -> rc $rc, busiest $max (good: $good_max): $(grep -v 'note:' "$tmp/err") (wanted: $1)"; fails=$((fails + 1)); fi
}
"$IBUNION" trace "$net" --lft "$tmp/good.lft" --base-lid-load >"$tmp/out.txt" 2>"$tmp/err"
good_max=$(awk '{print $NF}' "$tmp/out.txt" | sort -n | tail -1)
grep -q 'do not reach' "$tmp/err" && { echo "FAIL: trace --base-lid-load of good tables says: $(cat "$tmp/err")"; fails=$((fails + 1)); }
bent_load "route(s) do not reach their base LID and are not counted above; first: from the hosts on SW<0,1> to LID 16 (P(31)), which loops" \
  "${sw31}s/^0x0010 002 /0x0010 004 /"
bent_load "7 route(s) do not reach their base LID and are not counted above; first: from the hosts on SW<0,1> to LID 16 (P(31)), which ends short of it or at another port (trace --from 'P(00)' --dlid 16 shows it)" \
  "${sw31}s/^0x0010 002 /0x0010 001 /"
"$IBUNION" trace "$net" --lft "$tmp/good.lft" --from 'P(00)' --dlid 16 >"$tmp/out.txt" 2>/dev/null &&
  [ "$(cat "$tmp/out.txt")" = "SW<0,1>:4 SW<1,0>:4 SW<3,1>:2 -> P(31)" ] &&
  "$IBUNION" trace "$net" --lft "$tmp/good.lft" --from 'P(00)' --dlid 23 >"$tmp/out.txt" 2>/dev/null &&
  grep -q -- "-> switch itself$" "$tmp/out.txt" && echo "PASS: trace: routes to a host and to a switch LID arrive (status 0)" ||
  { echo "FAIL: trace of good routes: $(cat "$tmp/out.txt")"; fails=$((fails + 1)); }
# An LFT dump that lost a switch's table (a switch ibroute could not reach):
# verify refused it, trace read the missing table as routes broken there
# (exit 1) and --base-lid-load as loads ending there (exit 0).
awk '/^Unicast lids/ {n++} n != 2' "$tmp/good.lft" >"$tmp/lost.lft"
for use in "--from P(00) --dlid 16" --base-lid-load; do
  # shellcheck disable=SC2086
  expect "ibunion trace: $tmp/lost.lft: no LFT for switch SW<1,0> (0x0000000000200001, LID 19)" \
    "$IBUNION" trace "$net" --lft "$tmp/lost.lft" $use
done
expect "ibunion verify: $tmp/lost.lft: no LFT for switch SW<1,0> (0x0000000000200001, LID 19)" \
  "$IBUNION" verify "$net" --lft "$tmp/lost.lft"
# Entries for LIDs no port of the fabric has (a host removed from the net
# file since, tables read back before OpenSM rerouted): kept unread, the
# rest verified as if the tables were this fabric's (PASS).
"$IBUNION" route "$net" --guid2lid "$g2l" --engine mlid --lft "$tmp/g2l.lft" 2>/dev/null
awk 'BEGIN { RS = ""; ORS = "\n\n" } !/Hca\t1 "P\(11\)"/' "$net" | grep -v '"P(11)"\[' >"$tmp/noP11.net"
expect "ibunion verify: $tmp/g2l.lft:10: LID 0x0008 (out port 2) in the LFT of switch SW<0,0> (0x0000000000200000, LID 18): no end port or switch of the fabric has it; nor do the LIDs of 11 more entries of the file" \
  "$IBUNION" verify "$tmp/noP11.net" --guid2lid "$g2l" --lft "$tmp/g2l.lft"
# A node description two end ports share (both ports of a dual-port HCA;
# hosts left at the vendor's default) named the first of them, silently:
# trace --from and group members refuse it, naming the port GUIDs, and
# take a port GUID instead.
sed 's/^Hca\t1 "P(0[01])"$/&\t# "node01 HCA-1"/' "$net" >"$tmp/shared.net"
shared="'node01 HCA-1' is the node description of 2 end ports (port GUIDs 0x0000000000100001, 0x0000000000100003): expected one of them by its port GUID or LID"
expect "ibunion trace: --from node01 HCA-1: $shared" \
  "$IBUNION" trace "$tmp/shared.net" --lft "$tmp/good.lft" --from 'node01 HCA-1' --dlid 16
"$IBUNION" trace "$tmp/shared.net" --lft "$tmp/good.lft" --from 0x0000000000100003 --dlid 16 >"$tmp/out.txt" 2>/dev/null &&
  [ "$(cat "$tmp/out.txt")" = "$("$IBUNION" trace "$net" --lft "$tmp/good.lft" --from 'P(01)' --dlid 16 2>/dev/null)" ] &&
  echo "PASS: trace --from a port GUID" || { echo "FAIL: trace --from 0x0000000000100003: $(cat "$tmp/out.txt")"; fails=$((fails + 1)); }
# Group members by a node description with blanks, in double quotes (each
# half was read as a member of its own); an unterminated quote is named.
sed 's/^Hca\t1 "P(00)"$/&\t# "node00 HCA-1"/' "$net" >"$tmp/desc.net"
printf '0xC001 "node00 HCA-1" P(01) anchor="node00 HCA-1"\n' >"$tmp/desc.groups"
"$IBUNION" route "$tmp/desc.net" --engine mlid --lft "$tmp/desc.lft" --groups "$tmp/desc.groups" --mft "$tmp/desc.mft" 2>/dev/null &&
  "$IBUNION" verify "$tmp/desc.net" --lft "$tmp/desc.lft" --mft "$tmp/desc.mft" --groups "$tmp/desc.groups" 2>/dev/null |
  grep -q "multicast 0xc001: 2 members, 2 senders checked, .*: exactly once" &&
  echo "PASS: a quoted node description with blanks names a group member and anchor" ||
  { echo "FAIL: quoted node description in a group file"; fails=$((fails + 1)); }
printf '0xC001 P(01)\n0xC002 P(01) "node00 HCA-1\n' >"$tmp/unterminated.groups"
expect "ibunion route: $tmp/unterminated.groups:2: unterminated quote: '\"node00 HCA-1' has no closing '\"'" \
  "$IBUNION" route "$tmp/desc.net" --engine mlid --groups "$tmp/unterminated.groups" --mft "$tmp/out/mft"
nothing_left "route --groups with an unterminated quote"
# A group file without any group (empty, comments only: a generating step
# that matched nothing) built MFTs without groups, and verify checked no
# multicast and said PASS.
printf '# no group yet\n\n' >"$tmp/nogroup.groups"
expect "ibunion route: $tmp/nogroup.groups: no group in it (expected lines 'MLID MEMBER MEMBER ...'" \
  "$IBUNION" route "$net" --engine mlid --groups "$tmp/nogroup.groups" --mft "$tmp/out/mft" --lft "$tmp/out/lft"
nothing_left "route --groups of a file without groups"
"$IBUNION" route "$net" --engine mlid --groups "$tmp/one.groups" --mft "$tmp/one.mft" --lft /dev/null 2>/dev/null
expect "ibunion verify: $tmp/nogroup.groups: no group in it" \
  "$IBUNION" verify "$net" --lft "$tmp/good.lft" --mft "$tmp/one.mft" --groups "$tmp/nogroup.groups"
# An MFT dump that lost a switch's table, as an LFT dump that lost one: bad
# input (exit 2), not a tree that drops the packet there (exit 1) or, off
# the tree, a PASS; trace read it as a switch without groups.
for n in 2 3; do  # SW<1,0> is off the group's tree, SW<0,1> its one switch
  awk -v n=$n '/^Multicast mlids/ {t++} t != n' "$tmp/one.mft" >"$tmp/lost$n.mft"
done
expect "ibunion verify: $tmp/lost2.mft: no MFT for switch SW<1,0> (0x0000000000200001, LID 19)" \
  "$IBUNION" verify "$net" --lft "$tmp/good.lft" --mft "$tmp/lost2.mft" --groups "$tmp/one.groups"
expect "ibunion verify: $tmp/lost3.mft: no MFT for switch SW<0,1> (0x0000000000200002, LID 20)" \
  "$IBUNION" verify "$net" --lft "$tmp/good.lft" --mft "$tmp/lost3.mft" --groups "$tmp/one.groups"
expect "ibunion trace: $tmp/lost2.mft: no MFT for switch SW<1,0> (0x0000000000200001, LID 19)" \
  "$IBUNION" trace "$net" --mft "$tmp/lost2.mft" --groups-per-switch
: >"$tmp/empty.net"
expect "ibunion inspect: $tmp/empty.net: no node records in it (expected ibnetdiscover output" \
  "$IBUNION" inspect "$tmp/empty.net"
# verify reads every input, and learns the fabric's shape for --disjoint,
# before its report: a bad MFT, group or path-map file, or --disjoint on a
# mesh, printed the unicast part of the report and then failed (exit 2).
head -n 6 "$tmp/one.mft" >"$tmp/cut.mft"
"$IBUNION" topo mesh 3 2 -o "$tmp/m32d.net"
"$IBUNION" route "$tmp/m32d.net" --engine xymesh --lft "$tmp/m32d.lft" 2>/dev/null
for cmd in "$net --lft $tmp/good.lft --mft $tmp/cut.mft --groups $tmp/one.groups|$tmp/cut.mft:" \
  "$net --lft $tmp/good.lft --mft $tmp/one.mft --groups $tmp/nogroup.groups|$tmp/nogroup.groups: no group" \
  "$net --lft $tmp/good.lft --disjoint --paths /dev/null|/dev/null" \
  "$tmp/m32d.net --lft $tmp/m32d.lft --disjoint --engine xymesh|not an m-port n-tree"; do
  # shellcheck disable=SC2086
  "$IBUNION" verify ${cmd%%|*} >"$tmp/report" 2>"$tmp/err"; rc=$?
  if [ $rc -eq 2 ] && [ ! -s "$tmp/report" ] && grep -qF -- "${cmd#*|}" "$tmp/err"; then
    echo "PASS: verify ${cmd%%|*}: no report, $(tail -1 "$tmp/err")"
  else
    echo "FAIL: verify ${cmd%%|*}: rc $rc, report '$(head -1 "$tmp/report")', stderr $(tail -1 "$tmp/err")"
    fails=$((fails + 1))
  fi
done
# An output on one of route's inputs replaced it: 'route x.net --lft x.net'
# left the LFTs where the net file was. Refused, by any name of the file,
# and the input kept.
cp "$net" "$tmp/keep.net"
cp "$tmp/one.groups" "$tmp/keep.groups"
ln -f "$tmp/keep.net" "$tmp/keep-link.net"
for out in "--lft $tmp/keep.net|$tmp/keep.net" "--lft $tmp/keep-link.net|$tmp/keep-link.net" \
  "--lft /dev/null --paths $tmp/../${tmp##*/}/keep.net|$tmp/../${tmp##*/}/keep.net" \
  "--lft /dev/null --groups $tmp/keep.groups --mft $tmp/keep.groups|$tmp/keep.groups"; do
  # shellcheck disable=SC2086
  expect "ibunion route: ${out#*|}: named for an output, but it is an input of this command" \
    "$IBUNION" route "$tmp/keep.net" --engine mlid ${out%%|*}
done
cmp -s "$net" "$tmp/keep.net" && cmp -s "$tmp/one.groups" "$tmp/keep.groups" &&
  echo "PASS: route's inputs kept" || { echo "FAIL: route replaced an input"; fails=$((fails + 1)); }
# trace --groups-per-switch: a mesh has no levels ("level -1" was printed
# on every line): its switches are labelled N(x,y) as inspect labels them,
# and the fat-tree's 'LABEL level L groups N' keeps its level.
"$IBUNION" topo mesh 3 2 --shuffle 3 -o "$tmp/m32.net"
printf '0xC001 H(0,0) H(2,1)\n' >"$tmp/m32.groups"
"$IBUNION" route "$tmp/m32.net" --engine xymesh --groups "$tmp/m32.groups" --mft "$tmp/m32.mft" \
  --lft /dev/null 2>/dev/null
"$IBUNION" route "$net" --engine mlid --groups "$tmp/one.groups" --mft "$tmp/ft.mft" --lft /dev/null 2>/dev/null
# Node descriptions other than the labels (as on a real fabric): still N(x,y).
sed 's/"N(\([0-9]\),\([0-9]\))"/"leaf-\1\2"/g' "$tmp/m32.net" >"$tmp/m32-named.net"
mesh_groups=$("$IBUNION" trace "$tmp/m32-named.net" --mft "$tmp/m32.mft" --groups-per-switch 2>&1)
ft_groups=$("$IBUNION" trace "$net" --mft "$tmp/ft.mft" --groups-per-switch 2>/dev/null)
if [ "$(grep -cE '^N\([0-2],[01]\) groups [01]$' <<<"$mesh_groups")" -eq 6 ] &&
  [ "$(sort <<<"$mesh_groups" | awk '{print $1}' | xargs)" = "N(0,0) N(0,1) N(1,0) N(1,1) N(2,0) N(2,1)" ] &&
  [ "$(wc -l <<<"$ft_groups")" -eq 6 ] &&
  [ "$(grep -cE '^SW<[0-9]+,[0-9]> level [01] groups [01]$' <<<"$ft_groups")" -eq 6 ]
then echo "PASS: trace --groups-per-switch: 'N(x,y) groups N' on a mesh, 'LABEL level L groups N' on a fat-tree"
else echo "FAIL: trace --groups-per-switch: mesh: $(xargs <<<"$mesh_groups"); fat-tree: $(xargs <<<"$ft_groups")"; fails=$((fails + 1)); fi
# verify: options that go together, and the engine's options, are checked
# before any check prints (stdout had half a report before exit 2), and
# none is ignored.
for args in "--groups $tmp/one.groups|--mft FILE and --groups FILE go together" \
  "--disjoint|--disjoint needs --paths FILE or --engine E" \
  "--engine mlid --options mlid_rotate=maybe|option 'mlid_rotate=maybe': expected on or off" \
  "--engine mlid --options mlid_rotate=off,mlid_x=1|option 'mlid_rotate=off,mlid_x=1': expected on or off (or 1/0, yes/no, true/false; lower case); options are separated by spaces, not commas" \
  "--options mlid_rotate=off|--options 'mlid_rotate=off': only with --engine E" \
  "--paths $tmp/none|--paths FILE: only with --disjoint" \
  "--sl2vl $tmp/none|--sl2vl FILE: only with --engine E (compared with its VL policy) or --deadlock"; do
  # shellcheck disable=SC2086
  "$IBUNION" verify "$net" --lft "$tmp/good.lft" ${args%%|*} >"$tmp/o" 2>"$tmp/err"; rc=$?
  if [ $rc -eq 2 ] && [ ! -s "$tmp/o" ] && grep -qF -- "${args#*|}" "$tmp/err"; then echo "PASS: verify ${args%%|*}: $(tail -1 "$tmp/err")"
  else echo "FAIL: verify ${args%%|*}: rc $rc, stdout $(wc -c <"$tmp/o") bytes, $(tail -1 "$tmp/err")"; fails=$((fails + 1)); fi
done
# verify --engine compares MFTs too: a tree rooted at another top switch
# (routed with mlid_rotate=off: the anchor's own up digits, not the MLID's)
# is exactly-once and loop-free, yet not what mlid builds; the switches and
# ports that differ are named, on a line of its own after the LFTs'.
ft43=$top/topologies/ft-4-3.net
printf '0xC003 P(000) P(011) P(101) P(110) P(201)\n' >"$tmp/five.groups"
"$IBUNION" route "$ft43" --engine mlid --lft "$tmp/ft43.lft" --groups "$tmp/five.groups" \
  --mft "$tmp/own.mft" 2>/dev/null
"$IBUNION" route "$ft43" --engine mlid --options mlid_rotate=off --lft /dev/null \
  --groups "$tmp/five.groups" --mft "$tmp/other.mft" 2>/dev/null
mft_verify() { "$IBUNION" verify "$ft43" --lft "$tmp/ft43.lft" --groups "$tmp/five.groups" --mft "$@"; }
if mft_verify "$tmp/own.mft" --engine mlid >"$tmp/v" 2>&1 && grep -q "scheme mlid: 0 entries differ" "$tmp/v" &&
  grep -q "scheme mlid: 0 MFT entries differ (1 group," "$tmp/v" &&
  ! cmp -s "$tmp/own.mft" "$tmp/other.mft" && mft_verify "$tmp/other.mft" >"$tmp/v2" 2>&1 &&
  grep -q "multicast 0xc003: .*exactly once" "$tmp/v2" && ! mft_verify "$tmp/other.mft" --engine mlid >"$tmp/v" 2>&1 &&
  grep -q "scheme mlid: 0 entries differ" "$tmp/v" && grep -q "exactly once" "$tmp/v" &&
  grep -qE "^error: scheme mismatch: switch SW<[0-9]+,[0-9]> \(0x[0-9a-f]+, LID [0-9]+\), MLID 0xc003: table says ports [0-9 ]+, mlid says ports [0-9 none]+ \(only in the table: [0-9 none]+; only in mlid's: " "$tmp/v" &&
  grep -qE "^scheme mlid: [1-9][0-9]* MFT entries differ" "$tmp/v" && tail -1 "$tmp/v" | grep -q FAIL
then echo "PASS: verify --engine: an exactly-once MFT rooted at another top switch is named, switch by switch"
else echo "FAIL: verify --engine with another rule's MFT: $(xargs <"$tmp/v")"; fails=$((fails + 1)); fi
# A group mlid refuses (on FT(4,3) less 3 cables, draw 2, no member of
# this one reaches all others over up*/down* links) fails the MFT
# comparison and is counted, also where the tables hold no entry for it
# either ("0 MFT entries differ" was printed under the refusal).
"$IBUNION" topo fattree 4 3 --remove-links 3 --remove-seed 2 -o "$tmp/cut.net" 2>/dev/null
printf '0xC001 P(111) P(301) P(311) P(010)\n' >"$tmp/refused.groups"
printf '0xC002 P(000) P(001)\n' >"$tmp/leaf.groups"
"$IBUNION" route "$tmp/cut.net" --engine mlid --lft "$tmp/cut.lft" --groups "$tmp/leaf.groups" \
  --mft "$tmp/leaf.mft" 2>/dev/null
if ! "$IBUNION" verify "$tmp/cut.net" --lft "$tmp/cut.lft" --mft "$tmp/leaf.mft" --groups "$tmp/refused.groups" \
  --engine mlid >"$tmp/v" 2>&1 && grep -q "^error: scheme mismatch: MLID 0xc001: mlid builds no tree (.*no member reaches all others" "$tmp/v" &&
  grep -q "^scheme mlid: 0 MFT entries differ (1 group, routed in the groups file's order); mlid builds no tree for 1 of them$" "$tmp/v"
then echo "PASS: verify --engine: a group the engine refuses is counted ($(grep 'MFT entries differ' "$tmp/v"))"
else echo "FAIL: verify --engine, refused group: $(grep -i "scheme\|no tree" "$tmp/v" | xargs)"; fails=$((fails + 1)); fi
# ... and with --deadlock: mlid has no VL policy, so the refused group's SL
# is known (VL 0 for all); verify stopped with exit 2 and no report at all.
"$IBUNION" verify "$tmp/cut.net" --lft "$tmp/cut.lft" --mft "$tmp/leaf.mft" --groups "$tmp/refused.groups" \
  --engine mlid --deadlock >"$tmp/v" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "mlid builds no tree for 1 of them$" "$tmp/v" && grep -q "^deadlock: " "$tmp/v"
then echo "PASS: verify --engine mlid --deadlock: a refused group is counted, the report printed"
else echo "FAIL: verify --deadlock with a refused group: rc $rc, $(tail -n 2 "$tmp/v" | xargs)"; fails=$((fails + 1)); fi
# verify --deadlock walks the switches' routes to end-port LIDs too (64
# end-port LIDs, 16 hosts at LMC 2, x 20 switches on FT(4,3)), and --host-lids keeps the
# routes from end ports only.
if mft_verify "$tmp/own.mft" --deadlock >"$tmp/v" 2>&1 &&
  grep -q "deadlock: channel dependencies: acyclic (.* 1280 unicast routes and 5 multicast senders, and 1280 routes from switches to end ports)" "$tmp/v" &&
  mft_verify "$tmp/own.mft" --deadlock --host-lids >"$tmp/v2" 2>&1 &&
  grep -q "deadlock: channel dependencies: acyclic (.* 1280 unicast routes and 5 multicast senders)$" "$tmp/v2"
then echo "PASS: verify --deadlock: routes from switches to end-port LIDs walked, not with --host-lids"
else echo "FAIL: verify --deadlock switch routes: $(grep deadlock "$tmp/v" "$tmp/v2" | xargs)"; fails=$((fails + 1)); fi
# mcsetup: a list ending in ',' is no list (its last item was dropped);
# measure's --csv is checked before the run on the live subnet.
expect "option --iterations: expected a comma-separated list of integers, got '1,10,'" \
  "$IBUNION" mcsetup effective --setup "$tmp/none" --costs "$tmp/none" --iterations 1,10,
expect "option --sizes: expected an integer, got 'x'" "$IBUNION" mcsetup measure "$live" --sizes 4,x
# A value twice was measured twice and plotted as two points.
expect "option --sizes: 4 is in '4,8,4' twice; expected each value once" "$IBUNION" mcsetup measure "$live" --sizes 4,8,4
expect "option --iterations: 10 is in '1,10,10' twice; expected each value once" \
  "$IBUNION" mcsetup effective --setup "$tmp/none" --costs "$tmp/none" --iterations 1,10,10
expect "/nonexistent-dir/m.csv: cannot write (No such file or directory)" \
  env -u LD_PRELOAD "$IBUNION" mcsetup measure "$net" --guid2lid "$g2l" --sizes 4 --csv /nonexistent-dir/m.csv
# ... and so is every option measure and burst take, before any SA worker
# starts on the live subnet: a group size past the fabric's end ports (it
# was found after the sizes before it had run), a label that cannot be a
# CSV cell, burst's --seed and --timeout-ms (read after the workers).
for cmd in "measure $net --guid2lid $g2l --sizes 4,9|option --sizes: group size 9: expected 2..8 (the fabric's end ports)" \
  "measure $net --guid2lid $g2l --sizes 4 --label a,b|option --label: label 'a,b': expected no comma or line break (it is a CSV cell)" \
  "burst $net --guid2lid $g2l --members 9|option --members: burst: members per group must be 1..8 (the fabric's end ports), got 9" \
  "burst $net --guid2lid $g2l --members 4 --seed -1|option --seed: expected 0..1099511627776, got -1" \
  "burst $net --guid2lid $g2l --members 4 --timeout-ms 0|option --timeout-ms: expected 1..3600000, got 0"; do
  # shellcheck disable=SC2086
  expect "${cmd#*|}" env -u LD_PRELOAD "$IBUNION" mcsetup ${cmd%%|*}
done
# --flows follows a permutation's flows (uniform and centric traffic: every
# pair, weighted) and runs no model: multicast, per-message DLID or SL
# draws and a run's settings are refused before anything is routed, a bad
# --links leaves nothing, a good one gets a row per directed link.
expect "--flows: --traffic mcast:2:all: expected unicast traffic (a permutation, uniform or centric)" \
  "$IBUNION" sim "$net" --routing mlid --flows --traffic mcast:2:all
expect "--flows: --traffic shift:2: not with dlid=random (each message draws its own DLID, so a flow has no one path)" \
  "$IBUNION" sim "$net" --routing mlid --flows --traffic shift:2 --param dlid=random
expect "--flows: --traffic shift:2: not with sl=random" "$IBUNION" sim "$net" --routing mlid --flows --traffic shift:2 --param sl=random
expect "--sweep 0.1:0.2:0.1: not with --flows (it follows the flows and runs no model" \
  "$IBUNION" sim "$net" --routing mlid --flows --traffic shift:2 --sweep 0.1:0.2:0.1
expect "--param measure_ns=100: not with --flows (a run's setting; none runs)" \
  "$IBUNION" sim "$net" --routing mlid --flows --traffic shift:2 --param measure_ns=100
printf 'flows = yes\ntraffic = bitrev\njobs = 2\n' >"$tmp/f.conf"
expect "$tmp/f.conf:3: jobs = 2: not with --flows" "$IBUNION" sim "$net" --routing mlid --config "$tmp/f.conf"
expect "--merge $tmp: not with --flows" "$IBUNION" sim --merge "$tmp" --flows
expect "/nonexistent-dir/l.csv: cannot write" \
  "$IBUNION" sim "$net" --routing mlid --flows --traffic shift:2 --links /nonexistent-dir/l.csv
nothing_left "sim --flows with a bad --links"
# flows_report WHAT LINE HEADER SIM-ARGS...: `sim --flows` on FT(4,2)
# prints LINE, and --links FILE gets HEADER and a row per directed link.
flows_report() {
  local what=$1 line=$2 header=$3
  shift 3
  if "$IBUNION" sim "$net" --routing mlid --flows "$@" --links "$tmp/out/l.csv" --quiet >"$tmp/flows.txt" 2>"$tmp/err" &&
    grep -qF "$line" "$tmp/flows.txt" &&
    [ "$(head -1 "$tmp/out/l.csv")" = "$header" ] && [ "$(wc -l <"$tmp/out/l.csv")" -eq 33 ]; then
    echo "PASS: sim --flows $what: report on stdout, 32 directed links in --links"
  else
    echo "FAIL: sim --flows $what on ft-4-2: $(cat "$tmp/err" "$tmp/flows.txt")"; fails=$((fails + 1))
  fi
  rm -rf "$tmp/out"; mkdir -p "$tmp/out"
}
flows_report shift:2 "busiest link: 1 flow; busiest VL channel: 1 flow" "link,flows,fluid_util" --traffic shift:2
# Uniform, one VL: a host's channel into its leaf carries what the host
# offers and fills at the credit loop's 0.4776 of the link.
flows_report uniform "bound: the busiest VL channel is full at offered load 0.477612 (0.119403 bytes/ns/host)" \
  "link,load,util"
# Drawn traffic weighs every DLID a message may draw: half of every far
# host's messages to host 0 (centric:0.5), split over both tops under
# dlid=random, where dlid=base sends them all through one (3.43 loads).
flows_report "centric:0.5 dlid=random" "busiest VL channel into a switch: load 1.92857," "link,load,util" \
  --traffic centric:0.5 --param dlid=random
# What a command writes to stdout is checked: on a full disk (/dev/full)
# or a closed descriptor the output was lost and the status 0. Now exit 2
# and a line naming standard output and why; a status of 1 (a failed check)
# stays 1 with that line; a command that failed keeps its own error alone.
stdout_full() {  # ARGS...: `ibunion ARGS >/dev/full` exits 2 and says why
  local needle="ibunion${1:+ $1}: standard output: write failed (No space left on device)"
  [ "$1" = --help ] && needle="ibunion: standard output: write failed (No space left on device)"
  "$IBUNION" "$@" >/dev/full 2>"$tmp/err"; local rc=$?
  if [ $rc -eq 2 ] && grep -qxF -- "$needle" "$tmp/err"; then echo "PASS: ibunion $* >/dev/full: $(tail -1 "$tmp/err")"
  else echo "FAIL: 'ibunion $*' >/dev/full -> rc $rc, stderr: $(tail -1 "$tmp/err") (wanted: $needle)"; fails=$((fails + 1)); fi
}
mesh=$top/topologies/mesh-3x7.net
stdout_full --help
stdout_full topo fattree 4 2             # less than stdio's buffer: fails at the end
stdout_full topo fattree 32 3            # more: fails on the way
stdout_full route "$net" --engine mlid --lft -
stdout_full verify "$net" --lft "$tmp/good.lft"
stdout_full inspect "$top/topologies/ft-8-3.net"
stdout_full inspect "$mesh" --dor-order -
stdout_full trace "$net" --lft "$tmp/good.lft" --base-lid-load
stdout_full trace "$net" --lft "$tmp/good.lft" --from 'P(00)' --dlid 16
stdout_full mcsetup effective --setup "$setup" --costs "$top/docs/mcast-setup/costs.csv"
stdout_full mcsetup effective --setup "$setup" --costs "$top/docs/mcast-setup/costs.csv" --csv -
stdout_full sim "$net" --routing mlid --quiet
stdout_full sim "$net" --routing mlid --flows --traffic shift:2 --quiet
# A report on stdout that was lost leaves the files beside it unwritten
# (both or neither): --dor-order and effective's --csv were written anyway.
rm -f "$tmp/dor.txt" "$tmp/eff.csv"
stdout_full inspect "$mesh" --dor-order "$tmp/dor.txt"
stdout_full mcsetup effective --setup "$setup" --costs "$top/docs/mcast-setup/costs.csv" --csv "$tmp/eff.csv"
[ ! -e "$tmp/dor.txt" ] && [ ! -e "$tmp/eff.csv" ] && echo "PASS: a lost stdout report: no --dor-order or --csv file written" ||
  { echo "FAIL: a lost stdout report: $(ls "$tmp/dor.txt" "$tmp/eff.csv" 2>/dev/null) written"; fails=$((fails + 1)); }
"$IBUNION" topo fattree 4 2 >&- 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -qxF "ibunion topo: standard output: write failed (Bad file descriptor)" "$tmp/err"
then echo "PASS: topo with stdout closed: $(cat "$tmp/err")"
else echo "FAIL: topo with stdout closed: rc $rc, $(cat "$tmp/err")"; fails=$((fails + 1)); fi
sed "${sw31}s/^0x0010 002 /0x0010 001 /" "$tmp/good.lft" >"$tmp/bent.lft"
"$IBUNION" trace "$net" --lft "$tmp/bent.lft" --from 'P(00)' --dlid 16 >/dev/full 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && grep -qxF "ibunion trace: standard output: write failed (No space left on device)" "$tmp/err"
then echo "PASS: trace of a bent route >/dev/full: status 1 kept, $(tail -1 "$tmp/err")"
else echo "FAIL: trace of a bent route >/dev/full: rc $rc, $(tail -1 "$tmp/err")"; fails=$((fails + 1)); fi
"$IBUNION" route /nonexistent.net --engine mlid >/dev/full 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && [ "$(cat "$tmp/err")" = "ibunion route: /nonexistent.net: cannot open topology file (No such file or directory)" ]
then echo "PASS: route of a missing file >/dev/full: its own error alone"
else echo "FAIL: route of a missing file >/dev/full: rc $rc, $(cat "$tmp/err")"; fails=$((fails + 1)); fi
# A reader that stops early (`| head`) ends the command by SIGPIPE, quietly.
"$IBUNION" topo fattree 32 3 2>"$tmp/err" | head -1 >/dev/null
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 141 ] && [ ! -s "$tmp/err" ]; then echo "PASS: topo | head -1: SIGPIPE, nothing on stderr"
else echo "FAIL: topo | head -1: status $rc, $(cat "$tmp/err")"; fails=$((fails + 1)); fi
# Both output files or neither, when one is a directory, a device or stdout:
# a directory was written "in place" after the other files were renamed
# into place (exit 2 with a fresh net file beside the old guid2lid file),
# and so was a device (/dev/full) or stdout. The files now wait as
# temporaries until the in-place outputs are out; a directory is refused
# first.
untouched() {  # WHAT NEEDLE STDOUT ARGS...: exit 2, NEEDLE, $k/a and $k/b as they were, nothing else in $k
  local what=$1 needle=$2 out=$3
  shift 3
  rm -rf "$k"; mkdir -p "$k/dir"; echo OLD-a >"$k/a"; echo OLD-b >"$k/b"
  "$@" >"$out" 2>"$tmp/err"; local rc=$?
  if [ $rc -eq 2 ] && grep -qF -- "$needle" "$tmp/err" && [ "$(cat "$k/a")" = OLD-a ] && [ "$(cat "$k/b")" = OLD-b ] &&
    [ "$(ls -A "$k" | xargs)" = "a b dir" ] && [ -z "$(ls -A "$k/dir")" ]
  then echo "PASS: $what: exit 2, files as they were: $(tail -1 "$tmp/err")"
  else echo "FAIL: $what: rc $rc, a: $(head -c 20 "$k/a"), b: $(head -c 20 "$k/b"), in $k: $(ls -A "$k" | xargs), $(tail -1 "$tmp/err") (wanted: $needle)"; fails=$((fails + 1)); fi
}
k=$tmp/k
untouched "topo -o FILE --guid2lid DIR" "$k/dir: cannot write (Is a directory)" /dev/null \
  "$IBUNION" topo fattree 8 3 -o "$k/a" --guid2lid "$k/dir"
untouched "topo --guid2lid FILE -o DIR" "$k/dir: cannot write (Is a directory)" /dev/null \
  "$IBUNION" topo fattree 8 3 --guid2lid "$k/a" -o "$k/dir"
untouched "topo --guid2lid FILE -o /dev/full" "/dev/full: write failed (No space left on device); $k/a not written (left as it was)" /dev/null \
  "$IBUNION" topo fattree 8 3 --guid2lid "$k/a" -o /dev/full
untouched "topo --guid2lid FILE -o - >/dev/full" "ibunion topo: standard output: write failed (No space left on device); $k/a not written" /dev/full \
  "$IBUNION" topo mesh 3 3 --guid2lid "$k/a" -o -
untouched "route --lft FILE --mft DIR" "$k/dir: cannot write (Is a directory)" /dev/null \
  "$IBUNION" route "$net" --engine mlid --lft "$k/a" --groups "$tmp/one.groups" --mft "$k/dir"
untouched "route --lft FILE --paths FILE --mft /dev/full" "/dev/full: write failed (No space left on device); $k/a, $k/b not written (left as they were)" /dev/null \
  "$IBUNION" route "$net" --engine mlid --lft "$k/a" --paths "$k/b" --groups "$tmp/one.groups" --mft /dev/full
untouched "route --lft - --mft FILE >/dev/full" "standard output: write failed (No space left on device); $k/a not written" /dev/full \
  "$IBUNION" route "$net" --engine mlid --lft - --groups "$tmp/one.groups" --mft "$k/a"
untouched "sim --csv FILE --links /dev/full" "/dev/full: write failed (No space left on device); $k/a not written" /dev/null \
  "$IBUNION" sim "$net" --routing mlid --quiet --csv "$k/a" --links /dev/full
# A reader gone (`| head`) with a file to write: the file was replaced, then
# SIGPIPE ended the command. With the file a temporary until stdout is out,
# SIGPIPE would leave that behind: an error now (EPIPE), the file as it was.
rm -rf "$k"; mkdir -p "$k/dir"; echo OLD-a >"$k/a"; echo OLD-b >"$k/b"
"$IBUNION" topo fattree 32 3 --guid2lid "$k/a" -o - 2>"$tmp/err" | head -1 >/dev/null
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 2 ] && [ "$(cat "$k/a")" = OLD-a ] && [ "$(ls -A "$k" | xargs)" = "a b dir" ] &&
  grep -qxF "ibunion topo: standard output: write failed (Broken pipe); $k/a not written (left as it was)" "$tmp/err"
then echo "PASS: topo --guid2lid FILE -o - | head -1: $(tail -1 "$tmp/err")"
else echo "FAIL: topo --guid2lid FILE -o - | head -1: rc $rc, in $k: $(ls -A "$k" | xargs), $(tail -1 "$tmp/err")"; fails=$((fails + 1)); fi
# -o LINK writes the file the link points at, as '>' does: the link was
# replaced by a file of its own. A dangling link's file is created.
rm -rf "$k"; mkdir -p "$k/sub"; echo OLD >"$k/sub/t.net"; ln -s sub/t.net "$k/link.net"; ln -s sub/new.net "$k/dangling.net"
if "$IBUNION" topo fattree 4 2 -o "$k/link.net" 2>/dev/null && "$IBUNION" topo fattree 4 2 -o "$k/dangling.net" 2>/dev/null &&
  [ -L "$k/link.net" ] && [ -L "$k/dangling.net" ] && grep -q '^Hca' "$k/sub/t.net" && grep -q '^Hca' "$k/sub/new.net" &&
  [ "$(ls -A "$k" "$k/sub" | xargs)" = "$k: dangling.net link.net sub $k/sub: new.net t.net" ]
then echo "PASS: topo -o LINK: the link kept, its file written (a dangling one's created)"
else echo "FAIL: topo -o LINK: $(ls -lA "$k" "$k/sub" | xargs)"; fails=$((fails + 1)); fi
ln -s loop2 "$k/loop1"; ln -s loop1 "$k/loop2"
expect "$k/loop1: cannot write (Too many levels of symbolic links)" "$IBUNION" topo fattree 4 2 -o "$k/loop1"
ln -s sub "$k/dirlink"
expect "$k/dirlink: cannot write (Is a directory)" "$IBUNION" topo fattree 4 2 -o "$k/dirlink"
[ $fails -eq 0 ] && echo "all checks passed" || echo "$fails checks failed"
exit $(( fails > 0 ))
