/* The raw layout ("--layout raw", and what a Mali source picks for a GPU
 * with no counter table): every counter of the catalogue as a rate, one
 * section per block, titled with the counter's index in its hardware block,
 * written as layout text and parsed like any other layout; and the values
 * layout of gputop's own CSV read back. */
#include "gputop/layout.h"
#include "gputop/catalog.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BLOCKS 9   /* sections get the keys 1..9 */

struct text {
    char *p;
    size_t len, cap;
    int failed;
};

static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (t->failed)
        return;
    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if ((size_t)n < t->cap - t->len)
            break;
        char *q = realloc(t->p, t->cap * 2 + (size_t)n);
        if (!q) {
            t->failed = 1;
            return;
        }
        t->p = q;
        t->cap = t->cap * 2 + (size_t)n;
    }
    t->len += (size_t)n;
}

/* A counter a raw view shows: counted events, not constants or ratios. */
static int shown(const struct gt_counter *k)
{
    return k->kind == GT_COUNTER_DELTA && k->block && k->block[0];
}

/* The distinct blocks of c in first-seen order (at most MAX_BLOCKS). */
static size_t blocks_of(const struct gt_catalog *c, const char **out)
{
    size_t i, j, n = 0;

    for (i = 0; i < c->ncounters; i++) {
        if (!shown(&c->counters[i]))
            continue;
        for (j = 0; j < n && strcmp(out[j], c->counters[i].block) != 0; j++)
            ;
        if (j == n && n < MAX_BLOCKS)
            out[n++] = c->counters[i].block;
    }
    return n;
}

static void put_metric(struct text *t, const struct gt_counter *k)
{
    if (k->hw_index >= 0)
        put(t, "    metric %s %d\n", k->block, k->hw_index);
    else
        put(t, "    metric %s\n", k->name);
    put(t, "      expr $%s / $GputopIntervalSeconds\n      unit /s\n      show value\n", k->name);
    if (k->hw_index >= 0)
        put(t, "      desc Counter %d of the %s block (%s)%s, per second.\n", k->hw_index,
            k->block, k->hw_name ? k->hw_name : k->name,
            k->instances > 1 ? ", summed over instances" : "");
    else
        put(t, "      desc %s per second%s.\n", k->name,
            k->instances > 1 ? ", summed over instances" : "");
}

char *gt_layout_raw_text(const struct gt_catalog *c, size_t *len)
{
    const char *blocks[MAX_BLOCKS];
    struct text t = { malloc(4096), 0, 4096, 0 };
    size_t nb = blocks_of(c, blocks), b, i;

    if (!t.p)
        return NULL;
    put(&t, "gputop-layout 1\nname raw\ntitle Raw counters\nfamily raw\n");
    for (b = 0; b < nb; b++) {
        put(&t, "\nsection %s counters\n  key %zu\n  group %s counters, per second\n", blocks[b],
            b + 1, blocks[b]);
        for (i = 0; i < c->ncounters; i++)
            if (shown(&c->counters[i]) && strcmp(c->counters[i].block, blocks[b]) == 0)
                put_metric(&t, &c->counters[i]);
    }
    if (t.failed) {
        free(t.p);
        return NULL;
    }
    *len = t.len;
    return t.p;
}

/* "values": gputop's own CSV read back (csv_values.c), each column one
 * metric as recorded, its title and unit from the header ("Bytes read
 * [bytes/s]", kept as the counter's hardware name). */
char *gt_layout_values_text(const struct gt_catalog *c, size_t *len)
{
    struct text t = { malloc(4096), 0, 4096, 0 };
    size_t i, n;

    if (!t.p)
        return NULL;
    put(&t, "gputop-layout 1\nname values\ntitle Recorded values\nfamily values\n"
            "\nsection Recorded values\n  key 1\n  group As gputop wrote them\n");
    for (i = 0; i < c->ncounters; i++) {
        const struct gt_counter *k = &c->counters[i];
        const char *name = k->hw_name, *open;
        /* a name is one line of layout text: a capture could hold others */
        if (k->kind != GT_COUNTER_RATIO || !name || strcmp(k->block, "recorded") != 0 ||
            strpbrk(name, "\n\r"))
            continue;
        n = strlen(name);
        open = n > 2 && name[n - 1] == ']' ? strrchr(name, '[') : NULL;
        if (open && open > name && open[-1] == ' ') {
            put(&t, "    metric %.*s\n      expr $%s\n      unit %.*s\n      show %s\n",
                (int)(open - 1 - name), name, k->name, (int)(name + n - 1 - open - 1), open + 1,
                strncmp(open, "[%]", 3) == 0 ? "percent" : "value");
        } else {
            put(&t, "    metric %s\n      expr $%s\n      show value\n", name, k->name);
        }
    }
    if (t.failed) {
        free(t.p);
        return NULL;
    }
    *len = t.len;
    return t.p;
}

struct gt_layout *gt_layout_load_for(const char *name_or_path, const struct gt_catalog *c,
                                     struct gt_diag *d)
{
    struct gt_layout *l;
    char *text;
    size_t len;
    int values = strcmp(name_or_path, "values") == 0;

    if (strcmp(name_or_path, "raw") != 0 && !values)
        return gt_layout_load(name_or_path, d);
    gt_diag_clear(d);
    text = values ? gt_layout_values_text(c, &len) : gt_layout_raw_text(c, &len);
    if (!text) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory building the %s layout", name_or_path);
        return NULL;
    }
    l = gt_layout_parse(values ? "values layout" : "raw layout", text, len, d);
    free(text);
    return l;
}

struct gt_layout *gt_layout_load_named(const char *name, const struct gt_catalog *c,
                                       struct gt_diag *d)
{
    size_t i;

    if (c && (strcmp(name, "raw") == 0 || strcmp(name, "values") == 0))
        return gt_layout_load_for(name, c, d);
    for (i = 0; i < gt_embedded_layout_count(); i++)
        if (strcmp(gt_embedded_layout_name(i), name) == 0)
            return gt_layout_load(name, d);
    gt_diag_clear(d);
    gt_diag_set(d, "the source names layout '%s', which is not built in (a source or a "
                "capture names a built-in layout, never a file); choose one with --layout "
                "(see --list-layouts)", name);
    return NULL;
}
