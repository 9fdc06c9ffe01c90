#!/usr/bin/env bash
# Starts or stops a throwaway Slurm cluster for the Slurm executor's tests (the CTest
# fixture in src/run/CMakeLists.txt calls it; you may too).
#
#   scripts/slurm-test-cluster.sh start DIR PORT [NODES]
#                                   slurmctld on PORT, slurmd i on PORT+i (i = 1..NODES)
#   scripts/slurm-test-cluster.sh stop DIR         stop them all and delete DIR
#
# Everything lives in DIR: slurm.conf (point SLURM_CONF at it to use sbatch, squeue,
# scancel), state, spool, logs, pid files. NODES (default 3) node names n1..nN, each
# its own slurmd on this one machine (NodeHostname localhost, NodeAddr 127.0.0.1, a
# port each), with this machine's CPUs, in partition "debug": an allocation of
# several nodes, and srun steps on each of them, without several machines (the
# serve sessions of several processes need that). No munge (auth/none: nothing
# leaves the machine) and no cgroups or accounting, so it runs unprivileged in
# containers too; it must run as root or the user who submits (SlurmUser and
# SlurmdUser are that user).
set -euo pipefail

action=${1:-}
dir=${2:-}
port=${3:-}
nodes=${4:-3}
if [[ -z "$action" || -z "$dir" || ( "$action" == start && -z "$port" ) ]]; then
  echo "usage: $0 start DIR PORT [NODES] | stop DIR" >&2
  exit 64
fi

stop_cluster() {
  local f pid
  for f in "$dir"/slurmd-*.pid "$dir/slurmctld.pid"; do
    if [[ -f "$f" ]]; then
      pid=$(cat "$f")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
}

case "$action" in
  start)
    for b in slurmctld slurmd sbatch squeue sinfo; do
      if ! command -v "$b" >/dev/null; then
        echo "slurm-test-cluster: $b not found; install Debian's slurm-wlm (scripts/install-deps.sh --with-slurm)" >&2
        exit 1
      fi
    done
    stop_cluster
    rm -rf "$dir"
    mkdir -p "$dir/state" "$dir/spool" "$dir/log"
    for i in $(seq "$nodes"); do mkdir -p "$dir/spool/n$i"; done
    user=$(id -un)
    cat > "$dir/slurm.conf" <<CONF
ClusterName=servebench-test
SlurmctldHost=localhost
SlurmctldPort=$port
AuthType=auth/none
CredType=cred/none
SlurmUser=$user
SlurmdUser=$user
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
KillWait=10
CONF
    for i in $(seq "$nodes"); do
      echo "NodeName=n$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + i)) CPUs=$(nproc) State=UNKNOWN" >> "$dir/slurm.conf"
    done
    echo "PartitionName=debug Nodes=n[1-$nodes] Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4" >> "$dir/slurm.conf"
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -f "$SLURM_CONF"
    for i in $(seq "$nodes"); do slurmd -f "$SLURM_CONF" -N "n$i"; done
    for _ in $(seq 100); do
      if [[ $(sinfo -h -N -o %T 2>/dev/null | grep -c idle) -ge $nodes ]]; then
        echo "slurm-test-cluster: up, $nodes node(s) (SLURM_CONF=$SLURM_CONF)"
        exit 0
      fi
      sleep 0.2
    done
    echo "slurm-test-cluster: the node never became idle; logs:" >&2
    tail -n 30 "$dir/log/slurmctld.log" "$dir"/log/slurmd-*.log >&2 || true
    stop_cluster
    exit 1
    ;;
  stop)
    stop_cluster
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start DIR PORT | stop DIR" >&2
    exit 64
    ;;
esac
