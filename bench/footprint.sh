#!/bin/sh
# The memory the default dashboard's wake-ups touch: the 4 KiB pages of
# gputop's own mappings referenced within one second (the kernel's accessed
# bits, cleared through /proc/PID/clear_refs, read back from smaps), split
# into its code, its static data, and its heap, thread stacks and other
# private memory. In a second the sampler wakes 10 times and the display 4
# times, each touching about the same pages every time; page_cost.c gives
# what a first touch of each costs here. Shared libraries are left out:
# their pages also count other processes' use.
# Unlike the CPU time figures this one is exact from run to run, so a
# change in footprint shows even when the time it saves is in the noise.
# Prints figures; no pass/fail. BENCH_WARMUP (3), BENCH_ROUNDS (3),
# BENCH_SOURCE (sim:mali-g720).
set -u
bin=${1:-./gputop}
. "$(dirname "$0")/tools/session.sh"
bench_session footprint

abs=$(readlink -f "$bin")   # as smaps names it
tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 -e TERM=xterm-256color \
    "exec $abs --source $source --interval 100 --refresh 250"
sleep "$warm"
pid=$(tmux -L "$sock" list-panes -F '#{pane_pid}' 2>/dev/null | head -1)
if [ -z "$pid" ] || [ ! -w "/proc/$pid/clear_refs" ]; then
    echo "footprint: cannot clear the accessed bits of gputop (pid '${pid:-none}'):" \
         "/proc/PID/clear_refs needs the same user and a kernel with CONFIG_PROC_PAGE_MONITOR" >&2
    exit 1
fi

# One second's referenced pages of pid's private mappings, as "code data
# other" (smaps' Referenced, in kB, over 4).
count() {
    echo 1 > "/proc/$pid/clear_refs" || return 1
    sleep 1
    awk -v bin="$abs" '
        /^[0-9a-f]+-[0-9a-f]+ / { name = $6; perm = $2; next }
        /^Referenced:/ {
            if (name == bin) k = (perm ~ /x/) ? "code" : "data"
            else if (name == "" || name == "[heap]" || name ~ /^\[stack/) k = "other"
            else next
            s[k] += $2 / 4
        }
        END { printf "%d %d %d\n", s["code"], s["data"], s["other"] }' "/proc/$pid/smaps"
}

r=1
while [ "$r" -le "$rounds" ]; do
    count > "$tmp/round.$r" || { echo "footprint: could not read gputop's smaps" >&2; exit 1; }
    echo "round $r: $(awk '{ printf "code %d, static data %d, heap and other private %d pages", $1, $2, $3 }' "$tmp/round.$r")"
    r=$((r + 1))
done
code=$(cat "$tmp"/round.* | awk '{ print $1 }' | bench_median %d)
data=$(cat "$tmp"/round.* | awk '{ print $2 }' | bench_median %d)
other=$(cat "$tmp"/round.* | awk '{ print $3 }' | bench_median %d)
echo
echo "pages of its own memory the default dashboard ($source, 10 Hz / 4 Hz, 80x24) touches a second, median of $rounds:"
echo "  code $code, static data $data, heap and other private memory $other: $((code + data + other)) pages"
tab=$(printf '\t')
echo "summary: pages of its own memory the dashboard touches a second${tab}$((code + data + other))${tab}-${tab}-"
