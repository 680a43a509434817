/* The /proc walk for new DRM clients on a thread of its own, for the
 * drm-fdinfo source: the walk costs about 10 ms on a busy system (131 ms
 * on the bench's 2,000 processes), far more than re-reading known fds, so
 * it must not land inside a counter sample. Each period it lists the DRM
 * fds (gt_fdinfo_scan) and leaves them for the next sample to adopt. */
#include "gputop/fdinfo.h"
#include "gputop/thread.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct gt_fdinfo_walker {
    const struct gt_sys *sys;
    uint64_t period_ns;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;
    struct gt_fdinfo_fdref *found;   /* the latest scan, until fed */
    long nfound;                     /* -1: nothing new */
};

static void deadline_after(struct timespec *ts, uint64_t ns)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ns += (uint64_t)ts->tv_nsec;
    ts->tv_sec += (time_t)(ns / 1000000000ull);
    ts->tv_nsec = (long)(ns % 1000000000ull);
}

static void *walker_main(void *arg)
{
    struct gt_fdinfo_walker *w = arg;
    struct timespec until;

    pthread_mutex_lock(&w->lock);
    for (;;) {
        struct gt_fdinfo_fdref *fds = NULL;
        long n;
        deadline_after(&until, w->period_ns);
        while (!w->stop && pthread_cond_timedwait(&w->wake, &w->lock, &until) == 0)
            ;
        if (w->stop)
            break;
        pthread_mutex_unlock(&w->lock);
        n = gt_fdinfo_scan(w->sys, &fds);
        pthread_mutex_lock(&w->lock);
        if (n < 0)
            continue;   /* /proc unreadable for now: the samples say so */
        free(w->found);
        w->found = fds;
        w->nfound = n;
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

struct gt_fdinfo_walker *gt_fdinfo_walker_start(const struct gt_sys *sys, uint64_t period_ns)
{
    struct gt_fdinfo_walker *w = calloc(1, sizeof(*w));
    pthread_condattr_t attr;

    if (!w)
        return NULL;
    w->sys = sys;
    w->period_ns = period_ns;
    w->nfound = -1;
    pthread_mutex_init(&w->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (gt_thread_start(&w->thread, walker_main, w) != 0) {
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
    }
    return w;
}

void gt_fdinfo_walker_feed(struct gt_fdinfo_walker *w, struct gt_fdinfo *f)
{
    struct gt_fdinfo_fdref *fds;
    long n;

    pthread_mutex_lock(&w->lock);
    fds = w->found;
    n = w->nfound;
    w->found = NULL;
    w->nfound = -1;
    pthread_mutex_unlock(&w->lock);
    if (n > 0)
        gt_fdinfo_adopt(f, fds, (size_t)n);
    free(fds);
}

void gt_fdinfo_walker_stop(struct gt_fdinfo_walker *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w->found);
    free(w);
}
