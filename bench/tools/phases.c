/* The phase recorder linked into bench's gputop-phases (include/gputop/
 * phase.h): every phase's durations, written at exit to $GPUTOP_PHASES as
 * one line per phase, "name count d1 d2 ..." in nanoseconds, for
 * bench/phase_cost.sh to reduce; and, under valgrind, a mark in its log at
 * each wake-up's bounds, for bench/footprint.sh. Static storage is
 * acceptable here: this file is never part of gputop itself. */
#ifndef GT_PHASES
#error "phases.c is built with -DGT_PHASES only (Makefile: gputop-phases)"
#endif
#include "gputop/phase.h"
#include "gputop/sys.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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

uint64_t gt_phase_start(void)
{
    return gt_now_ns();
}

void gt_phase_stop(enum gt_phase p, uint64_t start)
{
    uint64_t d = gt_now_ns() - start;
    int w = phase_thread(p);

    if (p >= GT_NPHASES || nlog[w] >= LOG_MAX)
        return;
    logs[w][nlog[w]].phase = p;
    logs[w][nlog[w]++].ns = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
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
    if (!RUNNING_ON_VALGRIND || w >= GT_NWAKERS)
        return;
    pthread_mutex_lock(&wake_lock);
    wake_held[w] = 1;
    VALGRIND_PRINTF("gputop-wake %d awake\n", (int)w);
}

void gt_phase_asleep(enum gt_waker w)
{
    if (!RUNNING_ON_VALGRIND || w >= GT_NWAKERS || !wake_held[w])
        return;
    VALGRIND_PRINTF("gputop-wake %d asleep\n", (int)w);
    wake_held[w] = 0;
    pthread_mutex_unlock(&wake_lock);
}

__attribute__((destructor)) static void phases_report(void)
{
    const char *path = getenv("GPUTOP_PHASES");
    FILE *f = path ? fopen(path, "w") : NULL;
    unsigned p, i, n;
    int w;

    if (!f)
        return;
    /* "name count d1 d2 ...", each phase's durations in the order run. */
    for (p = 0; p < GT_NPHASES; p++) {
        w = phase_thread(p);
        for (i = 0, n = 0; i < nlog[w]; i++)
            n += logs[w][i].phase == p;
        fprintf(f, "%s %u", names[p], n);
        for (i = 0; i < nlog[w]; i++)
            if (logs[w][i].phase == p)
                fprintf(f, " %u", logs[w][i].ns);
        fputc('\n', f);
    }
    fclose(f);
}
