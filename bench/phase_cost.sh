#!/bin/sh
# Own work per wake-up, timed inside gputop: the default dashboard
# (sim:mali-g720, 10 Hz sampling, 4 Hz refresh, 80x24 tmux pane) run as
# bench's gputop-phases, whose phase timers (include/gputop/phase.h) time
# each part of each wake-up's work: the sampling round, its publication,
# and a refresh's snapshot and metrics, frame, terminal bytes and write.
# The eventfd write that wakes the display is timed apart ("wake", not part
# of the publication) and left out of own work:
# wakeup_cost.c, the floor, makes that same write.
# dashboard_cost.sh finds own work as gputop's CPU time less a wake-up
# floor measured beside it, two totals that each move by a third here from
# one minute to the next; this times the work itself, so it splits the
# figure by phase and does not move with the cost of waking up.
# A duration of 1 ms or more is the thread preempted, not work (a wake-up's
# work here is under 0.1 ms): it is counted apart and left out.
# One more round then splits each thread's CPU time per wake-up, by its
# CPU clock read at the wake-up's marks (GPUTOP_PHASES_CPU), into the time
# awake and the kernel's part of sleeping and being woken, which the phase
# timers do not see; its readings are system calls that would slow the
# phases down, so that round is not one of the timed ones.
# Prints figures; no pass/fail. BENCH_SECONDS (30), BENCH_WARMUP (3),
# BENCH_ROUNDS (3), BENCH_SOURCE (sim:mali-g720), BENCH_CPU_SPLIT (1; 0
# leaves that round out).
set -u
bin=${1:-./gputop}
pbin=${GPUTOP_PHASES_BIN:-$(dirname "$bin")/bench/gputop-phases}
secs=${BENCH_SECONDS:-30}
. "$(dirname "$0")/tools/session.sh"
bench_session phase

if [ ! -x "$pbin" ]; then
    echo "phase_cost: no $pbin (make $(dirname "$pbin")/gputop-phases)" >&2
    exit 1
fi

# One round: the phase file of a run of warm + secs seconds, ended by 'q'
# (the timers are written at exit); $2, when given, is one more variable
# for its environment.
run_round() {
    out="$tmp/phases.$1"
    tmux -L "$sock" kill-server >/dev/null 2>&1
    tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 -e TERM=xterm-256color \
        "exec env GPUTOP_PHASES=$out ${2:-} $pbin --source $source --interval 100 --refresh 250"
    sleep $((warm + secs))
    tmux -L "$sock" send-keys q
    i=0
    while [ ! -s "$out" ] && [ $i -lt 50 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    tmux -L "$sock" kill-server >/dev/null 2>&1
    if [ ! -s "$out" ]; then
        echo "phase_cost: '$pbin' wrote no phase timings (run it by hand to see why)" >&2
        exit 1
    fi
}

# Per phase of one round's file: "name calls/s median-us ms/s preempted",
# the warm-up's calls left out (the sampler's phases come 10 times a
# second, a refresh's 4).
reduce() {
    awk -v warm="$warm" -v secs="$secs" '
        function median(a, n,   i, j, t) {
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return n ? ((n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : 0
        }
        {
            skip = warm * ($1 == "sample" || $1 == "publish" || $1 ~ /^sampler-/ ? 10 : 4)
            n = 0; kept = 0; sum = 0; pre = 0; delete v
            for (i = 3 + skip; i <= NF; i++) {
                n++
                if ($i >= 1000000) { pre++; continue }
                v[++kept] = $i; sum += $i
            }
            if (!n) { printf "%s 0 0 0 0\n", $1; next }
            # Mean of the kept durations, times the calls a second.
            printf "%s %.1f %.1f %.4f %d\n", $1, n / secs, median(v, kept) / 1e3,
                   (kept ? sum / kept : 0) * (n / secs) / 1e6, pre
        }' "$1"
}

r=1
while [ "$r" -le "$rounds" ]; do
    run_round "$r"
    reduce "$tmp/phases.$r" > "$tmp/red.$r"
    awk -v r="$r" '$1 != "wake" { t += $4 } { p += $5 } END { printf "round %d: own work inside the wake-ups %.3f ms/s (%d durations of 1 ms or more left out as preemption)\n", r, t, p }' "$tmp/red.$r"
    awk '$1 != "wake" { t += $4 } END { printf "%.4f\n", t }' "$tmp/red.$r" >> "$tmp/own"
    r=$((r + 1))
done

range() { bench_range %.3f; }
echo
echo "gputop's own work per wake-up, timed inside it ($source, 10 Hz sampling, 4 Hz refresh, 80x24), median of $rounds rounds of ${secs} s:"
printf '  %-8s %8s %12s %10s\n' phase "calls/s" "median us" "ms/s"
for ph in sample publish wake take compose render write; do
    c=$(for f in "$tmp"/red.*; do awk -v p="$ph" '$1 == p { print $2 }' "$f"; done | bench_median %.3f)
    u=$(for f in "$tmp"/red.*; do awk -v p="$ph" '$1 == p { print $3 }' "$f"; done | bench_median %.3f)
    m=$(for f in "$tmp"/red.*; do awk -v p="$ph" '$1 == p { print $4 }' "$f"; done | bench_median %.3f)
    printf '  %-8s %8s %12s %10s\n' "$ph" "$c" "$u" "$m"
done
own=$(bench_median %.3f < "$tmp/own")
echo "  own work, every phase but wake: $own ms/s (rounds: $(range < "$tmp/own"))"
if [ "${BENCH_CPU_SPLIT:-1}" != 0 ]; then
    run_round split GPUTOP_PHASES_CPU=1
    reduce "$tmp/phases.split" > "$tmp/red.split"
    echo
    echo "each thread's CPU time a wake-up, by its CPU clock read at the wake-up's marks (one more round of ${secs} s; each reading is a system call, ~2 us here, which adds to the stretches either side of it):"
    awk '
        function row(who, slept) {
            printf "  %-8s %6.1f a second: awake %6.1f us, %-31s %6.1f us (medians); %.3f + %.3f ms/s (means)\n",
                   who, c[who "-awake"], u[who "-awake"], slept, u[who "-asleep"], m[who "-awake"], m[who "-asleep"]
        }
        { c[$1] = $2; u[$1] = $3; m[$1] = $4 }
        END {
            row("sampler", "sleeping and woken (the kernel)")
            row("display", "in its poll (the kernel)")
            awake = m["sampler-awake"] + m["display-awake"]
            slept = m["sampler-asleep"] + m["display-asleep"]
            printf "  in all %.3f ms/s: awake %.3f, the kernel'"'"'s part of the sleeps %.3f\n", awake + slept, awake, slept
            printf "summary: CPU awake in the wake-ups (threads'"'"' CPU clocks)\t%.3f ms/s\t-\t-\n", awake
            printf "summary: CPU in the kernel'"'"'s part of their sleeps\t%.3f ms/s\t-\t-\n", slept
        }' "$tmp/red.split"
fi
tab=$(printf '\t')
holds=$(awk "BEGIN{ print ($own <= 0.4) ? \"yes\" : \"no\" }")
echo "summary: own work timed inside gputop's wake-ups (phase timers)${tab}${own} ms/s${tab}<= 0.4 ms/s${tab}${holds}"
