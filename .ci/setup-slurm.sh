#!/usr/bin/env bash
# Installs Debian's Slurm (slurm-wlm 22.05: slurmctld, slurmd, the client commands) and MUNGE
# for the real-Slurm test (crates/cli/tests/cli/slurm_real.rs). Idempotent; runs as root on a
# fresh Debian 12. The test starts its own munged, slurmctld and slurmd with a generated
# one-node configuration, so the packaged services are kept from starting.
set -euo pipefail

if command -v sbatch >/dev/null 2>&1 && [ -x /usr/sbin/slurmd ] && [ -x /usr/sbin/slurmctld ] \
    && [ -x /usr/sbin/munged ]; then
    echo "setup-slurm: $(dpkg-query -W -f '${Version}' slurmd) (slurmd)"
    exit 0
fi

. "$(dirname "$0")/../scripts/common.sh"
apt_install_no_start slurmd munge slurmctld slurm-client
echo "setup-slurm: $(dpkg-query -W -f '${Version}' slurmd) (slurmd)"
