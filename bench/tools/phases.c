/* The phase recorder linked into bench's gputop-phases (include/gputop/
 * phase.h): every phase's durations, written at exit to $GPUTOP_PHASES as
 * one line per phase, "name count d1 d2 ..." in nanoseconds, for
 * bench/phase_cost.sh to reduce; with GPUTOP_PHASES_CPU set, each
 * wake-up's CPU time awake and asleep as well; and, under valgrind, a mark
 * in its log at each wake-up's bounds, for bench/footprint.sh. Static
 * storage is acceptable here: this file is never part of gputop itself. */
#ifndef GT_PHASES
#error "phases.c is built with -DGT_PHASES only (Makefile: gputop-phases)"
#endif
#include "gputop/phase.h"
#include "gputop/sys.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
/* Without valgrind's header the marks are left out; footprint.sh says so. */
#define RUNNING_ON_VALGRIND 0
#define VALGRIND_PRINTF(...) 0
#endif

#define LOG_MAX (1u << 18)  /* records a thread: 10 Hz sampling for over 2 hours */

static const char *const names[] = { "sample", "publish", "wake",   "take",
                                     "compose", "render", "write" };
/* A phase added to the enum needs its name here, or the report would
 * print a null name. */
_Static_assert(sizeof(names) / sizeof(names[0]) == GT_NPHASES, "a name for every phase");

/* The wake-ups' CPU time, logged beside the phases by the thread that
 * sleeps (phase_cost.sh reads them as "sampler-awake" and so on). */
enum { CPU_AWAKE = GT_NPHASES, CPU_ASLEEP, NKINDS };
static const char *const waker_names[] = { "sampler", "display" };
_Static_assert(sizeof(waker_names) / sizeof(waker_names[0]) == GT_NWAKERS, "a name for every waker");

/* Each thread appends its phases' durations to a log of its own, one
 * record after the other: a wake-up writes into one page of it, where an
 * array per phase would add a page per phase to what each wake-up touches
 * (which footprint.sh counts in this build). */
struct phase_record {
    uint32_t phase, ns;
};
static struct phase_record logs[GT_NWAKERS][LOG_MAX];
static unsigned nlog[GT_NWAKERS];

/* The thread that runs phase p: the enum lists the sampler's first. */
static int phase_thread(unsigned p)
{
    return p <= GT_PHASE_WAKE ? GT_WAKER_SAMPLER : GT_WAKER_DISPLAY;
}

static void log_record(int w, unsigned kind, uint64_t d)
{
    if (nlog[w] >= LOG_MAX)
        return;
    logs[w][nlog[w]].phase = kind;
    logs[w][nlog[w]++].ns = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

uint64_t gt_phase_start(void)
{
    return gt_now_ns();
}

void gt_phase_stop(enum gt_phase p, uint64_t start)
{
    uint64_t d = gt_now_ns() - start;

    if (p >= GT_NPHASES)
        return;
    log_record(phase_thread(p), p, d);
}

/* Each wake-up's CPU time, from the thread's CPU clock read at its marks:
 * awake, from the mark after the call it slept in returns to the mark
 * before the next; asleep, the other way round, which is the kernel's part
 * of going to sleep and of being woken. Each reading is a system call of
 * its own, which on a VM without process-context TLB tags also empties the
 * TLB, so phase_cost.sh asks for this in a round of its own
 * (GPUTOP_PHASES_CPU), apart from the rounds it times the phases in. */
static int cpu_split;
enum { MARK_NONE, MARK_AWAKE, MARK_ASLEEP };
static int last_mark[GT_NWAKERS];
static uint64_t mark_cpu[GT_NWAKERS];

__attribute__((constructor)) static void phases_init(void)
{
    cpu_split = getenv("GPUTOP_PHASES_CPU") != NULL;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A mark of kind `now`: logs the stretch since the thread's last mark when
 * that was of the other kind. */
static void cpu_mark(enum gt_waker w, int now)
{
    uint64_t t;

    if (!cpu_split)
        return;
    t = thread_cpu_ns();
    if (now == MARK_ASLEEP && last_mark[w] == MARK_AWAKE)
        log_record(w, CPU_AWAKE, t - mark_cpu[w]);
    if (now == MARK_AWAKE && last_mark[w] == MARK_ASLEEP)
        log_record(w, CPU_ASLEEP, t - mark_cpu[w]);
    last_mark[w] = now;
    mark_cpu[w] = t;
}

/* Wake-up marks for bench/footprint.sh, which runs this build under
 * valgrind's lackey and splits its trace of every access at them; outside
 * valgrind both are a few instructions. Under valgrind the two threads
 * take turns at any system call, so a wake-up holds a lock from its first
 * mark to its last: a thread woken meanwhile waits before its own first
 * mark, and no access of one wake-up is counted in the other's. */
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static int wake_held[GT_NWAKERS];

void gt_phase_awake(enum gt_waker w)
{
    if (w >= GT_NWAKERS)
        return;
    cpu_mark(w, MARK_AWAKE);
    if (!RUNNING_ON_VALGRIND)
        return;
    pthread_mutex_lock(&wake_lock);
    wake_held[w] = 1;
    VALGRIND_PRINTF("gputop-wake %d awake\n", (int)w);
}

void gt_phase_asleep(enum gt_waker w)
{
    if (w >= GT_NWAKERS)
        return;
    cpu_mark(w, MARK_ASLEEP);
    if (!RUNNING_ON_VALGRIND || !wake_held[w])
        return;
    VALGRIND_PRINTF("gputop-wake %d asleep\n", (int)w);
    wake_held[w] = 0;
    pthread_mutex_unlock(&wake_lock);
}

/* One line, "name count d1 d2 ...": thread w's records of one kind in the
 * order run. */
static void print_kind(FILE *f, const char *name, int w, unsigned kind)
{
    unsigned i, n;

    for (i = 0, n = 0; i < nlog[w]; i++)
        n += logs[w][i].phase == kind;
    fprintf(f, "%s %u", name, n);
    for (i = 0; i < nlog[w]; i++)
        if (logs[w][i].phase == kind)
            fprintf(f, " %u", logs[w][i].ns);
    fputc('\n', f);
}

__attribute__((destructor)) static void phases_report(void)
{
    const char *path = getenv("GPUTOP_PHASES");
    FILE *f = path ? fopen(path, "w") : NULL;
    char name[32];
    unsigned p;
    int w;

    if (!f)
        return;
    for (p = 0; p < GT_NPHASES; p++)
        print_kind(f, names[p], phase_thread(p), p);
    /* "sampler-awake ...", "sampler-asleep ...", and the display's, only
     * when asked for. */
    for (w = 0; cpu_split && w < GT_NWAKERS; w++)
        for (p = CPU_AWAKE; p < NKINDS; p++) {
            snprintf(name, sizeof(name), "%s-%s", waker_names[w], p == CPU_AWAKE ? "awake" : "asleep");
            print_kind(f, name, w, p);
        }
    fclose(f);
}
