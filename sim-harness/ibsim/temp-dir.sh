# shellcheck shell=bash
# Sourced by readback.sh (read-tables, read-sl2vl, read-path-sl), the e2e tests' lib.sh, run-default,
# setup-bench and the benchmarks (bash, set -e).
#
# make_temp_dir VAR TEMPLATE [COMMAND]: sets VAR to a new private dir
# (mktemp -d TEMPLATE) that is removed on every exit, also when the script
# is stopped by INT/TERM/HUP. COMMAND (say, stopping what the script
# started) runs on exit first, under the same protection.
#
# Such a script is stopped by TERM to its whole process group, and often
# more than once: fabric-run sends one to a read-back and timeout(1) passes
# it on to the script and to the group again. So the traps are set before
# the dir exists (a TERM just after mktemp killed bash before it had any),
# and the EXIT trap ignores those signals, rm with it (it inherits that): a
# second TERM killed the trap's rm, or ended the trap before it, and the
# temp dir stayed.
make_temp_dir() {
  local var=$1 first=${3:-}
  declare -g "$var="
  # shellcheck disable=SC2064  # the variable's name goes in now
  trap "trap '' INT TERM HUP; ${first:+$first; }[ -z \"\${$var}\" ] || rm -rf \"\${$var}\"" EXIT
  trap 'exit 1' INT TERM HUP
  # bash runs a trap after the command: a TERM during mktemp finds VAR set.
  declare -g "$var=$(mktemp -d "$2")"
  [ -n "${!var}" ] || exit 1  # (mktemp said why)
}
