#!/usr/bin/env bash
# `steno-bench caldav` with what it needs: Radicale (the server, stock limits) and vdirsyncer
# (the baseline syncing the same collection in the same run), installed from PyPI when
# missing. Extra arguments go to the benchmark, e.g. --runs 5 --chunk 500.
# Usage: Tests/Benchmarks/caldav-bench.sh [--runs N] [--events N] [--chunk N] [--concurrency N]
set -euo pipefail
cd "$(dirname "$0")/../.."
pip_install() {
  python3 -m pip install --quiet "$@" 2>/dev/null || python3 -m pip install --quiet --break-system-packages "$@"
}
python3 -c "import radicale" 2>/dev/null || pip_install radicale
command -v vdirsyncer >/dev/null 2>&1 || pip_install vdirsyncer
swift run -c release steno-bench caldav "$@"
