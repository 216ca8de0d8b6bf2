#!/bin/bash
# `sim-harness/experiments/run seed002 --quick`: FT(8,3) multicast through
# the real OpenSM over ibsim (every group joined through the SA with
# `ibunion mcjoin`, the MFTs read back) replayed next to the plugin's cyclic
# trees and unicast copies: 1 and all sources, 10% and all groups, 32 B,
# 1 KB and 32 KB, 1 VL; then 1 KB with 4-packet buffers. Checks:
#   * the replay of OpenSM's tree sends from the very sources the cyclic and
#     unicast runs drew (--sources), and its group is the joined members;
#   * one source: cyclic and OpenSM finish at the same nanosecond (seed 002,
#     Case 1); multicast beats unicast in every cell (Remark 1);
#   * all to all, 32 KB: cyclic meets the receivers' bound, 127 sources x
#     32 KB at 0.25 bytes/ns; OpenSM's one tree takes about twice that (its
#     leaf parent links are credit-bound at 0.25 x 128/268 bytes/ns), and
#     with 4-packet buffers, which lift the credit limit, the two agree.
# Exit 0 pass, 1 fail, 77 skip.
source "$(dirname "$0")/lib.sh"
RUN=$E2E_SRC/sim-harness/experiments/run
out=$E2E_TMP/out
work=$E2E_TMP/work/quick  # a --quick run keeps its OpenSM tables there
quick_experiment seed002
csv=$out/seed002.csv buf4=$out/seed002-buf4.csv
want="scheme,sources,group,msg_bytes,completion_ns,receivers,packet_hops,wall_s,packet_hops_per_s,deadlock"
[ "$(head -n 1 "$csv")" = "$want" ] && [ "$(head -n 1 "$buf4")" = "$want" ] && pass "CSV headers" ||
  fail "CSV headers: $(head -n 1 "$csv")"
cells=$(awk -F, 'NR > 1 && $10 == 0 {print $1 "/" $2 "/" $3 "/" $4}' "$csv" | sort -u | wc -l)
[ "$cells" -eq 36 ] && pass "36 cells (3 schemes x 2 source counts x 2 groups x 3 sizes), no deadlock" ||
  fail "$cells cells without a deadlock, expected 36"

# The replay's sources and group, as the run made them for 1 -> 10%.
kept=$work/seed002-opensm/members/1-10
mlid=$(awk '$1 == "1" && $2 == "10%" {print $3}' "$work/seed002-opensm/mlids")
"$IBUNION" sim --routing "dump:$work/seed002-opensm/tables" --param mlid="$mlid" --traffic mcast:1:all \
  --mcast-mode hw --sources "$kept" --param batch=1 --vls 1 --quiet --members "$E2E_TMP/replay" >/dev/null ||
  fail "replay of 1 -> 10% with --sources"
src_kept=$(awk '$1 == "source"' "$kept") src_replay=$(awk '$1 == "source"' "$E2E_TMP/replay" 2>/dev/null)
[ -n "$src_kept" ] && [ "$src_kept" = "$src_replay" ] && pass "OpenSM's replay sends from the cyclic run's source (${src_kept#source })" ||
  fail "replay sources '$src_replay', the cyclic run's '$src_kept'"
joined=$(awk '{print $2}' "$kept" | sort -u) reached=$(awk '$1 == "group" {print $2}' "$E2E_TMP/replay" 2>/dev/null | sort -u)
[ -n "$joined" ] && [ "$joined" = "$reached" ] && pass "OpenSM's tree reaches exactly the $(wc -l <<<"$joined") joined members" ||
  fail "the dumped tree reaches other hosts than were joined"

# Completion times by cell.
time_of() { awk -F, -v s="$1" -v src="$2" -v g="$3" -v b="$4" '$1 == s && $2 == src && $3 == g && $4 == b {print $5}' "$csv"; }
bad=""
for grp in 10% 100%; do
  for size in 32 1024 32768; do
    [ "$(time_of cyclic 1 "$grp" "$size")" = "$(time_of opensm 1 "$grp" "$size")" ] || bad+=" 1->$grp/$size"
  done
done
[ -z "$bad" ] && pass "one source: cyclic and OpenSM finish at the same nanosecond" || fail "one source differs:$bad"
bad=$(awk -F, 'NR > 1 {t[$1 " " $2 " " $3 " " $4] = $5; k[$2 " " $3 " " $4] = 1}
  END {for (c in k) if (t["cyclic " c] >= t["unicast " c]) print " " c}' "$csv")
[ -z "$bad" ] && pass "cyclic beats unicast in every cell" || fail "unicast as fast as cyclic:$bad"
cyc=$(time_of cyclic 100% 100% 32768) osm=$(time_of opensm 100% 100% 32768)
awk -v t="$cyc" 'BEGIN {b = 127 * 32768 * 4; exit !(t >= b && t <= 1.001 * b)}' &&
  pass "all -> all, 32 KB: cyclic $cyc ns, the receivers' bound 127 x 32768 B / 0.25 B/ns" ||
  fail "all -> all, 32 KB: cyclic $cyc ns, not the receivers' bound $((127 * 32768 * 4)) ns"
awk -v c="$cyc" -v o="$osm" 'BEGIN {exit !(o / c > 1.9 && o / c < 2.2)}' &&
  pass "all -> all, 32 KB: OpenSM's one tree $osm ns, about 2.1x (credit-bound parent links)" ||
  fail "all -> all, 32 KB: OpenSM $osm ns vs cyclic $cyc ns"
bad=$(awk -F, 'NR > 1 {t[$1 " " $2 " " $3] = $5; k[$2 " " $3] = 1}
  END {for (c in k) {r = t["opensm " c] / t["cyclic " c]; if (r < 0.999 || r > 1.001) print " " c ": " r}}' "$buf4")
[ -n "$(tail -n +2 "$buf4")" ] && [ -z "$bad" ] && pass "4-packet buffers: OpenSM within 0.1% of cyclic in every cell" ||
  fail "4-packet buffers: OpenSM/cyclic$bad"
finish
