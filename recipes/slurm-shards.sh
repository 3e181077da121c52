#!/usr/bin/env bash
# A tournament in N shards as a Slurm array job, then one merged report.
#
#   sbatch --array=1-8 recipes/slurm-shards.sh tournament.toml results
#   # when every task is done (or: sbatch --dependency=afterok:JOBID ...):
#   stratego-host merge results/shard-*  > report.txt
#
# Each array task plays shard $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT into its own
# directory. A task that is killed (pre-emption, time limit) resumes where it stopped when
# it runs again with the same command: `scontrol requeue` or resubmit the same array index.
#SBATCH --job-name=stratego-shard
#SBATCH --cpus-per-task=2
#SBATCH --output=stratego-shard-%A_%a.log
set -euo pipefail
config=${1:?usage: sbatch --array=1-N slurm-shards.sh CONFIG.toml OUTDIR}
out=${2:?usage: sbatch --array=1-N slurm-shards.sh CONFIG.toml OUTDIR}
: "${SLURM_ARRAY_TASK_ID:?run this with sbatch --array=1-N}"
: "${SLURM_ARRAY_TASK_COUNT:?run this with sbatch --array=1-N}"
host=${STRATEGO_HOST:-stratego-host}
# One game per CPU Slurm gave the task; the seed must be fixed (in the file or with --seed)
# so every shard plays the same plan.
exec "$host" tournament "$config" \
  --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" \
  -j "${SLURM_CPUS_PER_TASK:-1}" \
  --out "$out/shard-$SLURM_ARRAY_TASK_ID" -q
