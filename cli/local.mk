# The `ibunion` command line: a thin front door over the core.
bin_PROGRAMS += ibunion
ibunion_SOURCES = \
	cli/main.cc cli/commands.h cli/fabric_loading.cc \
	cli/cmd_topo.cc cli/cmd_route.cc cli/cmd_verify.cc cli/cmd_inspect.cc \
	cli/cmd_mcjoin.cc cli/cmd_mcsetup.cc cli/cmd_pathsl.cc cli/cmd_trace.cc
# cli/args.cc comes with the model's library (sim-harness/timing/local.mk).
ibunion_LDADD = plugin/core/libibucore.la sim-harness/mcast/libibumcast.la $(IBUNION_SIM_LIBS)
