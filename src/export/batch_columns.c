/* Which columns a batch run writes (metrics the options select, with
 * unique titles and keys) and their values and units as every format
 * writes them. */
#include "batch_writer.h"
#include "gputop/export.h"
#include "gputop/text.h"

#include <math.h>
#include <stdint.h>
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

/* ---- names in a hash table, so that start-up stays linear in the
 * metrics (issue 44: 8k metrics took a second of strcmp) ---- */

/* Entries are indices into the caller's array (which may move as it
 * grows), their names looked up through name_of. */
typedef const char *(*name_of_fn)(const void *ctx, size_t entry);

/* Each slot keeps its name's hash, so a probe reads the name (far away,
 * in a column) only when the hashes match. */
struct slot {
    size_t entry;            /* entry + 1; 0 for an empty slot */
    size_t hash;
};

struct names {
    struct slot *slot;
    size_t cap, count;       /* cap a power of two, at least twice count */
};

static size_t hash_name(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;          /* FNV-1a */

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 32));
}

/* The slot holding name (of hash hash), or the empty one where it would go. */
static struct slot *names_find(const struct names *h, const char *name, size_t hash,
                               name_of_fn name_of, const void *ctx)
{
    size_t i = hash & (h->cap - 1);

    while (h->slot[i].entry && (h->slot[i].hash != hash ||
                                strcmp(name_of(ctx, h->slot[i].entry - 1), name) != 0))
        i = (i + 1) & (h->cap - 1);
    return &h->slot[i];
}

/* The entry named name, or -1. */
static long names_get(const struct names *h, const char *name, name_of_fn name_of,
                      const void *ctx)
{
    return h->cap ? (long)names_find(h, name, hash_name(name), name_of, ctx)->entry - 1 : -1;
}

static int names_add(struct names *h, size_t entry, name_of_fn name_of, const void *ctx)
{
    const char *name = name_of(ctx, entry);
    struct slot *at;

    if ((h->count + 1) * 2 > h->cap) {
        struct names bigger = { NULL, h->cap ? h->cap * 2 : 64, 0 };
        size_t i;
        if (!(bigger.slot = calloc(bigger.cap, sizeof(*bigger.slot))))
            return -1;
        /* names are unique here: each goes to the first empty slot */
        for (i = 0; i < h->cap; i++) {
            size_t j = h->slot[i].hash & (bigger.cap - 1);
            if (!h->slot[i].entry)
                continue;
            while (bigger.slot[j].entry)
                j = (j + 1) & (bigger.cap - 1);
            bigger.slot[j] = h->slot[i];
        }
        bigger.count = h->count;
        free(h->slot);
        *h = bigger;
    }
    at = names_find(h, name, hash_name(name), name_of, ctx);
    h->count += !at->entry;
    at->entry = entry + 1;
    at->hash = hash_name(name);
    return 0;
}

/* What the columns are built in. */
struct build {
    const struct gt_layout *l;
    struct gt_column *cols;
    size_t n, cap;
    unsigned char *shared;   /* per metric: another metric has its title */
    struct names keys, titles;
    size_t off;              /* the field names_of reads: key or title */
};

static const char *metric_title(const void *ctx, size_t i)
{
    return ((const struct gt_layout *)ctx)->metrics[i].title;
}

static const char *column_field(const void *ctx, size_t i)
{
    const struct build *b = ctx;

    return (const char *)&b->cols[i] + b->off;
}

/* A title another metric of the layout also has ("Fragment shading rate",
 * 4.7.1 and 6.3.4 in the Mali-G720 guide) gets the guide reference, or the
 * section without one. Marked over the whole layout, so a column's name
 * does not depend on what --metrics selects. */
static int mark_shared_titles(struct build *b)
{
    struct names seen = { NULL, 0, 0 };
    size_t i;
    long j;

    b->shared = calloc(b->l->nmetrics + 1, 1);
    if (!b->shared)
        return -1;
    for (i = 0; i < b->l->nmetrics; i++) {
        if ((j = names_get(&seen, b->l->metrics[i].title, metric_title, b->l)) >= 0) {
            b->shared[i] = b->shared[j] = 1;
        } else if (names_add(&seen, i, metric_title, b->l) < 0) {
            free(seen.slot);
            return -1;
        }
    }
    free(seen.slot);
    return 0;
}

/* The column's name: the title, made unique, then [instance] for one
 * instance of a per-instance metric. */
static void column_title(char *buf, size_t len, const struct build *b, size_t metric,
                         int instance, const char *inst_name)
{
    const struct gt_layout *l = b->l;
    const struct gt_metric_def *m = &l->metrics[metric];
    int n;

    if (!b->shared[metric])
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

/* Appends #2, #3, ... (fmt) while an earlier column has the same text in the
 * field at off (key or title): layouts of one's own may repeat a title
 * within a section. The column (the last, b->n) then takes its name. */
static int make_unique(struct build *b, struct names *taken, size_t off, size_t size,
                       const char *fmt)
{
    char *name = (char *)&b->cols[b->n] + off;
    size_t base = strlen(name);
    int dup = 1;

    b->off = off;
    while (names_get(taken, name, column_field, b) >= 0 && dup < 1000)
        snprintf(name + base, size - base, fmt, ++dup);
    return names_add(taken, b->n, column_field, b);
}

/* inst_name: a --per-core column's instance ("shader core 4"), else NULL. */
static int add_column(struct build *b, size_t metric, int instance, const char *inst_name,
                      int pop)
{
    struct gt_column *c;

    if (b->n == b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 64;
        c = realloc(b->cols, ncap * sizeof(*c));
        if (!c)
            return -1;
        b->cols = c;
        b->cap = ncap;
    }
    c = &b->cols[b->n];
    c->metric = metric;
    c->instance = instance;
    c->per_core = inst_name != NULL;
    c->pop = pop;
    column_title(c->title, sizeof(c->title), b, metric, instance, inst_name);
    /* Room is left for the suffix: titles are far shorter. */
    if (pop)
        strncat(c->title, " % of peak", sizeof(c->title) - strlen(c->title) - 6);
    /* Room for "#NNN" is kept at the end. */
    c->title[sizeof(c->title) - 5] = '\0';
    if (make_unique(b, &b->titles, offsetof(struct gt_column, title), sizeof(c->title), "#%d") < 0)
        return -1;
    /* One scheme for every key: the unique title in snake case, as the
     * Prometheus names ("cpu_activity_1", "read_bytes_l2_slice_1"). */
    gt_snake_case(c->key, sizeof(c->key) - 5, c->title);
    if (make_unique(b, &b->keys, offsetof(struct gt_column, key), sizeof(c->key), "_%d") < 0)
        return -1;
    b->n++;
    return 0;
}

/* --per-core: after the metric's own column, one per instance, named as
 * the dashboard names its rows ("Title [shader core 4]"). */
static int add_per_core(struct build *b, const struct gt_engine *e, size_t metric)
{
    uint32_t k, ninst = gt_engine_unavailable(e, metric) ? 1 : gt_engine_instances(e, metric);
    char name[48];

    for (k = 0; ninst > 1 && k < ninst; k++) {
        gt_catalog_instance_name(gt_engine_instance_block(e, metric),
                                 gt_engine_instance_number(e, metric, k), 0, name, sizeof(name));
        if (add_column(b, metric, (int)k, name, 0) < 0)
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

static int add_metric(struct build *b, const struct gt_engine *e,
                      const struct gt_batch_opts *o, size_t i)
{
    const struct gt_metric_def *m = &b->l->metrics[i];
    uint32_t k;

    /* A per-instance metric whose source is absent (--no-cpu) keeps
     * its first instance's name, so that columns do not change with
     * the sources present; it has no data. */
    if (gt_engine_instanced(e, i) && gt_engine_unavailable(e, i))
        return add_column(b, i, 0, NULL, 0);
    if (!gt_engine_instanced(e, i) || gt_engine_unavailable(e, i)) {
        if (add_column(b, i, -1, NULL, 0) < 0 ||
            (pop_column(m) && add_column(b, i, -1, NULL, 1) < 0) ||
            (o->per_core && add_per_core(b, e, i) < 0))
            return -1;
        return 0;
    }
    for (k = 0; k < gt_engine_instances(e, i); k++)
        if (add_column(b, i, (int)k, NULL, 0) < 0)
            return -1;
    return 0;
}

long gt_batch_columns(const struct gt_layout *l, const struct gt_engine *e,
                      const struct gt_batch_opts *o, struct gt_column **cols,
                      struct gt_diag *d)
{
    struct build b;
    size_t i;
    long sec = o->section ? gt_layout_find_section(l, o->section, NULL) : -1, res = 0;

    *cols = NULL;
    if (o->section && sec < 0) {
        gt_diag_set(d, "no section '%s' in layout %s", o->section, l->name);
        return 0;
    }
    memset(&b, 0, sizeof(b));
    b.l = l;
    if (mark_shared_titles(&b) < 0)
        res = -1;
    for (i = 0; res == 0 && i < l->nmetrics; i++) {
        const struct gt_metric_def *m = &l->metrics[i];
        if ((o->section && m->section != sec) || !gt_layout_metric_matches(m, o->pattern))
            continue;
        if (add_metric(&b, e, o, i) < 0)
            res = -1;
    }
    free(b.shared);
    free(b.keys.slot);
    free(b.titles.slot);
    *cols = b.cols;
    if (res < 0)
        return -1;
    if (b.n == 0)
        gt_diag_set(d, "no metric matches '%s'%s%s", o->pattern ? o->pattern : "*",
                    o->section ? " in section " : "", o->section ? o->section : "");
    return (long)b.n;
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

/* A snapshot of this run ends at most a few intervals before it is
 * written; times a minute or more away are another clock's (a recording's,
 * a virtual step's), which the wall clock cannot be put beside. */
int gt_batch_wall_time(const struct writer *w, const struct gt_snapshot *s, char *buf,
                       size_t len)
{
    long long now = (long long)gt_now_ns(), end = (long long)s->t_end_ns, wall;

    buf[0] = '\0';
    if (end > now + 60000000000ll || end < now - 60000000000ll)
        return 0;
    wall = end + w->wall_off_ns;
    if (wall < 0)
        return 0;
    snprintf(buf, len, "%lld.%06lld", wall / 1000000000ll, wall % 1000000000ll / 1000);
    return 1;
}
