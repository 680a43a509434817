#!/bin/sh
# Prints the batch output of every simulated family and scene (seed and
# step fixed, so the run is deterministic) with its checksum, one line per
# run: a tree reorganisation that changes no behaviour leaves every line
# the same. Usage: scripts/sim-digest.sh [GPUTOP] > digest.txt
set -eu
bin=${1:-./gputop}
mali_scenes="idle ui game compute raytracing memory-bound cycle serial-queues
front-end-starved arithmetic-bound varying-bound texture-bound load-store-bound"
amd_scenes="idle compute-bound memory-bound cache-friendly cycle"

# A loaded machine can still make the reader fall behind, which merges two
# intervals into one record ("merged", interval 0.2): such a run is taken
# again, up to five times.
merged() {
    grep -q '"merged":[2-9]\|(merged)' "$1" && return 0
    head -1 "$1" | grep -q '^time_s,' || return 1
    awk -F, 'NR > 1 && $2 != "0.1" && $2 != "" { bad = 1 } END { exit !bad }' "$1"
}

run() {
    spec=$1; shift
    out=$(mktemp)
    for try in 1 2 3 4 5; do
        "$bin" --source "$spec" "$@" -b -n 60 -i 20ms >"$out" 2>&1 || true
        merged "$out" || break
    done
    echo "$(md5sum <"$out" | cut -d' ' -f1) $spec $*"
    rm -f "$out"
}

for fam in mali-t8xx mali-bifrost mali-valhall-jm mali-g715 mali-g720; do
    for sc in $mali_scenes; do
        run "sim:$fam,scene=$sc,seed=7,step=100000000" --no-cpu -f csv
    done
    run "sim:$fam,seed=7,step=100000000" --no-cpu -f csv --per-core
    run "sim:$fam,seed=7,step=100000000" --no-cpu -f json
    run "sim:$fam,seed=7,step=100000000" --no-cpu -f text
    run "sim:$fam,seed=7,step=100000000" --no-cpu -f csv --per-second
done
for sc in $amd_scenes; do
    run "sim:amd-gfx1151,scene=$sc,seed=7,step=100000000" --no-cpu -f csv
done
run "sim:amd-gfx1151,seed=7,step=100000000" --no-cpu -f json
run "sim:mips-cm,seed=7,step=100000000" --layout mips-cm --no-cpu -f csv
run "sim:mali-g720,seed=7,step=100000000" --source "sim:mips-cm,seed=7,step=100000000" --no-cpu -f csv
run "sim:mali-g720,seed=7,step=100000000" --source "sim:mips-cm,seed=7,step=100000000" --no-cpu -f json
