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
#include <unistd.h>

#define MAX_ROWS 256
#define UID_ROWS 64

struct gt_fdinfo_watch {
    struct gt_fdinfo *f;
    const char *root;
    int kbase;
    struct gt_gpu_work *gpu_work;    /* kbase: GPU time per app uid */
    uint64_t prev_ns;
    struct gt_fdinfo_row uid_rows[UID_ROWS];   /* the watcher thread's own */
    int uid_age[UID_ROWS];           /* updates since the uid's last event */
    size_t nuid;
    uint64_t period_ns;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;
    int wanted;           /* gt_fdinfo_watch_want: the rows are on screen */
    int kept;             /* gt_fdinfo_watch_keep: an exporter reads them too */
    int baseline_due;     /* wanted again: the next update is a baseline */
    uint64_t changes;     /* stop or wanted changed: a wait ends early */
    struct gt_fdinfo_row rows[MAX_ROWS];
    size_t nrows;
    int profiling_off;
    size_t procs;
    uint64_t updates;
};

static void engines_text(const struct gt_fdinfo_client *c, char *buf, size_t len)
{
    size_t used = 0;
    int i;

    buf[0] = '\0';
    for (i = 0; i < c->nengines && used < len; i++) {
        const struct gt_fdinfo_engine *e = &c->engine[i];
        int n = !(e->has_ns || e->cycles) ? 0
                : e->busy_pct > GT_FDINFO_OVER_PCT
                ? snprintf(buf + used, len - used, "%s%s >100%%", used ? " " : "", e->name)
                : snprintf(buf + used, len - used, "%s%s %.0f%%", used ? " " : "", e->name,
                           e->busy_pct);
        if (n > 0)
            used += (size_t)n;
    }
}

/* kbase's apps, one row a uid: its active time over the time since the
 * last update. The driver ends a period at least every second, so an
 * update may fall between two of an app's events: its row stays one more
 * update with the figure of its last period rather than flicker away.
 * Read before the lock is taken, so the view never waits for tracefs. */
static void read_uids(struct gt_fdinfo_watch *w, uint64_t now)
{
    unsigned uid[UID_ROWS];
    uint64_t ns[UID_ROWS], dt = w->prev_ns ? now - w->prev_ns : 0;
    size_t n, i, k;

    w->prev_ns = now;
    if (!w->gpu_work || !dt)
        return;
    n = gt_gpu_work_take(w->gpu_work, uid, ns, UID_ROWS);
    for (k = 0; k < w->nuid; k++)
        w->uid_age[k]++;
    for (i = 0; i < n; i++) {
        struct gt_fdinfo_row *r;
        char name[32];
        gt_gpu_work_uid_name(uid[i], name, sizeof(name));
        for (k = 0; k < w->nuid && strcmp(w->uid_rows[k].comm, name) != 0; k++)
            ;
        if (k == w->nuid && w->nuid == UID_ROWS)
            continue;
        if (k == w->nuid)
            w->nuid++;
        r = &w->uid_rows[k];
        memset(r, 0, sizeof(*r));
        memcpy(r->comm, name, sizeof(r->comm));
        snprintf(r->driver, sizeof(r->driver), "kbase");
        r->busy_pct = 100.0 * (double)ns[i] / (double)dt;
        r->over = r->busy_pct > GT_FDINFO_OVER_PCT;
        snprintf(r->engines, sizeof(r->engines), "gpu_work_period");
        w->uid_age[k] = 0;
    }
    for (i = k = 0; i < w->nuid; i++)
        if (w->uid_age[i] < 2) {
            w->uid_rows[k] = w->uid_rows[i];
            w->uid_age[k++] = w->uid_age[i];
        }
    w->nuid = k;
}

static void publish(struct gt_fdinfo_watch *w)
{
    const struct gt_fdinfo_client *const *c;
    size_t n = gt_fdinfo_clients(w->f, &c), i;

    read_uids(w, gt_now_ns());
    pthread_mutex_lock(&w->lock);
    w->nrows = n < MAX_ROWS ? n : MAX_ROWS;
    for (i = 0; i < w->nrows; i++) {
        struct gt_fdinfo_row *r = &w->rows[i];
        r->pid = c[i]->pid;
        memcpy(r->comm, c[i]->comm, sizeof(r->comm));
        memcpy(r->cmdline, c[i]->cmdline, sizeof(r->cmdline));
        memcpy(r->driver, c[i]->driver, sizeof(r->driver));
        memcpy(r->pdev, c[i]->pdev, sizeof(r->pdev));
        memcpy(r->container, c[i]->container, sizeof(r->container));
        r->busy_pct = c[i]->busy_pct;
        r->over = c[i]->over;
        r->mem_resident = c[i]->mem_resident;
        r->mem_private = c[i]->mem_private;
        r->mem_vram = c[i]->mem_vram;
        r->mem_gtt = c[i]->mem_gtt;
        r->has_private = c[i]->has_private;
        r->has_vram_gtt = c[i]->has_vram_gtt;
        engines_text(c[i], r->engines, sizeof(r->engines));
    }
    w->profiling_off = gt_fdinfo_profiling_off(w->f);
    w->procs = gt_fdinfo_procs_listed(w->f);
    for (i = 0; i < w->nuid && w->nrows < MAX_ROWS; i++)
        w->rows[w->nrows++] = w->uid_rows[i];
    w->updates++;
    pthread_mutex_unlock(&w->lock);
}

/* Waits ns, or less when stopped or the rows' wanted state changes.
 * Called and returns with the lock held. */
static void wait_locked(struct gt_fdinfo_watch *w, uint64_t ns)
{
    uint64_t seen = w->changes;
    struct timespec until;

    /* The condition variable waits on CLOCK_MONOTONIC, so a step of the
     * wall clock neither stalls nor hurries the watcher. */
    clock_gettime(CLOCK_MONOTONIC, &until);
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

static int has_kbase(const char *root)
{
    char path[4200];

    snprintf(path, sizeof(path), "%s/dev/mali0", root);
    return access(path, F_OK) == 0;
}

const char *gt_fdinfo_watch_root(const struct gt_fdinfo_watch *w)
{
    return w->root;
}

const char *gt_fdinfo_watch_gpu_work_why(const struct gt_fdinfo_watch *w)
{
    return w->gpu_work ? gt_gpu_work_why(w->gpu_work) : "";
}

int gt_fdinfo_watch_kbase(const struct gt_fdinfo_watch *w)
{
    return w->kbase;
}

struct gt_fdinfo_watch *gt_fdinfo_watch_start(const struct gt_sys *sys, uint64_t period_ns,
                                              unsigned walk_every)
{
    struct gt_fdinfo_watch *w = calloc(1, sizeof(*w));
    pthread_condattr_t attr;

    if (!w)
        return NULL;
    w->f = gt_fdinfo_new(sys, walk_every);
    w->root = sys->root ? sys->root : "";
    w->kbase = has_kbase(w->root);
    if (w->kbase)
        w->gpu_work = gt_gpu_work_open(sys);
    w->period_ns = period_ns ? period_ns : 1000000000ull;
    if (!w->f)
        goto fail;
    pthread_mutex_init(&w->lock, NULL);
    /* Deadlines on the monotonic clock: a wall-clock step (NTP, a user
     * setting the date) must not stall the updates. */
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (gt_thread_start(&w->thread, "gputop-procs", run, w) != 0) {
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

/* Called with the lock held. */
static void set_wanted(struct gt_fdinfo_watch *w, int wanted)
{
    if (wanted == w->wanted)
        return;
    if (wanted) {
        w->baseline_due = 1;
        w->nrows = 0;
        w->updates = 0;     /* the view says "reading /proc" meanwhile */
    }
    w->wanted = wanted;
    w->changes++;
    pthread_cond_signal(&w->wake);
}

void gt_fdinfo_watch_want(struct gt_fdinfo_watch *w, int wanted)
{
    pthread_mutex_lock(&w->lock);
    set_wanted(w, wanted != 0 || w->kept);
    pthread_mutex_unlock(&w->lock);
}

void gt_fdinfo_watch_keep(struct gt_fdinfo_watch *w)
{
    pthread_mutex_lock(&w->lock);
    w->kept = 1;
    set_wanted(w, 1);
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

size_t gt_fdinfo_watch_procs(struct gt_fdinfo_watch *w)
{
    size_t n;

    pthread_mutex_lock(&w->lock);
    n = w->procs;
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
    gt_gpu_work_close(w->gpu_work);
    free(w);
}
