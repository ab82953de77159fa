/work/main/target-base/release/deps/nicsim_probe-a4caf482b54e39e3.d: crates/nicsim-probe/src/lib.rs

/work/main/target-base/release/deps/libnicsim_probe-a4caf482b54e39e3.rlib: crates/nicsim-probe/src/lib.rs

/work/main/target-base/release/deps/libnicsim_probe-a4caf482b54e39e3.rmeta: crates/nicsim-probe/src/lib.rs

crates/nicsim-probe/src/lib.rs:
