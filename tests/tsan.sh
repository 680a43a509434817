#!/bin/sh
# gputop and the fake-device binaries built with ThreadSanitizer (make tsan),
# run the ways people run them with signals sent during each run: batch
# output, --serve under scrapes, the dashboard with key storms and resizes,
# the Processes view on a /proc that changes under it, replays with seeking
# and a damaged capture (dashboard and --triage), and each fake kernel.
# Any ThreadSanitizer report fails the run; each report is printed.
# Usage: tests/tsan.sh BUILD_DIR
set -u
build=${1:?usage: tests/tsan.sh BUILD_DIR}
bin=$build/gputop
work=$(mktemp -d /tmp/gputop-tsan.XXXXXX)
sock=gputop-tsan-$$
export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 log_path=$work/report"
fails=0 runs=0 bad=""

cleanup() {
    tmux -L "$sock" kill-server >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

ms() { sleep "$(awk "BEGIN { print $1 / 1000 }")"; }

# Sends a burst of the signals a terminal and a shell send.
burst() {
    pid=$1
    i=0
    while [ $i -lt 20 ] && alive "$pid"; do
        kill -WINCH "$pid" 2>/dev/null
        kill -TSTP "$pid" 2>/dev/null
        kill -CONT "$pid" 2>/dev/null
        kill -WINCH "$pid" 2>/dev/null
        i=$((i + 1))
    done
    # A suspend handled after the last SIGCONT leaves it stopped.
    ms 100
    kill -CONT "$pid" 2>/dev/null
}

# 0 while pid runs: a zombie has ended (tmux may reap a pane's process late).
alive() {
    st=$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\) .*/\1/p' "/proc/$1/stat" 2>/dev/null)
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# Waits up to 10 s for pid to end, then kills it (a hang is a failure).
reap() {
    pid=$1 what=$2
    i=0
    while alive "$pid" && [ $i -lt 100 ]; do
        kill -CONT "$pid" 2>/dev/null
        ms 100
        i=$((i + 1))
    done
    if alive "$pid"; then
        echo "tsan: $what: still running 10 s after SIGTERM" >&2
        kill -KILL "$pid" 2>/dev/null
        bad=1
    fi
    wait "$pid" 2>/dev/null
}

# Counts a scenario, and its reports as failures.
check() {
    what=$1
    runs=$((runs + 1))
    found=0
    for f in "$work"/report.*; do
        [ -e "$f" ] || continue
        found=1
        echo "tsan: $what:" >&2
        cat "$f" >&2
        rm -f "$f"
    done
    if [ $found = 1 ] || [ -n "$bad" ]; then
        fails=$((fails + 1))
        echo "FAIL tsan: $what"
    else
        echo "ok   tsan: $what"
    fi
    bad=""
}

# A command in a tmux pane; the pane's process is the command itself.
pane() {
    tmux -L "$sock" kill-server >/dev/null 2>&1
    tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 30 "exec $*"
    tmux -L "$sock" set-option -g remain-on-exit on >/dev/null
    ms 1500
    tmux -L "$sock" display-message -p '#{pane_pid}'
}

keys() {
    for k in "$@"; do
        tmux -L "$sock" send-keys "$k" 2>/dev/null
    done
}

storm() {
    keys 1 2 3 4 5 6 7 8 9 Tab BTab c c v v h q Escape Down Down Up End Home PageDown
    tmux -L "$sock" resize-window -x 60 -y 15 2>/dev/null
    keys P Down Up s P + - space space
    tmux -L "$sock" resize-window -x 200 -y 60 2>/dev/null
    keys 0 i Right Left Tab Tab
    tmux -L "$sock" resize-window -x 40 -y 10 2>/dev/null
    tmux -L "$sock" resize-window -x 100 -y 30 2>/dev/null
}

# ---- batch output ----
for fmt in csv json text; do
    "$bin" --source sim -b -f $fmt -i 5ms -d 4 >/dev/null 2>"$work/err" &
    pid=$!
    ms 500
    burst $pid
    ms 300
    kill -TERM $pid 2>/dev/null
    reap $pid "batch $fmt"
    check "batch -f $fmt, signals"
done

# ---- --serve under scrapes ----
"$bin" --source sim -i 10ms --serve 127.0.0.1:0 -b -f none -d 8 2>"$work/serve.err" &
pid=$!
port=""
for i in 1 2 3 4 5 6 7 8 9 10; do
    port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$work/serve.err")
    [ -n "$port" ] && break
    ms 300
done
if [ -n "$port" ]; then
    for i in 1 2 3 4 5 6 7 8 9 10; do
        curl -s -m 2 "http://127.0.0.1:$port/metrics" >/dev/null 2>&1 &
        curl -s -m 2 "http://127.0.0.1:$port/metrics" >/dev/null 2>&1
        kill -WINCH $pid 2>/dev/null
    done
    wait 2>/dev/null
else
    echo "tsan: --serve printed no port" >&2
    bad=1
fi
burst $pid
kill -TERM $pid 2>/dev/null
reap $pid "--serve"
check "--serve, scrapes and signals"

# ---- the dashboard: key storms, resizes, signals ----
pid=$(pane "$bin" --source sim:mali-g720 -i 10ms -r 50ms)
storm
burst "$pid"
storm
kill -TERM "$pid" 2>/dev/null
reap "$pid" "dashboard"
check "dashboard, key storm, resizes, signals"

# ---- the Processes view on a /proc that changes under it ----
root=$work/root
mkdir -p "$root/proc"
client() {
    d=$root/proc/$1
    mkdir -p "$d/fd" "$d/fdinfo"
    echo "app$1" >"$d/comm"
    ln -sf /dev/dri/renderD128 "$d/fd/5"
    printf 'pos:\t0\nflags:\t02\nmnt_id:\t1\ndrm-driver:\tpanfrost\ndrm-client-id:\t%s\ndrm-engine-fragment:\t%s ns\ndrm-engine-vertex-tiler:\t%s ns\n' \
        "$1" "$2" "$2" >"$d/fdinfo/5"
}
n=100
while [ $n -lt 140 ]; do client $n 1000; n=$((n + 1)); done
pid=$(pane "$bin" --source sim -i 10ms -r 50ms --proc-root "$root")
keys P
t=1
while [ $t -lt 30 ]; do
    client $((100 + t % 40)) $((t * 7000000))
    rm -rf "$root/proc/$((140 + t - 1))"
    client $((140 + t)) $((t * 3000000))
    [ $((t % 10)) = 0 ] && kill -WINCH "$pid" 2>/dev/null && keys s Down
    ms 100
    t=$((t + 1))
done
burst "$pid"
kill -TERM "$pid" 2>/dev/null
reap "$pid" "Processes view"
check "Processes view on a changing /proc, signals"

# ---- replays: seeking, a damaged capture ----
cap=$work/run.gtc
"$bin" --no-cpu --source sim:mali-g715,step=100000000 -i 5ms -b -f none -n 200 \
    --record "$cap" >/dev/null 2>&1
size=$(wc -c <"$cap")
head -c $((size * 3 / 4)) "$cap" >"$work/cut.gtc"
pid=$(pane "$bin" --source "replay:$cap,speed=4" -r 50ms)
keys space . . , End Home PageDown PageUp space
burst "$pid"
keys End Home
kill -TERM "$pid" 2>/dev/null
reap "$pid" "replay"
check "replay in the dashboard, seeking, signals"
pid=$(pane "$bin" --source "replay:$work/cut.gtc,speed=max" -r 50ms)
keys End Home . , End
burst "$pid"
kill -TERM "$pid" 2>/dev/null
reap "$pid" "damaged replay"
check "damaged replay in the dashboard, signals"
"$bin" --triage --source "replay:$work/cut.gtc,speed=max" >/dev/null 2>&1
check "--triage on a damaged capture"
"$bin" --source "replay:$work/cut.gtc,speed=max" -f json >/dev/null 2>&1
check "batch JSON of a damaged capture"

# ---- the fake kernels ----
fake() {
    what=$1; shift
    "$@" >/dev/null 2>"$work/fake.err" &
    pid=$!
    ms 1500
    burst $pid
    kill -TERM $pid 2>/dev/null
    reap $pid "$what"
    check "$what, signals"
}
fake "fake kbase, kinstr_prfcnt" "$build/tests/gputop-fake" G715 csf 1.20 -- \
    --no-cpu -i 10ms -b -f csv -d 6
fake "fake kbase, legacy reader" "$build/tests/gputop-fake" T830 jm 11.20 -- \
    --no-cpu -i 10ms -b -f csv -d 6
fake "fake amdgpu" "$build/tests/gputop-amdfake" root -- \
    --no-cpu -i 10ms --source amdgpu:polls=2 -b -f csv -d 6
fake "fake MIPS GCR" "$build/tests/gputop-fake-gcr" 0x0701 -- \
    --no-cpu -i 10ms --source sim:mali-g720 --source mips-cm:gcr-base=default -b -f csv -d 6
fake "fake panfrost" "$build/tests/gputop-fake-panfrost" -- \
    --no-cpu -i 10ms --source panfrost -b -f csv -d 6

echo "tsan: $((runs - fails)) passed, $fails failed"
[ $fails = 0 ]
