#!/bin/sh
# Instructions the default dashboard runs per refresh and per sample, counted
# by callgrind over 20 s of its steady state (sim:mali-g720, 10 Hz sampling,
# 4 Hz refresh, 80x24 tmux pane), split by what they are spent on. Unlike the
# CPU-time figures of dashboard_cost.sh these do not move with the machine's
# load, so a change to the refresh or the sampler shows here first.
# Caveat: valgrind counts a rep-prefixed string instruction (a large
# memset or memcpy) once per iteration, so clearing shows more than it costs.
# Prints figures; no pass/fail. BENCH_INSTR_SECONDS (20), BENCH_SOURCE.
set -u
bin=${1:-./gputop}
secs=${BENCH_INSTR_SECONDS:-20}
if ! command -v valgrind >/dev/null 2>&1 || ! command -v callgrind_control >/dev/null 2>&1; then
    echo "valgrind not installed: instruction counts skipped"
    exit 0
fi
. "$(dirname "$0")/tools/session.sh"
bench_session instr
out="$tmp/cg"

tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 -e TERM=xterm-256color \
    "exec valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=$out $bin --source $source --interval 100 --refresh 250"
pid=$(tmux -L "$sock" display-message -p '#{pane_pid}')
# Start-up (loading, layout, ncurses) is left out: the first dump ends it,
# the second holds the steady state alone (a dump zeroes the counts).
sleep 8
callgrind_control -d "$pid" >/dev/null 2>&1
sleep "$secs"
callgrind_control -d "$pid" >/dev/null 2>&1
sleep 1
tmux -L "$sock" kill-server 2>/dev/null
sleep 1

# From a callgrind file: the total, then "calls inclusive" of each function
# named (summed over its call sites; names are compressed to "(id)" after
# their first use).
calls_of() {
    awk -v want="$2" '
        BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) wanted[w[i]] = 1 }
        /^summary:/ { total = $2 }
        /^c?fn=\(/ {
            id = $1; sub(/^c?fn=/, "", id)
            name = $0; sub(/^c?fn=\([0-9]+\) ?/, "", name)
            if (name != "") names[id] = name
            if ($0 ~ /^cfn=/) callee = names[id]
            next
        }
        /^calls=/ { split($1, c, "="); pending = c[2]; next }
        pending != "" {
            if (callee in wanted) { cnt[callee] += pending; incl[callee] += $NF }
            pending = ""
        }
        END {
            printf "%s", total
            for (i = 1; i <= n; i++) printf " %d %d", cnt[w[i]], incl[w[i]]
            print ""
        }' "$1"
}

display_fns="gt_termout_render take_sample tui_draw_body tui_draw_processes tui_flush_cells tui_draw_header tui_draw_footer tui_draw_tabs tui_draw_alert"
sampler_fns="sample_one gt_snapshot_zero_spans publish"
d_file= s_file=
for f in "$out".2-*; do
    [ -f "$f" ] || continue
    grep -q 'gt_termout_render' "$f" && d_file=$f
    grep -q 'sample_one' "$f" && s_file=$f
done
if [ -z "$d_file" ] || [ -z "$s_file" ]; then
    echo "callgrind wrote no steady-state counts (files: $(ls "$tmp" | tr '\n' ' ')): skipped"
    exit 0
fi

# Instructions per unit, whole.
per() { awk "BEGIN{ if ($2 > 0) printf \"%d\", $1 / $2; else print 0 }"; }

set -- $(calls_of "$d_file" "$display_fns")
d_total=$1 refreshes=$2
shift 3
echo "display thread: $d_total instructions over $refreshes refreshes ($secs s under callgrind)"
if [ "$refreshes" -gt 0 ]; then
    echo "  per refresh: $(per "$d_total" "$refreshes")"
    for name in take_sample tui_draw_body tui_draw_processes tui_flush_cells tui_draw_header tui_draw_footer tui_draw_tabs tui_draw_alert; do
        [ "$1" -gt 0 ] && printf '    %-20s %8s\n' "$name" "$(per "$2" "$refreshes")"
        shift 2
    done
fi
set -- $(calls_of "$s_file" "$sampler_fns")
# A round clears the snapshot once, whatever the number of sources.
s_total=$1 sources=$3 samples=$4
echo "sampler thread: $s_total instructions over $samples sampling rounds"
if [ "$samples" -gt 0 ]; then
    echo "  per sample: $(per "$s_total" "$samples")"
    printf '    %-20s %8s\n' "the sources" "$(per "$sources" "$samples")"
    printf '    %-20s %8s\n' "clearing" "$(per "$5" "$samples")"
    printf '    %-20s %8s\n' "publishing" "$(per "$7" "$samples")"
fi
tab=$(printf '\t')
[ "$refreshes" -gt 0 ] &&
    echo "summary: instructions per refresh, default dashboard (callgrind)${tab}$(per "$d_total" "$refreshes")${tab}-${tab}-"
[ "$samples" -gt 0 ] &&
    echo "summary: instructions per sample, default dashboard (callgrind)${tab}$(per "$s_total" "$samples")${tab}-${tab}-"
exit 0
