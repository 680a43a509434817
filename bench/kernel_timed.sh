#!/bin/sh
# Kernel-timed sampling (issue 46, goal 1): the dashboard at -i 1ms for
# BENCH_ROUNDS (3) rounds of BENCH_SECONDS (10) each drained and on the
# timer, the goal's figure the median of the rounds' own ratios (this VM's
# load moves between rounds), on the fake kbase kernel running in real time, on
# kinstr_prfcnt (G720, CSF 1.24) and on the legacy reader (T830, JM 11.20),
# each drained from the kernel's ring and on gputop's own timer
# (--timer-sampling), side by side in one run.
# What is counted: CPU time (schedstat) and wake-ups (voluntary context
# switches) over the steady state, from BENCH_WARMUP (1 s) after the
# start, of every thread of the process but the fake kernel's worker
# ("fk-kworker" in /proc/PID/task/*/comm). That thread writes the periodic
# samples into the ring, which in kbase is the kernel's work, not the
# monitor's: an hrtimer queues a work item and a kernel worker thread
# dumps (mali_kbase_kinstr_prfcnt.c: kbasep_kinstr_prfcnt_dump_timer and
# kbasep_kinstr_prfcnt_dump_worker; mali_kbase_vinstr.c:
# kbasep_vinstr_dump_timer and kbasep_vinstr_dump_worker). Its CPU and
# wake-ups are printed on their own line, not hidden. The fake's manual
# dumps (the timer's DUMP and SAMPLE_SYNC), which kbase does in the
# caller's context, stay on gputop's threads and are counted.
# A third run drained puts every sample into a capture (--record), read
# back with the replay source at counts per interval (--per-interval):
# how many there are, against the samples the fake kernel handed over
# (gputop's stop delivers what was still in the ring and the last sample
# that ending periodic mode gives, so at most 3 are missing: those read
# only to fix a start, such as the legacy reader's first dump, or at the
# close), and how many hold other counts than the 700 a period set in the
# fake, in the column named 'GPU active cycles [cycles]': 700 for each
# period the record spans (interval_s), one for the shorter first ones;
# records spanning more (a ring that filled: OVERFLOW, or the legacy
# reader's stretched dump) are counted apart.
# Prints figures and ratios; no pass/fail.
set -u
bin=${1:-./gputop}
fake=${GPUTOP_FAKE:-$(dirname "$bin")/tests/gputop-fake}
secs=${BENCH_SECONDS:-10}
. "$(dirname "$0")/tools/session.sh"
bench_session kernel_timed
warm=${BENCH_WARMUP:-1}
if [ ! -x "$fake" ]; then
    echo "kernel_timed: no $fake (make build/native/tests/gputop-fake)" >&2
    exit 1
fi

# "<cpu ns> <voluntary switches> <worker cpu ns> <worker switches>" of the
# threads of $1: gputop's summed, then the fake kernel worker's.
cost() {
    c=0 v=0 wc=0 wv=0
    for t in /proc/"$1"/task/*; do
        tc=$(cut -d' ' -f1 "$t/schedstat" 2>/dev/null)
        tv=$(sed -n 's/^voluntary_ctxt_switches:[^0-9]*//p' "$t/status" 2>/dev/null)
        if [ "$(cat "$t/comm" 2>/dev/null)" = fk-kworker ]; then
            wc=$((wc + ${tc:-0})) wv=$((wv + ${tv:-0}))
        else
            c=$((c + ${tc:-0})) v=$((v + ${tv:-0}))
        fi
    done
    echo "$c $v $wc $wv"
}

# measure KERNEL MODE-OPTIONS SECONDS [record]: prints "<CPU ms/s>
# <wake-ups/s> <records> <records not exact> <records over more than a
# period> <samples handed over> <worker CPU ms/s> <worker wake-ups/s>"
# (records -1 when a column is missing).
measure() {
    tmux -L "$sock" kill-server >/dev/null 2>&1
    rm -f "$tmp/cap" "$tmp/err"
    rec=
    [ -z "${4:-}" ] || rec="--record $tmp/cap"
    secs_m=$3
    tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 -e TERM=xterm-256color \
        "exec $fake $1 real-clock 0:0:4=700 0:0:6=700 -- -i 1 --no-cpu --no-processes \
         $rec $2 2>$tmp/err"
    pid=$(tmux -L "$sock" display-message -p '#{pane_pid}' 2>/dev/null)
    sleep "$warm"
    if [ -z "$pid" ] || [ ! -d "/proc/$pid/task" ]; then
        echo "kernel_timed: '$1 $2' did not run (run it by hand to see why)" >&2
        exit 1
    fi
    set -- $(cost "$pid")
    c0=$1 v0=$2 wc0=$3 wv0=$4
    sleep "$secs_m"
    set -- $(cost "$pid")
    c1=$1 v1=$2 wc1=$3 wv1=$4
    tmux -L "$sock" kill-server 2>/dev/null
    while [ -d "/proc/$pid" ]; do sleep 0.1; done
    echo "0 0 0 " > "$tmp/rec"
    # the column by its header's name: the CSV leads with time_s,
    # interval_s and time_unix
    [ -z "$rec" ] || "$bin" --source "replay:$tmp/cap,speed=max" -b -f csv --no-cpu \
        --per-interval --metrics 'GPU active cycles' 2>/dev/null |
        awk -F, -v want='GPU active cycles [cycles]' '
            NR == 1 {
                for (i = 1; i <= NF; i++) {
                    if ($i == want) col = i
                    if ($i == "interval_s") dt = i
                }
                next
            }
            col && dt {
                k = int($dt / 0.001 + 0.5)
                k = k < 1 ? 1 : k
                n++
                long += k > 1
                if ($col != 700 * k) bad++
            }
            END {
                if (!col || !dt) {
                    print "kernel_timed: no column \"" want "\" or interval_s in the replay'"'"'s CSV" > "/dev/stderr"
                    n = -1
                }
                printf "%d %d %d ", n, bad + 0, long + 0
            }' > "$tmp/rec"
    got=$(sed -n 's/.* gets=\([0-9]*\).*/\1/p' "$tmp/err")
    awk -v c="$((c1 - c0))" -v v="$((v1 - v0))" -v s="$secs_m" \
        'BEGIN { printf "%.2f %.1f ", c / 1e6 / s, v / s }'
    printf '%s%s ' "$(cat "$tmp/rec")" "${got:-0}"
    awk -v c="$((wc1 - wc0))" -v v="$((wv1 - wv0))" -v s="$secs_m" \
        'BEGIN { printf "%.2f %.1f\n", c / 1e6 / s, v / s }'
}

ratio() { awk "BEGIN{ if ($2 > 0) printf \"%.3f\", $1 / $2; else print \"none\" }"; }
goal() { awk "BEGIN{ print ($1 <= $2) ? \"yes\" : \"no\" }"; }
# The middle of its arguments (numbers).
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
tab=$(printf '\t')
rounds=${BENCH_ROUNDS:-3}
for k in "G720 csf 1.24:kinstr_prfcnt" "T830 jm 11.20:legacy reader"; do
    kernel=${k%%:*} name=${k#*:}
    echo "$name, -i 1ms, $rounds rounds of ${secs} s drained then on the timer," \
         "dashboard 80x24 (cpu source and Processes off):"
    ratios= d_all= t_all= dws_all= with_all=
    i=1
    while [ "$i" -le "$rounds" ]; do
        set -- $(measure "$kernel" "" "$secs")
        d_cpu=$1 d_wake=$2 dw_cpu=$7 dw_wake=$8
        set -- $(measure "$kernel" "--timer-sampling" "$secs")
        t_cpu=$1 t_wake=$2 tw_cpu=$7 tw_wake=$8
        d_ws=$(awk "BEGIN{ printf \"%.3f\", $d_wake / 1000 }")
        t_ws=$(awk "BEGIN{ printf \"%.3f\", $t_wake / 1000 }")
        r=$(ratio "$d_cpu" "$t_cpu")
        w=$(ratio "($d_cpu + $dw_cpu)" "($t_cpu + $tw_cpu)")
        echo "  round $i: drained $d_cpu ms CPU/s, $d_wake wake-ups/s ($d_ws a sample);" \
             "timer $t_cpu ms CPU/s, $t_wake wake-ups/s ($t_ws a sample); ${r}x"
        echo "    fake kernel worker (a kworker in kbase, not counted above): $dw_cpu ms CPU/s," \
             "$dw_wake wake-ups/s drained, $tw_cpu and $tw_wake on the timer; with it ${w}x"
        ratios="$ratios $r" d_all="$d_all $d_cpu" t_all="$t_all $t_cpu"
        dws_all="$dws_all $d_ws" with_all="$with_all $w"
        i=$((i + 1))
    done
    set -- $(measure "$kernel" "" 3 record)
    d_rec=$3 d_bad=$4 d_long=$5 d_got=$6
    r=$(median $ratios) d_ws=$(median $dws_all)
    echo "  median of $rounds rounds: drained $(median $d_all), timer $(median $t_all) ms CPU/s;" \
         "drained / timer ${r}x (rounds$(printf ' %sx' $ratios)); with the worker $(median $with_all)x"
    echo "  drained, 3 s with --record: $d_rec records of the $d_got samples the kernel handed over," \
         "$d_bad not 700 a period, $d_long over more than one period (a ring that filled)"
    echo "summary: $name -i 1ms CPU drained / timer, median of $rounds${tab}${r}x${tab}<= 0.2x${tab}$(goal "$r" 0.2)"
    echo "summary: $name -i 1ms wake-ups a sample, drained${tab}${d_ws}${tab}<= 0.1${tab}$(goal "$d_ws" 0.1)"
    ok=no
    [ "$d_bad" = 0 ] && [ "$d_rec" -gt 0 ] && [ "$d_rec" -le "$d_got" ] &&
        [ "$((d_got - d_rec))" -le 3 ] && ok=yes
    echo "summary: $name -i 1ms drained samples captured, exact (of handed over)${tab}$d_rec of $d_got, $d_bad off${tab}all, exact${tab}$ok"
done
