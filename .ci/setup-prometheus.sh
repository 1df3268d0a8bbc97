#!/usr/bin/env bash
# Installs Debian's `prometheus` package for the `gpuledger serve` integration test
# (crates/cli/tests/cli/serve_prometheus.rs). Idempotent; runs as root on a fresh Debian 12.
# The test starts its own Prometheus on a loopback port with a generated config, so the
# packaged service is not needed: it is stopped if the package's scripts started it.
set -euo pipefail

if command -v prometheus >/dev/null 2>&1; then
    echo "setup-prometheus: $(prometheus --version 2>&1 | head -n1)"
    exit 0
fi

. "$(dirname "$0")/../scripts/common.sh"
apt_install_no_start prometheus
echo "setup-prometheus: $(prometheus --version 2>&1 | head -n1)"
