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

export DEBIAN_FRONTEND=noninteractive
# Refresh the lists only when apt does not know the package yet (fresh machine).
if ! apt-cache policy prometheus 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    apt-get update -qq
fi
# Keep the package's service from starting during install (no init system in CI anyway).
policy=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod +x "$policy"
    created_policy=1
fi
trap '[ "$created_policy" = 1 ] && rm -f "$policy"' EXIT
apt-get install -y -qq --no-install-recommends prometheus >/dev/null
echo "setup-prometheus: $(prometheus --version 2>&1 | head -n1)"
