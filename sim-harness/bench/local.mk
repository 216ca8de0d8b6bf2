# Benchmarks (not tests): sim-harness/bench/*.sh print ratios against a
# baseline measured in the same run.
noinst_PROGRAMS = sim-harness/bench/core_route_bench sim-harness/bench/core_mcast_bench \
	sim-harness/bench/adapter_mcast_bench sim-harness/bench/clock_probe
sim_harness_bench_core_route_bench_SOURCES = sim-harness/bench/core_route_bench.cc sim-harness/bench/bench_args.h
sim_harness_bench_core_route_bench_LDADD = plugin/core/libibucore.la
dist_noinst_SCRIPTS += sim-harness/bench/routing_bench.sh sim-harness/bench/mesh_routing_bench.sh
EXTRA_DIST += sim-harness/bench/bench_lib.sh
sim_harness_bench_core_mcast_bench_SOURCES = sim-harness/bench/core_mcast_bench.cc sim-harness/bench/bench_args.h
sim_harness_bench_core_mcast_bench_LDADD = plugin/core/libibucore.la
# The adapter's bridge (no OpenSM headers) compiled in, as the unit tests do.
sim_harness_bench_adapter_mcast_bench_SOURCES = sim-harness/bench/adapter_mcast_bench.cc sim-harness/bench/bench_args.h \
	plugin/osm/bridge.cc plugin/osm/bridge.h plugin/osm/bridge_fabric.h
sim_harness_bench_adapter_mcast_bench_LDADD = plugin/core/libibucore.la
dist_noinst_SCRIPTS += sim-harness/bench/sweep_soak.sh
dist_noinst_SCRIPTS += sim-harness/bench/sim_bench.sh
# sim_bench.sh's cycles per packet-hop: the machine's effective clock.
sim_harness_bench_clock_probe_SOURCES = sim-harness/bench/clock_probe.cc
dist_noinst_SCRIPTS += sim-harness/bench/lean_bench.sh
EXTRA_DIST += sim-harness/bench/lean_kernel/lean.cc sim-harness/bench/lean_kernel/prep.py
dist_noinst_SCRIPTS += sim-harness/bench/degraded_balance.sh
dist_noinst_SCRIPTS += sim-harness/bench/table_io.sh
dist_noinst_SCRIPTS += sim-harness/bench/flows_bench.sh
dist_noinst_SCRIPTS += sim-harness/bench/checks_bench.sh
