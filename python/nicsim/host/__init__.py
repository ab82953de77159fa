"""The host nicsim runs on, measured: `nicsim probe` with real tools, the host's primitives in
compiled code (host facts) and the kernel's category shares from `perf` samples. May import
the package's top and configuration."""
