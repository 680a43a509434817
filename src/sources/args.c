/* Source argument strings: "positional,key=value,..." as in
 * --source sim:mali-g720,scene=game,seed=7. */
#include "gputop/source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Calls back for each item; stops when fn returns non-zero. */
static int each_item(const char *args, int (*fn)(const char *k, size_t kl, const char *v,
                                                 size_t vl, void *arg), void *arg)
{
    const char *s = args ? args : "", *end, *eq;
    int r;

    while (*s) {
        end = strchr(s, ',');
        if (!end)
            end = s + strlen(s);
        eq = memchr(s, '=', (size_t)(end - s));
        if (end > s) {
            if (eq)
                r = fn(s, (size_t)(eq - s), eq + 1, (size_t)(end - eq - 1), arg);
            else
                r = fn("", 0, s, (size_t)(end - s), arg);
            if (r)
                return r;
        }
        s = *end ? end + 1 : end;
    }
    return 0;
}

struct get_ctx {
    const char *key;
    char *buf;
    size_t len;
    int found;
};

static int get_item(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
    struct get_ctx *g = arg;

    if (strlen(g->key) != kl || memcmp(g->key, k, kl) != 0)
        return 0;
    if (vl >= g->len)
        vl = g->len - 1;
    memcpy(g->buf, v, vl);
    g->buf[vl] = '\0';
    g->found = 1;
    return 0;   /* the last one given wins */
}

const char *gt_args_get(const char *args, const char *key, char *buf, size_t len)
{
    struct get_ctx g = { key, buf, len, 0 };

    if (!buf || len == 0)
        return NULL;
    each_item(args, get_item, &g);
    return g.found ? buf : NULL;
}

struct check_ctx {
    const char *const *keys;
    const char *source;
    struct gt_diag *d;
};

static int check_item(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
    struct check_ctx *c = arg;
    size_t i;

    (void)v;
    (void)vl;
    for (i = 0; c->keys[i]; i++)
        if (strlen(c->keys[i]) == kl && memcmp(c->keys[i], k, kl) == 0)
            return 0;
    if (kl == 0)
        gt_diag_set(c->d, "source '%s' takes no positional argument '%.*s'", c->source, (int)vl, v);
    else
        gt_diag_set(c->d, "source '%s' has no option '%.*s'", c->source, (int)kl, k);
    return -1;
}

int gt_args_check(const char *args, const char *const *keys, const char *source,
                  struct gt_diag *d)
{
    struct check_ctx c = { keys, source, d };

    return each_item(args, check_item, &c) ? -1 : 0;
}

/* Decimal digits only: no sign, no spaces, no overflow. */
int gt_args_u64(const char *s, uint64_t *out)
{
    unsigned long long v;
    char *end;

    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}
