/* What lets the simulated Mali skip clearing: every interval of a
 * family's model writes the same value-table entries, whatever the scene
 * (so the table is not cleared between intervals), and the source writes
 * every slot it tells the sampler it fills (so the sampler does not clear
 * those before a round). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/source.h"
#include "../src/sources/mali/sim_model.h"

#define STEP_NS 100000000ull
#define NSTEPS  200           /* 20 s: scene=cycle fades into three scenes */

static const uint64_t poison[2] = { 0x5A5A5A5A5A5A5A5Aull, 0xA5A5A5A5A5A5A5A5ull };

/* Which entries one interval writes: an entry written reads back other
 * than the poison it held (two poisons, so a value that equals one is
 * still seen). */
static void written(struct sim *m, unsigned char *out)
{
    size_t i, j;
    int p;

    memset(out, 0, NVALUES * SIM_MAX_INST);
    for (p = 0; p < 2; p++) {
        uint64_t rng = m->rng, own = m->own_ns;
        for (i = 0; i < NVALUES; i++)
            for (j = 0; j < SIM_MAX_INST; j++)
                m->v[i][j] = poison[p];
        sim_model_interval(m, STEP_NS);
        for (i = 0; i < NVALUES; i++)
            for (j = 0; j < SIM_MAX_INST; j++)
                out[i * SIM_MAX_INST + j] |= m->v[i][j] != poison[p];
        if (p == 0) {
            m->rng = rng;     /* the same interval again */
            m->own_ns = own;
        }
    }
    m->own_ns += STEP_NS;
}

static void check_family(const struct family *f, int scene)
{
    static struct sim m;
    static unsigned char first[NVALUES * SIM_MAX_INST], now[NVALUES * SIM_MAX_INST];
    size_t i;
    int n;

    memset(&m, 0, sizeof(m));
    m.fam = f;
    m.scene = scene;
    m.rng = 7;
    for (i = 0; i < SIM_MAX_INST; i++)
        m.core_skew[i] = m.slice_skew[i] = 0.99;
    written(&m, first);
    for (n = 1; n < NSTEPS; n++) {
        written(&m, now);
        for (i = 0; i < sizeof(now); i++)
            cr_assert_eq(now[i], first[i],
                         "%s scene %d interval %d: value %zu instance %zu written %s",
                         f->name, scene, n, i / SIM_MAX_INST, i % SIM_MAX_INST,
                         now[i] ? "now but not in the first" : "in the first but not now");
    }
}

Test(sim_model, every_interval_writes_the_same_values)
{
    size_t i;
    int scene;

    for (i = 0; i < sim_family_count(); i++) {
        for (scene = 0; scene <= SCENE_CYCLE; scene++)
            check_family(sim_family_at(i), scene);
        for (scene = SIM_VARIANT_FIRST; sim_variant(scene); scene++)
            check_family(sim_family_at(i), scene);
    }
}

/* Opens family's source, selects every every-th counter (0: none, as
 * when recording) and starts it. */
static struct gt_source *open_selected(const char *family, size_t every)
{
    char spec[128];
    struct gt_source *s;
    struct gt_diag d;
    unsigned char *used;
    size_t k;

    snprintf(spec, sizeof(spec), "sim:%s,seed=5,step=100000000,scene=cycle", family);
    s = gt_source_open(spec, gt_sys_real(), &d);
    cr_assert_not_null(s, "%s: %s", spec, d.msg);
    if (every) {
        used = calloc(s->catalog.ncounters + 1, 1);
        cr_assert_not_null(used);
        for (k = 0; k < s->catalog.ncounters; k += every)
            used[k] = 1;
        cr_assert_eq(s->type->select(s, used, &d), 0, "%s", d.msg);
        free(used);
    }
    cr_assert_eq(s->type->start(s, &d), 0, "%s", d.msg);
    return s;
}

/* Two sources of one seed sample the same values, one into arrays of one
 * garbage and one into another: a slot the source says it fills holds the
 * same in both, so it was written. */
static void check_fills(const char *family, size_t every)
{
    struct gt_source *s[2] = { open_selected(family, every), open_selected(family, every) };
    struct gt_snapshot snap[2];
    const struct gt_span *f;
    struct gt_diag d;
    size_t nf, i, k;
    uint32_t j;
    int n;

    f = s[0]->type->fills(s[0], &nf);
    cr_assert(f && nf > 0, "%s: no slots filled", family);
    for (i = 0; i < 2; i++)
        cr_assert_eq(gt_snapshot_init(&snap[i], s[i]->catalog.nslots), 0);
    for (n = 0; n < 40; n++) {
        for (i = 0; i < 2; i++) {
            memset(snap[i].deltas, i ? 0xA5 : 0x5A, snap[i].nslots * sizeof(uint64_t));
            cr_assert_eq(s[i]->type->sample(s[i], &snap[i], &d), 0, "%s", d.msg);
        }
        for (k = 0; k < nf; k++)
            for (j = f[k].first; j < f[k].first + f[k].count; j++)
                cr_assert_eq(snap[0].deltas[j], snap[1].deltas[j],
                             "%s (every %zu): slot %u, filled, was not written", family,
                             every, j);
    }
    for (i = 0; i < 2; i++) {
        gt_snapshot_free(&snap[i]);
        gt_source_close(s[i]);
    }
}

Test(sim_model, the_source_writes_every_slot_it_says_it_fills)
{
    size_t i;

    for (i = 0; i < sim_family_count(); i++) {
        check_fills(sim_family_at(i)->name, 0);
        check_fills(sim_family_at(i)->name, 1);
        check_fills(sim_family_at(i)->name, 3);
    }
}
