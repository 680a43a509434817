#!/bin/sh
# Dashboard cost: CPU time of gputop over 30 s at 10 Hz sampling and 4 Hz
# refresh in an 80x24 tmux pane, and bytes written to the terminal per
# refresh; beside it, in the same pane size, top -d 0.25 and htop -d 3.
# Prints figures and ratios; no pass/fail.
set -u
bin=${1:-./gputop}
secs=${BENCH_SECONDS:-30}
sock="gputop-bench-$$"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gputop-bench.XXXXXX")
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT

# Runs a command in a fresh 80x24 pane for $secs seconds; prints
# "<cpu ms> <bytes written>".
measure() {
    tmux -L "$sock" kill-server >/dev/null 2>&1
    : > "$tmp/raw"
    tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 -e TERM=xterm-256color "exec $1"
    tmux -L "$sock" pipe-pane -o "cat >> $tmp/raw"
    pid=$(tmux -L "$sock" display-message -p '#{pane_pid}')
    sleep "$secs"
    # Time on CPU in nanoseconds, summed over the threads
    # (/proc/PID/task/TID/schedstat, first field): exact, where the
    # utime/stime ticks of /proc/PID/stat would count in 10 ms steps.
    ns=$(cat /proc/"$pid"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f", s}')
    tmux -L "$sock" kill-server 2>/dev/null
    echo "$(awk "BEGIN{printf \"%.2f\", $ns / 1e6}") $(wc -c < "$tmp/raw")"
}

set -- $(measure "$bin --source ${BENCH_SOURCE:-sim:mali-g720} --no-cpu --interval 100 --refresh 250")
g_ms=$1 g_bytes=$2
set -- $(measure "top -d 0.25")
t_ms=$1
set -- $(measure "htop -d 3")
h_ms=$1
refreshes=$((secs * 4))
echo "gputop: ${g_ms} ms CPU in ${secs} s ($(awk "BEGIN{printf \"%.2f\", $g_ms/$secs}") ms per second of wall time)"
echo "gputop: $((g_bytes / refreshes)) bytes written to the terminal per refresh (${g_bytes} in ${refreshes} refreshes)"
echo "top -d 0.25: ${t_ms} ms CPU; htop -d 3: ${h_ms} ms CPU"
awk "BEGIN{ if ($t_ms > 0) printf \"ratio gputop/top: %.2f\n\", $g_ms/$t_ms;
            if ($h_ms > 0) printf \"ratio gputop/htop: %.2f\n\", $g_ms/$h_ms }"
echo "(CPU time from schedstat, all threads; target: below both, under 1 ms CPU per second)"
