/* The fake kbase kernel's clock and the periodic modes of both readers:
 * kinstr_prfcnt's periodic MODE and the legacy reader's SET_INTERVAL fill
 * the ring at every tick of the period the fake's clock passes. */
#include "fakes/fake_kbase_int.h"

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

void fkp_catch_up(struct fake_kbase *fk)
{
    if (fk->real_clock)
        fkp_run_to(fk, raw_now());
}

void fk_real_clock(struct fake_kbase *fk)
{
    fk->real_clock = 1;
    fk->now = raw_now();
}

int fk_clock_is_real(const struct fake_kbase *fk)
{
    return fk->real_clock;
}
