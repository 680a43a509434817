/* Helpers shared by the amdgpu source tests (amd_harness.h). */
#include <criterion/criterion.h>
#include <string.h>

#include "fakes/source_rig.h"

#include "fakes/amd_harness.h"


struct fake_amdgpu *am_fake_with(struct fa_config c)
{
    struct fake_amdgpu *fa;

    if (!c.power)
        c.power = "active";
    c.manual_clock = 1;
    fa = fa_new(&c);
    cr_assert_not_null(fa);
    return fa;
}

struct fake_amdgpu *am_fake(int root, enum fa_metrics m)
{
    struct fa_config c;

    memset(&c, 0, sizeof(c));
    c.root = root;
    c.metrics = m;
    return am_fake_with(c);
}

void am_start(struct am *t, struct fake_amdgpu *fa, const char *spec)
{
    memset(t, 0, sizeof(*t));
    t->fa = fa;
    t->period_ns = 1000000;
    t->s = gt_source_open(spec, fa_sys(fa), &t->d);
    cr_assert_not_null(t->s, "%s: %s", spec, t->d.msg);
    t->l = gt_layout_load(t->s->info.layout, &t->d);
    cr_assert_not_null(t->l, "%s", t->d.msg);
    rig_bind(t->s, t->l, &t->e, &t->snap, &t->d);
}

int am_sample_after(struct am *t, uint64_t ns)
{
    fa_advance(t->fa, ns);
    return rig_sample(t->s, &t->snap, &t->d);
}

int am_sample(struct am *t)
{
    return am_sample_after(t, t->period_ns);
}

double am_metric(struct am *t, const char *title)
{
    int m = gt_layout_find_metric(t->l, title);

    cr_assert_geq(m, 0, "no metric %s", title);
    gt_engine_eval(t->e, &t->snap, t->out);
    return t->out[m];
}

const char *am_unavailable(struct am *t, const char *title)
{
    int m = gt_layout_find_metric(t->l, title);

    cr_assert_geq(m, 0, "no metric %s", title);
    return gt_engine_unavailable(t->e, (size_t)m);
}

uint64_t am_counter(struct am *t, const char *name, uint32_t inst)
{
    return rig_counter(t->s, &t->snap, name, inst);
}

double am_constant(struct am *t, const char *name)
{
    int k = gt_catalog_find(&t->s->catalog, name);

    cr_assert_geq(k, 0, "no constant %s", name);
    return t->s->catalog.counters[k].value;
}

void am_stop(struct am *t)
{
    const struct fa_stats *st;

    gt_snapshot_free(&t->snap);
    gt_engine_free(t->e);
    gt_layout_free(t->l);
    gt_source_close(t->s);
    st = fa_stats(t->fa);
    cr_expect_eq(st->open_fds, 0, "file descriptors left open: %d", st->open_fds);
    cr_expect_eq(st->woken, 0, "a sleeping GPU was touched %d times", st->woken);
    cr_expect_eq(st->protocol_errors, 0, "protocol errors: %s", st->last_error);
    cr_expect_eq(st->regs_not_restored, 0, "%d of %d registers not restored",
                 st->regs_not_restored, st->regs_written);
    cr_expect_eq(st->gfxoff_refs, 0, "GFXOFF still disallowed (%d requests)", st->gfxoff_refs);
    cr_expect_eq(st->pstate, 0, "stable pstate still held");
    fa_free(t->fa);
}

const char *am_open_error(struct fake_amdgpu *fa, const char *spec, struct gt_diag *d)
{
    struct gt_source *s = gt_source_open(spec, fa_sys(fa), d);

    cr_assert_null(s, "%s opened, but should have failed", spec);
    return d->msg;
}

