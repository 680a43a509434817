/* The fdinfo reader on a thread of its own, so the /proc walk never
 * delays a counter sample: it updates at its own period and publishes a
 * copy of the rows the Processes view draws, only while they are wanted
 * (the view is on screen): hidden, it reads nothing and never wakes. */
#include "gputop/fdinfo.h"
#include "gputop/thread.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ROWS 256

struct gt_fdinfo_watch {
    struct gt_fdinfo *f;
    uint64_t period_ns;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;
    int wanted;           /* gt_fdinfo_watch_want: the rows are on screen */
    int baseline_due;     /* wanted again: the next update is a baseline */
    uint64_t changes;     /* stop or wanted changed: a wait ends early */
    struct gt_fdinfo_row rows[MAX_ROWS];
    size_t nrows;
    int profiling_off;
    uint64_t updates;
};

static void engines_text(const struct gt_fdinfo_client *c, char *buf, size_t len)
{
    size_t used = 0;
    int i;

    buf[0] = '\0';
    for (i = 0; i < c->nengines && used < len; i++) {
        const struct gt_fdinfo_engine *e = &c->engine[i];
        int n = e->has_ns || e->cycles
                ? snprintf(buf + used, len - used, "%s%s %.0f%%", used ? " " : "", e->name,
                           e->busy_pct)
                : 0;
        if (n > 0)
            used += (size_t)n;
    }
}

static void publish(struct gt_fdinfo_watch *w)
{
    const struct gt_fdinfo_client *const *c;
    size_t n = gt_fdinfo_clients(w->f, &c), i;

    pthread_mutex_lock(&w->lock);
    w->nrows = n < MAX_ROWS ? n : MAX_ROWS;
    for (i = 0; i < w->nrows; i++) {
        struct gt_fdinfo_row *r = &w->rows[i];
        r->pid = c[i]->pid;
        memcpy(r->comm, c[i]->comm, sizeof(r->comm));
        memcpy(r->driver, c[i]->driver, sizeof(r->driver));
        r->busy_pct = c[i]->busy_pct;
        r->mem_bytes = c[i]->mem_bytes;
        engines_text(c[i], r->engines, sizeof(r->engines));
    }
    w->profiling_off = gt_fdinfo_profiling_off(w->f);
    w->updates++;
    pthread_mutex_unlock(&w->lock);
}

/* Waits ns, or less when stopped or the rows' wanted state changes.
 * Called and returns with the lock held. */
static void wait_locked(struct gt_fdinfo_watch *w, uint64_t ns)
{
    uint64_t seen = w->changes;
    struct timespec until;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)(ns / 1000000000ull);
    until.tv_nsec += (long)(ns % 1000000000ull);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (w->changes == seen && pthread_cond_timedwait(&w->wake, &w->lock, &until) != ETIMEDOUT)
        ;
}

/* Unwanted, the thread sleeps with no timeout (no wake-up, no /proc
 * read: the view is hidden). Wanted again, it walks at once for clients
 * that came meanwhile, takes that reading as the baseline and publishes a
 * quarter period later, so no busy share spans the hidden time. */
static void *run(void *arg)
{
    struct gt_fdinfo_watch *w = arg;
    int baseline;

    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        if (!w->wanted) {
            pthread_cond_wait(&w->wake, &w->lock);
            continue;
        }
        baseline = w->baseline_due;
        w->baseline_due = 0;
        pthread_mutex_unlock(&w->lock);
        gt_fdinfo_update(w->f, gt_now_ns(), baseline);
        if (!baseline)
            publish(w);
        pthread_mutex_lock(&w->lock);
        wait_locked(w, baseline ? w->period_ns / 4 : w->period_ns);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

struct gt_fdinfo_watch *gt_fdinfo_watch_start(const struct gt_sys *sys, uint64_t period_ns,
                                              unsigned walk_every)
{
    struct gt_fdinfo_watch *w = calloc(1, sizeof(*w));

    if (!w)
        return NULL;
    w->f = gt_fdinfo_new(sys, walk_every);
    w->period_ns = period_ns ? period_ns : 1000000000ull;
    if (!w->f)
        goto fail;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (gt_thread_start(&w->thread, run, w) != 0) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->wake);
        goto fail;
    }
    return w;
fail:
    gt_fdinfo_free(w->f);
    free(w);
    return NULL;
}

void gt_fdinfo_watch_want(struct gt_fdinfo_watch *w, int wanted)
{
    wanted = wanted != 0;
    pthread_mutex_lock(&w->lock);
    if (wanted != w->wanted) {
        if (wanted) {
            w->baseline_due = 1;
            w->nrows = 0;
            w->updates = 0;     /* the view says "reading /proc" meanwhile */
        }
        w->wanted = wanted;
        w->changes++;
        pthread_cond_signal(&w->wake);
    }
    pthread_mutex_unlock(&w->lock);
}

size_t gt_fdinfo_watch_rows(struct gt_fdinfo_watch *w, struct gt_fdinfo_row *rows, size_t max,
                            int *profiling_off, uint64_t *updates)
{
    size_t n;

    pthread_mutex_lock(&w->lock);
    n = w->nrows < max ? w->nrows : max;
    memcpy(rows, w->rows, n * sizeof(*rows));
    *profiling_off = w->profiling_off;
    *updates = w->updates;
    pthread_mutex_unlock(&w->lock);
    return n;
}

void gt_fdinfo_watch_stop(struct gt_fdinfo_watch *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    w->changes++;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake);
    gt_fdinfo_free(w->f);
    free(w);
}
