# gputop build. Public targets run scripts/bootstrap.sh first, which installs
# missing dependencies when it can; the internal targets below do the work.

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build/native
CC      ?= cc
HOSTCC  ?= cc
PKG_CONFIG ?= pkg-config
VERSION := 0.1

OPT     ?= -O2 -g
SAN     ?=
CSTD     = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude -I$(BUILD)/gen \
           -DGPUTOP_VERSION='"$(VERSION)"'
# Recursive (=) so pkg-config runs after the bootstrap installed things.
NCURSES_CFLAGS = $(shell $(PKG_CONFIG) --cflags ncursesw 2>/dev/null)
NCURSES_LIBS   = $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncursesw)
DRM_CFLAGS     = $(shell $(PKG_CONFIG) --cflags libdrm 2>/dev/null)
# libdrm only: device discovery (drmGetDevices2). The amdgpu source speaks
# the ioctls itself through the system-call seam, so libdrm_amdgpu is not
# linked (see gputop-internals(7), "THE SOURCE TREE").
DRM_LIBS       = $(shell $(PKG_CONFIG) --libs libdrm 2>/dev/null || echo -ldrm)
CRIT_CFLAGS    = $(shell $(PKG_CONFIG) --cflags criterion json-c 2>/dev/null)
CRIT_LIBS      = $(shell $(PKG_CONFIG) --libs criterion json-c 2>/dev/null || echo -lcriterion -ljson-c)
ALL_CFLAGS     = $(CSTD) $(OPT) $(SAN) $(NCURSES_CFLAGS) $(DRM_CFLAGS) $(CFLAGS)
LIBS           = $(NCURSES_LIBS) $(DRM_LIBS) -lpthread -lm

LIB_SRC  := $(filter-out src/main.c,$(wildcard src/*.c src/*/*.c src/*/*/*.c))
LAYOUTS  := $(sort $(wildcard layouts/*.layout))
LIB_OBJ   = $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/layouts.o $(BUILD)/obj/gen/terminfo.o
# Terminal descriptions built into the binary for systems without a
# terminfo database (Android): compiled here with tic from this machine's
# ncurses sources (infocmp), never committed as blobs.
TERMINFO_NAMES := xterm-256color xterm screen tmux-256color vt100 linux
TEST_SRC := $(sort $(wildcard tests/test_*.c tests/fakes/*.c))
TEST_OBJ  = $(TEST_SRC:%.c=$(BUILD)/obj/%.o)
BENCH_SRC := $(sort $(wildcard bench/*.c))
BENCH_BIN  = $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

CROSS   ?= aarch64-linux-gnu-
CROSS_BUILD = build/aarch64
CROSS_PC    = /usr/lib/aarch64-linux-gnu/pkgconfig

.PHONY: all check asan tsan demo bench install clean gputop test-run bench-run cross android \
        check-android fuzz fuzz-run soak valgrind tsan-run coverage coverage-report
.DEFAULT_GOAL := all

all:
	@scripts/bootstrap.sh build
	@$(MAKE) --no-print-directory gputop

# The tests, then every manual page linted (groff, mandoc, man at 80
# columns): a warning fails the check.
check:
	@scripts/bootstrap.sh check
	@$(MAKE) --no-print-directory gputop test-run
	scripts/lint-man.sh
	@scripts/call-loops.sh $(BUILD)/obj/src > /dev/null

asan:
	@scripts/bootstrap.sh check
	@$(MAKE) --no-print-directory BUILD=build/asan OPT="-O1 -g" \
	    SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	    test-run

# The suite built with gcov (its own BUILD, counts from zero each time),
# then gcovr's line and branch report of src/ and the error messages of
# src/sources/ no test reaches (scripts/coverage-errors.sh). The report is
# printed when a test fails too; the target then fails.
COVERAGE_BUILD = build/coverage
coverage:
	@scripts/bootstrap.sh coverage
	@find $(COVERAGE_BUILD) -name '*.gcda' -delete 2>/dev/null || true
	@st=0; $(MAKE) --no-print-directory BUILD=$(COVERAGE_BUILD) OPT="-O0 -g" SAN="--coverage" \
	    test-run || st=$$?; \
	$(MAKE) --no-print-directory coverage-report || st=1; exit $$st

coverage-report:
	gcovr --root . --filter 'src/' --branches --exclude-unreachable-branches --sort-percentage \
	    --print-summary $(COVERAGE_BUILD)/obj/src
	scripts/coverage-errors.sh $(COVERAGE_BUILD)

# The gputop binary and the fake-device binaries under ThreadSanitizer
# (clang), driven by tests/tsan.sh through batch, --serve, the dashboard
# with key storms and resizes, the Processes view on a changing /proc,
# replays with seeking and damage, and signals during each; any report
# fails it. Criterion's own threads are not part of it.
tsan:
	@scripts/bootstrap.sh tsan
	@$(MAKE) --no-print-directory BUILD=build/tsan CC=clang OPT="-O1 -g" \
	    SAN="-fsanitize=thread -fno-omit-frame-pointer" tsan-run

# Every parser under libFuzzer (clang), ASan and UBSan, FUZZ_SECONDS each
# (scripts/fuzz.sh; targets are fuzz/fuzz_*.c).
FUZZ_SECONDS ?= 60
fuzz:
	@scripts/bootstrap.sh fuzz
	@$(MAKE) --no-print-directory BUILD=build/fuzz CC=clang OPT="-O1 -g" \
	    SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	    fuzz-run

# Ten minutes of the dashboard at 1 ms sampling: RSS and fds (bench/soak/).
soak:
	@scripts/bootstrap.sh bench
	@$(MAKE) --no-print-directory gputop
	bench/soak/soak.sh $(BUILD)/gputop

# A representative batch session under valgrind memcheck (scripts/valgrind.sh).
valgrind:
	@scripts/bootstrap.sh valgrind
	@$(MAKE) --no-print-directory gputop $(BUILD)/tests/gputop-fake
	scripts/valgrind.sh $(BUILD)/gputop $(BUILD)/tests/gputop-fake

demo:
	@scripts/bootstrap.sh build
	@$(MAKE) --no-print-directory gputop
	./gputop --source sim

bench:
	@scripts/bootstrap.sh bench
	@$(MAKE) --no-print-directory gputop bench-run

install:
	@scripts/bootstrap.sh build
	@$(MAKE) --no-print-directory gputop
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 gputop $(DESTDIR)$(PREFIX)/bin/gputop
	for n in 1 5 7; do \
	    install -d $(DESTDIR)$(PREFIX)/share/man/man$$n && \
	    install -m 644 man/*.$$n $(DESTDIR)$(PREFIX)/share/man/man$$n/ || exit 1; \
	done

# A fully static aarch64 binary with every layout and terminal description
# built in: runs on Android (bionic or not) and on Linux boards. Built for
# size (-Os, unused functions dropped, no unwind tables: nothing of ours
# unwinds the stack): phones are pushed it over adb. Segments are aligned
# for 16 KiB pages, which Android's 4 KiB and 16 KiB page kernels both load
# (the linker's default, 64 KiB, pads the file by up to 60 KiB).
android: cross

cross:
	@scripts/bootstrap.sh cross
	@$(MAKE) --no-print-directory BUILD=$(CROSS_BUILD) CC=$(CROSS)gcc \
	    PKG_CONFIG="env PKG_CONFIG_LIBDIR=$(CROSS_PC) pkg-config" \
	    OPT="-Os -g -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-unwind-tables" \
	    LDFLAGS="-static -Wl,--gc-sections -Wl,-z,max-page-size=16384" $(CROSS_BUILD)/gputop
	$(CROSS)strip -o $(CROSS_BUILD)/gputop.stripped $(CROSS_BUILD)/gputop
	mv $(CROSS_BUILD)/gputop.stripped $(CROSS_BUILD)/gputop
	@ls -l $(CROSS_BUILD)/gputop

# The static binary checked as a phone would run it (tests/android.sh).
check-android: cross
	tests/android.sh $(CROSS_BUILD)/gputop

clean:
	rm -rf build gputop

# ---- internal targets ----

gputop: $(BUILD)/gputop
	cp $(BUILD)/gputop gputop.new && mv -f gputop.new gputop

$(BUILD)/gputop: $(BUILD)/obj/src/main.o $(BUILD)/libgputop.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/libgputop.a: $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/gen/layouts.c: $(LAYOUTS) $(BUILD)/tools/embed-files
	@mkdir -p $(dir $@)
	$(BUILD)/tools/embed-files -c $@ gt_embedded_layouts layouts/ .layout $(LAYOUTS)

$(BUILD)/gen/terminfo.c: $(BUILD)/tools/embed-files
	@mkdir -p $(BUILD)/gen/terminfo-src $(BUILD)/gen/terminfo
	for t in $(TERMINFO_NAMES); do \
	    infocmp -x $$t > $(BUILD)/gen/terminfo-src/$$t.src && \
	    tic -x -o $(BUILD)/gen/terminfo $(BUILD)/gen/terminfo-src/$$t.src || exit 1; \
	done
	$(BUILD)/tools/embed-files $@ gt_embedded_terminfo $(BUILD)/gen/terminfo/ "" \
	    $$(cd $(BUILD)/gen/terminfo && find . -type f | sed 's|^\./|$(BUILD)/gen/terminfo/|' | sort)

$(BUILD)/tools/embed-files: tools/embed-files.c
	@mkdir -p $(dir $@)
	$(HOSTCC) -O2 -Iinclude -o $@ $<

$(BUILD)/obj/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CRIT_CFLAGS) -Itests -MMD -MP -c $< -o $@

$(BUILD)/tests/run: $(TEST_OBJ) $(BUILD)/libgputop.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $(TEST_OBJ) $(BUILD)/libgputop.a $(CRIT_LIBS) $(LIBS)

# gputop with the fake kbase kernel behind its system-call seam, for
# end-to-end tests of the Mali source (batch output and the dashboard).
FAKE_KBASE_OBJ = $(BUILD)/obj/tests/fakes/fake_kbase.o $(BUILD)/obj/tests/fakes/fake_kbase_kinstr.o \
                 $(BUILD)/obj/tests/fakes/fake_kbase_clock.o
# Each can be signalled at a chosen system call (kill_sys.o, GPUTOP_KILL_AT).
KILL_SYS_OBJ = $(BUILD)/obj/tests/fakes/kill_sys.o
$(BUILD)/tests/gputop-fake: tests/tools/gputop_fake.c $(FAKE_KBASE_OBJ) $(KILL_SYS_OBJ) \
                            $(BUILD)/libgputop.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(FAKE_KBASE_OBJ) $(KILL_SYS_OBJ) $(BUILD)/libgputop.a \
	    $(LIBS)

# The same with the fake MIPS coherency manager (GCR block behind /dev/mem).
$(BUILD)/tests/gputop-fake-gcr: tests/tools/gputop_fake_gcr.c $(BUILD)/obj/tests/fakes/fake_gcr.o \
                                $(KILL_SYS_OBJ) $(BUILD)/libgputop.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(BUILD)/obj/tests/fakes/fake_gcr.o $(KILL_SYS_OBJ) \
	    $(BUILD)/libgputop.a $(LIBS)

# The same with the fake amdgpu kernel, for the amdgpu source.
FAKE_AMDGPU_OBJ = $(BUILD)/obj/tests/fakes/fake_amdgpu.o $(BUILD)/obj/tests/fakes/fake_amdgpu_regs.o
$(BUILD)/tests/gputop-amdfake: tests/tools/gputop_amdfake.c $(FAKE_AMDGPU_OBJ) \
                               $(KILL_SYS_OBJ) $(BUILD)/libgputop.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(FAKE_AMDGPU_OBJ) $(KILL_SYS_OBJ) \
	    $(BUILD)/libgputop.a $(LIBS)

# The same with the fake panfrost device.
$(BUILD)/tests/gputop-fake-panfrost: tests/tools/gputop_fake_panfrost.c \
                                     $(BUILD)/obj/tests/fakes/fake_panfrost.o $(KILL_SYS_OBJ) \
                                     $(BUILD)/libgputop.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(BUILD)/obj/tests/fakes/fake_panfrost.o $(KILL_SYS_OBJ) \
	    $(BUILD)/libgputop.a $(LIBS)

# GPUTOP_BIN lets the UI tests drive the binary this build made.
test-run: $(BUILD)/tests/run $(BUILD)/gputop $(BUILD)/tests/gputop-fake $(BUILD)/tests/gputop-fake-gcr \
          $(BUILD)/tests/gputop-amdfake $(BUILD)/tests/gputop-fake-panfrost
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	GPUTOP_AMDFAKE_BIN=$(CURDIR)/$(BUILD)/tests/gputop-amdfake \
	GPUTOP_BIN=$(CURDIR)/$(BUILD)/gputop GPUTOP_FAKE_BIN=$(CURDIR)/$(BUILD)/tests/gputop-fake \
	GPUTOP_FAKE_GCR_BIN=$(CURDIR)/$(BUILD)/tests/gputop-fake-gcr \
	GPUTOP_FAKE_PANFROST_BIN=$(CURDIR)/$(BUILD)/tests/gputop-fake-panfrost \
	GPUTOP_SRC=$(CURDIR) $(BUILD)/tests/run --jobs 2 $(TEST_ARGS)

tsan-run: $(BUILD)/gputop $(BUILD)/tests/gputop-fake $(BUILD)/tests/gputop-fake-gcr \
          $(BUILD)/tests/gputop-amdfake $(BUILD)/tests/gputop-fake-panfrost
	tests/tsan.sh $(BUILD)

$(BUILD)/bench/%: bench/%.c bench/bench_setup.h $(BUILD)/libgputop.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ibench -o $@ $< $(BUILD)/libgputop.a $(LIBS)

# Each benchmark's output is kept too, for the table of figures and goals
# at the end (bench/tools/summary.sh reads its "summary:" lines).
BENCH_OUT = $(BUILD)/bench/output.txt
bench-run: $(BENCH_BIN) $(BUILD)/gputop $(BUILD)/tests/gputop-fake
	@: > $(BENCH_OUT)
	@for b in $(BENCH_BIN) bench/*.sh; do \
	    echo "== $$b"; \
	    case $$b in *.sh) set -- $$b $(BUILD)/gputop;; *) set -- $$b;; esac; \
	    { "$$@"; echo $$? > $(BENCH_OUT).status; } | tee -a $(BENCH_OUT); \
	    [ "$$(cat $(BENCH_OUT).status)" = 0 ] || exit 1; \
	done
	@bench/tools/summary.sh $(BENCH_OUT)

FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BIN  = $(FUZZ_SRC:fuzz/%.c=$(BUILD)/fuzz/%)
# The fakes a target may stand a source on (the linker keeps only those used).
FUZZ_FAKE_OBJ = $(FAKE_KBASE_OBJ) $(patsubst %,$(BUILD)/obj/tests/fakes/%.o,fake_proc fake_amdgpu fake_amdgpu_regs fake_gcr fake_panfrost)
$(BUILD)/fuzz/%: fuzz/%.c fuzz/fuzz_common.h $(FUZZ_FAKE_OBJ) $(BUILD)/libgputop.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -Itests -o $@ $< $(FUZZ_FAKE_OBJ) $(BUILD)/libgputop.a $(LIBS)

$(BUILD)/fuzz/seeds_kbase: fuzz/seeds_kbase.c $(FAKE_KBASE_OBJ) $(BUILD)/libgputop.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(FAKE_KBASE_OBJ) $(BUILD)/libgputop.a $(LIBS)

fuzz-run: $(FUZZ_BIN) $(BUILD)/fuzz/seeds_kbase $(BUILD)/gputop
	scripts/fuzz.sh $(BUILD) $(FUZZ_SECONDS) $(FUZZ_BIN)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
