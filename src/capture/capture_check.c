/* A capture's catalogue checked the same way when written and when read
 * (man/gputop-capture.5, "Header record"): every slot the engine may read
 * lies inside nslots, names are unique, ratios are sound. */
#include "capture_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *check_names_unique(const struct gt_catalog *c, char *why, size_t len)
{
    const char **names;
    size_t i;

    if (c->ncounters < 2)
        return NULL;
    names = malloc(c->ncounters * sizeof(*names));
    if (!names)
        return "out of memory";
    for (i = 0; i < c->ncounters; i++)
        names[i] = c->counters[i].name;
    qsort(names, c->ncounters, sizeof(*names), cmp_name);
    for (i = 1; i < c->ncounters; i++)
        if (strcmp(names[i - 1], names[i]) == 0) {
            snprintf(why, len, "counter '%s' appears twice", names[i]);
            free(names);
            return why;
        }
    free(names);
    return NULL;
}

static const char *check_counter(const struct gt_catalog *c, size_t i, char *why, size_t len)
{
    const struct gt_counter *k = &c->counters[i];
    const struct gt_counter *den;

    if (!k->name || !k->name[0] || strlen(k->name) > GT_CAPTURE_MAX_NAME ||
        !k->block || strlen(k->block) > GT_CAPTURE_MAX_NAME ||
        (k->hw_name && strlen(k->hw_name) > GT_CAPTURE_MAX_NAME)) {
        snprintf(why, len, "counter %zu: a name is empty or longer than %d bytes", i,
                 GT_CAPTURE_MAX_NAME);
        return why;
    }
    if (k->kind == GT_COUNTER_CONSTANT) {
        if (k->slot != 0 || k->instances != 1 || k->denominator != -1) {
            snprintf(why, len, "constant '%s' has slots or a denominator", k->name);
            return why;
        }
        return NULL;
    }
    if (k->kind != GT_COUNTER_DELTA && k->kind != GT_COUNTER_RATIO) {
        snprintf(why, len, "counter '%s' has an unknown kind", k->name);
        return why;
    }
    if (k->instances == 0 || (uint64_t)k->slot + k->instances > c->nslots) {
        snprintf(why, len, "counter '%s' uses slots %u..%llu of %u", k->name, k->slot,
                 (unsigned long long)k->slot + k->instances, c->nslots);
        return why;
    }
    if (k->kind == GT_COUNTER_DELTA) {
        if (k->denominator != -1) {
            snprintf(why, len, "counter '%s' has a denominator but is no ratio", k->name);
            return why;
        }
        return NULL;
    }
    if (k->denominator < 0 || (size_t)k->denominator >= c->ncounters ||
        (size_t)k->denominator == i) {
        snprintf(why, len, "ratio '%s' has a bad denominator %d", k->name, k->denominator);
        return why;
    }
    den = &c->counters[k->denominator];
    if (den->kind == GT_COUNTER_CONSTANT || den->instances != k->instances) {
        snprintf(why, len, "ratio '%s': denominator '%s' is a constant or differs in instances",
                 k->name, den->name ? den->name : "?");
        return why;
    }
    return NULL;
}

/* NULL when the catalogue fits the format and is self-consistent (every
 * slot the engine may read lies inside nslots); else why, in why[]. */
const char *gt_capture_check_catalog(const struct gt_catalog *c, char *why, size_t len)
{
    const char *bad;
    size_t i;

    if (c->ncounters > GT_CAPTURE_MAX_COUNTERS || c->nslots > GT_CAPTURE_MAX_SLOTS) {
        snprintf(why, len, "%zu counters in %u slots (at most %d in %u)", c->ncounters,
                 c->nslots, GT_CAPTURE_MAX_COUNTERS, GT_CAPTURE_MAX_SLOTS);
        return why;
    }
    for (i = 0; i < c->ncounters; i++)
        if ((bad = check_counter(c, i, why, len)) != NULL)
            return bad;
    return check_names_unique(c, why, len);
}
