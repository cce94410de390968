#!/bin/sh
# Fixture slurm.start: the Slurm packages (through scripts/setup-deps.sh, like every other
# dependency; a package that cannot be installed fails here with apt's reason), then the
# private cluster.
# Arguments: SOURCE_DIR CLUSTER_DIR
set -u
SRC=$1
DIR=$2
if ! "$SRC/scripts/setup-deps.sh" --test; then
    echo "slurm.start: FAILED: scripts/setup-deps.sh --test could not install the packages above;" >&2
    echo "  the Slurm tests need slurmctld slurmd slurm-client munge (Debian 12)" >&2
    exit 1
fi
exec bash "$(dirname "$0")/cluster.sh" start "$DIR"
