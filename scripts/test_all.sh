#!/usr/bin/env bash
# Every test, Rust and Python, on a fresh machine of this project's kind, after the formatter
# and both linters (cargo fmt, clippy, ruff).
set -euo pipefail
cd "$(dirname "$0")/.."

# Headless Chromium for the report test (Debian's package; the only browser reachable here).
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "warning: chromium could not be installed; the browser test will be skipped" >&2
fi

# The package, built in release mode (whole-curve tests run against it).
python3 -m pip install -q ".[test]"

cargo fmt --check
cargo clippy --release --all-targets -- -D warnings
python3 -m ruff check python/nicsim
cargo test -p nicsim --release
python3 -m pytest -q -p no:cacheprovider tests
