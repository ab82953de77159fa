/work/main/target-base/release/deps/unindent-5a6f8737935fd6f0.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/unindent-0.2.4/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/unindent-0.2.4/src/unindent.rs

/work/main/target-base/release/deps/libunindent-5a6f8737935fd6f0.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/unindent-0.2.4/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/unindent-0.2.4/src/unindent.rs

/work/main/target-base/release/deps/libunindent-5a6f8737935fd6f0.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/unindent-0.2.4/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/unindent-0.2.4/src/unindent.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/unindent-0.2.4/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/unindent-0.2.4/src/unindent.rs:
