# Sourced by the benchmarks that run the dashboard in a tmux pane of their
# own (phase_cost.sh, footprint.sh): the settings they share, and a tmux
# server and scratch directory of their own, both removed at exit.
# bench_session NAME sets rounds, warm, source, sock and tmp.
bench_session() {
    rounds=${BENCH_ROUNDS:-3}
    warm=${BENCH_WARMUP:-3}
    source=${BENCH_SOURCE:-sim:mali-g720}
    sock="gputop-$1-$$"
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/gputop-$1.XXXXXX")
    trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
}
