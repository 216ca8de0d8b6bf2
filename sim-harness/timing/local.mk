# (filled in by the sim-harness/timing work)
