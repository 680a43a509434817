#!/bin/sh
# Dashboard cost: CPU time of the default dashboard (the cpu source beside
# the GPU and the Processes watcher on, as with no options) at 10 Hz
# sampling and 4 Hz refresh in an 80x24 tmux pane, and bytes written to the
# terminal per refresh; beside it, in the same pane size and the same
# rounds, top -d 0.25 and htop -d 3. Rounds alternate the three programs
# (this machine's noise moves single figures by a third), and the medians
# are compared.
# What is compared is the steady state: each program's CPU time over $secs
# seconds, counted from BENCH_WARMUP seconds after it starts, so that no
# program's start-up (for gputop: dynamic loading, its layout and ncurses,
# about 10 ms once) is spread over the window as if it were a cost per
# second. Start-up is printed apart: CPU time in the first BENCH_WARMUP
# seconds less that stretch at the steady rate.
# Prints figures and ratios; no pass/fail.
# BENCH_SECONDS (30), BENCH_WARMUP (3), BENCH_ROUNDS (3),
# BENCH_SOURCE (sim:mali-g720).
set -u
bin=${1:-./gputop}
secs=${BENCH_SECONDS:-30}
floor_bin=${WAKEUP_COST:-$(dirname "$bin")/bench/wakeup_cost}
. "$(dirname "$0")/tools/session.sh"
bench_session dashboard

# Time on CPU in nanoseconds of each thread of $1 (/proc/PID/task/TID/
# schedstat, first field): exact, where /proc/PID/stat counts 10 ms ticks.
thread_ids_ns() {
    for t in /proc/"$1"/task/*; do
        printf '%s %s %s\n' "${t##*/}" "$(cut -d' ' -f1 "$t/schedstat" 2>/dev/null)" \
            "$(cat "$t/comm" 2>/dev/null | tr -c 'a-zA-Z0-9\n-' _)"
    done
}

# Runs a command in a fresh 80x24 pane; prints "<CPU ms over $secs s after
# the warm-up> <bytes written then> <per-thread CPU ms then, comma-separated>
# <CPU ms of the warm-up>". Threads are matched by id across the two reads.
# With $2 set, the wake-up floor runs beside it over the same window (its
# output in $tmp/floor): the machine's cost of a wake-up moves by half from
# one minute to the next here, so only a floor measured over the very
# seconds gputop is measured in gives a steady difference. Both sleep
# almost all the time; they overlap in well under 1% of their wake-ups.
# A program that is gone after the warm-up ends the benchmark with an
# error, rather than a figure of 0 that would meet every goal.
measure() {
    tmux -L "$sock" kill-server >/dev/null 2>&1
    : > "$tmp/raw"
    tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 -e TERM=xterm-256color "exec $1"
    pid=$(tmux -L "$sock" display-message -p '#{pane_pid}' 2>/dev/null)
    sleep "$warm"
    if [ -z "$pid" ] || [ ! -d "/proc/$pid/task" ]; then
        echo "dashboard_cost: '$1' did not run for ${warm} s (run it by hand to see why)" >&2
        exit 1
    fi
    tmux -L "$sock" pipe-pane -o "cat >> $tmp/raw"
    floor_pid=
    if [ -n "${2:-}" ] && [ -x "$floor_bin" ]; then
        "$floor_bin" "$secs" > "$tmp/floor" &
        floor_pid=$!
    fi
    thread_ids_ns "$pid" > "$tmp/t0"
    sleep "$secs"
    thread_ids_ns "$pid" > "$tmp/t1"
    tmux -L "$sock" kill-server 2>/dev/null
    [ -z "$floor_pid" ] || wait "$floor_pid"
    if [ ! -s "$tmp/t1" ]; then
        echo "dashboard_cost: '$1' ended during the measurement" >&2
        exit 1
    fi
    awk 'NR == FNR { a[$1] = $2; next }
         { d = ($2 - a[$1]) / 1e6; s += d; per = per (n++ ? "," : "") sprintf("%s=%.2f", $3, d) }
         END { printf "%.2f ", s; printf "%s ", per }' "$tmp/t0" "$tmp/t1" > "$tmp/m"
    w=$(awk '{ s += $2 } END { printf "%.2f", s / 1e6 }' "$tmp/t0")
    set -- $(cat "$tmp/m")
    echo "$1 $(wc -c < "$tmp/raw") $2 $w"
}

median() { bench_median %.2f; }
range() { bench_range %.2f; }

g_cmd="$bin --source $source --interval 100 --refresh 250"
for f in g t h b f o rt rh su; do : > "$tmp/$f"; done
# gputop / other of one round, the two measured minutes apart.
ratio() { awk "BEGIN{ if ($2 > 0) printf \"%.3f\\n\", $1 / $2 }"; }
# Start-up: the warm-up's CPU less the warm-up at the steady rate.
startup() { awk "BEGIN{v = $1 - $2 * $warm / $secs; printf \"%.2f\", (v > 0 ? v : 0)}"; }
r=1
while [ "$r" -le "$rounds" ]; do
    : > "$tmp/floor"
    set -- $(measure "$g_cmd" floor)
    [ $# -ge 4 ] || exit 1
    g_round=$1 g_threads=${3:-}
    echo "$g_round" >> "$tmp/g"; echo "$2" >> "$tmp/b"; echo "$(startup "$4" "$1")" >> "$tmp/su"
    echo "round $r: gputop $1 ms in ${secs} s (threads: ${3:-?}), ${2} bytes; start-up $(startup "$4" "$1") ms"
    set -- $(measure "top -d 0.25")
    [ $# -ge 4 ] || exit 1
    t_round=$1
    echo "$t_round" >> "$tmp/t"
    ratio "$g_round" "$t_round" >> "$tmp/rt"
    echo "round $r: top -d 0.25 $1 ms"
    set -- $(measure "htop -d 3")
    [ $# -ge 4 ] || exit 1
    h_round=$1
    echo "$h_round" >> "$tmp/h"
    ratio "$g_round" "$h_round" >> "$tmp/rh"
    echo "round $r: htop -d 3 $1 ms"
    # The machine's own cost of gputop's wake-ups, with no work, measured
    # beside gputop over the same seconds.
    f=$(sed -n 's/.*no work[^:]*: \([0-9.]*\) ms.*/\1/p' "$tmp/floor")
    if [ -n "$f" ]; then
        echo "$f" >> "$tmp/f"
        awk "BEGIN{printf \"%.2f\\n\", $g_round / $secs - $f}" >> "$tmp/o"
        echo "round $r: wake-up floor $f ms/s over the same ${secs} s ($(sed -n 's/.*(\(timer.*\))$/\1/p' "$tmp/floor"))"
        # Thread by thread: the sampler against the floor's timer thread,
        # the display (the main thread) against its woken thread.
        sed -n 's/.*(timer thread \([0-9.]*\), woken thread \([0-9.]*\))$/\1 \2/p' "$tmp/floor" |
            awk -v th="$g_threads" -v s="$secs" '{
                n = split(th, a, ","); for (i = 1; i <= n; i++) { split(a[i], kv, "="); ms[kv[1]] = kv[2] }
                printf "round %d: own work by thread: sampler %.2f ms/s, display %.2f ms/s\n", '"$r"',
                       ms["gputop-sampler"] / s - $1, ms["gputop"] / s - $2 }'
    fi
    r=$((r + 1))
done

g_ms=$(median < "$tmp/g"); t_ms=$(median < "$tmp/t"); h_ms=$(median < "$tmp/h")
bytes=$(median < "$tmp/b")
refreshes=$((secs * 4))
per_s() { awk "BEGIN{printf \"%.2f\", $1 / $secs}"; }
echo
echo "gputop ($source, 10 Hz sampling, 4 Hz refresh, 80x24), median of $rounds runs, steady state (from ${warm} s after start):"
echo "  $(per_s "$g_ms") ms CPU per second of wall time (runs: $(awk -v s="$secs" '{print $1 / s}' "$tmp/g" | range))"
echo "  start-up, once: $(median < "$tmp/su") ms CPU (runs: $(range < "$tmp/su"))"
echo "  $(awk "BEGIN{printf \"%d\", $bytes / $refreshes}") bytes written to the terminal per refresh"
if [ -s "$tmp/f" ]; then
    fl=$(median < "$tmp/f")
    echo "  of which the wake-ups alone (10 Hz timer, 4 Hz eventfd and terminal wait, no work) cost $fl ms/s on this machine (runs: $(range < "$tmp/f"))"
    echo "  gputop's own work above that floor, round by round: $(median < "$tmp/o") ms/s (runs: $(range < "$tmp/o"))"
fi
echo "top -d 0.25: $(per_s "$t_ms") ms/s; htop -d 3: $(per_s "$h_ms") ms/s"
awk "BEGIN{ if ($t_ms > 0) printf \"ratio of the medians gputop/top: %.2f\n\", $g_ms/$t_ms;
            if ($h_ms > 0) printf \"ratio of the medians gputop/htop: %.2f\n\", $g_ms/$h_ms }"
echo "(CPU time from schedstat, all threads, over the same ${secs} s of each program's steady state)"

# The figures for the table at the end of make bench: each ratio the
# median of the rounds' own ratios (same round, same host conditions).
goal() { awk "BEGIN{ print ($1 <= $2) ? \"yes\" : \"no\" }"; }
tab=$(printf '\t')
if [ -s "$tmp/rt" ]; then
    rt=$(median < "$tmp/rt"); rh=$(median < "$tmp/rh")
    echo "gputop/top, median of the rounds' ratios: $rt (rounds $(range < "$tmp/rt")); gputop/htop: $rh (rounds $(range < "$tmp/rh"))"
    echo "summary: default dashboard CPU / top -d 0.25, median of $rounds${tab}${rt}x${tab}<= 0.12x${tab}$(goal "$rt" 0.12)"
    echo "summary: default dashboard CPU / htop -d 3, median of $rounds${tab}${rh}x${tab}<= 0.12x${tab}$(goal "$rh" 0.12)"
fi
echo "summary: default dashboard CPU, steady state${tab}$(per_s "$g_ms") ms/s${tab}-${tab}-"
if [ -s "$tmp/o" ]; then
    own=$(median < "$tmp/o")
    echo "summary: gputop's own work above the wake-up floor${tab}${own} ms/s${tab}<= 0.4 ms/s${tab}$(goal "$own" 0.4)"
fi
# What the machine alone takes of the goal against top: the floor is
# what gputop would cost with no work at all, so 0.12x of top less this
# is the room left for its own work on this machine.
if [ -s "$tmp/f" ] && awk "BEGIN{ exit !($t_ms > 0) }"; then
    set -- $(awk -v f="$fl" -v t="$t_ms" -v s="$secs" \
        'BEGIN { x = f / (t / s); r = (0.12 - x) * t / s; printf "%.3f %.2f", x, (r > 0) ? r : 0 }')
    fx=$1 room=$2
    echo "the wake-ups alone are ${fx}x of top here: 0.12x of top leaves $room ms/s for gputop's own work"
    echo "summary: wake-up floor / top -d 0.25 (gputop with no work)${tab}${fx}x${tab}-${tab}-"
fi
if [ -n "${BENCH_NO_CPU:-}" ]; then
    set -- $(measure "$bin --source $source --no-cpu --interval 100 --refresh 250")
    echo "without the cpu source (--no-cpu): $(per_s "$1") ms/s (one run)"
fi
