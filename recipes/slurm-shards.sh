#!/usr/bin/env bash
# A tournament in N shards as a Slurm array job, then one merged report.
#
#   export STRATEGO_HOST=/shared/bin/stratego-host   # the binary (default: stratego-host)
#   export STRATEGO_SHARDS=8                         # N: how many shards the plan is cut into
#   sbatch --array=1-8 recipes/slurm-shards.sh tournament.toml results
#   # when every task is done (or: sbatch --dependency=afterok:JOBID ...):
#   "$STRATEGO_HOST" merge --out results/merged results/shard-* > report.txt
#
# STRATEGO_HOST names the stratego-host binary that the tasks run; unset, it is
# `stratego-host` found on the compute node's PATH. STRATEGO_SHARDS is N, the shard count
# of `--shard I/N`: it must be the same for every task of the event, first attempts and
# resubmissions alike, so give it explicitly. sbatch hands both to the tasks with the rest
# of the submitting environment (its default, --export=ALL), and a requeued task keeps
# the environment it was submitted with. Give a binary path that every node sees, the same
# for all tasks. Without STRATEGO_SHARDS, N is taken from the array only when the array is
# 1-N itself (SLURM_ARRAY_TASK_MIN 1, SLURM_ARRAY_TASK_MAX = SLURM_ARRAY_TASK_COUNT); a
# partial array (`--array=2`, `--array=3,5`) is refused, because its count is not N.
#
# Each array task plays shard $SLURM_ARRAY_TASK_ID of N into its own directory,
# OUTDIR/shard-$SLURM_ARRAY_TASK_ID. A task that is stopped (pre-emption, a node failure,
# its time limit: Slurm sends SIGTERM, the host kills its bots and exits 130 with every
# finished game saved) resumes where it stopped when it runs again with the same command:
#   - requeue it: `scontrol requeue JOBID_K` (K the array index; it may be running: it is
#     stopped and queued again). --requeue below lets Slurm requeue it by itself after a
#     node failure, or a pre-emption where the cluster pre-empts by requeueing; a task
#     stopped at its time limit is not requeued by Slurm: requeue it by hand. A requeued
#     task keeps its job id and log file name, and --open-mode=append below keeps the
#     first attempt's log in it (the default truncates it);
#   - or resubmit that index alone, with the same N:
#       STRATEGO_SHARDS=8 sbatch --array=K recipes/slurm-shards.sh tournament.toml results
#     (a new job id, hence a new log file). A wrong N on a shard's directory is refused
#     (exit 2: the directory holds shard K/8), so a resubmission cannot play another slice.
#
# Options for big events (add them to the `exec` line below): `--compress` writes the
# records zstd-compressed (games.jsonl.zst, about a tenth of the size; a directory keeps
# the form it was started with, and merge reads both); `--report-every N` prints the
# shard's standings to its log every N finished games, so that a long task shows its
# progress in the log with -q.
#SBATCH --job-name=stratego-shard
#SBATCH --cpus-per-task=2
#SBATCH --output=stratego-shard-%A_%a.log
#SBATCH --open-mode=append
#SBATCH --requeue
set -euo pipefail
usage='usage: [STRATEGO_HOST=BINARY] STRATEGO_SHARDS=N sbatch --array=1-N slurm-shards.sh CONFIG.toml OUTDIR'
config=${1:?$usage}
out=${2:?$usage}
: "${SLURM_ARRAY_TASK_ID:?run this with sbatch --array=1-N}"
host=${STRATEGO_HOST:-stratego-host}
if [ -n "${STRATEGO_SHARDS:-}" ]; then
  shards=$STRATEGO_SHARDS
elif [ "${SLURM_ARRAY_TASK_MIN:-1}" = 1 ] && [ -n "${SLURM_ARRAY_TASK_COUNT:-}" ] &&
  [ "${SLURM_ARRAY_TASK_MAX:-$SLURM_ARRAY_TASK_COUNT}" = "$SLURM_ARRAY_TASK_COUNT" ]; then
  shards=$SLURM_ARRAY_TASK_COUNT
else
  echo "slurm-shards.sh: task $SLURM_ARRAY_TASK_ID of a partial array (${SLURM_ARRAY_TASK_MIN:-?}-${SLURM_ARRAY_TASK_MAX:-?}, ${SLURM_ARRAY_TASK_COUNT:-?} tasks) cannot tell the shard count: set STRATEGO_SHARDS=N, the event's N" >&2
  exit 2
fi
case $shards in
  '' | *[!0-9]* | 0*)
    echo "slurm-shards.sh: STRATEGO_SHARDS=$shards: not a shard count (a whole number from 1)" >&2
    exit 2
    ;;
esac
if [ "$SLURM_ARRAY_TASK_ID" -gt "$shards" ]; then
  echo "slurm-shards.sh: array index $SLURM_ARRAY_TASK_ID is past the $shards shards (STRATEGO_SHARDS)" >&2
  exit 2
fi
echo "slurm-shards.sh: $(date -u +%FT%TZ) job ${SLURM_JOB_ID:-?} (restart ${SLURM_RESTART_COUNT:-0}) on $(hostname): shard $SLURM_ARRAY_TASK_ID/$shards into $out/shard-$SLURM_ARRAY_TASK_ID" >&2
# One game per CPU Slurm gave the task; the seed must be fixed (in the file or with --seed)
# so every shard plays the same plan.
exec "$host" tournament "$config" \
  --shard "$SLURM_ARRAY_TASK_ID/$shards" \
  -j "${SLURM_CPUS_PER_TASK:-1}" \
  --out "$out/shard-$SLURM_ARRAY_TASK_ID" -q
