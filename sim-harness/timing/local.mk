# The packet-level timing model (DESIGN.md section 5): a libtool convenience
# library behind `ibunion sim` and the timing unit tests. Separate parts, no
# global state: network (topology + tables), traffic, flows (permutations
# followed through the tables, fluid rates), simulator, stats, sweep
# (parallel points), jobs (sweeps as job sets), dump_dir (what a replayed
# OpenSM run left), plot (gnuplot), sim_cli (the command line, read by the
# CLI's argument reader cli/args, kept here so that every program linking
# sim_cli has it).
noinst_LTLIBRARIES += sim-harness/timing/libibusim.la
sim_harness_timing_libibusim_la_SOURCES = \
	sim-harness/timing/params.h sim-harness/timing/params.cc \
	sim-harness/timing/event_queue.h sim-harness/timing/huge_pages.h \
	sim-harness/timing/rng.h sim-harness/timing/rng.cc \
	sim-harness/timing/network.h sim-harness/timing/network.cc \
	sim-harness/timing/traffic.h sim-harness/timing/traffic.cc \
	sim-harness/timing/flows.h sim-harness/timing/flows.cc \
	sim-harness/timing/stats.h sim-harness/timing/stats.cc \
	sim-harness/timing/simulator.h sim-harness/timing/simulator.cc \
	sim-harness/timing/kernel_common.h sim-harness/timing/lean_kernel.cc \
	sim-harness/timing/sweep.h sim-harness/timing/sweep.cc \
	sim-harness/timing/jobs.h sim-harness/timing/jobs.cc \
	sim-harness/timing/progress.h sim-harness/timing/progress.cc \
	sim-harness/timing/dump_dir.h sim-harness/timing/dump_dir.cc \
	sim-harness/timing/plot.h sim-harness/timing/plot.cc \
	sim-harness/timing/sim_cli.h sim-harness/timing/sim_cli.cc \
	cli/args.h cli/args.cc
EXTRA_DIST += sim-harness/timing/README.md

# For programs linking the model (the ibunion CLI): the model needs the core,
# and static archives resolve left to right, so the core comes again last.
IBUNION_SIM_LIBS = sim-harness/timing/libibusim.la plugin/core/libibucore.la
