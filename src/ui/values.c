/* The dashboard's numbers: counts per sampling interval, or per second on
 * request; the engine computes the metrics, this only rescales them. */
#include "tui_internal.h"
#include <math.h>

int tui_is_rate_kind(enum gt_show s)
{
    return s == GT_SHOW_COUNT || s == GT_SHOW_BUCKET;
}

/* The screen refreshes slower than the sampler, so a snapshot may hold
 * several sampling intervals: counts are kept per interval (divided by
 * their number) so that values, sparklines and min / max compare like
 * with like, and shown per second on request. */
double tui_per_interval(const struct tui *t, size_t m, double v)
{
    if (!tui_is_rate_kind(t->l->metrics[m].show) || t->snap.nsamples <= 1)
        return v;
    return v / t->snap.nsamples;
}

double tui_shown_value(const struct tui *t, size_t m, double v)
{
    double secs = t->have_data ? gt_engine_seconds(&t->snap) : 0;

    if (!t->per_second || !tui_is_rate_kind(t->l->metrics[m].show))
        return v;
    if (t->snap.nsamples > 1)
        secs /= t->snap.nsamples;
    return secs > 0 ? v / secs : NAN;
}

double tui_metric_value(const struct tui *t, size_t m, int inst)
{
    double v;

    if (!t->have_data)
        return NAN;
    v = inst < 0 ? t->vals[m]
                 : tui_per_interval(t, m, gt_engine_eval_instance(t->cfg->engine, &t->snap, m,
                                                              (uint32_t)inst));
    return tui_shown_value(t, m, v);
}
