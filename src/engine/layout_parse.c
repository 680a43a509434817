/* What every part of the layout parser shares: growing arrays, copying
 * strings, finding a line of the text and reporting an error at it. */
#include "gputop/layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout_parse.h"

/* Arrays here carry no capacity: it follows from the count (8, then
 * doubled each time the count reaches a power of two), so appending costs
 * a reallocation only that often. New room is zeroed. */
int gt_lp_grow(void *pptr, size_t n, size_t size)
{
    void **ptr = pptr;
    size_t ncap;
    void *np;

    if (n != 0 && (n < 8 || (n & (n - 1)) != 0))
        return 0;
    ncap = n ? n * 2 : 8;
    np = realloc(*ptr, ncap * size);
    if (!np)
        return -1;
    memset((char *)np + n * size, 0, (ncap - n) * size);
    *ptr = np;
    return 0;
}

char *gt_lp_dup(const char *s, size_t n)
{
    char *p = malloc(n + 1);

    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

const char *gt_layout_line(const struct gt_layout *l, int n, size_t *len)
{
    const char *s = l->text, *end = l->text + l->text_len, *nl;
    int i;

    for (i = 1; i < n && s < end; i++) {
        nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl)
            return NULL;
        s = nl + 1;
    }
    if (i != n || s > end)
        return NULL;
    nl = memchr(s, '\n', (size_t)(end - s));
    *len = nl ? (size_t)(nl - s) : (size_t)(end - s);
    return s;
}

int gt_lp_fail(struct parse *p, int line, int col, const char *fmt, ...)
{
    const char *src;
    size_t len = 0;
    va_list ap;

    if (!p->d)
        return -1;
    va_start(ap, fmt);
    vsnprintf(p->d->msg, sizeof(p->d->msg), fmt, ap);
    va_end(ap);
    src = gt_layout_line(p->l, line, &len);
    gt_diag_at(p->d, p->l->file, line, col, src, src ? len : 0);
    return -1;
}

int gt_lp_col(const struct line *ln, const char *at)
{
    return (int)(at - ln->s) + 1;
}

int gt_lp_oom(struct parse *p, const struct line *ln)
{
    return gt_lp_fail(p, ln->no, 1, "out of memory");
}

int gt_lp_set_string(struct parse *p, const struct line *ln, char **dst)
{
    if (*dst)
        return gt_lp_fail(p, ln->no, 1, "'%.*s' is given twice", (int)ln->kwlen, ln->kw);
    if (ln->vallen == 0)
        return gt_lp_fail(p, ln->no, gt_lp_col(ln, ln->kw) + (int)ln->kwlen,
                          "'%.*s' needs a value", (int)ln->kwlen, ln->kw);
    *dst = gt_lp_dup(ln->val, ln->vallen);
    return *dst ? 0 : gt_lp_oom(p, ln);
}
