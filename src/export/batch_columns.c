/* Which columns a batch run writes (metrics the options select, with
 * unique titles and keys) and their values and units as every format
 * writes them. */
#include "batch_writer.h"
#include "gputop/export.h"
#include "gputop/format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A value as --precision asks: six significant digits by default, or
 * exactly ("" for no data, as an empty CSV field). */
void gt_batch_format_value(char *buf, size_t len, double v, int digits)
{
    if (isnan(v)) {
        buf[0] = '\0';
        return;
    }
    if (isinf(v)) {
        snprintf(buf, len, "%s", v > 0 ? "1e999" : "-1e999");
        return;
    }
    gt_fmt_sig(buf, len, v, digits == GT_DIGITS_FULL ? 0 : digits ? digits : GT_DIGITS_DEFAULT);
}

void gt_format_number(char *buf, size_t len, double v)
{
    gt_batch_format_value(buf, len, v, GT_DIGITS_FULL);
}

/* Times in seconds to the nanosecond the clocks give, without the binary
 * fraction's noise (0.100907383, not 0.10090738299999999). */
void gt_batch_format_seconds(char *buf, size_t len, double v)
{
    char *end;

    snprintf(buf, len, "%.9f", v);
    end = buf + strlen(buf);
    while (end[-1] == '0')
        *--end = '\0';
    if (end[-1] == '.')
        end[-1] = '\0';
}

/* A title another metric of the layout also has ("Fragment shading rate",
 * 4.7.1 and 6.3.4 in the Mali-G720 guide) gets the guide reference, or the
 * section without one. Checked against the whole layout, so a column's
 * name does not depend on what --metrics selects. */
static int title_shared(const struct gt_layout *l, size_t metric)
{
    size_t i;

    for (i = 0; i < l->nmetrics; i++)
        if (i != metric && strcmp(l->metrics[i].title, l->metrics[metric].title) == 0)
            return 1;
    return 0;
}

/* The column's name: the title, made unique, then [instance] for one
 * instance of a per-instance metric. */
static void column_title(char *buf, size_t len, const struct gt_layout *l, size_t metric,
                         int instance, const char *inst_name)
{
    const struct gt_metric_def *m = &l->metrics[metric];
    int n;

    if (!title_shared(l, metric))
        n = snprintf(buf, len, "%s", m->title);
    else
        n = snprintf(buf, len, "%s (%s)", m->title,
                     m->ref ? m->ref : l->sections[m->section].title);
    if (n < 0 || (size_t)n >= len)
        return;
    if (inst_name)
        snprintf(buf + n, len - (size_t)n, " [%s]", inst_name);
    else if (instance >= 0)
        snprintf(buf + n, len - (size_t)n, "[%d]", instance);
}

static int name_taken(const struct gt_column *cols, size_t n, size_t off, const char *name)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp((const char *)&cols[i] + off, name) == 0)
            return 1;
    return 0;
}

/* Appends #2, #3, ... (fmt) while an earlier column has the same text in the
 * field at off (key or title): layouts of one's own may repeat a title
 * within a section. */
static void make_unique(const struct gt_column *cols, size_t n, struct gt_column *c,
                        size_t off, size_t size, const char *fmt)
{
    char *name = (char *)c + off;
    size_t base = strlen(name);
    int dup = 1;

    while (name_taken(cols, n, off, name) && dup < 1000)
        snprintf(name + base, size - base, fmt, ++dup);
}

/* inst_name: a --per-core column's instance ("shader core 4"), else NULL. */
static int add_column(struct gt_column **cols, size_t *n, size_t *cap,
                      const struct gt_layout *l, size_t metric, int instance,
                      const char *inst_name, int pop)
{
    struct gt_column *c;

    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        c = realloc(*cols, ncap * sizeof(*c));
        if (!c)
            return -1;
        *cols = c;
        *cap = ncap;
    }
    c = &(*cols)[*n];
    c->metric = metric;
    c->instance = instance;
    c->per_core = inst_name != NULL;
    c->pop = pop;
    column_title(c->title, sizeof(c->title), l, metric, instance, inst_name);
    /* Room is left for the suffix: titles are far shorter. */
    if (pop)
        strncat(c->title, " % of peak", sizeof(c->title) - strlen(c->title) - 6);
    /* Room for "#NNN" is kept at the end. */
    c->title[sizeof(c->title) - 5] = '\0';
    make_unique(*cols, *n, c, offsetof(struct gt_column, title), sizeof(c->title), "#%d");
    /* One scheme for every key: the unique title in snake case, as the
     * Prometheus names ("cpu_activity_1", "read_bytes_l2_slice_1"). */
    gt_snake_case(c->key, sizeof(c->key) - 5, c->title);
    make_unique(*cols, *n, c, offsetof(struct gt_column, key), sizeof(c->key), "_%d");
    (*n)++;
    return 0;
}

/* --per-core: after the metric's own column, one per instance, named as
 * the dashboard names its rows ("Title [shader core 4]"). */
static int add_per_core(struct gt_column **cols, size_t *n, size_t *cap,
                        const struct gt_engine *e, const struct gt_layout *l, size_t metric)
{
    uint32_t k, ninst = gt_engine_unavailable(e, metric) ? 1 : gt_engine_instances(e, metric);
    char name[48];

    for (k = 0; ninst > 1 && k < ninst; k++) {
        gt_engine_instance_name(e, metric, k, 0, name, sizeof(name));
        if (add_column(cols, n, cap, l, metric, (int)k, name, 0) < 0)
            return -1;
    }
    return 0;
}

/* A metric with a peak gets a percent-of-peak column after its value,
 * unless it is a percentage whose peak is 100: that column would repeat
 * the value. */
static int pop_column(const struct gt_metric_def *m)
{
    if (!m->peak)
        return 0;
    return m->pop || m->show != GT_SHOW_PERCENT || strcmp(m->peak_text, "100") != 0;
}

long gt_batch_columns(const struct gt_layout *l, const struct gt_engine *e,
                      const struct gt_batch_opts *o, struct gt_column **cols,
                      struct gt_diag *d)
{
    size_t i, n = 0, cap = 0;
    long sec = o->section ? gt_layout_find_section(l, o->section, NULL) : -1;
    uint32_t k;

    *cols = NULL;
    if (o->section && sec < 0) {
        gt_diag_set(d, "no section '%s' in layout %s", o->section, l->name);
        return 0;
    }
    for (i = 0; i < l->nmetrics; i++) {
        const struct gt_metric_def *m = &l->metrics[i];
        if ((o->section && m->section != sec) || !gt_layout_metric_matches(m, o->pattern))
            continue;
        /* A per-instance metric whose source is absent (--no-cpu) keeps
         * its first instance's name, so that columns do not change with
         * the sources present; it has no data. */
        if (gt_engine_instanced(e, i) && gt_engine_unavailable(e, i)) {
            if (add_column(cols, &n, &cap, l, i, 0, NULL, 0) < 0)
                return -1;
            continue;
        }
        if (!gt_engine_instanced(e, i) || gt_engine_unavailable(e, i)) {
            if (add_column(cols, &n, &cap, l, i, -1, NULL, 0) < 0)
                return -1;
            if (pop_column(m) && add_column(cols, &n, &cap, l, i, -1, NULL, 1) < 0)
                return -1;
            if (o->per_core && add_per_core(cols, &n, &cap, e, l, i) < 0)
                return -1;
            continue;
        }
        for (k = 0; k < gt_engine_instances(e, i); k++)
            if (add_column(cols, &n, &cap, l, i, (int)k, NULL, 0) < 0)
                return -1;
    }
    if (n == 0)
        gt_diag_set(d, "no metric matches '%s'%s%s", o->pattern ? o->pattern : "*",
                    o->section ? " in section " : "", o->section ? o->section : "");
    return (long)n;
}

int gt_batch_is_rate_kind(enum gt_show s)
{
    return s == GT_SHOW_COUNT || s == GT_SHOW_BUCKET;
}

double gt_batch_column_value(const struct gt_column *c, const struct gt_engine *e,
                           const struct gt_layout *l, const struct gt_snapshot *s,
                           const double *vals, int per_second)
{
    double v = c->instance < 0 ? vals[c->metric]
                               : gt_engine_eval_instance(e, s, c->metric, (uint32_t)c->instance);
    double secs = gt_engine_seconds(s);

    if (c->pop)
        return gt_engine_pop(e, c->metric);

    if (per_second && gt_batch_is_rate_kind(l->metrics[c->metric].show))
        v = secs > 0 ? v / secs : NAN;
    return v;
}

const char *gt_batch_show_name(enum gt_show s)
{
    switch (s) {
    case GT_SHOW_PERCENT: return "percent";
    case GT_SHOW_COUNT: return "count";
    case GT_SHOW_VALUE: return "value";
    case GT_SHOW_BUCKET: return "bucket";
    }
    return "value";
}

void gt_batch_unit_of(char *buf, size_t len, const struct gt_metric_def *m, int per_second)
{
    if (!m)
        snprintf(buf, len, "%%");   /* a percent-of-peak column */
    else if (per_second && gt_batch_is_rate_kind(m->show))
        snprintf(buf, len, "%s/s", m->unit[0] ? m->unit : "count");
    else
        snprintf(buf, len, "%s", m->unit);
}

/* A column's metric for its unit; NULL for a percent-of-peak column. */
const struct gt_metric_def *gt_batch_unit_metric(const struct gt_layout *l,
                                               const struct gt_column *c)
{
    return c->pop ? NULL : &l->metrics[c->metric];
}

/* A record's time from the run's first sample, in seconds. */
double gt_batch_record_time(const struct writer *w, const struct gt_snapshot *s)
{
    return (double)(s->t_end_ns - w->t0) / 1e9;
}
