/* The fake kbase kernel's clock and the periodic modes of both readers:
 * kinstr_prfcnt's periodic MODE and the legacy reader's SET_INTERVAL fill
 * the ring at every tick of the period the fake's clock passes; on the
 * real clock a worker thread of the fake's own takes the ticks. */
#include "fakes/fake_kbase_int.h"

#include <pthread.h>
#include <time.h>

/* mali_kbase_vinstr.c and mali_kbase_kinstr_prfcnt.c: DUMP_INTERVAL_MIN_NS,
 * 100 us; a shorter period is raised to it. */
#define DUMP_INTERVAL_MIN_NS 100000ull

uint64_t fkp_period_of(uint64_t requested)
{
    return requested < DUMP_INTERVAL_MIN_NS ? DUMP_INTERVAL_MIN_NS : requested;
}

/* Both files' next_dump_time_ns: the next whole multiple of the period. */
uint64_t fkp_first_tick(uint64_t now, uint64_t period)
{
    return now - now % period + period;
}

static uint64_t raw_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One tick of a periodic reader, at the fake's current time. */
void fkp_periodic_tick(struct fake_kbase *fk, struct file *r)
{
    if (r->kind == F_LEGACY) {
        /* kbasep_vinstr_client_dump: a full ring returns -EBUSY before the
         * virtualizer is dumped, so the counts stay accumulated and the
         * next dump that finds room holds them, its interval stretched
         * back to the previous dump's time */
        if (fkp_legacy_free_buffers(r) <= 0) {
            r->owed++;
            fk->st.skipped++;
            return;
        }
        fkp_legacy_dump(fk, r, r->owed + 1, 1);
        r->owed = 0;
        fk->st.periodic++;
        return;
    }
    /* kbasep_kinstr_prfcnt_client_dump: one buffer stays reserved for the
     * implicit STOP sample; a tick finding the other 31 full sets
     * SAMPLE_FLAG_OVERFLOW for the next sample written, and the counts
     * stay accumulated meanwhile */
    if (r->pending >= RING - 1) {
        r->owed++;
        r->sample_flags |= 1u;
        fk->st.skipped++;
        return;
    }
    fkp_kinstr_write(fk, r, r->owed + 1, r->sample_flags);
    r->owed = 0;
    r->sample_flags = 0;
    fk->st.periodic++;
}

static int ticking(const struct file *f)
{
    if (f->dead || !f->period || !f->next_tick)
        return 0;
    return f->kind == F_LEGACY || (f->kind == F_KINSTR && f->started && f->periodic);
}

/* The earliest tick a periodic reader has due; 0 when none has. */
static uint64_t next_due(const struct fake_kbase *fk)
{
    uint64_t due = 0;
    int i;

    for (i = 0; i < NFILES; i++) {
        const struct file *f = &fk->files[i];
        if (ticking(f) && (!due || f->next_tick < due))
            due = f->next_tick;
    }
    return due;
}

/* Moves the clock to t, each periodic reader's ticks on the way taken in
 * time order at their own times. */
void fkp_run_to(struct fake_kbase *fk, uint64_t t)
{
    for (;;) {
        struct file *first = NULL;
        int i;

        for (i = 0; i < NFILES; i++) {
            struct file *f = &fk->files[i];
            if (ticking(f) && f->next_tick <= t && (!first || f->next_tick < first->next_tick))
                first = f;
        }
        if (!first)
            break;
        if (first->next_tick > fk->now)
            fk->now = first->next_tick;
        first->next_tick += first->period;
        fkp_periodic_tick(fk, first);
    }
    if (t > fk->now)
        fk->now = t;
}

/* A seam call on the real clock moves it to the present, so that a
 * manual dump is dated right. The periodic ticks are the worker's, as in
 * kbase they are a kernel worker's, not the caller's: the clock stops
 * short of a tick the worker has still to take, so that the samples'
 * times keep their order. Without the worker (it failed to start) the
 * caller takes them, as the fake did before it had one. */
void fkp_catch_up(struct fake_kbase *fk)
{
    uint64_t t, due;

    if (!fk->real_clock)
        return;
    t = raw_now();
    if (!fk->worker_on) {
        fkp_run_to(fk, t);
        return;
    }
    due = next_due(fk);
    if (due && t >= due)
        t = due - 1;
    if (t > fk->now)
        fk->now = t;
}

/* ---- the worker ----
 * kbase times periodic dumps with an hrtimer whose handler queues a work
 * item, and the dump runs in a kernel worker thread under the context's
 * lock: mali_kbase_vinstr.c, kbasep_vinstr_dump_timer queueing
 * kbasep_vinstr_dump_worker; mali_kbase_kinstr_prfcnt.c,
 * kbasep_kinstr_prfcnt_dump_timer queueing
 * kbasep_kinstr_prfcnt_dump_worker. The worker dumps every client whose
 * next dump time has passed, then rearms the timer for the earliest next
 * one. Here one thread sleeps to the earliest tick due and takes it under
 * the fake's lock. Where kbase's worker, run late, dumps a client once
 * for all the periods it missed, the fake takes each missed tick at its
 * own time, so that every sample holds one period's counts. */

/* Sleeps on the worker's condition until the raw-clock time due, or until
 * woken. A condition variable waits on CLOCK_MONOTONIC only, so the
 * deadline is carried over from the raw clock; the two may drift by NTP's
 * slew, and a wake-up a little early only loops once more. */
static void sleep_until(struct fake_kbase *fk, uint64_t due)
{
    struct timespec ts;
    uint64_t now = raw_now(), mono;

    if (due <= now)
        return;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    mono = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + (due - now);
    ts.tv_sec = (time_t)(mono / 1000000000ull);
    ts.tv_nsec = (long)(mono % 1000000000ull);
    pthread_cond_timedwait(&fk->wake, &fk->lock, &ts);
}

static void *worker_main(void *arg)
{
    struct fake_kbase *fk = arg;

    fkp_lock(fk);
    while (!fk->worker_stop) {
        uint64_t due;

        fkp_run_to(fk, raw_now());
        due = next_due(fk);
        if (due)
            sleep_until(fk, due);
        else
            pthread_cond_wait(&fk->wake, &fk->lock);
    }
    fkp_unlock(fk);
    return NULL;
}

void fkp_schedule_changed(struct fake_kbase *fk)
{
    if (fk->worker_on)
        pthread_cond_signal(&fk->wake);
}

void fkp_stop_worker(struct fake_kbase *fk)
{
    int on;

    fkp_lock(fk);
    on = fk->worker_on;
    fk->worker_stop = 1;
    pthread_cond_signal(&fk->wake);
    fkp_unlock(fk);
    if (on)
        pthread_join(fk->worker, NULL);
}

void fk_real_clock(struct fake_kbase *fk)
{
    fkp_lock(fk);
    fk->real_clock = 1;
    fk->now = raw_now();
    if (!fk->worker_on && pthread_create(&fk->worker, NULL, worker_main, fk) == 0) {
        fk->worker_on = 1;
        /* named before it runs: benchmarks tell the fake kernel's work
         * from gputop's by it */
        pthread_setname_np(fk->worker, "fk-kworker");
    }
    fkp_unlock(fk);
}

int fk_clock_is_real(const struct fake_kbase *fk)
{
    return fk->real_clock;
}
