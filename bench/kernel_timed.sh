#!/bin/sh
# Kernel-timed sampling (issue 46, goal 1): the dashboard at -i 1ms for
# BENCH_SECONDS (10) on the fake kbase kernel running in real time, on
# kinstr_prfcnt (G720, CSF 1.24) and on the legacy reader (T830, JM 11.20),
# each drained from the kernel's ring and on gputop's own timer
# (--timer-sampling), side by side in one run. CPU time from schedstat over
# the steady state (from BENCH_WARMUP, 1 s, after the start), all threads,
# the fake kernel's own work (writing each sample) included, as it runs in
# gputop's process; wake-ups are the voluntary context switches of all
# threads then. A third run drained puts every sample into a capture
# (--record), read back with the replay source: how many there are,
# against the samples the fake kernel handed over (less the legacy
# reader's first dump, which only fixes the start, and what was still in
# the ring when gputop was stopped: half a ring at most), and how many
# hold other counts than the 700 set in the fake.
# Prints figures and ratios; no pass/fail.
set -u
bin=${1:-./gputop}
fake=${GPUTOP_FAKE:-$(dirname "$bin")/tests/gputop-fake}
secs=${BENCH_SECONDS:-10}
. "$(dirname "$0")/tools/session.sh"
bench_session kernel_timed
warm=${BENCH_WARMUP:-1}
if [ ! -x "$fake" ]; then
    echo "kernel_timed: no $fake (make build/native/tests/gputop-fake)" >&2
    exit 1
fi

# "<cpu ns> <voluntary switches>" of every thread of $1, summed.
cost() {
    c=0 v=0
    for t in /proc/"$1"/task/*; do
        c=$((c + $(cut -d' ' -f1 "$t/schedstat" 2>/dev/null || echo 0)))
        v=$((v + $(sed -n 's/^voluntary_ctxt_switches:[^0-9]*//p' "$t/status" 2>/dev/null || echo 0)))
    done
    echo "$c $v"
}

# measure KERNEL MODE-OPTIONS SECONDS [record]: prints "<CPU ms/s>
# <wake-ups/s> <records> <records not 700> <samples handed over>".
measure() {
    tmux -L "$sock" kill-server >/dev/null 2>&1
    rm -f "$tmp/cap" "$tmp/err"
    rec=
    [ -z "${4:-}" ] || rec="--record $tmp/cap"
    secs_m=$3
    tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 -e TERM=xterm-256color \
        "exec $fake $1 real-clock 0:0:4=700 0:0:6=700 -- -i 1 --no-cpu --no-processes \
         $rec $2 2>$tmp/err"
    pid=$(tmux -L "$sock" display-message -p '#{pane_pid}' 2>/dev/null)
    sleep "$warm"
    if [ -z "$pid" ] || [ ! -d "/proc/$pid/task" ]; then
        echo "kernel_timed: '$1 $2' did not run (run it by hand to see why)" >&2
        exit 1
    fi
    set -- $(cost "$pid")
    c0=$1 v0=$2
    sleep "$secs_m"
    set -- $(cost "$pid")
    c1=$1 v1=$2
    tmux -L "$sock" kill-server 2>/dev/null
    while [ -d "/proc/$pid" ]; do sleep 0.1; done
    echo "0 0 " > "$tmp/rec"
    [ -z "$rec" ] || "$bin" --source "replay:$tmp/cap,speed=max" -b -f csv --no-cpu \
        --metrics 'GPU active cycles' 2>/dev/null |
        awk -F, 'NR > 1 { n++; if ($3 != 700) bad++ } END { printf "%d %d ", n, bad + 0 }' > "$tmp/rec"
    got=$(sed -n 's/.* gets=\([0-9]*\).*/\1/p' "$tmp/err")
    awk -v c="$((c1 - c0))" -v v="$((v1 - v0))" -v s="$secs_m" \
        'BEGIN { printf "%.2f %.1f ", c / 1e6 / s, v / s }'
    echo "$(cat "$tmp/rec")${got:-0}"
}

ratio() { awk "BEGIN{ if ($2 > 0) printf \"%.3f\", $1 / $2; else print \"none\" }"; }
goal() { awk "BEGIN{ print ($1 <= $2) ? \"yes\" : \"no\" }"; }
tab=$(printf '\t')
for k in "G720 csf 1.24:kinstr_prfcnt" "T830 jm 11.20:legacy reader"; do
    kernel=${k%%:*} name=${k#*:}
    set -- $(measure "$kernel" "" "$secs")
    d_cpu=$1 d_wake=$2
    set -- $(measure "$kernel" "--timer-sampling" "$secs")
    t_cpu=$1 t_wake=$2
    set -- $(measure "$kernel" "" 3 record)
    d_rec=$3 d_bad=$4 d_got=$5
    d_ws=$(awk "BEGIN{ printf \"%.3f\", $d_wake / 1000 }")
    t_ws=$(awk "BEGIN{ printf \"%.3f\", $t_wake / 1000 }")
    echo "$name, -i 1ms, ${secs} s, dashboard 80x24 (cpu source and Processes off):"
    echo "  drained:       $d_cpu ms CPU/s, $d_wake wake-ups/s ($d_ws a sample)"
    echo "  gputop timer:  $t_cpu ms CPU/s, $t_wake wake-ups/s ($t_ws a sample)"
    echo "  drained, 3 s with --record: $d_rec records of the $d_got samples the kernel handed over, $d_bad not 700"
    r=$(ratio "$d_cpu" "$t_cpu")
    echo "  drained / timer CPU: ${r}x"
    echo "summary: $name -i 1ms CPU drained / timer, same run${tab}${r}x${tab}<= 0.2x${tab}$(goal "$r" 0.2)"
    echo "summary: $name -i 1ms wake-ups a sample, drained${tab}${d_ws}${tab}<= 0.1${tab}$(goal "$d_ws" 0.1)"
    ok=no
    [ "$d_bad" = 0 ] && [ "$d_rec" -gt 0 ] && [ "$d_rec" -le "$d_got" ] &&
        [ "$((d_got - d_rec))" -le 18 ] && ok=yes
    echo "summary: $name -i 1ms drained samples captured, exact (of handed over)${tab}$d_rec of $d_got, $d_bad off${tab}all, exact${tab}$ok"
done
