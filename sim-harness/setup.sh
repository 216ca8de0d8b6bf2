#!/bin/bash
# Brings a fresh Debian 12 machine to a built ibunion tree: installs the
# Debian packages the project needs (as root, only those missing), then
# autoreconf + configure + make when the build is missing or stale.
# Run by the README's two commands and the benchmarks; safe to run again.
#   bash sim-harness/setup.sh [PACKAGE...]
# PACKAGE...: Debian packages a tool needs beyond these (e.g. valgrind for
# sim_bench.sh --instr), installed the same way.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

packages=(opensm libopensm-dev ibsim-utils libumad2sim0 infiniband-diags
  libibumad-dev libibmad-dev libcunit1-dev autoconf automake libtool
  pkg-config g++ make gnuplot-nox procps
  python3  # sim-harness/bench/lean_bench.sh (lean_kernel/prep.py)
  git      # tests/run-sanitized.sh lists the sources with git ls-files
  parallel slurmctld slurmd slurm-client  # sim --emit-jobs runners, tests/e2e/sim_jobs.sh
  clang libclang-rt-14-dev  # libFuzzer for tests/fuzz/run_fuzzers.sh
  "$@")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: these Debian packages are missing and installing them needs root: ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
  echo "setup: autoreconf"
  autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
fi
if [ ! -f Makefile ] || [ configure -nt Makefile ]; then
  echo "setup: configure"
  ./configure -q
fi
echo "setup: make"
make -j"$(nproc)" >/dev/null
