# Unit tests (CUnit) and end-to-end tests (real OpenSM + plugin over ibsim).
# An e2e script exits 0 pass, 1 fail, 77 skip (only when ibsim/opensm are
# absent), and stops everything it started by PID.
check_PROGRAMS += tests/unit/unit_tests
tests_unit_unit_tests_SOURCES = \
	tests/unit/test_util.h tests/unit/cunit_runner.h tests/unit/main.cc \
	tests/unit/fabric_test.cc tests/unit/fattree_test.cc \
	tests/unit/mlid_test.cc tests/unit/verify_test.cc tests/unit/mcast_test.cc \
	tests/unit/mesh_test.cc tests/unit/deadlock_test.cc tests/unit/mcast_setup_test.cc \
	tests/unit/degraded_test.cc tests/unit/bridge_test.cc plugin/osm/bridge.cc plugin/osm/bridge_fabric.h
tests_unit_unit_tests_LDADD = plugin/core/libibucore.la sim-harness/mcast/libibumcast.la -lcunit

TESTS += tests/unit/unit_tests tests/cli_errors.sh tests/sim_golden.sh tests/experiments_errors.sh
dist_noinst_SCRIPTS += tests/cli_errors.sh tests/sim_golden.sh tests/experiments_errors.sh
EXTRA_DIST += tests/golden/sim-points.jsonl
E2E_TESTS = tests/e2e/topologies_regenerate.sh tests/e2e/harness_selftest.sh \
	tests/e2e/opensm_builtin.sh tests/e2e/mlid_paper.sh tests/e2e/mlid_reachability.sh tests/e2e/mlid_any_radix.sh \
	tests/e2e/mlid_fallback.sh tests/e2e/mcast_cyclic.sh tests/e2e/mesh_opensm.sh tests/e2e/mesh_paper.sh \
	tests/e2e/mesh_vls.sh tests/e2e/mlid_linkflap.sh tests/e2e/experiments_quick.sh tests/e2e/mcast_setup.sh \
	tests/e2e/mcast_fdbcap.sh tests/e2e/experiments_interrupt.sh tests/e2e/experiments_cache.sh \
	tests/e2e/sim_jobs.sh tests/e2e/sim_dump_replay.sh tests/e2e/experiments_beyond_mesh.sh \
	tests/e2e/experiments_beyond_perm.sh tests/e2e/experiments_beyond_radix.sh tests/e2e/experiments_seed002.sh tests/e2e/experiments_seed000.sh \
	tests/e2e/experiments_beyond_degraded.sh
TESTS += $(E2E_TESTS)
EXTRA_DIST += tests/e2e/lib.sh

# Scripts find the build through these.
AM_TESTS_ENVIRONMENT = \
	IBUNION_BUILD='$(abs_top_builddir)'; IBUNION_SRC='$(abs_top_srcdir)'; \
	IBUNION_UMAD2SIM='$(UMAD2SIM)'; export IBUNION_BUILD IBUNION_SRC IBUNION_UMAD2SIM;
dist_noinst_SCRIPTS += $(E2E_TESTS)

# The timing model's own CUnit runner.
check_PROGRAMS += tests/unit/timing_tests
tests_unit_timing_tests_SOURCES = \
	tests/unit/timing_main.cc tests/unit/cunit_runner.h tests/unit/timing_fabrics.h tests/unit/timing_fabrics.cc \
	tests/unit/timing_rig.h tests/unit/timing_model_test.cc tests/unit/timing_mcast_test.cc \
	tests/unit/timing_deadlock_test.cc tests/unit/timing_cli_test.cc tests/unit/timing_sl_test.cc \
	tests/unit/timing_queue_test.cc tests/unit/timing_rng_test.cc tests/unit/timing_flows_test.cc \
	tests/unit/timing_traffic_test.cc tests/unit/timing_lean_test.cc tests/unit/timing_huge_pages_test.cc
tests_unit_timing_tests_LDADD = $(IBUNION_SIM_LIBS) -lcunit
TESTS += tests/unit/timing_tests

EXTRA_DIST += sim-harness/experiments/run \
	sim-harness/experiments/seed001.gp sim-harness/experiments/seed002.gp \
	sim-harness/experiments/seed002-speedup.gp sim-harness/experiments/seed000.gp \
	sim-harness/experiments/seed000-speedup.gp sim-harness/experiments/beyond.gp \
	sim-harness/experiments/beyond-mesh.gp sim-harness/experiments/beyond-perm.gp
