#!/bin/sh
# Installs tmux for the live-view end-to-end test (crates/cli/tests/cli/tui_tmux.rs). Idempotent; for a
# fresh Debian 12 run as root.
set -eu
if command -v tmux >/dev/null 2>&1; then
    echo "tmux present: $(tmux -V)"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends tmux
echo "tmux installed: $(tmux -V)"
