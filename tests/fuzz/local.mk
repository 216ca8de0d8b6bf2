# Fuzz targets, one per parser family:
#   netfile_fuzz    net files (ibnetdiscover / ibsim format)
#   parsers_fuzz    LFT and MFT dumps (ibroute format), group files,
#                   guid2lid files, engine option words, path SL files
#   options_fuzz    the plugin's event_plugin_options string, through the
#                   adapter's entry point (plugin/osm/bridge.cc)
#   simconfig_fuzz  the timing model's `key = value` settings and traffic words
#   sl2vl_fuzz      SL2VL tables (`smpquery sl2vl` format, verify --sl2vl) and
#                   what verify does with them (policy compare, credit loops)
# `make check` replays the checked-in corpora through the same targets with a
# plain driver (run_corpus.sh) and, when clang with libFuzzer is installed,
# fuzzes each target for a bounded time (run_fuzzers.sh, FUZZ_SECONDS each).
# `make fuzz` builds the libFuzzer binaries.
check_PROGRAMS += tests/fuzz/netfile_replay tests/fuzz/parsers_replay \
	tests/fuzz/options_replay tests/fuzz/simconfig_replay tests/fuzz/sl2vl_replay
tests_fuzz_parsers_replay_SOURCES = tests/fuzz/parsers_fuzz.cc tests/fuzz/replay_main.cc
tests_fuzz_parsers_replay_LDADD = plugin/core/libibucore.la
tests_fuzz_netfile_replay_SOURCES = tests/fuzz/netfile_fuzz.cc tests/fuzz/replay_main.cc
tests_fuzz_netfile_replay_LDADD = plugin/core/libibucore.la
tests_fuzz_options_replay_SOURCES = tests/fuzz/options_fuzz.cc tests/fuzz/replay_main.cc \
	plugin/osm/bridge.cc
tests_fuzz_options_replay_LDADD = plugin/core/libibucore.la
tests_fuzz_simconfig_replay_SOURCES = tests/fuzz/simconfig_fuzz.cc tests/fuzz/replay_main.cc
tests_fuzz_simconfig_replay_LDADD = $(IBUNION_SIM_LIBS) -lpthread
tests_fuzz_sl2vl_replay_SOURCES = tests/fuzz/sl2vl_fuzz.cc tests/fuzz/replay_main.cc
tests_fuzz_sl2vl_replay_LDADD = plugin/core/libibucore.la
TESTS += tests/fuzz/run_corpus.sh tests/fuzz/run_fuzzers.sh
dist_noinst_SCRIPTS += tests/fuzz/run_corpus.sh tests/fuzz/run_fuzzers.sh

# libFuzzer builds: the core (and model) compiled once with clang into
# tests/fuzz/obj, then one link per target.
FUZZ_CXX = clang++
FUZZ_FLAGS = -std=c++17 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -I$(top_srcdir)
FUZZ_TARGETS = tests/fuzz/netfile_fuzz tests/fuzz/parsers_fuzz tests/fuzz/options_fuzz \
	tests/fuzz/simconfig_fuzz tests/fuzz/sl2vl_fuzz
FUZZ_LIB_SRCS = $(filter %.cc,$(plugin_core_libibucore_la_SOURCES)) \
	$(filter %.cc,$(sim_harness_timing_libibusim_la_SOURCES)) plugin/osm/bridge.cc
FUZZ_LIB_OBJECTS = $(patsubst %.cc,tests/fuzz/obj/%.o,$(FUZZ_LIB_SRCS))
.PHONY: fuzz
.SECONDARY: $(FUZZ_LIB_OBJECTS)  # keep the objects between builds
fuzz: $(FUZZ_TARGETS)
tests/fuzz/obj/%.o: $(top_srcdir)/%.cc
	@mkdir -p $(@D)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<
tests/fuzz/%_fuzz: $(top_srcdir)/tests/fuzz/%_fuzz.cc $(FUZZ_LIB_OBJECTS)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJECTS) -lpthread
# Header dependencies: a stale object after a header change once gave a
# false heap overflow (a class grew; an old object allocated the old size).
-include $(FUZZ_LIB_OBJECTS:.o=.d)
CLEANFILES += $(FUZZ_TARGETS)
clean-local: clean-fuzz-obj
clean-fuzz-obj:
	rm -rf tests/fuzz/obj
