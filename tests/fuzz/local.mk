# Fuzz targets. `make fuzz` builds the libFuzzer binaries with clang (run:
# tests/fuzz/netfile_fuzz tests/fuzz/corpus/netfile); `make check` replays
# the corpora through the same targets with a plain driver.
check_PROGRAMS += tests/fuzz/netfile_replay tests/fuzz/parsers_replay
tests_fuzz_parsers_replay_SOURCES = tests/fuzz/parsers_fuzz.cc tests/fuzz/replay_main.cc
tests_fuzz_parsers_replay_LDADD = plugin/core/libibucore.la
tests_fuzz_netfile_replay_SOURCES = tests/fuzz/netfile_fuzz.cc tests/fuzz/replay_main.cc
tests_fuzz_netfile_replay_LDADD = plugin/core/libibucore.la
TESTS += tests/fuzz/run_corpus.sh
dist_noinst_SCRIPTS += tests/fuzz/run_corpus.sh

FUZZ_CXX = clang++
FUZZ_FLAGS = -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -I$(top_srcdir)
CORE_SOURCES_FOR_FUZZ = $(filter %.cc,$(plugin_core_libibucore_la_SOURCES))
.PHONY: fuzz
fuzz: tests/fuzz/netfile_fuzz tests/fuzz/parsers_fuzz
tests/fuzz/%_fuzz: tests/fuzz/%_fuzz.cc $(CORE_SOURCES_FOR_FUZZ)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -o $@ $(addprefix $(top_srcdir)/,tests/fuzz/$*_fuzz.cc $(CORE_SOURCES_FOR_FUZZ))
CLEANFILES += tests/fuzz/netfile_fuzz tests/fuzz/parsers_fuzz
