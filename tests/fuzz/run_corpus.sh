#!/bin/bash
# Replays every checked-in fuzz corpus through its target (regression test).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${IBUNION_BUILD:-$here/../..}
"$build/tests/fuzz/netfile_replay" "$here"/corpus/netfile/*
"$build/tests/fuzz/parsers_replay" "$here"/corpus/dumps/* "$here"/corpus/groups/* \
  "$here"/corpus/guid2lid/* "$here"/corpus/options/* "$here"/corpus/path-sls/*
"$build/tests/fuzz/options_replay" "$here"/corpus/plugin-options/*
"$build/tests/fuzz/simconfig_replay" "$here"/corpus/simconfig/*
"$build/tests/fuzz/sl2vl_replay" "$here"/corpus/sl2vl/*
