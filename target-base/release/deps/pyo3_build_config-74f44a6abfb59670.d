/work/main/target-base/release/deps/pyo3_build_config-74f44a6abfb59670.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/errors.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/impl_.rs /work/main/target-base/release/build/pyo3-build-config-5ee80aa69a807ace/out/pyo3-build-config-file.txt /work/main/target-base/release/build/pyo3-build-config-5ee80aa69a807ace/out/pyo3-build-config.txt

/work/main/target-base/release/deps/libpyo3_build_config-74f44a6abfb59670.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/errors.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/impl_.rs /work/main/target-base/release/build/pyo3-build-config-5ee80aa69a807ace/out/pyo3-build-config-file.txt /work/main/target-base/release/build/pyo3-build-config-5ee80aa69a807ace/out/pyo3-build-config.txt

/work/main/target-base/release/deps/libpyo3_build_config-74f44a6abfb59670.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/errors.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/impl_.rs /work/main/target-base/release/build/pyo3-build-config-5ee80aa69a807ace/out/pyo3-build-config-file.txt /work/main/target-base/release/build/pyo3-build-config-5ee80aa69a807ace/out/pyo3-build-config.txt

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/errors.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.22.6/src/impl_.rs:
/work/main/target-base/release/build/pyo3-build-config-5ee80aa69a807ace/out/pyo3-build-config-file.txt:
/work/main/target-base/release/build/pyo3-build-config-5ee80aa69a807ace/out/pyo3-build-config.txt:

# env-dep:CARGO_PKG_VERSION=0.22.6
# env-dep:OUT_DIR=/work/main/target-base/release/build/pyo3-build-config-5ee80aa69a807ace/out
