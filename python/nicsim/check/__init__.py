"""The model against the world: reference rows and `nicsim validate`, the thesis suites, the
calibration fits and fitting to a user's reference file. May import the benchmarks, `host`
and everything below them."""
