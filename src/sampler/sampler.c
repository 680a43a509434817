/* The sampler thread and its double buffer. The thread owns the back
 * buffer; under the lock it either copies it into the front (read) buffer
 * or, when the reader has not taken the front yet, adds it there. */
#include "gputop/sampler.h"
#include "gputop/thread.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "sampler_int.h"

static int cond_init_monotonic(pthread_cond_t *c)
{
    pthread_condattr_t a;
    int r;

    if (pthread_condattr_init(&a))
        return -1;
    r = pthread_condattr_setclock(&a, CLOCK_MONOTONIC) || pthread_cond_init(c, &a);
    pthread_condattr_destroy(&a);
    return r ? -1 : 0;
}

/* The configured spans, clipped to the snapshot; one span of every slot
 * when none are given. */
static int copy_spans(struct gt_sampler *s, const struct gt_sampler_config *cfg)
{
    size_t i, n = cfg->spans ? cfg->nspans : 1;

    s->spans = calloc(n ? n : 1, sizeof(*s->spans));
    if (!s->spans)
        return -1;
    if (!cfg->spans) {
        s->spans[0].count = cfg->nslots;
        s->nspans = 1;
        return 0;
    }
    for (i = 0; i < n; i++) {
        struct gt_span sp = cfg->spans[i];
        if (sp.first >= cfg->nslots)
            continue;
        if (sp.count > cfg->nslots - sp.first)
            sp.count = cfg->nslots - sp.first;
        s->spans[s->nspans++] = sp;
    }
    return 0;
}

/* No longer than every source allows (32-bit counters that would wrap
 * twice, mips-cm); the sources' info is fixed once they are open. */
static uint64_t source_cap(const struct gt_sampler_config *cfg, uint64_t ns)
{
    size_t i;

    for (i = 0; i < cfg->nsources; i++) {
        uint64_t max = cfg->sources[i]->info.max_interval_ns;
        if (max && ns > max)
            ns = max;
    }
    return ns;
}

struct gt_sampler *gt_sampler_new(const struct gt_sampler_config *cfg)
{
    struct gt_sampler *s = calloc(1, sizeof(*s));
    size_t i;

    if (!s)
        return NULL;
    s->cfg = *cfg;
    s->cfg.spans = NULL;
    s->cfg.slot_offset = NULL;
    s->wake_fd = -1;
    s->interval_ns = source_cap(cfg, cfg->interval_ns);
    s->src = calloc(cfg->nsources ? cfg->nsources : 1, sizeof(*s->src));
    if (!s->src || copy_spans(s, cfg) < 0 || gt_snapshot_init(&s->back, cfg->nslots) < 0 ||
        gt_snapshot_init(&s->front, cfg->nslots) < 0) {
        gt_snapshot_free(&s->back);
        free(s->spans);
        free(s->src);
        free(s);
        return NULL;
    }
    for (i = 0; i < cfg->nsources; i++) {
        s->src[i].view.nslots = cfg->sources[i]->catalog.nslots;
        s->src[i].offset = cfg->slot_offset[i];
    }
    pthread_mutex_init(&s->lock, NULL);
    atomic_init(&s->wake_seq, 0);
    if (cond_init_monotonic(&s->ready) < 0 || cond_init_monotonic(&s->taken) < 0) {
        gt_sampler_free(s);
        return NULL;
    }
    return s;
}

/* One round over every source; returns how many gave data or have none
 * for this round (both are published), or -1 when all have ended. */
static int sample_sources(struct gt_sampler *s, uint64_t now)
{
    size_t i, live = 0;
    int answered = 0, timed = 0;

    gt_snapshot_zero_spans(&s->back, s->spans, s->nspans);
    for (i = 0; i < s->cfg.nsources; i++) {
        struct source_slot *ss = &s->src[i];
        int r;
        /* The back array changes hands with the front one. */
        ss->view.deltas = s->back.deltas + ss->offset;
        if (ss->ended)
            continue;
        r = gt_smp_sample_one(s, i, now);
        if (r < 0)
            continue;
        live++;
        answered++;
        /* The first source that gives data sets the interval: GPU sources
         * come first and carry the kernel's own timestamps. Without any,
         * the first lost interval stands for the round. */
        if (timed < 2 && (r == 1 || timed == 0)) {
            s->back.t_start_ns = ss->view.t_start_ns;
            s->back.t_end_ns = ss->view.t_end_ns;
            timed = r == 1 ? 2 : 1;
        }
    }
    s->back.nsamples = 1;
    return live == 0 ? -1 : answered;
}

int gt_sampler_wake_fd(struct gt_sampler *s)
{
    pthread_mutex_lock(&s->lock);
    if (s->wake_fd < 0)
        s->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    pthread_mutex_unlock(&s->lock);
    return s->wake_fd;
}

/* Kernel-timed, the reader's time is also when the thread drains: a
 * sleep past it is cut short. */
void gt_sampler_wake_after(struct gt_sampler *s, uint64_t t_ns)
{
    int sooner;

    pthread_mutex_lock(&s->lock);
    s->wake_at = t_ns ? t_ns : 1;
    if (s->reader_last && s->wake_at > s->reader_last)
        s->reader_every = s->wake_at - s->reader_last;
    s->reader_last = s->wake_at;
    /* a millisecond late is within a view's own slack */
    sooner = s->timed && s->wake_at + 1000000ull < s->deadline;
    if (sooner)
        s->deadline = s->wake_at;
    pthread_mutex_unlock(&s->lock);
    if (sooner)
        gt_smp_wake_thread(s);
}

static int self_paced(const struct gt_sampler *s)
{
    size_t i;

    for (i = 0; i < s->cfg.nsources; i++)
        if (s->cfg.sources[i]->info.self_paced)
            return 1;
    return 0;
}

/* A self-paced source waits in sample() itself, except when every live
 * source is backing off after an error: then the thread sleeps until the
 * first retry (returned; 0 when a source can be called now), rather than
 * spin publishing intervals without data. */
static uint64_t paced_wait(const struct gt_sampler *s, uint64_t now)
{
    uint64_t first = 0;
    size_t i;

    for (i = 0; i < s->cfg.nsources; i++) {
        const struct source_slot *ss = &s->src[i];
        if (ss->ended)
            continue;
        if (ss->retry_at <= now)
            return 0;
        if (!first || ss->retry_at < first)
            first = ss->retry_at;
    }
    return first;
}

static void *run(void *arg)
{
    struct gt_sampler *s = arg;
    uint64_t next, now, interval;
    int paced = self_paced(s), r;
    unsigned seq;

    if (s->timed && gt_smp_drain_run(s))
        goto ended;
    pthread_mutex_lock(&s->lock);
    interval = s->interval_ns;
    pthread_mutex_unlock(&s->lock);
    next = gt_now_ns() + interval;
    seq = atomic_load(&s->wake_seq);
    for (;;) {
        uint64_t old = interval, wait = paced ? paced_wait(s, gt_now_ns()) : next;
        int woken;

        woken = wait && gt_smp_sleep_until(s, wait, seq) == WOKEN;

        /* Taken before stopping is read: a later stop changes it, so the
         * next sleep returns at once instead of missing the wake-up. */
        seq = atomic_load(&s->wake_seq);
        now = gt_now_ns();
        pthread_mutex_lock(&s->lock);
        /* finishing: asked while the kernel timed the samples, which it
         * no longer does; the timer has nothing left to hand over */
        if (s->stopping || s->finishing) {
            pthread_mutex_unlock(&s->lock);
            break;
        }
        /* Measured against the deadline itself, under the lock this round
         * takes anyway: no system call and no allocation added. */
        if (wait && !woken && !paced)
            gt_lateness_add(&s->lateness, now > wait ? now - wait : 0, interval);
        interval = s->interval_ns;
        pthread_mutex_unlock(&s->lock);
        /* A shorter interval starts now, not at the end of the long one. */
        if (woken) {
            if (interval < old && now + interval < next)
                next = now + interval;
            continue;
        }
        r = sample_sources(s, now);
        if (r < 0)
            break;
        gt_smp_update_state(s);
        if (r > 0)
            gt_smp_publish(s);
        if (!paced) {
            uint64_t late = 0;
            next = gt_deadline_advance(next, gt_now_ns(), interval, &late);
            if (late) {
                pthread_mutex_lock(&s->lock);
                s->stats.late += late;
                pthread_mutex_unlock(&s->lock);
            }
        }
    }
ended:
    pthread_mutex_lock(&s->lock);
    s->stats.state = GT_SAMPLER_ENDED;
    pthread_cond_broadcast(&s->ready);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

int gt_sampler_start(struct gt_sampler *s, struct gt_diag *d)
{
    size_t i;

    if (s->started)
        return 0;
    for (i = 0; i < s->cfg.nsources; i++) {
        struct gt_source *src = s->cfg.sources[i];
        if (src->type->start && src->type->start(src, d) < 0)
            return -1;
    }
    gt_smp_start_periodic(s);
    s->stats.state = GT_SAMPLER_RUNNING;
    for (i = 0; i < s->cfg.nsources; i++)
        s->src[i].src_end = s->src[i].mono_end = s->src[i].last_got = gt_now_ns();
    s->last_drain = gt_now_ns();
    if (gt_thread_start(&s->thread, "gputop-sampler", run, s) != 0) {
        gt_diag_set(d, "cannot start the sampler thread");
        return -1;
    }
    s->started = 1;
    return 0;
}

int gt_sampler_take(struct gt_sampler *s, struct gt_snapshot *out, uint64_t timeout_ns)
{
    struct timespec ts;
    int r = 0;

    gt_smp_ts_from_ns(&ts, gt_now_ns() + timeout_ns);
    pthread_mutex_lock(&s->lock);
    /* A drain for batch rows records its next sample only now (round.c) */
    if (s->cfg.each_drained && timeout_ns && !s->front_full) {
        s->asking = 1;
        pthread_cond_signal(&s->taken);
    }
    /* A zero timeout only looks: a wait on a deadline already past still
     * costs a trip through the scheduler. */
    while (timeout_ns && !s->front_full && s->stats.state != GT_SAMPLER_ENDED)
        if (pthread_cond_timedwait(&s->ready, &s->lock, &ts) == ETIMEDOUT)
            break;
    if (s->front_full) {
        if (out->nslots == s->front.nslots) {
            gt_snapshot_exchange(out, &s->front);
        } else {
            gt_snapshot_copy_spans(out, &s->front, s->spans, s->nspans);
        }
        s->front_full = 0;
        s->asking = 0;
        pthread_cond_signal(&s->taken);
        r = 1;
    } else if (s->stats.state == GT_SAMPLER_ENDED) {
        r = -1;
    }
    pthread_mutex_unlock(&s->lock);
    return r;
}

void gt_sampler_set_interval(struct gt_sampler *s, uint64_t ns)
{
    if (ns < GT_INTERVAL_MIN_NS)
        ns = GT_INTERVAL_MIN_NS;
    if (ns > GT_INTERVAL_MAX_NS)
        ns = GT_INTERVAL_MAX_NS;
    ns = source_cap(&s->cfg, ns);
    pthread_mutex_lock(&s->lock);
    s->interval_ns = ns;
    pthread_mutex_unlock(&s->lock);
    gt_smp_wake_thread(s);
}

uint64_t gt_sampler_interval(struct gt_sampler *s)
{
    uint64_t ns;

    pthread_mutex_lock(&s->lock);
    ns = s->interval_ns;
    pthread_mutex_unlock(&s->lock);
    return ns;
}

uint32_t gt_sampler_nslots(const struct gt_sampler *s)
{
    return s->cfg.nslots;
}

void gt_sampler_get_stats(struct gt_sampler *s, struct gt_sampler_stats *st)
{
    pthread_mutex_lock(&s->lock);
    *st = s->stats;
    gt_lateness_summarize(&s->lateness, &st->lateness);
    gt_lateness_summarize(&s->jitter, &st->jitter);
    gt_lateness_summarize(&s->drain, &st->drain);
    st->kernel_timed = s->timed;
    pthread_mutex_unlock(&s->lock);
}

enum gt_sampler_state gt_sampler_state(struct gt_sampler *s, uint64_t *warnings)
{
    enum gt_sampler_state st;

    pthread_mutex_lock(&s->lock);
    st = s->stats.state;
    if (warnings)
        *warnings = s->stats.warnings;
    pthread_mutex_unlock(&s->lock);
    return st;
}

uint64_t gt_sampler_capture_errors(struct gt_sampler *s)
{
    uint64_t n;

    pthread_mutex_lock(&s->lock);
    n = s->stats.capture_errors;
    pthread_mutex_unlock(&s->lock);
    return n;
}

/* A source that waits inside sample() (a paused replay) is told to stop
 * waiting, or the join below would wait with it. */
static void interrupt_sources(struct gt_sampler *s)
{
    size_t i;

    for (i = 0; i < s->cfg.nsources; i++) {
        struct gt_source *src = s->cfg.sources[i];
        if (src->type->playback)
            src->type->playback->control(src, GT_PLAYBACK_INTERRUPT, 0);
    }
}

/* The sampler thread is gone: each source may now publish what its
 * sample() kept under its own lock into its info. */
static void settle_sources(struct gt_sampler *s)
{
    size_t i;

    for (i = 0; i < s->cfg.nsources; i++) {
        struct gt_source *src = s->cfg.sources[i];
        if (src->type->playback)
            src->type->playback->control(src, GT_PLAYBACK_SETTLE, 0);
    }
}

int gt_sampler_finish(struct gt_sampler *s)
{
    int timed;

    if (!s || !s->started)
        return 0;
    pthread_mutex_lock(&s->lock);
    timed = s->timed && s->stats.state != GT_SAMPLER_ENDED;
    s->finishing = timed;
    pthread_mutex_unlock(&s->lock);
    if (timed)
        gt_smp_wake_thread(s);
    return timed;
}

void gt_sampler_stop(struct gt_sampler *s)
{
    if (!s || !s->started)
        return;
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    pthread_cond_broadcast(&s->taken);
    pthread_mutex_unlock(&s->lock);
    gt_smp_wake_thread(s);
    interrupt_sources(s);
    pthread_join(s->thread, NULL);
    s->started = 0;
    settle_sources(s);
}

void gt_sampler_free(struct gt_sampler *s)
{
    if (!s)
        return;
    gt_sampler_stop(s);
    pthread_cond_destroy(&s->ready);
    pthread_cond_destroy(&s->taken);
    pthread_mutex_destroy(&s->lock);
    gt_snapshot_free(&s->back);
    gt_snapshot_free(&s->front);
    if (s->wake_fd >= 0)
        close(s->wake_fd);
    free(s->spans);
    free(s->src);
    free(s);
}

uint64_t gt_deadline_advance(uint64_t next, uint64_t now, uint64_t interval, uint64_t *late)
{
    uint64_t skipped;

    next += interval;
    if (now < next)
        return next;
    skipped = (now - next) / interval + 1;
    *late += skipped;
    return next + skipped * interval;
}
