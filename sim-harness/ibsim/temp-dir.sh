# shellcheck shell=bash
# Sourced by read-tables and read-sl2vl (bash, set -e).
#
# make_temp_dir DIR NAME: sets tmp to a new private dir DIR/.NAME.XXXXXX
# (beside the outputs, so a finished file is mv'ed in whole) that is removed
# on every exit, also when the script is stopped by INT/TERM/HUP.
#
# A read-back is stopped by TERM to its whole process group, and more than
# once: fabric-run sends one, timeout(1) passes it on to the script and to
# the group again. So the traps are set before the dir exists (a TERM just
# after mktemp killed bash before it had any), and the EXIT trap ignores
# those signals, rm with it (it inherits that): a second TERM killed the
# trap's rm, or ended the trap before it, and the temp dir stayed.
make_temp_dir() {
  tmp=""
  trap 'trap "" INT TERM HUP; [ -z "$tmp" ] || rm -rf "$tmp"' EXIT
  trap 'exit 1' INT TERM HUP
  # bash runs a trap after the assignment: a TERM during mktemp finds $tmp.
  tmp=$(mktemp -d "$1/.$2.XXXXXX")
}
