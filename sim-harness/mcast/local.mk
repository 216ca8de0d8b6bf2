# The SA multicast client (MCMemberRecord Set/Delete over libibmad/libibumad),
# the MFT reader (SMPs) and the group set-up harness of seed 003.
noinst_LTLIBRARIES += sim-harness/mcast/libibumcast.la
sim_harness_mcast_libibumcast_la_SOURCES = \
	sim-harness/mcast/sa_client.h sim-harness/mcast/sa_client.cc \
	sim-harness/mcast/mft_reader.h sim-harness/mcast/mft_reader.cc \
	sim-harness/mcast/sa_workers.h sim-harness/mcast/sa_workers.cc \
	sim-harness/mcast/setup_bench.h sim-harness/mcast/setup_bench.cc \
	sim-harness/mcast/effective_latency.h sim-harness/mcast/effective_latency.cc \
	sim-harness/mcast/interrupt.h sim-harness/mcast/interrupt.cc
sim_harness_mcast_libibumcast_la_LIBADD = -libmad -libumad
# Where configure found libumad2sim.so: the hint when no port opens.
sim_harness_mcast_libibumcast_la_CPPFLAGS = $(AM_CPPFLAGS) -DIBUNION_UMAD2SIM='"$(UMAD2SIM)"'
EXTRA_DIST += sim-harness/mcast/setup-bench sim-harness/mcast/effective.gp \
	sim-harness/mcast/setup-ready.gp
