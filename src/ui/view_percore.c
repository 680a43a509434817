/* The per-instance rows under a metric: one per shader core (the 'c' key,
 * for the selected group) or per cluster (always, for instanced metrics). */
#include "tui_internal.h"

static int group_selected(const struct tui *t, size_t g)
{
    return t->selected >= 0 && (size_t)t->l->metrics[t->selected].group == g;
}

/* 1 when some metric of group g can be broken down by core. */
int tui_percore_available(const struct tui *t, size_t g)
{
    const struct gt_group_def *gd = &t->l->groups[g];
    size_t m;

    for (m = gd->first; m < gd->first + gd->count; m++)
        if (!gt_engine_instanced(t->cfg->engine, m) && gt_engine_instances(t->cfg->engine, m) > 1)
            return 1;
    return 0;
}

/* Rows for metric m of group g, when it has more than one instance. */
void tui_percore_add_rows(struct tui *t, size_t g, size_t m)
{
    int expand = gt_engine_instanced(t->cfg->engine, m) || (t->percore && group_selected(t, g));
    uint32_t i, n = expand ? gt_engine_instances(t->cfg->engine, m) : 0;

    for (i = 0; n > 1 && i < n; i++)
        tui_add_row(t, ROW_INSTANCE, m, (int)i);
}

void tui_percore_name(const struct tui *t, const struct row *r, struct gt_text *s)
{
    gt_text_add(s, gt_engine_instanced(t->cfg->engine, r->idx) ? "    cluster " : "    instance ");
    gt_text_uint(s, (unsigned)r->inst);
}
