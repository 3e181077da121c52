#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine (no systemd needed): munge, slurmctld and
# slurmd as root, one partition "ci" with every CPU. Used by .ci/run for the shard recipe test.
#
# Then, given a stratego-host binary (STRATEGO_HOST, else $CARGO_TARGET_DIR/debug/stratego-host
# when it exists; otherwise it says that it skips it), it tests what a cluster does to the
# recipe: recipes/slurm-shards.sh submitted as an array of 3, task 2 requeued with
# `scontrol requeue` while it plays (Slurm kills it and runs it again), then: task 2's log
# holds both attempts (--open-mode=append), its second attempt resumed the shard's
# directory, and `merge` of the 3 shards has every planned game exactly once (exit 0).
# SLURM_REQUEUE_TEST=0 skips it.
set -euo pipefail
host=$(hostname -s)
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 512 ))
mkdir -p /etc/munge /var/log/munge /run/munge /var/lib/munge /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /etc/slurm
[ -s /etc/munge/munge.key ] || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
chown -R munge:munge /etc/munge /var/log/munge /run/munge /var/lib/munge 2>/dev/null || true
chmod 400 /etc/munge/munge.key
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged --force
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=stratego-ci
SlurmctldHost=$host
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
SlurmUser=root
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
pgrep -x slurmctld >/dev/null || /usr/sbin/slurmctld
pgrep -x slurmd >/dev/null || /usr/sbin/slurmd
up=0
for _ in $(seq 1 30); do
  if sinfo -h -o %T 2>/dev/null | grep -qE 'idle|mixed|alloc'; then up=1; break; fi
  sleep 1
done
if [ "$up" -eq 0 ]; then
  echo "slurm did not come up:" >&2
  sinfo >&2 || true
  tail -20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
  exit 1
fi

host_bin=${STRATEGO_HOST:-${CARGO_TARGET_DIR:+$CARGO_TARGET_DIR/debug/stratego-host}}
if [ "${SLURM_REQUEUE_TEST:-1}" = 0 ]; then
  exit 0
elif [ -z "$host_bin" ] || [ ! -x "$host_bin" ]; then
  echo "slurm-one-node: requeue test skipped: no stratego-host binary (set STRATEGO_HOST)" >&2
  exit 0
fi
host_bin=$(realpath "$host_bin")
recipe=$(realpath "$(dirname "$0")/../recipes/slurm-shards.sh")
work=$(mktemp -d /tmp/slurm-requeue.XXXXXX)
trap 'rm -rf "$work"' EXIT
say() { echo "slurm-one-node: requeue test: $*" >&2; }
fail() {
  say "FAILED: $*"
  for f in "$work"/*.log; do [ -f "$f" ] && { echo "== $f" >&2; tail -20 "$f" >&2; }; done
  [ -n "${job:-}" ] && scancel "$job" 2>/dev/null
  exit 1
}
# Enough games that task 2 is still playing when it is requeued.
cat > "$work/t.toml" <<'TOML'
games = 60
seed = 8
move_time = 60
[[bot]]
command = "sample-bot"
[[bot]]
command = "sample-bot --strategy random"
[[bot]]
command = "sample-bot --strategy search --worlds 2"
TOML
job=$(cd "$work" && STRATEGO_HOST=$host_bin STRATEGO_SHARDS=3 sbatch --parsable --array=1-3 \
  --cpus-per-task=1 "$recipe" t.toml results) || fail "sbatch"
job=${job%%;*}
say "job $job submitted"
records() { cat "$work/results/shard-2/games.jsonl" 2>/dev/null | wc -l; }
deadline=$((SECONDS + 300))
until [ "$(records)" -ge 1 ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "task 2 recorded no game in 300 s"
  sleep 0.2
done
before=$(records)
scontrol requeue "${job}_2" || fail "scontrol requeue ${job}_2"
say "task 2 requeued with $before games recorded"
# Slurm holds a requeued job for about two minutes (BeginTime); not what is tested here.
scontrol update JobId="${job}_2" StartTime=now >/dev/null 2>&1 || true
deadline=$((SECONDS + 600))
while [ -n "$(squeue -h -j "$job" 2>/dev/null)" ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "the array was not done in 600 s"
  sleep 1
done
log=$work/stratego-shard-${job}_2.log
[ -f "$log" ] || fail "no log $log"
attempts=$(grep -c 'slurm-shards.sh: .* shard 2/3 into' "$log" || true)
[ "$attempts" -eq 2 ] || fail "task 2's log holds $attempts attempts, not 2 (--open-mode=append)"
grep -q 'stratego-host: interrupted' "$log" || fail "task 2's first attempt was not stopped while it played (no 'interrupted' in its log)"
grep -q 'restart 1' "$log" || fail "task 2's second attempt is not a restart (SLURM_RESTART_COUNT)"
grep -q 'resuming .*shard-2: [0-9]* games\? already finished' "$log" || fail "task 2's second attempt did not resume its directory"
status=0
"$host_bin" merge "$work"/results/shard-1 "$work"/results/shard-2 "$work"/results/shard-3 \
  > "$work/merge.log" 2>&1 || status=$?
[ "$status" -eq 0 ] || fail "merge exit $status: $(tail -3 "$work/merge.log")"
say "ok: task 2 killed after $before games, requeued, resumed, both attempts in its log; merge: $(grep 'merged' "$work/merge.log")"
