/* Runtime counter catalogues: the counters a source provides, and where
 * each one's per-instance deltas sit in a snapshot. */
#include "gputop/catalog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void gt_catalog_init(struct gt_catalog *c)
{
    memset(c, 0, sizeof(*c));
}

void gt_catalog_free(struct gt_catalog *c)
{
    size_t i;

    for (i = 0; i < c->ncounters; i++) {
        free(c->counters[i].name);
        free(c->counters[i].block);
        free(c->counters[i].hw_name);
    }
    for (i = 0; i < c->nabsent; i++) {
        free(c->absent[i].name);
        free(c->absent[i].reason);
    }
    free(c->absent);
    free(c->counters);
    free(c->hash);
    gt_catalog_init(c);
}

int gt_catalog_add_absent(struct gt_catalog *c, const char *name, const char *reason)
{
    struct gt_absent *a = realloc(c->absent, (c->nabsent + 1) * sizeof(*a));

    if (!a)
        return -1;
    c->absent = a;
    a[c->nabsent].name = strdup(name);
    a[c->nabsent].reason = strdup(reason);
    if (!a[c->nabsent].name || !a[c->nabsent].reason) {
        free(a[c->nabsent].name);
        free(a[c->nabsent].reason);
        return -1;
    }
    c->nabsent++;
    return 0;
}

const char *gt_catalog_absent_reason(const struct gt_catalog *c, const char *name)
{
    size_t i;

    for (i = 0; i < c->nabsent; i++)
        if (strcmp(c->absent[i].name, name) == 0)
            return c->absent[i].reason;
    return NULL;
}

/* The blocks' words are the catalogue's, as the block names are: the
 * dashboard's rows, the batch columns and the Prometheus labels all say
 * them the same way. */
const char *gt_catalog_block_noun(const char *block, int brief)
{
    static const char *const names[][3] = {
        { "shadercore", "shader core", "core" },
        { "memsys", "L2 slice", "slice" },
        { "cluster", "CPU cluster", "cluster" },
        { "cpu", "CPU", "cpu" },
    };
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(block, names[i][0]) == 0)
            return names[i][brief ? 2 : 1];
    return block[0] ? block : "instance";
}

const char *gt_catalog_instance_name(const char *block, uint32_t number, int brief, char *buf,
                                     size_t len)
{
    snprintf(buf, len, "%s %u", gt_catalog_block_noun(block, brief), (unsigned)number);
    return buf;
}

static size_t name_hash(const char *s)
{
    size_t h = 2166136261u;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

int gt_catalog_find(const struct gt_catalog *c, const char *name)
{
    size_t i;

    if (c->hash && c->nhashed == c->ncounters) {
        for (i = name_hash(name) & (c->hash_cap - 1); c->hash[i];
             i = (i + 1) & (c->hash_cap - 1))
            if (strcmp(c->counters[c->hash[i] - 1].name, name) == 0)
                return (int)c->hash[i] - 1;
        return -1;
    }
    for (i = 0; i < c->ncounters; i++)
        if (strcmp(c->counters[i].name, name) == 0)
            return (int)i;
    return -1;
}

static void hash_put(struct gt_catalog *c, size_t k)
{
    size_t i = name_hash(c->counters[k].name) & (c->hash_cap - 1);

    while (c->hash[i])
        i = (i + 1) & (c->hash_cap - 1);
    c->hash[i] = (uint32_t)k + 1;
}

/* Indexes the counters added since the last call (by append, or by a
 * reader filling the array itself), growing the table to stay at most half
 * full; without memory, lookups scan instead. */
static void hash_update(struct gt_catalog *c)
{
    size_t k;

    if (!c->hash || 2 * c->ncounters > c->hash_cap) {
        size_t cap = c->hash_cap ? c->hash_cap * 2 : 256;
        uint32_t *h;
        while (2 * c->ncounters > cap)
            cap *= 2;
        h = calloc(cap, sizeof(*h));
        if (!h) {
            free(c->hash);
            c->hash = NULL;
            c->hash_cap = c->nhashed = 0;
            return;
        }
        free(c->hash);
        c->hash = h;
        c->hash_cap = cap;
        c->nhashed = 0;
    }
    for (k = c->nhashed; k < c->ncounters; k++)
        hash_put(c, k);
    c->nhashed = c->ncounters;
}

static struct gt_counter *append(struct gt_catalog *c, const char *name, const char *block)
{
    struct gt_counter *k;

    if (gt_catalog_find(c, name) >= 0)
        return NULL;
    if (c->ncounters == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        k = realloc(c->counters, cap * sizeof(*k));
        if (!k)
            return NULL;
        c->counters = k;
        c->cap = cap;
    }
    k = &c->counters[c->ncounters];
    memset(k, 0, sizeof(*k));
    k->name = strdup(name);
    k->block = strdup(block);
    if (!k->name || !k->block) {
        free(k->name);
        free(k->block);
        return NULL;
    }
    k->hw_index = -1;
    k->denominator = -1;
    k->scale = 1.0;
    c->ncounters++;
    hash_update(c);
    return k;
}

int gt_catalog_add(struct gt_catalog *c, const char *name, const char *block,
                   enum gt_counter_kind kind, uint32_t instances, double scale)
{
    struct gt_counter *k;

    if (instances == 0 || kind == GT_COUNTER_CONSTANT)
        return -1;
    if ((uint64_t)c->nslots + instances > UINT32_MAX / 2)
        return -1;
    k = append(c, name, block);
    if (!k)
        return -1;
    k->kind = kind;
    k->slot = c->nslots;
    k->instances = instances;
    k->scale = scale;
    c->nslots += instances;
    return (int)(c->ncounters - 1);
}

int gt_catalog_add_constant(struct gt_catalog *c, const char *name, double value)
{
    struct gt_counter *k = append(c, name, "constant");

    if (!k)
        return -1;
    k->kind = GT_COUNTER_CONSTANT;
    k->instances = 1;
    k->value = value;
    return (int)(c->ncounters - 1);
}

int gt_catalog_add_ratio(struct gt_catalog *c, const char *name, int numerator,
                         int denominator, double scale)
{
    struct gt_counter *k;
    uint32_t slot, n;

    if (numerator < 0 || denominator < 0 || (size_t)numerator >= c->ncounters ||
        (size_t)denominator >= c->ncounters ||
        c->counters[numerator].instances != c->counters[denominator].instances)
        return -1;
    slot = c->counters[numerator].slot;
    n = c->counters[numerator].instances;
    k = append(c, name, c->counters[numerator].block);
    if (!k)
        return -1;
    k->kind = GT_COUNTER_RATIO;
    k->slot = slot;
    k->instances = n;
    k->scale = scale;
    k->denominator = denominator;
    return (int)(c->ncounters - 1);
}

int gt_catalog_add_table(struct gt_catalog *c, const struct gt_counter_table *t,
                         uint32_t (*instances_for)(const char *block, void *arg),
                         double (*constant_for)(const char *name, void *arg),
                         void *arg)
{
    size_t i;
    int k;

    for (i = 0; i < t->ndefs; i++) {
        const struct gt_counter_def row = gt_counter_table_def(t, i), *def = &row;
        if (gt_catalog_find(c, def->name) >= 0)
            continue;
        if (strcmp(def->block, "constant") == 0) {
            double v = constant_for ? constant_for(def->name, arg) : NAN;
            if (!isnan(v) && gt_catalog_add_constant(c, def->name, v) < 0)
                return -1;
            continue;
        }
        uint32_t n = instances_for ? instances_for(def->block, arg) : 1;
        if (n == 0)
            continue;   /* block absent on this device */
        k = gt_catalog_add(c, def->name, def->block, GT_COUNTER_DELTA, n, def->scale);
        if (k < 0)
            return -1;
        c->counters[k].hw_index = def->index;
        if (def->hw_name && def->hw_name[0]) {
            c->counters[k].hw_name = strdup(def->hw_name);
            if (!c->counters[k].hw_name)
                return -1;
        }
    }
    return 0;
}

int gt_catalog_merge(struct gt_catalog *dst, const struct gt_catalog *src)
{
    size_t i, base = dst->ncounters;
    uint32_t slot0 = dst->nslots;

    for (i = 0; i < src->ncounters; i++) {
        const struct gt_counter *s = &src->counters[i];
        struct gt_counter *k = append(dst, s->name, s->block);
        if (!k)
            return -1;
        k->kind = s->kind;
        k->slot = s->kind == GT_COUNTER_CONSTANT ? 0 : slot0 + s->slot;
        k->instances = s->instances;
        k->scale = s->scale;
        k->value = s->value;
        k->hw_index = s->hw_index;
        k->estimated = s->estimated;
        k->denominator = s->denominator >= 0 ? (int)base + s->denominator : -1;
        if (s->hw_name && !(k->hw_name = strdup(s->hw_name)))
            return -1;
    }
    dst->nslots = slot0 + src->nslots;
    for (i = 0; i < src->nabsent; i++)
        if (gt_catalog_add_absent(dst, src->absent[i].name, src->absent[i].reason) < 0)
            return -1;
    return 0;
}
