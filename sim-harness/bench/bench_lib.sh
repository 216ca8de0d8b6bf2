# Shared by the routing benchmarks (source it): OpenSM log phases, medians.

# Seconds of each routing phase in an OpenSM log, one per line.
phases() {  # LOG ENGINE
  awk -v e="$2" '
    function t(line,  a, h) { split($3, h, ":"); return h[1] * 3600 + h[2] * 60 + h[3] + $4 / 1e6 }
    index($0, "building routing with \047" e "\047") { start = t($0) }
    index($0, e " tables configured on all switches") && start { printf "%.4f\n", t($0) - start; start = 0 }' "$1"
}
# Median of numbers on stdin ("nan" when none).
median() { sort -g | awk '{v[NR] = $1} END {print (NR ? v[int((NR + 1) / 2)] : "nan")}'; }
