#!/usr/bin/env bash
# A real Slurm test cluster on this one host: three node types as partitions, several slurmd (-N NAME) side by side.
#
#   tests/cluster/slurm.sh install      Debian/Ubuntu packages (root + apt-get only)
#   tests/cluster/slurm.sh up   [LAB]   munged + slurmctld + one slurmd per node; prints SLURM_CONF=... when all are idle
#   tests/cluster/slurm.sh down [LAB]   cancel jobs, stop every daemon by the PID saved at start
#
# Node types (the stand-in nvidia-smi in this folder answers per $SLURMD_NODENAME from gpus.tsv):
#   v1  partition v100  gpu:v100:2 (compute capability 7.0, an older driver)
#   h1  partition h100  gpu:h100:1 (compute capability 9.0, a current driver)
#   c1  partition cpu   no GPU (the default partition, like a login/CPU node)
# GRES files must be character devices (Slurm ignores regular files and sets no CUDA_VISIBLE_DEVICES); major 195
# has no driver here, so opening them fails, which no test does.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lab="${2:-${TORCHENV_SLURM_LAB:-${TMPDIR:-/tmp}/torchenv-slurm}}"
ctld_port="${TORCHENV_SLURM_PORT:-26817}"
nodes=(v1 h1 c1)

install() {
    command -v apt-get >/dev/null && [ "$(id -u)" = 0 ] || { echo "slurm.sh: install needs root and apt-get" >&2; return 1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
}

write_conf() {
    local host; host="$(hostname)"
    local hw="NodeHostname=$host NodeAddr=127.0.0.1 CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=2000 State=UNKNOWN"
    cat > "$lab/etc/slurm.conf" <<CONF
ClusterName=torchenvtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$lab/munge/socket
StateSaveLocation=$lab/state
SlurmdSpoolDir=$lab/spool/%n
SlurmctldPidFile=$lab/run/slurmctld.pid
SlurmdPidFile=$lab/run/slurmd-%n.pid
SlurmctldLogFile=$lab/log/slurmctld.log
SlurmdLogFile=$lab/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=batch_sched_delay=0
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
GresTypes=gpu
NodeName=v1 Port=$((ctld_port + 10)) Gres=gpu:v100:2 $hw
NodeName=h1 Port=$((ctld_port + 11)) Gres=gpu:h100:1 $hw
NodeName=c1 Port=$((ctld_port + 12)) $hw
PartitionName=cpu  Nodes=c1 Default=YES MaxTime=INFINITE State=UP
PartitionName=v100 Nodes=v1 MaxTime=INFINITE State=UP
PartitionName=h100 Nodes=h1 MaxTime=INFINITE State=UP
CONF
    cat > "$lab/etc/gres.conf" <<CONF
NodeName=v1 Name=gpu Type=v100 File=$lab/dev/nvidia[0-1]
NodeName=h1 Name=gpu Type=h100 File=$lab/dev/nvidia0
CONF
}

start() {   # start NAME ARGV...: in its own session (not killed with the caller's process group), PID saved
    local name="$1"; shift
    setsid "$@" > "$lab/log/$name.out" 2>&1 &
    echo $! > "$lab/run/$name.bgpid"
}

up() {
    for tool in munged slurmctld slurmd sinfo; do
        command -v "$tool" >/dev/null || { echo "slurm.sh: $tool is not installed (run: slurm.sh install)" >&2; return 1; }
    done
    if [ -n "$(ls -A "$lab" 2>/dev/null)" ] && [ ! -e "$lab/.torchenv-slurm-lab" ]; then
        echo "slurm.sh: $lab is not empty and not a lab made by this script; not touching it" >&2; return 1
    fi
    [ -e "$lab/run" ] && down
    rm -rf "$lab"
    mkdir -p "$lab"/{etc,state,log,run,munge,dev} "${nodes[@]/#/$lab/spool/}"
    touch "$lab/.torchenv-slurm-lab"
    chmod 711 "$lab/munge"
    head -c 1024 /dev/urandom > "$lab/munge/munge.key"; chmod 400 "$lab/munge/munge.key"
    munged --key-file="$lab/munge/munge.key" --socket="$lab/munge/socket" --pid-file="$lab/munge/munged.pid" \
        --log-file="$lab/munge/munged.log" --seed-file="$lab/munge/munged.seed"
    mknod "$lab/dev/nvidia0" c 195 0; mknod "$lab/dev/nvidia1" c 195 1
    write_conf
    export SLURM_CONF="$lab/etc/slurm.conf"
    start slurmctld slurmctld -D -i
    for n in "${nodes[@]}"; do start "slurmd-$n" slurmd -D -N "$n"; done
    for _ in $(seq 1 150); do
        [ "$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" -ge "${#nodes[@]}" ] && { echo "SLURM_CONF=$SLURM_CONF"; return 0; }
        for f in "$lab"/run/*.bgpid; do
            kill -0 "$(cat "$f")" 2>/dev/null || { echo "slurm.sh: $(basename "$f" .bgpid) died:" >&2; tail -n 5 "$lab"/log/*.out >&2; down; return 1; }
        done
        sleep 0.2
    done
    echo "slurm.sh: nodes not idle after 30 s:" >&2; sinfo -N >&2 || true; down; return 1
}

alive() { [ -r "/proc/$1/stat" ] && ! awk '{exit ($3=="Z") ? 0 : 1}' "/proc/$1/stat"; }

down() {
    export SLURM_CONF="$lab/etc/slurm.conf"
    if [ -f "$lab/run/slurmctld.bgpid" ] && alive "$(cat "$lab/run/slurmctld.bgpid")"; then
        ids="$(squeue -h -o %i 2>/dev/null || true)"; [ -n "$ids" ] && scancel $ids 2>/dev/null || true
    fi
    local pids=() f p
    for f in "$lab"/run/slurmd-*.bgpid "$lab"/run/slurmctld.bgpid "$lab"/munge/munged.pid; do
        [ -f "$f" ] || continue; p="$(cat "$f")"; pids+=("$p"); kill "$p" 2>/dev/null || true; rm -f "$f"
    done
    for _ in $(seq 1 50); do
        local any=0; for p in "${pids[@]}"; do alive "$p" && any=1; done; [ $any = 0 ] && return 0; sleep 0.1
    done
    for p in "${pids[@]}"; do alive "$p" && kill -9 "$p" 2>/dev/null; done
    return 0
}

case "${1:-}" in
    install) install ;;
    up) up ;;
    down) down ;;
    *) echo "usage: $0 install|up|down [LAB]" >&2; exit 2 ;;
esac
