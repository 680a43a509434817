/* The dashboard's numbers: counts per sampling interval, or per second on
 * request; the engine computes the metrics, this only rescales them. */
#include "tui_internal.h"
#include <math.h>

int tui_is_rate_kind(enum gt_show s)
{
    return s == GT_SHOW_COUNT || s == GT_SHOW_BUCKET;
}

/* The screen refreshes slower than the sampler, so a snapshot may hold
 * several sampling intervals: counts are shown per interval (divided by
 * their number), or per second on request. */
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

/* Seconds in one sampling interval of the snapshot on screen; 0 unknown. */
static double interval_seconds(const struct tui *t)
{
    double secs = t->have_data ? gt_engine_seconds(&t->snap) : 0;

    return t->snap.nsamples > 1 ? secs / t->snap.nsamples : secs;
}

/* History keeps counts as rates per second: the sampling period can
 * change ('+', '-'), and counts per interval of different lengths would
 * not compare (a 5 s interval holds 50 times a 100 ms one). */
static double history_entry(enum gt_show show, double secs, double per_interval)
{
    if (!tui_is_rate_kind(show))
        return per_interval;
    return secs > 0 ? per_interval / secs : NAN;
}

void tui_interval_values(struct tui *t)
{
    double secs = interval_seconds(t);
    size_t i;

    for (i = 0; i < t->l->nmetrics; i++) {
        t->vals[i] = tui_per_interval(t, i, t->vals[i]);
        t->hist_row[i] = history_entry(t->l->metrics[i].show, secs, t->vals[i]);
    }
}

/* A history value (min, max) in the unit shown: per second, or per
 * interval of the current length. */
double tui_history_shown(const struct tui *t, size_t m, double entry)
{
    if (!tui_is_rate_kind(t->l->metrics[m].show) || t->per_second)
        return entry;
    return entry * interval_seconds(t);
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

/* A header figure's value, when the layout names one the source can feed
 * and a snapshot has arrived. */
int tui_header_figure(const struct tui *t, enum gt_header_fig f, double *v)
{
    int m = t->l->header[f];

    if (m < 0 || !t->have_data || gt_engine_unavailable(t->cfg->engine, (size_t)m))
        return 0;
    *v = t->vals[m];
    return 1;
}

int tui_gpu_idle(const struct tui *t)
{
    double busy;

    if (!tui_header_figure(t, GT_HEADER_BUSY, &busy) || isnan(busy))
        if (!tui_header_figure(t, GT_HEADER_BUSY_MAX, &busy))
            return 0;
    return !isnan(busy) && busy < TUI_IDLE_BUSY;
}
