#!/bin/sh
# Soak: the dashboard for SOAK_SECONDS (600) at 1 ms sampling on the sim, in
# an 80x24 tmux pane, with a resize and a section key every 10 s; its
# resident set (VmRSS) and open fds read every 10 s from /proc. Prints the
# first, largest and last figures and last/first ratios; no pass/fail.
# Not part of make bench (it takes 10 minutes): make soak.
# Usage: bench/soak/soak.sh [GPUTOP]; SOAK_SECONDS, SOAK_SOURCE (sim).
set -u
bin=${1:-./gputop}
secs=${SOAK_SECONDS:-600}
source=${SOAK_SOURCE:-sim}
sock="gputop-soak-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null' EXIT
trap 'exit 1' INT TERM HUP

tmux -L "$sock" new-session -d -x 80 -y 24 \
    "exec $bin --source $source --interval 1ms --refresh 100ms" || exit 1
pid=$(tmux -L "$sock" list-panes -F '#{pane_pid}')
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"; }
fds() { ls "/proc/$pid/fd" | wc -l; }

sleep 5
rss0=$(rss) fd0=$(fds) rssmax=$rss0 fdmax=$fd0
echo "soak: $source at 1 ms for ${secs}s, pid $pid"
printf '%6s %10s %5s\n' t_s rss_kB fds
printf '%6d %10d %5d\n' 0 "$rss0" "$fd0"
t=0 i=0
keys="1 2 3 4 5 p p"
while [ "$t" -lt "$secs" ]; do
    sleep 10
    t=$((t + 10)) i=$((i + 1))
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "soak: gputop exited at ${t}s"
        exit 1
    fi
    # Keep the dashboard doing things: resize and switch sections.
    if [ $((i % 2)) = 0 ]; then
        tmux -L "$sock" resize-window -x 120 -y 40
    else
        tmux -L "$sock" resize-window -x 80 -y 24
    fi
    set -- $keys
    tmux -L "$sock" send-keys -l "$(echo $keys | cut -d' ' -f$((i % $# + 1)))"
    r=$(rss) f=$(fds)
    [ "$r" -gt "$rssmax" ] && rssmax=$r
    [ "$f" -gt "$fdmax" ] && fdmax=$f
    printf '%6d %10d %5d\n' "$t" "$r" "$f"
done
cpu=$(awk '{print $14 + $15}' "/proc/$pid/stat")
echo "soak: rss first ${rss0} kB, max ${rssmax} kB, last ${r} kB, last/first" \
    "$(awk "BEGIN{printf \"%.3f\", $r / $rss0}")"
echo "soak: fds first ${fd0}, max ${fdmax}, last ${f}"
echo "soak: CPU ${cpu} ticks ($(getconf CLK_TCK)/s) over ${secs}s"
