"""The benchmarks nicsim runs as a study would: NetPIPE (the main one), netperf, Hpcbench with
the γ sweep, the web server, connection handoff, Roca's bulk/echo harness, and the engine's own
speed figures. Each drives the core through `api.run` and lays out what it reports. May
import: the package's top (api, configuration, units, errors), `io`, `analytic`."""
