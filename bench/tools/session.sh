# Sourced by the benchmarks that run the dashboard in a tmux pane of their
# own (dashboard_cost.sh): the
# settings they share, and a tmux server and scratch directory of their
# own, both removed at exit. bench_session NAME sets rounds, warm, source,
# sock and tmp; bench_median and bench_range give the median and the range
# the scripts report.
bench_session() {
    rounds=${BENCH_ROUNDS:-3}
    warm=${BENCH_WARMUP:-3}
    source=${BENCH_SOURCE:-sim:mali-g720}
    sock="gputop-$1-$$"
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/gputop-$1.XXXXXX")
    trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
}

# The median of the numbers on standard input, one a line, printed with
# the printf format $1 (%.3f, %d).
bench_median() {
    sort -n | awk -v fmt="$1" '{ v[NR] = $1 }
        END { printf fmt, (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# "lo-hi" of the numbers on standard input, each printed with the printf
# format $1.
bench_range() {
    sort -n | awk -v fmt="$1" 'NR == 1 { lo = $1 } { hi = $1 } END { printf fmt "-" fmt, lo, hi }'
}
