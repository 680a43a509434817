/* The steps of a sampling round that the timer loop (sampler.c) and the
 * kernel-timed drain (drain.c) share: calling a source and noting what it
 * said, publishing the back buffer, and sleeping on the thread's wake
 * word. Both call in here; nothing here calls back, so calls go one way. */
#include "gputop/sampler.h"
#include "gputop/thread.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sampler_int.h"

void gt_smp_ts_from_ns(struct timespec *ts, uint64_t ns)
{
    ts->tv_sec = (time_t)(ns / 1000000000ull);
    ts->tv_nsec = (long)(ns % 1000000000ull);
}

/* "SOURCE: message": what sample() says never names the source. */
static void name_message(char *buf, size_t len, const struct gt_source *src, const char *msg)
{
    snprintf(buf, len, "%s: %s", src->type->name, msg);
}

void gt_smp_note_error(struct gt_sampler *s, const struct gt_source *src, const struct gt_diag *d)
{
    pthread_mutex_lock(&s->lock);
    s->stats.errors++;
    s->stats.state = GT_SAMPLER_RETRYING;
    s->stats.last_error_code = d->code;
    name_message(s->stats.last_error, sizeof(s->stats.last_error), src,
                 d->msg[0] ? d->msg : "sample failed");
    pthread_mutex_unlock(&s->lock);
}

void gt_smp_note_warning(struct gt_sampler *s, const struct gt_source *src,
                         const struct gt_diag *d)
{
    pthread_mutex_lock(&s->lock);
    s->stats.warnings++;
    name_message(s->stats.last_warning, sizeof(s->stats.last_warning), src, d->msg);
    pthread_mutex_unlock(&s->lock);
}

/* Source i has no data for this round (it failed, or waits to be
 * retried): its bit is set and its slots cleared of whatever a failed
 * call left there. The interval lost is the one the source gave, if it
 * did, else the time since its last interval, on its own clock; a
 * self-paced source's clock (a file's) has no relation to ours, so its
 * lost interval is an instant at its last known time. */
void gt_smp_mark_lost(struct gt_sampler *s, size_t i, uint64_t now)
{
    struct source_slot *ss = &s->src[i];
    int paced = s->cfg.sources[i]->info.self_paced;

    memset(ss->view.deltas, 0, (size_t)ss->view.nslots * sizeof(uint64_t));
    if (ss->view.t_end_ns <= ss->view.t_start_ns) {
        ss->view.t_start_ns = ss->src_end;
        ss->view.t_end_ns = ss->src_end + (paced ? 0 : now - ss->mono_end);
    }
    ss->src_end = ss->view.t_end_ns;
    ss->mono_end = now;
    if (i < 32)
        s->back.missing |= 1u << i;
}

void gt_smp_back_off(struct gt_sampler *s, struct source_slot *ss, uint64_t now)
{
    ss->backoff = ss->backoff ? ss->backoff * 2 : s->interval_ns;
    if (ss->backoff > BACKOFF_MAX_NS)
        ss->backoff = BACKOFF_MAX_NS;
    ss->retry_at = now + ss->backoff;
}

/* Calls source i; returns 1 when it gave data, 0 when it has none for
 * this round, -1 when it has ended. */
int gt_smp_sample_one(struct gt_sampler *s, size_t i, uint64_t now)
{
    struct source_slot *ss = &s->src[i];
    struct gt_source *src = s->cfg.sources[i];
    struct gt_diag d;
    enum gt_sample_result r;

    ss->view.t_start_ns = ss->view.t_end_ns = 0;
    if (ss->retry_at && now < ss->retry_at) {
        gt_smp_mark_lost(s, i, now);
        return 0;
    }
    gt_diag_clear(&d);
    r = src->type->sample(src, &ss->view, &d);
    if (r == GT_SAMPLE_END) {
        ss->ended = 1;
        return -1;
    }
    if (r == GT_SAMPLE_ERROR) {
        gt_smp_back_off(s, ss, now);
        gt_smp_note_error(s, src, &d);
        gt_smp_mark_lost(s, i, now);
        return 0;
    }
    if (r == GT_SAMPLE_WARN)
        gt_smp_note_warning(s, src, &d);
    ss->retry_at = 0;
    ss->backoff = 0;
    ss->src_end = ss->view.t_end_ns;
    ss->mono_end = now;
    return 1;
}

void gt_smp_publish(struct gt_sampler *s)
{
    struct gt_diag d;
    int wake = 0, nodata = s->back.missing != 0;

    /* Batch output: a drained sample is recorded only when the reader
     * has taken the row before it and asks for the next: a row is
     * written after its take, and -n stops the sampler after the last
     * one, so the capture ends where the rows do. */
    if (s->cfg.each_drained && s->hold_wake) {
        pthread_mutex_lock(&s->lock);
        while ((s->front_full || !s->asking) && !s->stopping)
            pthread_cond_wait(&s->taken, &s->lock);
        pthread_mutex_unlock(&s->lock);
        if (s->stopping)
            return;
    }
    /* A capture holds counts only: an interval without them is left out
     * rather than recorded as zeros. */
    if (s->cfg.on_sample && !nodata) {
        gt_diag_clear(&d);
        if (s->cfg.on_sample(s->cfg.arg, &s->back, &d) != 0) {
            pthread_mutex_lock(&s->lock);
            s->stats.capture_errors++;
            snprintf(s->stats.last_capture_error, sizeof(s->stats.last_capture_error), "%s",
                     d.msg);
            pthread_mutex_unlock(&s->lock);
            s->cfg.on_sample = NULL;   /* reported once; sampling goes on */
        }
    }
    pthread_mutex_lock(&s->lock);
    while (s->cfg.lossless && s->front_full && !s->stopping)
        pthread_cond_wait(&s->taken, &s->lock);
    if (s->front_full) {
        gt_snapshot_accumulate_spans(&s->front, &s->back, s->spans, s->nspans);
        s->stats.merged++;
    } else {
        /* Exchanged, not copied: fewer bytes through the cache. */
        gt_snapshot_exchange(&s->front, &s->back);
        s->front_full = 1;
    }
    if (nodata)
        s->stats.nodata++;
    else
        s->stats.samples++;
    if (s->wake_at && !s->hold_wake && gt_now_ns() >= s->wake_at) {
        s->wake_at = 0;
        wake = s->wake_fd >= 0;
    }
    pthread_cond_broadcast(&s->ready);
    pthread_mutex_unlock(&s->lock);
    if (wake) {
        uint64_t one = 1;

        if (write(s->wake_fd, &one, sizeof(one)) < 0) {
            /* A full counter is a reader already due to wake. */
        }
    }
    /* Lossless: the sources are asked for the next round only once this
     * one is taken, so a replay reads at most one record ahead of what a
     * view shows (a pause then stops the screen within one refresh). */
    if (!s->cfg.lossless)
        return;
    pthread_mutex_lock(&s->lock);
    while (s->front_full && !s->stopping)
        pthread_cond_wait(&s->taken, &s->lock);
    pthread_mutex_unlock(&s->lock);
}

void gt_smp_wake_thread(struct gt_sampler *s)
{
    atomic_fetch_add(&s->wake_seq, 1);
    syscall(SYS_futex, &s->wake_seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Sleeps until the absolute CLOCK_MONOTONIC deadline, or until woken after
 * the wake count was seq (returns WOKEN: a stop or a new interval). */
int gt_smp_sleep_until(struct gt_sampler *s, uint64_t deadline, unsigned seq)
{
    struct timespec ts;

    gt_smp_ts_from_ns(&ts, deadline);
    for (;;) {
        /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time. */
        long r = syscall(SYS_futex, &s->wake_seq, FUTEX_WAIT_BITSET_PRIVATE, seq, &ts, NULL,
                         FUTEX_BITSET_MATCH_ANY);
        if (r < 0 && errno == ETIMEDOUT)
            return SLEPT;
        if (atomic_load(&s->wake_seq) != seq)
            return WOKEN;
        if (gt_now_ns() >= deadline)
            return SLEPT;
        /* EINTR, or a spurious return: sleep on. */
    }
}

void gt_smp_update_state(struct gt_sampler *s)
{
    size_t i;
    int retrying = 0;
    enum gt_sampler_state want;

    for (i = 0; i < s->cfg.nsources; i++)
        retrying |= s->src[i].retry_at != 0 && !s->src[i].ended;
    want = retrying ? GT_SAMPLER_RETRYING : GT_SAMPLER_RUNNING;
    /* Only this thread writes the state, so it reads it without the lock;
     * the lock is taken for a change, not every round. */
    if (s->stats.state == want)
        return;
    pthread_mutex_lock(&s->lock);
    s->stats.state = want;
    pthread_mutex_unlock(&s->lock);
}
