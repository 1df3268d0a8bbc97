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

export DEBIAN_FRONTEND=noninteractive
if ! apt-cache policy slurmd 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    apt-get update -qq
fi
policy=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod +x "$policy"
    created_policy=1
fi
trap '[ "$created_policy" = 1 ] && rm -f "$policy"' EXIT
apt-get install -y -qq --no-install-recommends munge slurmd slurmctld slurm-client >/dev/null
echo "setup-slurm: $(dpkg-query -W -f '${Version}' slurmd) (slurmd)"
