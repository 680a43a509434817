/* Layout statements before the first section: name, title-level facts
 * (gpu, match, aggregate, option, version), triage rules and steps, header
 * figures and origin; each error names file:line:column. */
#include "layout_parse.h"
#include "gputop/expr.h"
#include "gputop/triage.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits the value into blank-separated words. */
static size_t words(const struct line *ln, const char **w, size_t *wl, size_t max)
{
    const char *s = ln->val, *end = ln->val + ln->vallen;
    size_t n = 0;

    while (s < end && n < max) {
        while (s < end && isspace((unsigned char)*s))
            s++;
        if (s >= end)
            break;
        w[n] = s;
        while (s < end && !isspace((unsigned char)*s))
            s++;
        wl[n] = (size_t)(s - w[n]);
        n++;
    }
    return n;
}

static int valid_name(const char *s, size_t n)
{
    size_t i;

    if (n == 0)
        return 0;
    for (i = 0; i < n; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-'))
            return 0;
    return 1;
}

int gt_lp_name(struct parse *p, const struct line *ln)
{
    if (ln->vallen && !valid_name(ln->val, ln->vallen))
        return gt_lp_fail(p, ln->no, gt_lp_col(ln, ln->val),
                          "layout name '%.*s' may use only lower-case letters, digits and '-'",
                          (int)ln->vallen, ln->val);
    return gt_lp_set_string(p, ln, &p->l->name);
}

int gt_lp_gpu(struct parse *p, const struct line *ln)
{
    const char *w[32];
    size_t wl[32], n = words(ln, w, wl, 32), i;

    if (n == 0)
        return gt_lp_fail(p, ln->no, gt_lp_col(ln, ln->kw) + 3,
                          "'gpu' needs at least one GPU name");
    for (i = 0; i < n; i++) {
        if (gt_lp_grow(&p->l->gpus, p->l->ngpus, sizeof(char *)) < 0)
            return gt_lp_oom(p, ln);
        p->l->gpus[p->l->ngpus] = gt_lp_dup(w[i], wl[i]);
        if (!p->l->gpus[p->l->ngpus])
            return gt_lp_oom(p, ln);
        ++p->l->ngpus;
    }
    return 0;
}

static int parse_id(const char *s, size_t n, uint64_t *out)
{
    char buf[32], *end;

    if (n == 0 || n >= sizeof(buf) || *s == '-' || *s == '+')
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    *out = strtoull(buf, &end, 0);
    return errno || *end ? -1 : 0;
}

int gt_lp_match(struct parse *p, const struct line *ln)
{
    const char *w[64];
    size_t wl[64], n = words(ln, w, wl, 64), i;
    struct gt_match *m;

    if (n < 2)
        return gt_lp_fail(p, ln->no, gt_lp_col(ln, ln->kw) + 5,
                          "'match' needs a source name and at least one device id");
    if (gt_lp_grow(&p->l->matches, p->l->nmatches, sizeof(*m)) < 0)
        return gt_lp_oom(p, ln);
    m = &p->l->matches[p->l->nmatches++];
    m->source = gt_lp_dup(w[0], wl[0]);
    m->ids = calloc(n - 1, sizeof(uint64_t));
    if (!m->source || !m->ids)
        return gt_lp_oom(p, ln);
    for (i = 1; i < n; i++) {
        if (parse_id(w[i], wl[i], &m->ids[i - 1]) < 0)
            return gt_lp_fail(p, ln->no, gt_lp_col(ln, w[i]),
                              "bad device id '%.*s' (decimal or 0x-prefixed hexadecimal)",
                              (int)wl[i], w[i]);
        m->nids++;
    }
    return 0;
}

int gt_lp_aggregate(struct parse *p, const struct line *ln)
{
    const char *w[3];
    size_t wl[3], n = words(ln, w, wl, 3), i;
    struct gt_agg_rule *r;
    enum gt_agg agg;

    if (n != 2)
        return gt_lp_fail(p, ln->no, gt_lp_col(ln, ln->kw) + 9,
                          "'aggregate' takes a block name and 'sum' or 'mean'");
    if (wl[1] == 3 && memcmp(w[1], "sum", 3) == 0)
        agg = GT_AGG_SUM;
    else if (wl[1] == 4 && memcmp(w[1], "mean", 4) == 0)
        agg = GT_AGG_MEAN;
    else
        return gt_lp_fail(p, ln->no, gt_lp_col(ln, w[1]),
                          "unknown aggregation '%.*s' (expected sum or mean)", (int)wl[1], w[1]);
    for (i = 0; i < p->l->naggs; i++)
        if (strlen(p->l->aggs[i].block) == wl[0] && memcmp(p->l->aggs[i].block, w[0], wl[0]) == 0)
            return gt_lp_fail(p, ln->no, gt_lp_col(ln, w[0]),
                              "block '%.*s' already has an aggregation rule", (int)wl[0], w[0]);
    if (gt_lp_grow(&p->l->aggs, p->l->naggs, sizeof(*r)) < 0)
        return gt_lp_oom(p, ln);
    r = &p->l->aggs[p->l->naggs];
    r->block = gt_lp_dup(w[0], wl[0]);
    if (!r->block)
        return gt_lp_oom(p, ln);
    r->agg = agg;
    p->l->naggs++;
    return 0;
}

int gt_lp_option(struct parse *p, const struct line *ln)
{
    const char *w[3], *eq;
    size_t wl[3], n = words(ln, w, wl, 3);
    struct gt_source_option *o;

    eq = n == 2 ? memchr(w[1], '=', wl[1]) : NULL;
    if (!eq || eq == w[1])
        return gt_lp_fail(p, ln->no, gt_lp_col(ln, ln->kw) + 6,
                          "'option' takes a source name and KEY=VALUE");
    if (gt_lp_grow(&p->l->options, p->l->noptions, sizeof(*o)) < 0)
        return gt_lp_oom(p, ln);
    o = &p->l->options[p->l->noptions++];
    o->line = ln->no;
    o->source = gt_lp_dup(w[0], wl[0]);
    o->key = gt_lp_dup(w[1], (size_t)(eq - w[1]));
    o->value = gt_lp_dup(eq + 1, wl[1] - (size_t)(eq - w[1]) - 1);
    return o->source && o->key && o->value ? 0 : gt_lp_oom(p, ln);
}

int gt_lp_version(struct parse *p, const struct line *ln)
{
    if (ln->vallen == 1 && ln->val[0] == '1')
        return 0;
    return gt_lp_fail(p, ln->no, ln->vallen ? gt_lp_col(ln, ln->val) : (int)ln->len + 1,
                      "unsupported layout format version '%.*s' (this gputop reads version 1)",
                      (int)ln->vallen, ln->val);
}

/* ---- triage ---- */

static char *trimmed_dup(const char *s, const char *end)
{
    while (s < end && isspace((unsigned char)*s))
        s++;
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    return gt_lp_dup(s, (size_t)(end - s));
}

int gt_lp_triage(struct parse *p, const struct line *ln)
{
    const char *s = ln->val, *end = ln->val + ln->vallen, *bar1, *bar2, *bar3 = NULL;
    struct gt_triage_rule *t;
    const char *kw_end;

    kw_end = s;
    while (kw_end < end && !isspace((unsigned char)*kw_end))
        kw_end++;
    if ((kw_end - s == 4 && (memcmp(s, "step", 4) == 0 || memcmp(s, "hold", 4) == 0 ||
                             memcmp(s, "note", 4) == 0 || memcmp(s, "band", 4) == 0)) ||
        (kw_end - s == 9 && memcmp(s, "side-step", 9) == 0) ||
        (kw_end - s == 17 && memcmp(s, "step-if-available", 17) == 0)) {
        char err[256];
        size_t off = 0;
        if (gt_layout_triage_parse(p->l, ln->no, s, ln->vallen, err, sizeof(err), &off) < 0)
            return gt_lp_fail(p, ln->no, gt_lp_col(ln, s + off), "%s", err);
        return 0;
    }
    if (!((kw_end - s == 5 && memcmp(s, "queue", 5) == 0) ||
          (kw_end - s == 4 && memcmp(s, "unit", 4) == 0)))
        return gt_lp_fail(p, ln->no, ln->vallen ? gt_lp_col(ln, s) : (int)ln->len + 1,
                          "triage lines start with 'queue', 'unit', 'step', "
                          "'step-if-available', 'side-step', 'note', 'hold' or 'band'");
    bar1 = memchr(kw_end, '|', (size_t)(end - kw_end));
    if (!bar1)
        return gt_lp_fail(p, ln->no, (int)ln->len + 1,
                          "triage rule needs 'METRIC | LABEL' after '%.*s'", (int)(kw_end - s), s);
    bar2 = memchr(bar1 + 1, '|', (size_t)(end - bar1 - 1));
    if (bar2)
        bar3 = memchr(bar2 + 1, '|', (size_t)(end - bar2 - 1));
    if (gt_lp_grow(&p->l->triage, p->l->ntriage, sizeof(*t)) < 0)
        return gt_lp_oom(p, ln);
    t = &p->l->triage[p->l->ntriage++];
    t->line = ln->no;
    t->kind = gt_lp_dup(s, (size_t)(kw_end - s));
    t->metric = trimmed_dup(kw_end, bar1);
    t->label = trimmed_dup(bar1 + 1, bar2 ? bar2 : end);
    t->verdict = bar2 ? trimmed_dup(bar2 + 1, bar3 ? bar3 : end) : NULL;
    t->next = bar3 ? trimmed_dup(bar3 + 1, end) : NULL;
    if (!t->kind || !t->metric || !t->label || (bar2 && !t->verdict) || (bar3 && !t->next))
        return gt_lp_oom(p, ln);
    if (!t->metric[0] || !t->label[0])
        return gt_lp_fail(p, ln->no, gt_lp_col(ln, bar1),
                          "triage rule needs both a metric and a label");
    return 0;
}

/* ---- header figures ---- */

const char *const gt_lp_header_roles[GT_HEADER_NFIGS] = {
    "busy", "busy-max", "clock", "freq", "freq-cap", "freq-top", "temp"
};
/* What each figure's metric must be shown as, so the header can print it. */
const enum gt_show gt_lp_header_show[GT_HEADER_NFIGS] = {
    GT_SHOW_PERCENT, GT_SHOW_PERCENT, GT_SHOW_VALUE, GT_SHOW_VALUE, GT_SHOW_VALUE,
    GT_SHOW_VALUE, GT_SHOW_VALUE
};

static int header_role(const char *s, size_t n)
{
    int i;

    for (i = 0; i < GT_HEADER_NFIGS; i++)
        if (strlen(gt_lp_header_roles[i]) == n && memcmp(gt_lp_header_roles[i], s, n) == 0)
            return i;
    return -1;
}

int gt_lp_header(struct parse *p, const struct line *ln)
{
    const char *s = ln->val, *end = ln->val + ln->vallen, *name;
    int role;

    while (s < end && !isspace((unsigned char)*s))
        s++;
    role = header_role(ln->val, (size_t)(s - ln->val));
    if (role < 0)
        return gt_lp_fail(p, ln->no, ln->vallen ? gt_lp_col(ln, ln->val) : (int)ln->len + 1,
                          "header lines name 'busy', 'busy-max', 'clock', 'freq', "
                          "'freq-cap', 'freq-top' or 'temp', not '%.*s'",
                          (int)(s - ln->val), ln->val);
    for (name = s; name < end && isspace((unsigned char)*name); name++)
        ;
    if (name == end)
        return gt_lp_fail(p, ln->no, (int)ln->len + 1, "'header %s' needs a metric title or ref",
                          gt_lp_header_roles[role]);
    if (p->hdr[role].metric)
        return gt_lp_fail(p, ln->no, 1, "'header %s' is given twice (line %d)",
                          gt_lp_header_roles[role],
                          p->hdr[role].line);
    p->hdr[role].metric = gt_lp_dup(name, (size_t)(end - name));
    p->hdr[role].line = ln->no;
    p->hdr[role].col = gt_lp_col(ln, name);
    return p->hdr[role].metric ? 0 : gt_lp_oom(p, ln);
}

int gt_lp_origin(struct parse *p, const struct line *ln)
{
    struct gt_group_def *g = &p->l->groups[p->group];
    int own = ln->vallen == 6 && memcmp(ln->val, "gputop", 6) == 0;

    if (g->count)
        return gt_lp_fail(p, ln->no, gt_lp_col(ln, ln->kw),
                          "'origin' must come before the group's first metric");
    if (!own && !(ln->vallen == 5 && memcmp(ln->val, "guide", 5) == 0))
        return gt_lp_fail(p, ln->no, ln->vallen ? gt_lp_col(ln, ln->val) : (int)ln->len + 1,
                          "'origin' is 'guide' or 'gputop', not '%.*s'", (int)ln->vallen, ln->val);
    g->own = own;
    return 0;
}
