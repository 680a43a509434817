/* Kernel-timed sampling: where a source's kernel samples at the period into
 * its ring (kbase's periodic modes; the simulator), the sampler thread
 * drains every sample, as a round of its own, when the ring is half full
 * or a reader is due, and once more at a stop. */
#include "sampler_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t clock_ns(int clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The sources left to be read on our timer can be read at each drain
 * instead only when none needs reading more often (32-bit counters that
 * wrap, mips-cm) or paces itself (a replay). */
static int drain_possible(const struct gt_sampler *s)
{
    size_t i;

    if (s->cfg.lossless || s->cfg.timer_only)
        return 0;
    for (i = 0; i < s->cfg.nsources; i++) {
        const struct gt_source_info *in = &s->cfg.sources[i]->info;
        if (in->self_paced || (in->max_interval_ns && !in->periodic_min_ns))
            return 0;
    }
    return 1;
}

static void note_timer(struct gt_sampler *s, const struct gt_source *src, const char *why)
{
    struct gt_diag d;

    gt_diag_clear(&d);
    gt_diag_set(&d, "%s: sampled on gputop's timer instead", why);
    gt_smp_note_warning(s, src, &d);
}

/* Once the sources have started: each that can asks its kernel to sample
 * at the interval. One that cannot keeps the timer, and says why. */
void gt_smp_start_periodic(struct gt_sampler *s)
{
    size_t i;

    if (!drain_possible(s))
        return;
    for (i = 0; i < s->cfg.nsources; i++) {
        struct gt_source *src = s->cfg.sources[i];
        struct source_slot *ss = &s->src[i];
        uint64_t p = s->interval_ns;
        struct gt_diag d;

        if (!src->type->periodic || !src->info.periodic_min_ns)
            continue;
        gt_diag_clear(&d);
        if (src->type->periodic(src, &p, &d) < 0) {
            note_timer(s, src, d.msg);
            continue;
        }
        ss->timed = 1;
        ss->period = p;
        ss->ring = src->info.periodic_ring ? src->info.periodic_ring : 2;
        s->timed = 1;
    }
}

/* Back to the timer for every source, saying why. */
static void stop_periodic(struct gt_sampler *s, const char *why)
{
    size_t i;

    for (i = 0; i < s->cfg.nsources; i++) {
        struct gt_source *src = s->cfg.sources[i];
        struct source_slot *ss = &s->src[i];
        uint64_t p = 0;
        struct gt_diag d;

        if (!ss->timed)
            continue;
        gt_diag_clear(&d);
        src->type->periodic(src, &p, &d);
        ss->timed = 0;
        note_timer(s, src, why);
    }
    pthread_mutex_lock(&s->lock);
    s->timed = 0;
    pthread_mutex_unlock(&s->lock);
}

/* How far a kernel timestamp lies off the period's grid: a sample after
 * a full ring spans whole periods, and is measured against them; and how
 * long after its end the drain that hands it over began. Both
 * figures are added under the lock, since a reader summarizes them
 * (gt_sampler_get_stats) while the thread drains. */
static void add_jitter(struct gt_sampler *s, struct source_slot *ss)
{
    uint64_t end = ss->view.t_end_ns, span, k, off = 0, now = ss->drained_at;
    int on_grid = ss->prev_end && end > ss->prev_end;

    if (on_grid) {
        span = end - ss->prev_end;
        k = (span + ss->period / 2) / ss->period;
        k = k ? k : 1;
        off = span > k * ss->period ? span - k * ss->period : k * ss->period - span;
    }
    ss->prev_end = end;
    pthread_mutex_lock(&s->lock);
    if (on_grid)
        gt_lateness_add(&s->jitter, off, ss->period);
    gt_lateness_add(&s->drain, now > end ? now - end : 0, ss->period);
    pthread_mutex_unlock(&s->lock);
}

/* The oldest sample in timed source i's ring, into the back buffer: 1;
 * 0 when none is waiting (or the source waits to be retried, or has
 * ended); -1 when the source failed, its slots then marked no data.
 * on_grid: a periodic sample, measured for the jitter and drain figures
 * (a stop's last sample is not one). */
static int take_timed(struct gt_sampler *s, size_t i, uint64_t now, int on_grid)
{
    struct source_slot *ss = &s->src[i];
    struct gt_source *src = s->cfg.sources[i];
    struct gt_diag d;
    enum gt_sample_result r;

    ss->view.t_start_ns = ss->view.t_end_ns = 0;
    if (ss->retry_at && now < ss->retry_at)
        return 0;
    gt_diag_clear(&d);
    r = src->type->sample(src, &ss->view, &d);
    if (r == GT_SAMPLE_EMPTY)
        return 0;
    if (r == GT_SAMPLE_END) {
        ss->ended = 1;
        return 0;
    }
    if (r == GT_SAMPLE_ERROR) {
        gt_smp_back_off(s, ss, now);
        gt_smp_note_error(s, src, &d);
        gt_smp_mark_lost(s, i, now);
        return -1;
    }
    if (r == GT_SAMPLE_WARN)
        gt_smp_note_warning(s, src, &d);
    ss->retry_at = ss->backoff = 0;
    ss->src_end = ss->view.t_end_ns;
    ss->mono_end = ss->last_got = now;
    if (on_grid)
        add_jitter(s, ss);
    return 1;
}

/* After a drain: a reader due meanwhile is woken once, for all of it. */
static void publish_wake(struct gt_sampler *s)
{
    uint64_t one = 1;
    int wake = 0;

    pthread_mutex_lock(&s->lock);
    if (s->wake_at && gt_now_ns() >= s->wake_at) {
        s->wake_at = 0;
        wake = s->wake_fd >= 0;
    }
    pthread_mutex_unlock(&s->lock);
    if (wake && write(s->wake_fd, &one, sizeof(one)) < 0) {
        /* A full counter is a reader already due to wake. */
    }
}

static void begin_round(struct gt_sampler *s)
{
    size_t i;

    gt_snapshot_zero_spans(&s->back, s->spans, s->nspans);
    for (i = 0; i < s->cfg.nsources; i++)
        s->src[i].view.deltas = s->back.deltas + s->src[i].offset;
    s->back.missing = 0;
    s->back.nsamples = 1;
}

/* The sources on our timer, read once a drain, into its first round:
 * their interval is the time since the last drain. */
static void sample_untimed(struct gt_sampler *s, uint64_t now)
{
    size_t i;

    for (i = 0; i < s->cfg.nsources; i++)
        if (!s->src[i].timed && !s->src[i].ended)
            gt_smp_sample_one(s, i, now);
}

static int all_ended(const struct gt_sampler *s)
{
    size_t i;

    for (i = 0; i < s->cfg.nsources; i++)
        if (!s->src[i].ended)
            return 0;
    return 1;
}

/* A sample taken into the back buffer goes out as a round of its own,
 * with the kernel's timestamps; the sources on our timer join the first
 * round of a drain. */
static void publish_taken(struct gt_sampler *s, const struct source_slot *ss, uint64_t now,
                          int *n)
{
    s->back.t_start_ns = ss->view.t_start_ns;
    s->back.t_end_ns = ss->view.t_end_ns;
    if (*n == 0)
        sample_untimed(s, now);
    gt_smp_publish(s);
    (*n)++;
}

/* Timed source i's ring, a round for each sample, at most max (0: as
 * many as it gives); -1 when the source failed. */
static int drain_ring(struct gt_sampler *s, size_t i, uint64_t now, uint32_t max, int *n)
{
    uint32_t k;
    int r;

    /* Read once a drain, not a sample: at 1 kHz a clock read a sample was
     * a tenth of the thread's own time, and the samples of one drain are
     * handed over within microseconds of each other. */
    s->src[i].drained_at = clock_ns(s->cfg.sources[i]->info.periodic_clock);
    for (k = 0; !max || k < max; k++) {
        begin_round(s);
        r = take_timed(s, i, now, 1);
        if (r == 0)
            return 0;
        publish_taken(s, &s->src[i], now, n);
        if (r < 0)
            return -1;
    }
    return 0;
}

/* Every sample waiting in the timed sources' rings becomes a round of its
 * own, so that captures, batch rows and the trace see each; a reader
 * that has not taken the last round gets them added up, as on the timer.
 * Returns the rounds published, -1 when every source has ended. */
static int drain_sources(struct gt_sampler *s, uint64_t now)
{
    size_t i;
    int n = 0;

    s->hold_wake = 1;
    for (i = 0; i < s->cfg.nsources; i++)
        if (s->src[i].timed && !s->src[i].ended)
            drain_ring(s, i, now, 0, &n);
    s->hold_wake = 0;
    if (n)
        publish_wake(s);
    return all_ended(s) ? -1 : n;
}

/* Batch rows whose reader stopped the sampler (-n): nothing more is
 * recorded, so the capture ends at the last row. */
static int abandoned(struct gt_sampler *s)
{
    int r;

    pthread_mutex_lock(&s->lock);
    r = s->stopping && s->cfg.each_drained;
    pthread_mutex_unlock(&s->lock);
    return r;
}

/* Timed source i's last sample: its periodic mode ends, which leaves
 * what was counted since the last periodic sample to the next sample()
 * (kinstr_prfcnt's STOP sample, the legacy reader's final dump, the
 * simulator's part of a period). A source that refuses gives none, and
 * is not called again. */
static void take_last(struct gt_sampler *s, size_t i, uint64_t now, int *n)
{
    struct gt_source *src = s->cfg.sources[i];
    struct source_slot *ss = &s->src[i];
    uint64_t p = 0;
    struct gt_diag d;

    gt_diag_clear(&d);
    if (src->type->periodic(src, &p, &d) < 0) {
        if (!d.msg[0])
            gt_diag_set(&d, "periodic sampling did not stop");
        gt_smp_note_warning(s, src, &d);
        return;
    }
    ss->timed = 0;
    begin_round(s);
    if (take_timed(s, i, now, 0) != 0)
        publish_taken(s, ss, now, n);
}

/* A stop: what the kernels counted up to it is handed over before the
 * thread ends, as drained samples: each ring's, then each source's last.
 * Bounded: a ring's worth at most (what a source gives beyond that is in
 * its last sample), no sleep, and a source backing off after an error is
 * not called. */
static void drain_final(struct gt_sampler *s)
{
    uint64_t now = gt_now_ns();
    size_t i;
    int n = 0;

    s->hold_wake = 1;
    for (i = 0; i < s->cfg.nsources && !abandoned(s); i++) {
        struct source_slot *ss = &s->src[i];
        if (!ss->timed || ss->ended || (ss->retry_at && now < ss->retry_at))
            continue;
        /* the ring, and before it what a change of period kept */
        if (drain_ring(s, i, now, ss->ring + 1, &n) < 0 || abandoned(s))
            continue;
        take_last(s, i, now, &n);
    }
    s->hold_wake = 0;
    if (n)
        publish_wake(s);
}

/* Half the smallest ring's time from the last drain, but samples wait a
 * refresh (DRAIN_LATENCY) at most, or a period where that is longer;
 * after a drain that found none, an eighth of a period. Sooner when a
 * reader is due (gt_sampler_wake_after); kept for that to cut short. */
#define DRAIN_LATENCY 250000000ull

static uint64_t drain_deadline(struct gt_sampler *s, int found)
{
    uint64_t half = 0, t;
    size_t i;

    for (i = 0; i < s->cfg.nsources; i++) {
        const struct source_slot *ss = &s->src[i];
        uint64_t h = ss->ring / 2 * ss->period, most;
        if (!ss->timed || ss->ended)
            continue;
        most = ss->period > DRAIN_LATENCY ? ss->period : DRAIN_LATENCY;
        h = h < ss->period ? ss->period : h > most ? most : h;
        if (!found)
            h = ss->period / 8 ? ss->period / 8 : 1;
        if (!half || h < half)
            half = h;
    }
    pthread_mutex_lock(&s->lock);
    t = s->last_drain + half;
    if (s->wake_at && s->wake_at < t)
        t = s->wake_at;
    /* A view asks again one refresh after it last asked: due then, the
     * thread need not be woken to learn it. */
    if (!s->wake_at && s->reader_every) {
        uint64_t next = s->reader_last + s->reader_every;
        while (next <= s->last_drain)
            next += s->reader_every;
        if (next < t)
            t = next;
    }
    /* A stop that came before the thread first read its wake count
     * would not cut this sleep short */
    if (s->stopping || s->finishing)
        t = 0;
    s->deadline = t;
    pthread_mutex_unlock(&s->lock);
    return t;
}

/* A kernel whose ring stays empty for four ring-times (at least 2 s)
 * does not sample as asked: the timer takes over. */
static int stalled(const struct gt_sampler *s, uint64_t now)
{
    size_t i;

    for (i = 0; i < s->cfg.nsources; i++) {
        const struct source_slot *ss = &s->src[i];
        uint64_t limit = 4 * (uint64_t)ss->ring * ss->period;
        if (limit < 2000000000ull)
            limit = 2000000000ull;
        if (ss->timed && !ss->ended && !ss->retry_at && now - ss->last_got > limit)
            return 1;
    }
    return 0;
}

/* A new interval is a new period for the kernel; what its ring held is
 * drained first. 0, or -1 when a source refused (then all go back to
 * the timer). */
static int change_period(struct gt_sampler *s, uint64_t interval, uint64_t now)
{
    size_t i;

    drain_sources(s, now);
    for (i = 0; i < s->cfg.nsources; i++) {
        struct gt_source *src = s->cfg.sources[i];
        struct source_slot *ss = &s->src[i];
        uint64_t p = interval;
        struct gt_diag d;

        if (!ss->timed)
            continue;
        gt_diag_clear(&d);
        if (src->type->periodic(src, &p, &d) < 0) {
            stop_periodic(s, d.msg);
            return -1;
        }
        ss->period = p;
        ss->prev_end = 0;
    }
    return 0;
}

/* The thread while a kernel times the samples: it sleeps until a ring is
 * half full or a reader is due, then drains. Returns 1 when the sampler
 * stops (after drain_final, unless batch rows stopped it) or every source
 * has ended, 0 to go on with the timer. */
int gt_smp_drain_run(struct gt_sampler *s)
{
    unsigned seq = atomic_load(&s->wake_seq);
    uint64_t interval = s->interval_ns, now;
    int found = 1;

    for (;;) {
        uint64_t wait = drain_deadline(s, found), want;
        int woken;

        woken = gt_smp_sleep_until(s, wait, seq) == WOKEN;
        seq = atomic_load(&s->wake_seq);
        now = gt_now_ns();
        pthread_mutex_lock(&s->lock);
        if (s->stopping || s->finishing) {
            int last = s->finishing || !s->cfg.each_drained;
            pthread_mutex_unlock(&s->lock);
            if (last)
                drain_final(s);
            return 1;
        }
        want = s->interval_ns;
        pthread_mutex_unlock(&s->lock);
        if (want != interval) {
            interval = want;
            if (change_period(s, interval, now) < 0)
                return 0;
            continue;
        }
        if (woken)
            continue;     /* a reader due sooner: sleep again until then */
        s->last_drain = now;
        found = drain_sources(s, now);
        if (found < 0)
            return 1;
        gt_smp_update_state(s);
        if (stalled(s, now)) {
            stop_periodic(s, "its kernel left the ring empty for four ring-times (2 s at "
                             "least) in periodic mode");
            return 0;
        }
    }
}


