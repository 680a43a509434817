#!/bin/sh
# Valgrind memcheck over a representative batch session: the sim recorded
# to a capture (JSON out), the capture replayed (CSV out), the Mali source
# on the fake kbase kernel through both readers (text out), the MIPS CM sim
# with --trace, --serve, and a csv import. Fails on any memcheck error or leak; prints one line per run.
# Usage: scripts/valgrind.sh GPUTOP GPUTOP_FAKE (make valgrind).
set -u
bin=$1
fake=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gputop-vg.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0

vg() { # NAME COMMAND...
    name=$1
    shift
    valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect,possible \
        --errors-for-leak-kinds=definite,indirect,possible --track-fds=no \
        --error-exitcode=99 --log-file="$tmp/$name.vg" "$@" > "$tmp/$name.out" 2>&1
    rc=$?
    errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$tmp/$name.vg" | tail -1)
    lost=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$tmp/$name.vg" | tail -1)
    printf 'valgrind: %-14s exit %-3s errors %-3s definitely lost %s bytes\n' "$name" "$rc" \
        "${errs:-?}" "${lost:-0}"
    # A run that ends in an error message is not what this is for.
    if [ "$rc" != 0 ]; then
        echo "valgrind: $name: exit $rc" >&2
        tail -5 "$tmp/$name.out" >&2
        failed=1
    fi
    if [ "$rc" = 99 ] || [ "${errs:-1}" != 0 ]; then
        cat "$tmp/$name.vg" >&2
        failed=1
    fi
}

vg record "$bin" --source sim --batch --count 30 --interval 2ms --format json \
    --record "$tmp/sim.gtcap"
vg replay "$bin" --source "replay:$tmp/sim.gtcap,speed=max" --batch --format csv
vg amd "$bin" --source sim:amd-gfx1151 --batch --count 10 --interval 2ms --no-cpu
vg kinstr "$fake" G715 csf 1.21 0:0:4=1000 -- --batch --count 10 --interval 2ms --no-cpu
vg legacy "$fake" T830 jm 11.20 0:0:6=1000 -- --batch --count 10 --interval 2ms --no-cpu
printf 'interval_ns,MaliGPUCyclesGPUActive\n100000000,2\n100000000,3\n' > "$tmp/in.csv"
vg csv "$bin" --source "csv:$tmp/in.csv" --layout mali-t8xx --batch --no-cpu
vg mips-trace "$bin" --source sim:mips-cm --batch --count 10 --interval 2ms --no-cpu \
    --trace "$tmp/trace.json" -f none
vg serve "$bin" --source sim --batch --count 10 --interval 2ms --serve 127.0.0.1:0 -f none
vg check-layout "$bin" --check-layout mali-g720
exit $failed
