#!/bin/sh
# Installs a sans-serif font (fonts-dejavu-core) for the test that rasterises `gpuledger plot`'s
# chart to PNG (crates/cli/tests/cli/record_history.rs): without one, every label would be missing.
# And Noto CJK (fonts-noto-cjk, Simplified and Traditional forms) for the browser page's Chinese
# screenshots and widths (crates/cli/tests/cli/web_lang.rs): without it every Han character is a box.
# Idempotent; for a fresh Debian 12 run as root.
set -eu
if [ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] && [ -e /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ]; then
    echo "DejaVu Sans and Noto CJK present"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends fonts-dejavu-core fonts-noto-cjk
echo "DejaVu Sans and Noto CJK installed"
