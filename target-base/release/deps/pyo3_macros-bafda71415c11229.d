/work/main/target-base/release/deps/pyo3_macros-bafda71415c11229.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-macros-0.22.6/src/lib.rs

/work/main/target-base/release/deps/libpyo3_macros-bafda71415c11229.so: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-macros-0.22.6/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-macros-0.22.6/src/lib.rs:

# env-dep:CARGO_PKG_VERSION=0.22.6
