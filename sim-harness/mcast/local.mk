# (filled in by the sim-harness/mcast work)
