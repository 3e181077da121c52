#!/usr/bin/env bash
# A tournament in N shards as a Slurm array job, then one merged report.
#
#   export STRATEGO_HOST=/shared/bin/stratego-host   # the binary (default: stratego-host)
#   sbatch --array=1-8 recipes/slurm-shards.sh tournament.toml results
#   # when every task is done (or: sbatch --dependency=afterok:JOBID ...):
#   "$STRATEGO_HOST" merge results/shard-* > report.txt
#
# STRATEGO_HOST names the stratego-host binary that the tasks run; unset, it is
# `stratego-host` found on the compute node's PATH. sbatch hands it to the tasks with the
# rest of the submitting environment (its default, --export=ALL). Give a path that every
# node sees, the same for all tasks.
#
# Each array task plays shard $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT into its own
# directory. A task that is killed (pre-emption, time limit) resumes where it stopped when
# it runs again with the same command: `scontrol requeue` or resubmit the same array index.
#SBATCH --job-name=stratego-shard
#SBATCH --cpus-per-task=2
#SBATCH --output=stratego-shard-%A_%a.log
set -euo pipefail
usage='usage: [STRATEGO_HOST=BINARY] sbatch --array=1-N slurm-shards.sh CONFIG.toml OUTDIR'
config=${1:?$usage}
out=${2:?$usage}
: "${SLURM_ARRAY_TASK_ID:?run this with sbatch --array=1-N}"
: "${SLURM_ARRAY_TASK_COUNT:?run this with sbatch --array=1-N}"
host=${STRATEGO_HOST:-stratego-host}
# One game per CPU Slurm gave the task; the seed must be fixed (in the file or with --seed)
# so every shard plays the same plan.
exec "$host" tournament "$config" \
  --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" \
  -j "${SLURM_CPUS_PER_TASK:-1}" \
  --out "$out/shard-$SLURM_ARRAY_TASK_ID" -q
