# The ibsim harness: fabric-run starts ibsim + OpenSM, reads tables back.
dist_noinst_SCRIPTS += sim-harness/ibsim/fabric-run
dist_noinst_SCRIPTS += sim-harness/run-default.sh sim-harness/setup.sh
dist_noinst_SCRIPTS += sim-harness/ibsim/read-tables
dist_noinst_SCRIPTS += sim-harness/ibsim/read-sl2vl
EXTRA_DIST += sim-harness/ibsim/temp-dir.sh sim-harness/ibsim/readback.sh
dist_noinst_SCRIPTS += sim-harness/ibsim/read-path-sl
