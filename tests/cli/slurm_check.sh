#!/usr/bin/env bash
# cli.slurm — `onnxcost slurm` on a real Slurm cluster of one node, started
# here (munged, slurmctld and slurmd from Debian's slurm-wlm and munge, in a
# temporary folder, on ports of their own) and stopped at the end. No GPU
# here, so the tasks run `measure` on the CPU (--cpu):
#   * two batches: both tasks write their result, the merge job puts them
#     side by side, a table per batch (merged-bN.txt, .json), 0 failed;
#   * a task that fails (its onnxcost exits 1 for batch 4): the merge job
#     names it with its log in failed.txt, merges the other, exits non-zero;
#   * --dry-run writes the scripts and submits nothing; without sbatch on the
#     PATH, one line and exit 2; bad usage, one line and exit 2.
# Skipped (77) where slurm-wlm or munge is missing or the cluster does not
# start (root is needed to run slurmd), saying why.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$2
py=${3:-python3}
model=$src/fixtures/mnist/torchsummary_net.onnx
for t in munged slurmctld slurmd sbatch sinfo; do
    command -v $t >/dev/null || { echo "skipped: $t is not installed (slurm-wlm, munge)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "skipped: slurmd runs tasks as their user only as root"; exit 77; }
d=$(mktemp -d /tmp/onnxcost-slurm.XXXXXX)
stop() {
    [ -f "$d/run/slurmd.pid" ] && kill "$(cat "$d/run/slurmd.pid")" 2>/dev/null
    [ -f "$d/run/slurmctld.pid" ] && kill "$(cat "$d/run/slurmctld.pid")" 2>/dev/null
    [ -f "$d/munge/munged.pid" ] && kill "$(cat "$d/munge/munged.pid")" 2>/dev/null
    sleep 1
    rm -rf "$d"
}
trap stop EXIT
mkdir -p "$d/state" "$d/spool" "$d/log" "$d/munge" "$d/run"
head -c 1024 /dev/urandom >"$d/munge/munge.key"
chmod 400 "$d/munge/munge.key"
munged --key-file="$d/munge/munge.key" --socket="$d/munge/munge.socket" --pid-file="$d/munge/munged.pid" \
    --log-file="$d/munge/munged.log" --seed-file="$d/munge/seed" --force ||
    { echo "skipped: munged does not start"; exit 77; }
host=$(hostname)
port=$((20000 + $$ % 20000))
cat >"$d/slurm.conf" <<EOF
ClusterName=onnxcost
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$d/slurm.conf
slurmctld -f "$SLURM_CONF" && slurmd -f "$SLURM_CONF" || { echo "skipped: slurmctld or slurmd does not start"; exit 77; }
for _ in $(seq 30); do
    sinfo -h -o %t 2>/dev/null | grep -q idle && break
    sleep 1
done
sinfo -h -o %t 2>/dev/null | grep -q idle ||
    { echo "skipped: the node did not come up: $(tail -2 "$d/log/slurmctld.log" | tr '\n' ' ')"; exit 77; }
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
# wait for the merge job (its name) to leave the queue
settle() {
    for _ in $(seq 120); do
        squeue -h -n onnxcost-merge -o %i 2>/dev/null | grep -q . || return 0
        sleep 1
    done
    return 1
}

# two batches, both measured and merged
"$bin" slurm "$model" --cpu --batch 1,4 -o "$d/ok" -- --reps 5 --warmup 1 >"$d/ok.out" 2>&1
rc=$?
settle
check submitted "[ $rc = 0 ] && grep -q 'Submitted .*/cpu.sbatch: job [0-9]* (2 tasks)' $d/ok.out"
check both_results "[ -s $d/ok/results/cpu-b1.json ] && [ -s $d/ok/results/cpu-b4.json ]"
check merged "grep -q '2 of 2 task results merged' $d/ok/logs/merge.out && grep -q 'cpu-b4.json' $d/ok/merged-b4.txt &&
    grep -q 'cpu-b1.json' $d/ok/merged-b1.txt &&
    [ \"\$($py -c 'import json,sys; print(len(json.load(open(sys.argv[1]))[\"files\"]))' $d/ok/merged-b4.json)\" = 1 ]"
check batch_bound "$py -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d[\"bindings\"][\"batch\"] != 4)' \
    $d/ok/results/cpu-b4.json"

# a task that fails: named, the other merged
cat >"$d/flaky" <<EOF
#!/bin/sh
case " \$* " in *" --batch 4 "*) echo "flaky: this node fails batch 4" >&2; exit 1;; esac
exec "$bin" "\$@"
EOF
chmod +x "$d/flaky"
"$bin" slurm "$model" --cpu --batch 1,4 --onnxcost "$d/flaky" -o "$d/bad" -- --reps 5 --warmup 1 >/dev/null 2>&1
settle
check failed_named "grep -q 'failed: cpu batch 4 (task 1 of job onnxcost-cpu): no result; its log: $d/bad/logs/cpu-1.out' \
    $d/bad/failed.txt && grep -q 'this node fails batch 4' $d/bad/logs/cpu-1.out"
check other_merged "grep -q '1 of 2 task results merged' $d/bad/logs/merge.out && grep -q 'cpu-b1.json' $d/bad/merged-b1.txt &&
    [ ! -e $d/bad/merged-b4.txt ]"
check merge_says_failed "grep -q '; 1 failed' $d/bad/logs/merge.out"

# a folder with a space and shell characters: sbatch reads the quoted
# #SBATCH --output, the task and the merge job write where they should,
# and nothing in the name runs
sp="$d/sp ace \$(touch $d/INJECTED)"
"$bin" slurm "$model" --cpu --batch 1 -o "$sp" -- --reps 5 --warmup 1 >"$d/sp.out" 2>&1
rc=$?
settle
check quoted_folder "[ $rc = 0 ] && [ -s \"\$sp/results/cpu-b1.json\" ] && [ -e \"\$sp/logs/cpu-0.out\" ] &&
    grep -q '1 of 1 task results merged' \"\$sp/logs/merge.out\" && [ ! -e $d/INJECTED ]"
[ $fail = 0 ] || { cat "$d/sp.out"; find "$d" -path "*sp ace*" | head -20; cat "$sp"/logs/* 2>/dev/null | head; }

# --dry-run: the scripts, nothing submitted; no sbatch: one line, exit 2
PATH=/usr/bin/false-dir "$bin" slurm "$model" --gpus a100,h100 --batch 1,8,32 -o "$d/dry" --dry-run >"$d/dry.out" 2>&1
check dry_run "grep -q 'not submitted' $d/dry.out && grep -q '#SBATCH --gres=gpu:h100:1' $d/dry/h100.sbatch &&
    grep -q '#SBATCH --array=0-2' $d/dry/a100.sbatch && grep -q 'afterany' $d/dry.out && [ ! -d $d/dry/results/x ]"
PATH=/nonexistent "$bin" slurm "$model" --cpu -o "$d/nosbatch" >"$d/nos.out" 2>&1
rc=$?
check no_sbatch "[ $rc = 2 ] && [ \$(wc -l <$d/nos.out) = 1 ] && grep -q 'cannot run sbatch' $d/nos.out"
for args in "--cpu" "$model -o $d/x" "$model --cpu --gpus a100 -o $d/x" "$model --gpus 'a 1' -o $d/x" \
    "$model --cpu --batch 0 -o $d/x" "$model --gpus a,b,c,d,e,f,g,h,i -o $d/x" "$model --cpu -o '$d/a%b'"; do
    eval "\"$bin\" slurm $args" >"$d/u.out" 2>&1
    rc=$?
    check "usage: $args" "[ $rc = 2 ] && [ \$(wc -l <$d/u.out) = 1 ]"
done
[ $fail = 0 ] && echo "cli.slurm: ok"
exit $fail
