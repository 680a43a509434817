/* Matching a loaded layout with the native code generated from the
 * built-in layouts (tools/gen-native.c): both sides print each expression
 * in one canonical form and hash the texts, so an edited, merged or user
 * layout falls back to the interpreter by itself. Shared by the engine
 * and the generator, so both number references alike. */
#include "gputop/native.h"
#include "gputop/expr.h"
#include "gputop/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longer than any guide's expression by far; a longer one never matches. */
#define TEXT_MAX 65536

#define FNV_OFFSET 14695981039346656037ull
#define FNV_PRIME  1099511628211ull

struct names {
    const struct gt_expr *e;
    char buf[512];
    int overflow;
};

/* "$name": the '$' keeps a reference apart from the printer's own words
 * (gt_op_div) and from numbers. */
static const char *dollar_name(void *arg, size_t ref)
{
    struct names *n = arg;

    if ((size_t)snprintf(n->buf, sizeof(n->buf), "$%s", gt_expr_ref_name(n->e, ref)) >=
        sizeof(n->buf))
        n->overflow = 1;
    return n->buf;
}

int gt_native_text(const struct gt_expr *e, char *buf, size_t len)
{
    struct names n;
    int r;

    n.e = e;
    n.overflow = 0;
    r = gt_expr_to_c(e, buf, len, dollar_name, &n);
    return n.overflow ? -1 : r;
}

static uint64_t hash_bytes(uint64_t h, const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * FNV_PRIME;
    return h;
}

/* One expression into the hash: its text and a NUL, or a lone 0x01 for
 * none (never the start of a text). Returns 0, or -1 when too long. */
static int hash_expr(uint64_t *h, const struct gt_expr *e, char *buf)
{
    int n;

    if (!e) {
        *h = hash_bytes(*h, "\001", 1);
        return 0;
    }
    n = gt_native_text(e, buf, TEXT_MAX);
    if (n < 0)
        return -1;
    *h = hash_bytes(*h, buf, (size_t)n + 1);
    return 0;
}

uint64_t gt_native_signature(const struct gt_layout *l)
{
    uint64_t h = FNV_OFFSET;
    char *buf = malloc(TEXT_MAX);
    size_t i;
    int bad = !buf;

    for (i = 0; !bad && i < l->nmetrics; i++) {
        const struct gt_metric_def *m = &l->metrics[i];
        bad = hash_expr(&h, m->expr, buf) < 0 || hash_expr(&h, m->peak, buf) < 0 ||
              hash_expr(&h, m->pop, buf) < 0;
    }
    free(buf);
    return bad || h == 0 ? 0 : h;
}

static int known(const char **names, size_t n, const char *name)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

/* Adds e's references not seen yet; cap is the total number of refs. */
static void add_refs(const char **names, size_t *n, const struct gt_expr *e)
{
    size_t i;

    for (i = 0; e && i < gt_expr_nrefs(e); i++)
        if (!known(names, *n, gt_expr_ref_name(e, i)))
            names[(*n)++] = gt_expr_ref_name(e, i);
}

int gt_native_refs(const struct gt_layout *l, const char ***names, size_t *n)
{
    size_t i, total = 1;

    for (i = 0; i < l->nmetrics; i++) {
        const struct gt_metric_def *m = &l->metrics[i];
        total += gt_expr_nrefs(m->expr) + (m->peak ? gt_expr_nrefs(m->peak) : 0) +
                 (m->pop ? gt_expr_nrefs(m->pop) : 0);
    }
    *n = 0;
    *names = malloc(total * sizeof(**names));
    if (!*names)
        return -1;
    for (i = 0; i < l->nmetrics; i++) {
        add_refs(*names, n, l->metrics[i].expr);
        add_refs(*names, n, l->metrics[i].peak);
        add_refs(*names, n, l->metrics[i].pop);
    }
    return 0;
}

const struct gt_native_layout *gt_native_find(const struct gt_native_layout *table, size_t n,
                                              const struct gt_layout *l)
{
    uint64_t sig = 0;
    size_t i;

    if (!l->name)
        return NULL;
    for (i = 0; i < n; i++) {
        if (strcmp(table[i].name, l->name) != 0 || table[i].nmetrics != l->nmetrics)
            continue;
        if (!sig && !(sig = gt_native_signature(l)))
            return NULL;
        if (table[i].signature == sig)
            return &table[i];
    }
    return NULL;
}
