# The SA multicast client (MCMemberRecord Set/Delete over libibmad/libibumad).
noinst_LTLIBRARIES += sim-harness/mcast/libibumcast.la
sim_harness_mcast_libibumcast_la_SOURCES = \
	sim-harness/mcast/sa_client.h sim-harness/mcast/sa_client.cc
sim_harness_mcast_libibumcast_la_LIBADD = -libmad -libumad
