# shellcheck shell=bash
# Sourced by read-tables, read-sl2vl and read-path-sl (bash, set -e): what
# every read-back out of the (simulated) subnet starts with.
#
# readback_begin NAME OUTDIR: makes OUTDIR and a private temp dir in it
# ($tmp, removed on exit: results move into OUTDIR only when complete), and
# writes the subnet as ibnetdiscover sees it to $tmp/fabric.net (exit 1,
# naming NAME, when it fails).
# tool CMD...: runs a diagnostic; under ibsim (IBUNION_UMAD2SIM set,
# fabric-run exports it) preloaded with libumad2sim and in $tmp, since it
# makes a ./sys-PID tree in its working directory and leaves it when the
# tool is killed (a read-back stopped midway).
# diag_bin NAME: a diagnostic's path (PATH, else /usr/sbin).
# readback_args NAME "USAGE" ARG...: --help (-h) prints the script's
# header comment, exit 0; a first word that is an option, or no OUTDIR, is
# refused with the usage line, exit 2 (read-path-sl --help made a
# directory './--help' and read the subnet into it).
readback_args() {  # NAME USAGE ARG...
  local name=$1 usage=$2
  shift 2
  case ${1:-} in
    -h | --help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    "" | -*) echo "usage: $name $usage" >&2; exit 2 ;;
  esac
}
# shellcheck source=SCRIPTDIR/temp-dir.sh
source "$(dirname "${BASH_SOURCE[0]}")/temp-dir.sh"
preload=${IBUNION_UMAD2SIM:-}
case $preload in "" | /*) ;; *) preload=$PWD/$preload ;; esac
tmp=""
tool() {
  if [ -n "$preload" ]; then (cd "$tmp" && LD_PRELOAD=$preload exec "$@"); else "$@"; fi
}
diag_bin() { command -v "$1" || echo "/usr/sbin/$1"; }
readback_begin() {  # NAME OUTDIR
  mkdir -p "$2"
  make_temp_dir tmp "$2/.$1.XXXXXX"
  tool "$(diag_bin ibnetdiscover)" >"$tmp/fabric.net" 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; echo "$1: ibnetdiscover failed" >&2; exit 1; }
}

# dr_paths NETFILE: one line per switch, "switch LID PATH PORTS", and per
# CA port, "ca LID PATH", where PATH is a directed route from the port
# ibnetdiscover started at ("Initiated from node G") in the form ibroute -D,
# smpquery -D and smpdump -D take: breadth-first, out-port by out-port.
# Directed routes because LID-routed SMPs need the LFTs right and short:
# ibsim forwards a LID-routed MAD over at most 16 switches (MAXHOPS), so on
# a 16x16 mesh (30 hops across) they failed for the far half.
# The local port may be a switch's (OpenSM on a switch, fabric-run
# --sm-host SWITCH): the walk then starts there, with path 0.
# Exit 1 when NETFILE has no route from the local port to a switch.
dr_paths() {
  awk '
    /^# Initiated from node/ { root_guid = $5; root = "H-" $5 }
    /^(Switch|Ca|Hca)/ { cur = $3; gsub(/"/, "", cur); type[cur] = $1; nports[cur] = $2
      if ($1 == "Switch" && match($0, /base port 0 lid [0-9]+/)) { split(substr($0, RSTART, RLENGTH), a, " "); lid[cur] = a[5] } }
    /^\[[0-9]+\]/ { port = substr($1, 2, index($1, "]") - 2); peer = $2; sub(/^"/, "", peer); sub(/".*/, "", peer)
      peer_port = $2; sub(/^[^[]*\[/, "", peer_port); sub(/\].*/, "", peer_port)
      nadj[cur]++; adj_port[cur, nadj[cur]] = port; adj_peer[cur, nadj[cur]] = peer
      if (type[cur] != "Switch" && match($0, /# lid [0-9]+/)) {
        split(substr($0, RSTART, RLENGTH), a, " "); ca_lid[cur, port] = a[3]; ca_sw[cur, port] = peer; ca_sw_port[cur, port] = peer_port } }
    END {
      if (("S-" root_guid) in type) { root = "S-" root_guid; first = root; path[first] = "0" }
      for (i = 1; first == "" && i <= nadj[root]; i++) if (adj_peer[root, i] ~ /^S-/) { first = adj_peer[root, i]; path[first] = "0," adj_port[root, i] }
      if (first == "") exit 1
      q[1] = first; head = 1; tail = 1
      while (head <= tail) { s = q[head++]
        for (i = 1; i <= nadj[s]; i++) { t = adj_peer[s, i]
          if (t ~ /^S-/ && !(t in path)) { path[t] = path[s] "," adj_port[s, i]; q[++tail] = t } } }
      for (s in path) if (s in lid) print "switch", lid[s], path[s], nports[s]
      for (k in ca_lid) { split(k, c, SUBSEP)
        if (c[1] == root) print "ca", ca_lid[k], "0"
        else if (ca_sw[k] in path) print "ca", ca_lid[k], path[ca_sw[k]] "," ca_sw_port[k] }
    }' "$1"
}
