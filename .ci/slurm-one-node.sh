#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine (no systemd needed): munge, slurmctld and
# slurmd as root, one partition "ci" with every CPU. Used by .ci/run for the shard recipe test.
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
for i in $(seq 1 30); do
  if sinfo -h -o %T 2>/dev/null | grep -qE 'idle|mixed|alloc'; then exit 0; fi
  sleep 1
done
echo "slurm did not come up:" >&2
sinfo >&2 || true
tail -20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
exit 1
