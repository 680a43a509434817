#!/bin/sh
# Checks the build and test dependencies and installs the missing ones with
# apt-get when it can; otherwise prints the exact command to run.
# Usage: scripts/bootstrap.sh build|check|bench|coverage|cross|fuzz|tsan|valgrind
set -u
what=${1:-build}

need_pkgs=""
have_pc() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1"; }
need() { need_pkgs="$need_pkgs $1"; }

command -v pkg-config >/dev/null 2>&1 || need pkg-config
command -v cc >/dev/null 2>&1 || need gcc
command -v make >/dev/null 2>&1 || need make
have_pc ncursesw || need libncurses-dev
have_pc libdrm || need libdrm-dev
case "$what" in
check|bench|coverage|android)
    have_pc criterion || need libcriterion-dev
    have_pc json-c || need libjson-c-dev
    command -v tmux >/dev/null 2>&1 || need tmux
    ;;
esac
case "$what" in
check)
    # scripts/lint-man.sh lints the manual pages with both formatters and
    # reads them through man(1) at 80 columns.
    command -v groff >/dev/null 2>&1 || need groff-base
    command -v mandoc >/dev/null 2>&1 || need mandoc
    command -v man >/dev/null 2>&1 || need man-db
    command -v perl >/dev/null 2>&1 || need perl-base
    ;;
esac
case "$what" in
cross)
    command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need gcc-aarch64-linux-gnu
    [ -f /usr/lib/aarch64-linux-gnu/libncursesw.a ] || need libncurses-dev:arm64
    [ -f /usr/lib/aarch64-linux-gnu/pkgconfig/libdrm.pc ] || need libdrm-dev:arm64
    command -v qemu-aarch64-static >/dev/null 2>&1 || need qemu-user-static
    command -v file >/dev/null 2>&1 || need file
    command -v tic >/dev/null 2>&1 || need ncurses-bin
    command -v tmux >/dev/null 2>&1 || need tmux   # check-android drives it in tmux
    ;;
esac
case "$what" in
coverage)
    # gcov comes with gcc; gcovr reads its data into the branch report.
    command -v gcov >/dev/null 2>&1 || need gcc
    command -v gcovr >/dev/null 2>&1 || need gcovr
    ;;
valgrind)
    command -v valgrind >/dev/null 2>&1 || need valgrind
    ;;
fuzz)
    command -v clang >/dev/null 2>&1 || need clang
    have_pc criterion || need libcriterion-dev
    have_pc json-c || need libjson-c-dev
    # libFuzzer's runtime is only a Recommends of Debian's clang: asked for
    # by name where an image installs no recommended packages.
    ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 || {
        v=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p')
        [ -n "$v" ] || v=$(apt-cache depends clang 2>/dev/null |
                           sed -n 's/.*Depends: clang-\([0-9][0-9]*\)$/\1/p' | head -1)
        [ -n "$v" ] && need "libclang-rt-$v-dev"
    }
    ;;
esac
case "$what" in
tsan)
    command -v clang >/dev/null 2>&1 || need clang
    command -v tmux >/dev/null 2>&1 || need tmux
    command -v curl >/dev/null 2>&1 || need curl
    # ThreadSanitizer's runtime comes with clang's runtime package.
    ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.tsan-*.a >/dev/null 2>&1 || {
        v=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p')
        [ -n "$v" ] || v=$(apt-cache depends clang 2>/dev/null |
                           sed -n 's/.*Depends: clang-\([0-9][0-9]*\)$/\1/p' | head -1)
        [ -n "$v" ] && need "libclang-rt-$v-dev"
    }
    ;;
esac
case "$what" in
bench)
    command -v top >/dev/null 2>&1 || need procps
    command -v htop >/dev/null 2>&1 || need htop
    ;;
esac

# Optional, for the check target: Debian's prometheus, which the real-
# Prometheus test (tests/test_prometheus.c) scrapes gputop with; that test
# skips without it. Tried once per build tree, never an error.
try_prometheus() {
    [ "$what" = check ] || return 0
    command -v prometheus >/dev/null 2>&1 && return 0
    [ -e build/.no-prometheus ] && return 0
    mkdir -p build && : > build/.no-prometheus
    command -v apt-get >/dev/null 2>&1 || return 0
    s=""
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null || return 0
        s="sudo -n"
    fi
    echo "bootstrap: trying to install prometheus (optional, for one test)" >&2
    $s apt-get update -qq >/dev/null 2>&1 || true
    if DEBIAN_FRONTEND=noninteractive timeout 600 $s apt-get install -y -qq \
            --no-install-recommends prometheus >/dev/null 2>&1; then
        rm -f build/.no-prometheus
    else
        echo "bootstrap: prometheus not installed; its test will be skipped" >&2
    fi
    return 0
}

[ -z "$need_pkgs" ] && { try_prometheus; exit 0; }

echo "bootstrap: missing:$need_pkgs" >&2
sudo=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo="sudo -n"
    else
        sudo=none
    fi
fi
if ! command -v apt-get >/dev/null 2>&1 || [ "$sudo" = none ]; then
    echo "bootstrap: cannot install them here; run:" >&2
    echo "  sudo apt-get install -y$need_pkgs" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
case "$need_pkgs" in
*:arm64*)
    # Multiarch: arm64 libraries beside the native ones.
    dpkg --print-foreign-architectures 2>/dev/null | grep -qx arm64 ||
        $sudo dpkg --add-architecture arm64
    ;;
esac
echo "bootstrap: installing:$need_pkgs" >&2
# The package lists may be missing or stale on a fresh machine.
$sudo apt-get update -qq >/dev/null 2>&1 || true
# shellcheck disable=SC2086
if ! $sudo apt-get install -y -qq $need_pkgs >/dev/null; then
    echo "bootstrap: apt-get failed; run:" >&2
    echo "  sudo apt-get install -y$need_pkgs" >&2
    exit 1
fi
try_prometheus
exit 0
