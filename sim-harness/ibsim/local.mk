# (filled in by the sim-harness/ibsim work)
