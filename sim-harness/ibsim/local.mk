# The ibsim harness: fabric-run starts ibsim + OpenSM, reads tables back.
dist_noinst_SCRIPTS += sim-harness/ibsim/fabric-run
