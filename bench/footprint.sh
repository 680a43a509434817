#!/bin/sh
# The memory each of the default dashboard's wake-ups touches: distinct
# 4 KiB pages and 64-byte lines of code and of data, for a sampling round
# (the sampler's wake-up) and a refresh (the display's), counted from every
# access valgrind's lackey sees between the wake-up marks of bench's
# gputop-phases (bench/tools/phases.c) by bench/tools/wake_pages.c; the
# medians over the run, the first BENCH_SKIP (10) wake-ups of each left out.
# Why per wake-up: on this VM every return from the kernel to a process
# empties the TLB (page_cost.c, "after a system call"), so each page a
# wake-up touches is walked again every time, and each line that went cold
# while the thread slept is fetched again.
# The kernel's accessed bits (/proc/PID/clear_refs and smaps), which this
# script read before, are not set here by the processor's page walks
# (a PVM guest, whose page tables the host shadows): a page touched 10
# times a second showed as referenced in one second of six.
# The count includes what the phase timers of that build add: a page of
# their log a wake-up, and the clock read around each phase.
# An instrumented count is the same from run to run, so a change in
# footprint shows even when the time it saves is in the noise.
# The run ends once BENCH_WAKES (30) wake-ups of each thread are counted,
# or after BENCH_SECONDS (180) at most: under lackey gputop takes ~15 s to
# start here, more on a busy machine, and then wakes at its usual rates.
# Prints figures; no pass/fail. BENCH_SOURCE (sim:mali-g720).
set -u
bin=${1:-./gputop}
pbin=${GPUTOP_PHASES_BIN:-$(dirname "$bin")/bench/gputop-phases}
reducer=${WAKE_PAGES:-$(dirname "$bin")/bench/wake_pages}
secs=${BENCH_SECONDS:-180}
skip=${BENCH_SKIP:-10}
need=${BENCH_WAKES:-30}
. "$(dirname "$0")/tools/session.sh"
bench_session footprint

for f in "$pbin" "$reducer"; do
    if [ ! -x "$f" ]; then
        echo "footprint: no $f (make bench builds it)" >&2
        exit 1
    fi
done
if ! command -v valgrind >/dev/null 2>&1; then
    echo "footprint: needs valgrind (scripts/bootstrap.sh bench installs it)" >&2
    exit 1
fi

# lackey's trace goes through a pipe to the reducer: ~10 MB a second.
mkfifo "$tmp/trace"
"$reducer" "$skip" < "$tmp/trace" > "$tmp/out" 2> "$tmp/progress" &
red=$!
tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 -e TERM=xterm-256color \
    "exec valgrind --tool=lackey --trace-mem=yes --log-file=$tmp/trace $pbin --source $source --interval 100 --refresh 250"
t=0
while [ "$t" -lt "$secs" ]; do
    sleep 1
    t=$((t + 1))
    # "counted S D": the sampler's and the display's wake-ups so far.
    set -- $(tail -n 1 "$tmp/progress" 2>/dev/null) x 0 0
    [ "$1" = counted ] && [ "$2" -ge "$need" ] && [ "$3" -ge "$need" ] && break
done
tmux -L "$sock" send-keys q
# gputop's exit closes the trace; if it is stuck, or never started, the
# pane is killed and the pipe opened here, so that the reducer still ends.
t=0
while kill -0 "$red" 2>/dev/null && [ "$t" -lt 30 ]; do
    sleep 1
    t=$((t + 1))
done
tmux -L "$sock" kill-server >/dev/null 2>&1
kill -0 "$red" 2>/dev/null && : > "$tmp/trace"
wait "$red"

# "waker wake-ups code-pages data-pages code-lines data-lines"
set -- $(awk '$1 == "sampler"' "$tmp/out") x x x x x x
s_n=$2 s_cp=$3 s_dp=$4 s_cl=$5 s_dl=$6
set -- $(awk '$1 == "display"' "$tmp/out") x x x x x x
d_n=$2 d_cp=$3 d_dp=$4 d_cl=$5 d_dl=$6
ok() { case "$1" in '' | *[!0-9]*) return 1 ;; esac; [ "$1" -gt 0 ]; }
if ! ok "$s_n" || ! ok "$d_n"; then
    echo "footprint: no wake-ups counted within ${secs} s (sampler '$s_n', display '$d_n'):" \
         "is $pbin built with valgrind's header? If gputop starts slower here, raise BENCH_SECONDS" >&2
    exit 1
fi
pages() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%g", a + b }'; }
echo "memory each wake-up of the default dashboard ($source, 10 Hz / 4 Hz, 80x24) touches, median:"
echo "  a sampling round ($s_n counted): $(pages "$s_cp" "$s_dp") pages (code $s_cp, data $s_dp), $(pages "$s_cl" "$s_dl") lines (code $s_cl, data $s_dl)"
echo "  a refresh ($d_n counted): $(pages "$d_cp" "$d_dp") pages (code $d_cp, data $d_dp), $(pages "$d_cl" "$d_dl") lines (code $d_cl, data $d_dl)"
persec=$(awk -v s="$(pages "$s_cp" "$s_dp")" -v d="$(pages "$d_cp" "$d_dp")" 'BEGIN { printf "%d", 10 * s + 4 * d }')
echo "  page touches a second (10 rounds and 4 refreshes): $persec"
tab=$(printf '\t')
echo "summary: pages a sampling round touches${tab}$(pages "$s_cp" "$s_dp")${tab}-${tab}-"
echo "summary: pages a refresh touches${tab}$(pages "$d_cp" "$d_dp")${tab}-${tab}-"
