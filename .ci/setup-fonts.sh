#!/bin/sh
# Installs a sans-serif font (fonts-dejavu-core) for the test that rasterises `gpuledger plot`'s
# chart to PNG (crates/cli/tests/cli/record_history.rs): without one, every label would be missing.
# Idempotent; for a fresh Debian 12 run as root.
set -eu
if [ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]; then
    echo "DejaVu Sans present"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends fonts-dejavu-core
echo "DejaVu Sans installed"
