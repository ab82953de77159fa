/work/main/target-base/release/deps/indoc-87162694fd6d86ba.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/error.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/expr.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/unindent.rs

/work/main/target-base/release/deps/libindoc-87162694fd6d86ba.so: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/error.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/expr.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/unindent.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/error.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/expr.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/indoc-2.0.8/src/unindent.rs:
