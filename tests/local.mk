# (filled in by the tests work)
