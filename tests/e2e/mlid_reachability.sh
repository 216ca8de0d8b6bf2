#!/bin/bash
# Every LID reachable from every host, no loops, tables equal to the scheme:
# mlid inside OpenSM on several fat-trees and LMCs, shuffled cabling too;
# also when dump_files_dir is missing (the dumps fail, the routing does not).
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

# dump_files_dir missing: the plugin's dumps cannot be written, which must
# neither stop mlid nor go unexplained (the file, the reason, the way out).
out=$E2E_TMP/nodumpdir
if "$FABRIC_RUN" --net "$TOPO/ft-4-2.net" --lmc 1 --engine mlid,minhop --plugin-dir "$PLUGIN_DIR" \
    --plugin-name ibunion --no-mft --conf-line "dump_files_dir $E2E_TMP/missing" --out "$out" >"$out.log" 2>&1; then
  grep -q "mlid tables configured" "$out/opensm.log" && pass "dump_files_dir missing: mlid still routes" ||
    fail "dump_files_dir missing: mlid did not route"
  check "dump_files_dir missing: the tables verify" "$IBUNION" verify "$out/fabric.net" --lft "$out/lfts.dump" --engine mlid
  needle="dumps not written: $E2E_TMP/missing/ibunion-mlid-lfts.dump: cannot write (No such file or directory); dump_files_dir $E2E_TMP/missing must be a writable directory (mlid_dump=off turns the dumps off); the tables are in place"
  grep -qF -- "$needle" "$out/opensm.log" && pass "dump_files_dir missing: the log names the file, the reason and mlid_dump=off" ||
    { fail "dump_files_dir missing: no '$needle'"; grep -F "ibunion" "$out/opensm.log" | tail -n 5; }
else
  fail "dump_files_dir missing: run failed"; tail -n 20 "$out.log"
fi
finish
