#!/bin/bash
# Every LID reachable from every host, no loops, tables equal to the scheme:
# mlid inside OpenSM on several fat-trees and LMCs, shuffled cabling too.
source "$(dirname "$0")/lib.sh"
[ -f "$PLUGIN_DIR/libibunion.so" ] || { echo "FAIL: $PLUGIN_DIR/libibunion.so not built"; exit 1; }
paper_lmc() { case $1 in ft-4-2) echo 1 ;; ft-4-3) echo 2 ;; ft-4-4) echo 3 ;; *) echo 4 ;; esac; }
for fabric in ft-4-2 ft-4-3 ft-4-4 ft-8-3 ft-8-3-shuffled; do
  for lmc in 0 1 2 $(paper_lmc $fabric); do
    out=$E2E_TMP/$fabric-$lmc
    [ -d "$out" ] && continue  # the paper LMC may repeat 1 or 2
    if ! "$FABRIC_RUN" --net "$TOPO/$fabric.net" --lmc "$lmc" --engine mlid,minhop \
        --plugin-dir "$PLUGIN_DIR" --plugin-name ibunion --no-mft --out "$out" >"$out.log" 2>&1; then
      fail "$fabric LMC $lmc: run failed"; tail -n 20 "$out.log"; continue
    fi
    grep -q "mlid tables configured" "$out/opensm.log" || { fail "$fabric LMC $lmc: mlid did not route"; continue; }
    check "$fabric LMC $lmc: all LIDs reached, no loop, equal to the scheme" \
      "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump" --engine mlid
  done
done
finish
