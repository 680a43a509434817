/* The search for new DRM clients on a thread of its own, for the
 * drm-fdinfo source: walking /proc costs about 10 ms on a busy system
 * (131 ms on the bench's 2,000 processes), far more than re-reading known
 * fds, so it must not land inside a counter sample. Each tick (1 s) it
 * runs a finder tick (new pids, young pids, a slice of the rotation);
 * fds found on new or young pids are read here at once, so a new
 * client's baseline is as old as its finding, and the next sample shows
 * its use. The rest are left for the next sample to adopt. */
#include "gputop/fdinfo.h"
#include "gputop/thread.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PENDING_MAX 4096   /* fds held for a reader that does not feed */

struct gt_fdinfo_walker {
    const struct gt_sys *sys;
    uint64_t tick_ns;
    struct gt_fdinfo_finder *finder;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;
    struct gt_fdinfo_refs found;        /* since the last feed */
    struct gt_fdinfo_reading *readings; /* likewise, read at once */
    size_t nreadings, capreadings;
    struct gt_fdinfo_find_stats st;
};

static void deadline_after(struct timespec *ts, uint64_t ns)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ns += (uint64_t)ts->tv_nsec;
    ts->tv_sec += (time_t)(ns / 1000000000ull);
    ts->tv_nsec = (long)(ns % 1000000000ull);
}

/* The young ones read now; every one kept for the next feed. */
static void keep(struct gt_fdinfo_walker *w, const struct gt_fdinfo_refs *r,
                 struct gt_fdinfo_reading *read, size_t nread)
{
    size_t i;

    for (i = 0; i < r->n && w->found.n < PENDING_MAX; i++)
        if (!r->v[i].young)
            gt_fdinfo_refs_push(&w->found, r->v[i].pid, r->v[i].fd, 0);
    if (w->nreadings + nread > w->capreadings) {
        size_t cap = w->nreadings + nread + 8;
        struct gt_fdinfo_reading *n;
        if (cap > PENDING_MAX || !(n = realloc(w->readings, cap * sizeof(*n))))
            return;
        w->readings = n;
        w->capreadings = cap;
    }
    memcpy(w->readings + w->nreadings, read, nread * sizeof(*read));
    w->nreadings += nread;
}

static void tick(struct gt_fdinfo_walker *w)
{
    struct gt_fdinfo_refs r = { NULL, 0, 0 };
    struct gt_fdinfo_fdref *young = NULL;
    struct gt_fdinfo_reading *read = NULL;
    size_t nyoung = 0, nread = 0, i;

    if (gt_fdinfo_finder_tick(w->finder, gt_now_ns(), &r) < 0) {
        free(r.v);
        return;   /* /proc unreadable for now: the samples say so */
    }
    for (i = 0; i < r.n; i++)
        nyoung += r.v[i].young != 0;
    if (nyoung && (young = malloc(nyoung * sizeof(*young))) != NULL &&
        (read = malloc(nyoung * sizeof(*read))) != NULL) {
        size_t k = 0;
        for (i = 0; i < r.n; i++)
            if (r.v[i].young)
                young[k++] = r.v[i];
        nread = gt_fdinfo_read_refs(w->sys, young, k, gt_now_ns(), read);
    }
    pthread_mutex_lock(&w->lock);
    keep(w, &r, read, nread);
    w->st = *gt_fdinfo_finder_stats(w->finder);
    pthread_mutex_unlock(&w->lock);
    free(young);
    free(read);
    free(r.v);
}

static void *walker_main(void *arg)
{
    struct gt_fdinfo_walker *w = arg;
    struct timespec until;

    pthread_mutex_lock(&w->lock);
    for (;;) {
        deadline_after(&until, w->tick_ns);
        while (!w->stop && pthread_cond_timedwait(&w->wake, &w->lock, &until) == 0)
            ;
        if (w->stop)
            break;
        pthread_mutex_unlock(&w->lock);
        tick(w);
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

struct gt_fdinfo_walker *gt_fdinfo_walker_start(const struct gt_sys *sys, uint64_t tick_ns,
                                                unsigned spread)
{
    struct gt_fdinfo_walker *w = calloc(1, sizeof(*w));
    pthread_condattr_t attr;

    if (!w)
        return NULL;
    w->sys = sys;
    w->tick_ns = tick_ns;
    w->finder = gt_fdinfo_finder_new(sys, spread, tick_ns / 1000);
    if (!w->finder) {
        free(w);
        return NULL;
    }
    /* The reader's full walk at open came just before. */
    gt_fdinfo_finder_walked(w->finder, 0);
    pthread_mutex_init(&w->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (gt_thread_start(&w->thread, "gputop-walker", walker_main, w) != 0) {
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        gt_fdinfo_finder_free(w->finder);
        free(w);
        return NULL;
    }
    return w;
}

void gt_fdinfo_walker_feed(struct gt_fdinfo_walker *w, struct gt_fdinfo *f)
{
    struct gt_fdinfo_refs found;
    struct gt_fdinfo_reading *read;
    size_t nread;

    pthread_mutex_lock(&w->lock);
    found = w->found;
    read = w->readings;
    nread = w->nreadings;
    memset(&w->found, 0, sizeof(w->found));
    w->readings = NULL;
    w->nreadings = w->capreadings = 0;
    pthread_mutex_unlock(&w->lock);
    if (nread)
        gt_fdinfo_adopt_readings(f, read, nread);
    if (found.n)
        gt_fdinfo_adopt(f, found.v, found.n);
    free(read);
    free(found.v);
}

void gt_fdinfo_walker_stats(struct gt_fdinfo_walker *w, struct gt_fdinfo_find_stats *out)
{
    pthread_mutex_lock(&w->lock);
    *out = w->st;
    pthread_mutex_unlock(&w->lock);
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
    gt_fdinfo_finder_free(w->finder);
    free(w->found.v);
    free(w->readings);
    free(w);
}
