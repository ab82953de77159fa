/work/main/target-base/release/deps/_core.d: crates/nicsim-py/src/lib.rs crates/nicsim-py/src/host.rs

/work/main/target-base/release/deps/lib_core.so: crates/nicsim-py/src/lib.rs crates/nicsim-py/src/host.rs

crates/nicsim-py/src/lib.rs:
crates/nicsim-py/src/host.rs:

# env-dep:CARGO_PKG_VERSION=0.1.0
