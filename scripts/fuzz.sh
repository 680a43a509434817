#!/bin/sh
# Runs each libFuzzer target for a bounded time (make fuzz, .ci/run).
# Usage: scripts/fuzz.sh BUILD SECONDS TARGET...
# Corpora live in BUILD/corpus/NAME: seeded here from layouts/, the sim
# sources and tests' inputs (never committed), and kept between runs so
# coverage grows. A crash leaves its input in BUILD/crashes/NAME/ and makes
# the run fail; the per-target executions and coverage go to
# BUILD/fuzz-summary.txt.
set -u
build=$1
secs=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
corpus=$build/corpus
summary=$build/fuzz-summary.txt

seed_file() { # DIR NAME PRINTF-FORMAT [ARGS]
    d=$1 n=$2
    shift 2
    # shellcheck disable=SC2059
    printf "$@" > "$d/$n"
}

# HEAD, then PART 69,999 times, then TAIL: a chain as deep as it is long
# (issue 44: 70,000 terms once overflowed the compiler's stack).
long_chain() {
    awk -v h="$1" -v p="$2" -v t="$3" 'BEGIN { printf "%s", h; for (i = 1; i < 70000; i++) printf "%s", p; printf "%s", t }'
}

seed_expr() {
    long_chain '$CMCycles' '+1' '' > "$1/chain-sum"
    long_chain 'max(min($A' ',5' '),0)' > "$1/chain-minmax"
    long_chain '-($A' '+3*2-10/2' ')' > "$1/chain-mixed"
    i=0
    grep -h '^[[:space:]]*expr ' "$top"/layouts/*.layout | sed 's/^[[:space:]]*expr //' |
    while IFS= read -r line; do
        i=$((i + 1))
        printf '%s' "$line" > "$1/layout-$i"
    done
    seed_file "$1" ops '($a + $b[0]) * 2 / max($c, 1) - min(-$d, 3.5e2) %% 7'
}

seed_layout() {
    cp "$top"/layouts/*.layout "$1"/
    { printf 'gputop-layout 1\nname deep\ntitle Deep\nfamily mips-cm\ngpu mips-cm\n'
      printf 'section S\n  key x\n  group G\n    metric Deep\n      expr '
      long_chain '$CMCycles' '+1' '\n      show count\n'; } > "$1/chain-sum.layout"
}

seed_capture() {
    for s in sim sim:amd-gfx1151; do
        n=$(echo "$s" | tr ':' '-')
        "$build/gputop" --source "$s" --batch --count 3 --interval 1ms --record "$1/$n" \
            >/dev/null 2>&1 || true
    done
    # issue 44: a killed recording, without its 17-byte end record
    [ -s "$1/sim" ] && head -c -17 "$1/sim" > "$1/sim-no-end"
}

seed_replay() { # commands (see fuzz_replay.c) before a capture: index, seeks, steps, samples
    t=$(mktemp)
    for s in sim sim:amd-gfx1151; do
        n=$(echo "$s" | tr ':' '-')
        "$build/gputop" --source "$s" --batch --count 5 --interval 1ms --record "$t" \
            >/dev/null 2>&1 || continue
        { printf '\010\002\000\000\005\000\000\004\000\013\005\000\000\003\000\000\005\000\000\001\000\004\005\000\000'
          cat "$t"; } > "$1/$n"
    done
    rm -f "$t"
}

seed_terminfo() { # compiled entries from the system's database, where there is one
    for n in x/xterm-256color x/xterm v/vt100 l/linux s/screen-256color t/tmux-256color; do
        for d in /usr/share/terminfo /lib/terminfo; do
            [ -f "$d/$n" ] && cp "$d/$n" "$1/$(basename "$n")" && break
        done
    done
}

seed_csv() {
    seed_file "$1" mali '\000interval_ns,MaliGPUCyclesGPUActive,MaliCoreTextureCyclesTextureActive[0],MaliCoreTextureCyclesTextureActive[1]\n100,2,3,4\n200,5,6,7\n'
    seed_file "$1" t830 '\002interval_ns,MaliGPUCyclesGPUActive\n1,2\n'
    seed_file "$1" cpu '\000interval_ns,CPUTicksSystem,CPUTicksTotal,CyclesCPUCycles\n10,1,4,99\n'
    # issue 44: a column name that would retitle the terminal if echoed raw
    seed_file "$1" escape '\000interval_ns,\033]0;PWN\007MaliGPUCyclesGPUActive\n1,2\n'
    seed_file "$1" amd '\001interval_ns,SQ_INSTS_VALU,SQ_INSTS_ALL,SQ_BUSY_CYCLES[0],SQ_BUSY_CYCLES[1]\n1000,1,2,3,4\n'
}

seed_props() { "$build/fuzz/seeds_kbase" "$1"; }

seed_kbase() {
    for b in 0 1 2 3 4 5 6 7; do
        seed_file "$1" "k$b" "\\00$b"
    done
}

blob_file() { # FILE SIZE FORMAT CONTENT: a gpu_metrics header, the rest 0x11
    head -c "$2" /dev/zero | tr '\000' '\021' > "$1.tmp"
    printf "\\$(printf %03o $(($2 & 255)))\\$(printf %03o $(($2 >> 8)))\\$(printf %03o "$3")\\$(printf %03o "$4")" > "$1"
    tail -c +5 "$1.tmp" >> "$1"
    rm -f "$1.tmp"
}

seed_gpu_metrics() {
    blob_file "$1/v3_0" 264 3 0
    for c in 1 2 3 4; do
        blob_file "$1/v2_$c" 120 2 "$c"
    done
}

seed_http() {
    printf 'GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n' > "$1/metrics"
    printf 'GET / HTTP/1.0\r\n\r\n' > "$1/root"
    printf 'HEAD /metrics?x=1 HTTP/1.1\r\nAccept: */*\r\n\r\n' > "$1/head"
    # issue 44: a head that never ends (the client then leaves)
    printf 'GET /metrics HTTP/1.1\r\nHost: a\r\n' > "$1/unended"
    printf '[::1]:9100' > "$1/addr6"
    printf '0.0.0.0:0' > "$1/addr4"
}

argv_file() { # FILE WORD|WORD|...: the words NUL-separated, as fuzz_options splits them
    printf '%s' "$2" | tr '|' '\000' > "$1"
}

seed_options() {
    argv_file "$1/batch" '--source|sim|--batch|--count|3|--interval|5ms|--format|json'
    argv_file "$1/short" '-b|-n|2|-i|1ms|-d|1s|-f|csv'
    argv_file "$1/record" '--source=sim:amd-gfx1151|--record|/dev/null|--section|x|--metrics|a,b'
    argv_file "$1/dur" '1.5ms'
}

seed_fdinfo() { # the formats the drivers print (tests/test_fdinfo.c), 0xff 0xfe between files
    seed_file "$1" panfrost 'drm-driver:\tpanfrost\ndrm-client-id:\t4\ndrm-engine-fragment:\t1000 ns\ndrm-cycles-fragment:\t1000\ndrm-maxfreq-fragment:\t800000000 Hz\ndrm-total-memory:\t2048 KiB\ndrm-resident-memory:\t2048 KiB\n'
    seed_file "$1" amdgpu 'drm-driver:\tamdgpu\ndrm-client-id:\t55\ndrm-pdev:\t0000:c3:00.0\ndrm-memory-vram:\t1024 KiB\ndrm-engine-gfx:\t250000000 ns\ndrm-engine-compute:\t0 ns\n'
    seed_file "$1" i915-msm 'drm-driver:\ti915\ndrm-client-id:\t7\ndrm-engine-render:\t900000000 ns\ndrm-engine-capacity-video:\t2\n\377\376drm-driver:\tmsm\ndrm-client-id:\t3\ndrm-engine-gpu:\t0 ns\ndrm-cycles-gpu:\t9\ndrm-maxfreq-gpu:\t587 MHz\n\377\376drm-driver:\ti915\ndrm-client-id:\t7\ndrm-engine-render:\t100 ns\n'
}

sane_kernel() { # DIR NAME FIRST-BYTE: the fake's own answers, unaltered (mode bytes 0)
    { printf "\\$(printf %03o "$3")"; head -c 256 /dev/zero; } > "$1/$2"
}

seed_amdgpu() {
    for b in 0 1 2 4 8 16 24 32 64 96 128; do
        sane_kernel "$1" "a$b" "$b"
    done
}

seed_panfrost() {
    for b in 0 1 3 7; do
        sane_kernel "$1" "p$b" "$b"
    done
}

seed_mips_cm() { # flags rev readback config qual step cells(8) reg: see fuzz_mips_cm.c
    seed_file "$1" default '\000\001\020\000\000\000\007\001\000\000\001\003\000\000\000\017\000\001\000\000'
    seed_file "$1" dt '\000\000\020\000\000\000\007\001\000\000\001\003\000\000\000\017\000\001\000\000\000\000\000\001\000\000\000\001\010\037\277\200\000\000\000\200\000'
}

: > "$summary"
failed=0
for bin in "$@"; do
    name=$(basename "$bin" | sed 's/^fuzz_//')
    mkdir -p "$corpus/$name" "$build/crashes/$name"
    if command -v "seed_$name" >/dev/null 2>&1; then
        "seed_$name" "$corpus/$name"
    fi
    log=$build/fuzz-$name.log
    echo "fuzz: $name for ${secs}s"
    # Each target's scratch files and fake trees: tmpfs when there is one
    # (see fuzz_common.h), removed after the run however it ended.
    scratch=$(mktemp -d /dev/shm/gputop-fuzz.XXXXXX 2>/dev/null || mktemp -d)
    TMPDIR=$scratch ASAN_OPTIONS=detect_leaks=1:suppressions=$top/fuzz/ncurses.supp "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$build/crashes/$name/" "$corpus/$name" \
        > "$log" 2>&1
    rc=$?
    rm -rf "$scratch"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | sed -n 's/.*cov: \([0-9]*\).*ft: \([0-9]*\).*corp: \([0-9]*\).*/cov \1 ft \2 corpus \3/p')
    printf '%-10s %6ss  execs %-10s %s\n' "$name" "$secs" "${execs:-?}" "$cov" | tee -a "$summary"
    if [ "$rc" != 0 ]; then
        echo "fuzz: $name FAILED (exit $rc); input in $build/crashes/$name/, log $log" >&2
        tail -40 "$log" >&2
        failed=1
    fi
done
exit $failed
