/* Kernel-timed sampling of the Mali source against the fake kernel's
 * periodic modes: every sample the kernel wrote comes out once, with its
 * own timestamps and exact counts, on both readers; a full ring (OVERFLOW,
 * or the legacy reader's stretched dump) is said and loses nothing; the
 * kernels whose periodic STOP races keep the timer; a period under 100 us
 * is raised; and the binary delivers every sample as a batch row. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/fake_kbase.h"
#include "fakes/mali_harness.h"
#include "gputop/source.h"

#define MS 1000000ull
#define ACTIVE "MaliGPUCyclesGPUActive"

/* Periodic at period on a started source; the sample STOP wrote while
 * kinstr was set up again (one dump's worth here) comes out first. */
static uint64_t go_periodic(struct kb *t, uint64_t period)
{
    uint64_t p = period;

    cr_assert_neq(t->s->info.periodic_min_ns, 0, "the source offers periodic mode");
    cr_assert_eq(t->s->type->periodic(t->s, &p, &t->d), 0, "%s", t->d.msg);
    return p;
}

static int next(struct kb *t)
{
    gt_diag_clear(&t->d);
    return t->s->type->sample(t->s, &t->snap, &t->d);
}

/* n samples on the grid t0 + k * period, each holding delta. */
static void expect_samples(struct kb *t, int n, uint64_t t0, uint64_t period, uint64_t delta)
{
    int i;

    for (i = 0; i < n; i++) {
        cr_assert_eq(next(t), 0, "sample %d: %s", i, t->d.msg);
        cr_assert_eq(t->snap.t_start_ns, t0 + (uint64_t)i * period, "sample %d start", i);
        cr_assert_eq(t->snap.t_end_ns, t0 + (uint64_t)(i + 1) * period, "sample %d end", i);
        cr_assert_eq(kb_counter(t, ACTIVE, 0), delta, "sample %d", i);
    }
    cr_assert_eq(next(t), GT_SAMPLE_EMPTY, "no more than the kernel wrote");
}

Test(kbase_periodic, kinstr_every_sample_with_its_timestamps)
{
    struct kb t;
    uint64_t t0;

    kb_start(&t, fake(FK_G720, FK_CSF, 1, 21), "mali");
    cr_assert_eq(t.s->info.periodic_ring, 31, "32 buffers, one kept for STOP");
    fk_set_counter(t.fk, FK_FE, 0, 4, 1000);
    t0 = fk_now(t.fk);
    cr_assert_eq(go_periodic(&t, 2 * MS), 2 * MS);
    cr_assert_eq(next(&t), 0, "the STOP sample of the manual reader: %s", t.d.msg);
    cr_assert_eq(kb_counter(&t, ACTIVE, 0), 1000);
    cr_assert_eq(t.snap.t_start_ns, t0);
    cr_assert_eq(next(&t), GT_SAMPLE_EMPTY);
    t0 = fk_now(t.fk);                           /* 1000 s: on the 2 ms grid */
    fk_advance(t.fk, 20 * MS);
    expect_samples(&t, 10, t0, 2 * MS, 1000);
    fk_advance(t.fk, 4 * MS);
    expect_samples(&t, 2, t0 + 20 * MS, 2 * MS, 1000);
    kb_stop(&t);
}

Test(kbase_periodic, legacy_every_sample_with_its_timestamps)
{
    struct kb t;
    uint64_t t0;

    kb_start(&t, fake(FK_T830, FK_JM, 11, 20), "mali");
    cr_assert_eq(t.s->info.periodic_ring, 32);
    fk_set_counter(t.fk, FK_FE, 0, 6, 777);
    cr_assert_eq(go_periodic(&t, 5 * MS), 5 * MS);
    cr_assert_eq(next(&t), GT_SAMPLE_EMPTY, "SET_INTERVAL alone dumps nothing");
    t0 = fk_now(t.fk) - fk_now(t.fk) % (5 * MS);
    fk_advance(t.fk, 5 * MS - fk_now(t.fk) % (5 * MS) + 30 * MS);
    cr_assert_eq(next(&t), 0, "%s", t.d.msg);
    cr_assert_eq(t.snap.t_end_ns, t0 + 5 * MS, "the first tick");
    cr_assert_eq(kb_counter(&t, ACTIVE, 0), 777);
    expect_samples(&t, 6, t0 + 5 * MS, 5 * MS, 777);
    kb_stop(&t);
}

Test(kbase_periodic, kinstr_full_ring_overflow_is_said_and_loses_nothing)
{
    struct kb t;
    uint64_t t0;
    int i;

    kb_start(&t, fake(FK_G720, FK_CSF, 1, 24), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 4, 10);
    go_periodic(&t, 1 * MS);
    cr_assert_eq(next(&t), 0);
    t0 = fk_now(t.fk);
    fk_advance(t.fk, 40 * MS);                   /* 31 fit, 9 ticks find it full */
    for (i = 0; i < 31; i++) {
        cr_assert_eq(next(&t), 0, "sample %d: %s", i, t.d.msg);
        cr_assert_eq(kb_counter(&t, ACTIVE, 0), 10);
    }
    cr_assert_eq(next(&t), GT_SAMPLE_EMPTY);
    fk_advance(t.fk, 1 * MS);
    cr_assert_eq(next(&t), 2, "said");
    HAS(t.d.msg, "OVERFLOW 1 so far");
    HAS(t.d.msg, "holds 10 periods");
    cr_assert_eq(kb_counter(&t, ACTIVE, 0), 100, "ten periods' counts");
    cr_assert_eq(t.snap.t_start_ns, t0 + 31 * MS);
    cr_assert_eq(t.snap.t_end_ns, t0 + 41 * MS);
    fk_advance(t.fk, 1 * MS);
    cr_assert_eq(next(&t), 0);
    cr_assert_eq(kb_counter(&t, ACTIVE, 0), 10);
    kb_stop(&t);
}

Test(kbase_periodic, legacy_full_ring_is_said_and_loses_nothing)
{
    struct kb t;
    int i;

    kb_start(&t, fake(FK_T830, FK_JM, 11, 20), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 6, 3);
    go_periodic(&t, 1 * MS);
    fk_advance(t.fk, 40 * MS);                   /* 32 dumps fit, 8 ticks skipped */
    for (i = 0; i < 32; i++)
        cr_assert_eq(next(&t), 0, "dump %d: %s", i, t.d.msg);
    fk_advance(t.fk, 1 * MS);
    cr_assert_eq(next(&t), 2);
    HAS(t.d.msg, "ring was full");
    HAS(t.d.msg, "holds 9 periods");
    cr_assert_eq(kb_counter(&t, ACTIVE, 0), 27, "nine periods' counts");
    cr_assert_eq(gt_snapshot_ns(&t.snap), 9 * MS);
    kb_stop(&t);
}

Test(kbase_periodic, racy_periodic_stop_kernels_keep_the_timer)
{
    struct kb t;
    uint64_t p = 10 * MS;

    /* CSF 1.10 .. 1.16: STOP in periodic mode races the periodic dump and
     * gives an empty sample flagged ERROR (fake_kbase_periodic tests it) */
    kb_start(&t, fake(FK_G715, FK_CSF, 1, 12), "mali");
    cr_assert_eq(t.s->info.periodic_min_ns, 0, "no periodic mode offered");
    HAS(t.s->info.detail, "timer-sampled");
    HAS(t.s->info.detail, "periodic STOP races");
    cr_assert_eq(t.s->type->periodic(t.s, &p, &t.d), -1);
    HAS(t.d.msg, "races");
    fk_set_counter(t.fk, FK_FE, 0, 4, 4321);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_eq(kb_counter(&t, ACTIVE, 0), 4321, "exact on the timer");
    cr_assert_eq(fk_stats(t.fk)->periodic, 0);
    kb_stop(&t);
}

Test(kbase_periodic, a_new_period_keeps_the_stop_sample)
{
    struct kb t;
    int i;

    kb_start(&t, fake(FK_G720, FK_CSF, 1, 24), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 4, 50);
    go_periodic(&t, 1 * MS);
    cr_assert_eq(next(&t), 0);
    fk_advance(t.fk, 3 * MS + MS / 2);
    for (i = 0; i < 3; i++) {
        cr_assert_eq(next(&t), 0, "periodic sample %d before the change: %s", i, t.d.msg);
        cr_assert_eq(kb_counter(&t, ACTIVE, 0), 50);
    }
    /* as the sampler does: drained, then the new period */
    cr_assert_eq(go_periodic(&t, 2 * MS), 2 * MS);
    cr_assert_eq(next(&t), 0, "the STOP sample: %s", t.d.msg);
    cr_assert_eq(kb_counter(&t, ACTIVE, 0), 50);
    cr_assert_eq(gt_snapshot_ns(&t.snap), MS / 2, "from the last tick to STOP");
    cr_assert_eq(next(&t), GT_SAMPLE_EMPTY);
    cr_assert_eq(fk_stats(t.fk)->period, 2 * MS);
    kb_stop(&t);
}

Test(kbase_periodic, a_period_under_100us_is_raised)
{
    struct kb t;
    uint64_t t0;

    kb_start(&t, fake(FK_G720, FK_CSF, 1, 24), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 4, 6);
    cr_assert_eq(go_periodic(&t, 30000), 100000, "the period the kernel uses");
    cr_assert_eq(fk_stats(t.fk)->period, 100000);
    cr_assert_eq(next(&t), 0);
    t0 = fk_now(t.fk);
    fk_advance(t.fk, 500000);
    expect_samples(&t, 5, t0, 100000, 6);
    kb_stop(&t);

    kb_start(&t, fake(FK_T830, FK_JM, 11, 20), "mali");
    cr_assert_eq(go_periodic(&t, 1000), 100000);
    cr_assert_eq(fk_stats(t.fk)->period, 100000, "SET_INTERVAL raised it too");
    kb_stop(&t);
}

/* ---- the binary: one batch row for each sample the kernel timed ---- */

static void every_row_exact(const char *kernel)
{
    char args[256], *out, *line, *save = NULL;
    int status, rows = 0, bad = 0;

    snprintf(args, sizeof(args), "%s real-clock 0:0:4=700 0:0:6=700 -- -b -f csv -n 40 -i 5 "
                                 "--no-cpu --metrics 'GPU active cycles'", kernel);
    out = run(args, &status);
    cr_assert_eq(status, 0, "%s", out);
    for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        double t, dt, v;
        char *a = strchr(line, ','), *b = a ? strchr(a + 1, ',') : NULL,
             *c = b ? strchr(b + 1, ',') : NULL;
        /* time_s, interval_s, time_unix (the wall clock), the value */
        if (!c || sscanf(line, "%lf,%lf,", &t, &dt) != 2 || sscanf(c + 1, "%lf", &v) != 1)
            continue;
        rows++;
        /* the first intervals run from the start to the first tick (kinstr:
         * and the manual reader's STOP sample before it) */
        bad += v != 700 || (rows > 2 && dt != 0.005);
    }
    cr_assert_eq(rows, 40, "%s", out);
    cr_assert_eq(bad, 0, "every row one 5 ms period of 700 cycles");
    free(out);
}

Test(kbase_periodic, batch_rows_are_the_kernels_samples_on_both_readers, .timeout = 60)
{
    every_row_exact("G720 csf 1.24");
    every_row_exact("T830 jm 11.20");
}

Test(kbase_periodic, a_refused_set_interval_keeps_the_timer_and_says_so, .timeout = 60)
{
    int status;
    char *out = run("T830 jm 11.20 real-clock deny=0x4004BE30 0:0:6=700 -- -b -f csv -n 3 "
                    "-i 20 --no-cpu --metrics 'GPU active cycles'", &status);

    cr_assert_eq(status, 0, "%s", out);
    HAS(out, "refused SET_INTERVAL");
    HAS(out, "sampled on gputop's timer instead");
    HAS(out, ",700,");
    free(out);
}
