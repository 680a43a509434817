/* The device vanishing and returning under the real sampler thread (see
 * fault_sampler.h). */
#include "fakes/fault_sampler.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "gputop/sampler.h"

#define INTERVAL_NS 10000000ull
#define TAKE_NS 100000000ull
#define PATIENCE 300           /* takes of up to 100 ms each: 30 s at most */

struct e2e {
    struct gt_source *src;
    struct gt_sampler *s;
    struct gt_snapshot snap;
    uint32_t slot;
};

/* Takes snapshots until one carries counts of the counter and misses
 * nothing; 1 when one did. */
static int counts_again(struct e2e *t)
{
    for (int i = 0; i < PATIENCE; i++)
        if (gt_sampler_take(t->s, &t->snap, TAKE_NS) == 1 && !t->snap.missing &&
            t->snap.deltas[t->slot] > 0)
            return 1;
    return 0;
}

/* Polls the stats until the sampler retries with a message from src. */
static int retrying(struct e2e *t, struct gt_sampler_stats *st)
{
    for (int i = 0; i < PATIENCE; i++) {
        gt_sampler_take(t->s, &t->snap, TAKE_NS);
        gt_sampler_get_stats(t->s, st);
        if (st->state == GT_SAMPLER_RETRYING && st->errors > 0)
            return 1;
    }
    return 0;
}

/* The sampler on src alone, started, every INTERVAL_NS. */
static void start_on(struct e2e *t, struct gt_source **src)
{
    struct gt_sampler_config cfg;
    struct gt_diag d;
    static const uint32_t offset = 0;

    memset(t, 0, sizeof(*t));
    memset(&cfg, 0, sizeof(cfg));
    t->src = *src;
    cfg.sources = src;
    cfg.nsources = 1;
    cfg.slot_offset = &offset;
    cfg.nslots = (*src)->catalog.nslots;
    cfg.interval_ns = INTERVAL_NS;
    cr_assert_eq(gt_snapshot_init(&t->snap, cfg.nslots), 0);
    t->s = gt_sampler_new(&cfg);
    cr_assert_not_null(t->s);
    gt_diag_clear(&d);
    cr_assert_eq(gt_sampler_start(t->s, &d), 0, "%s", d.msg);
}

static void stop(struct e2e *t)
{
    gt_sampler_stop(t->s);
    gt_sampler_free(t->s);
    gt_snapshot_free(&t->snap);
}

void fault_sampler_first_error(struct gt_source *src, struct gt_sampler_stats *st)
{
    struct e2e t;

    start_on(&t, &src);
    cr_assert(retrying(&t, st), "%s: a failing sample, and the sampler does not say so",
              src->type->name);
    stop(&t);
}

void fault_sampler_vanish_and_return(struct gt_source *src, struct fault_sys *fs, int err,
                                     int counter, enum gt_err want)
{
    struct gt_sampler_stats st;
    struct e2e t;
    char name[64];

    start_on(&t, &src);
    t.slot = src->catalog.counters[counter].slot;
    cr_assert(counts_again(&t), "%s: never counted", src->type->name);

    fs_vanish(fs, err);
    cr_assert(retrying(&t, &st), "%s: gone, and the sampler does not say so", src->type->name);
    snprintf(name, sizeof(name), "%s: ", src->type->name);
    cr_assert(strncmp(st.last_error, name, strlen(name)) == 0 && strlen(st.last_error) >
              strlen(name) + 8, "the error names the source and says why: %s", st.last_error);
    cr_assert_eq(st.last_error_code, want, "%s gone: code %s, not %s (%s)", src->type->name,
                 gt_err_name(st.last_error_code), gt_err_name(want), st.last_error);
    cr_log_info("%s gone: %s", src->type->name, st.last_error);

    fs_vanish(fs, 0);
    cr_assert(counts_again(&t), "%s: back, but counting did not resume (%s)", src->type->name,
              st.last_error);
    gt_sampler_get_stats(t.s, &st);
    cr_assert_eq(st.state, GT_SAMPLER_RUNNING, "%s: still retrying: %s", src->type->name,
                 st.last_error);
    stop(&t);
}
