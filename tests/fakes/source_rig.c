/* The source harnesses' shared steps (source_rig.h). */
#include "fakes/source_rig.h"

#include <criterion/criterion.h>
#include <string.h>

void rig_bind(struct gt_source *s, const struct gt_layout *l, struct gt_engine **e,
              struct gt_snapshot *snap, struct gt_diag *d)
{
    unsigned char used[4096];
    size_t k;

    *e = gt_engine_new(l, &s->catalog);
    cr_assert_not_null(*e);
    cr_assert_lt(s->catalog.ncounters, sizeof(used));
    for (k = 0; k < s->catalog.ncounters; k++)
        used[k] = (unsigned char)gt_engine_uses(*e, k);
    cr_assert_eq(s->type->select(s, used, d), 0, "%s", d->msg);
    cr_assert_eq(s->type->start(s, d), 0, "%s", d->msg);
    cr_assert_eq(gt_snapshot_init(snap, s->catalog.nslots), 0);
}

int rig_sample(struct gt_source *s, struct gt_snapshot *snap, struct gt_diag *d)
{
    gt_snapshot_zero(snap);
    gt_diag_clear(d);
    return s->type->sample(s, snap, d);
}

uint64_t rig_counter(const struct gt_source *s, const struct gt_snapshot *snap,
                     const char *name, uint32_t inst)
{
    int k = gt_catalog_find(&s->catalog, name);

    cr_assert_geq(k, 0, "no counter %s", name);
    cr_assert_lt(inst, s->catalog.counters[k].instances);
    return snap->deltas[s->catalog.counters[k].slot + inst];
}
