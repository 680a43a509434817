/* The layout parser: a line-oriented format (man/gputop-layout.5) read into
 * sections, groups and metrics; every error names file:line:column. */
#include "gputop/layout.h"
#include "gputop/expr.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RESERVED_KEYS "qhcrstp?/+- "

/* One line being parsed. */
struct line {
    const char *s;       /* start of the line */
    size_t len;          /* without the newline */
    int no;              /* 1-based */
    size_t indent;       /* leading blanks */
    const char *kw;      /* keyword */
    size_t kwlen;
    const char *val;     /* value, trailing blanks removed */
    size_t vallen;
};

struct parse {
    struct gt_layout *l;
    struct gt_diag *d;
    int in_body;
    long section, group, metric;   /* current, -1 if none */
    /* continuation of a multi-line value */
    enum { CONT_NONE, CONT_EXPR, CONT_DESC, CONT_PEAK, CONT_POP } cont;
    size_t cont_indent;
    char *buf;                     /* expr text being collected */
    size_t buflen, bufcap;
    int expr_line, expr_col;
    int pending_blank;             /* blank lines inside a continuation */
    int seen_show, seen_unit, seen_ref, seen_desc;
    int metric_line;               /* where the current metric starts */
    struct {                       /* 'header' lines until resolved */
        char *metric;
        int line, col;
    } hdr[GT_HEADER_NFIGS];
};

/* Arrays here carry no capacity: it follows from the count (8, then
 * doubled each time the count reaches a power of two), so appending costs
 * a reallocation only that often. New room is zeroed. */
static int grow(void *pptr, size_t n, size_t size)
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

static char *dup_n(const char *s, size_t n)
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

/* Records an error at a line and column; always returns -1. */
static int fail(struct parse *p, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct parse *p, int line, int col, const char *fmt, ...)
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

static int col_of(const struct line *ln, const char *at)
{
    return (int)(at - ln->s) + 1;
}

static int oom(struct parse *p, const struct line *ln)
{
    return fail(p, ln->no, 1, "out of memory");
}

/* ---- header statements ---- */

static int set_string(struct parse *p, const struct line *ln, char **dst)
{
    if (*dst)
        return fail(p, ln->no, 1, "'%.*s' is given twice", (int)ln->kwlen, ln->kw);
    if (ln->vallen == 0)
        return fail(p, ln->no, col_of(ln, ln->kw) + (int)ln->kwlen,
                    "'%.*s' needs a value", (int)ln->kwlen, ln->kw);
    *dst = dup_n(ln->val, ln->vallen);
    return *dst ? 0 : oom(p, ln);
}

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

static int do_name(struct parse *p, const struct line *ln)
{
    if (ln->vallen && !valid_name(ln->val, ln->vallen))
        return fail(p, ln->no, col_of(ln, ln->val),
                    "layout name '%.*s' may use only lower-case letters, digits and '-'",
                    (int)ln->vallen, ln->val);
    return set_string(p, ln, &p->l->name);
}

static int do_gpu(struct parse *p, const struct line *ln)
{
    const char *w[32];
    size_t wl[32], n = words(ln, w, wl, 32), i;

    if (n == 0)
        return fail(p, ln->no, col_of(ln, ln->kw) + 3, "'gpu' needs at least one GPU name");
    for (i = 0; i < n; i++) {
        if (grow(&p->l->gpus, p->l->ngpus, sizeof(char *)) < 0)
            return oom(p, ln);
        p->l->gpus[p->l->ngpus] = dup_n(w[i], wl[i]);
        if (!p->l->gpus[p->l->ngpus])
            return oom(p, ln);
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

static int do_match(struct parse *p, const struct line *ln)
{
    const char *w[64];
    size_t wl[64], n = words(ln, w, wl, 64), i;
    struct gt_match *m;

    if (n < 2)
        return fail(p, ln->no, col_of(ln, ln->kw) + 5,
                    "'match' needs a source name and at least one device id");
    if (grow(&p->l->matches, p->l->nmatches, sizeof(*m)) < 0)
        return oom(p, ln);
    m = &p->l->matches[p->l->nmatches++];
    m->source = dup_n(w[0], wl[0]);
    m->ids = calloc(n - 1, sizeof(uint64_t));
    if (!m->source || !m->ids)
        return oom(p, ln);
    for (i = 1; i < n; i++) {
        if (parse_id(w[i], wl[i], &m->ids[i - 1]) < 0)
            return fail(p, ln->no, col_of(ln, w[i]),
                        "bad device id '%.*s' (decimal or 0x-prefixed hexadecimal)",
                        (int)wl[i], w[i]);
        m->nids++;
    }
    return 0;
}

static int do_aggregate(struct parse *p, const struct line *ln)
{
    const char *w[3];
    size_t wl[3], n = words(ln, w, wl, 3), i;
    struct gt_agg_rule *r;
    enum gt_agg agg;

    if (n != 2)
        return fail(p, ln->no, col_of(ln, ln->kw) + 9,
                    "'aggregate' takes a block name and 'sum' or 'mean'");
    if (wl[1] == 3 && memcmp(w[1], "sum", 3) == 0)
        agg = GT_AGG_SUM;
    else if (wl[1] == 4 && memcmp(w[1], "mean", 4) == 0)
        agg = GT_AGG_MEAN;
    else
        return fail(p, ln->no, col_of(ln, w[1]),
                    "unknown aggregation '%.*s' (expected sum or mean)", (int)wl[1], w[1]);
    for (i = 0; i < p->l->naggs; i++)
        if (strlen(p->l->aggs[i].block) == wl[0] && memcmp(p->l->aggs[i].block, w[0], wl[0]) == 0)
            return fail(p, ln->no, col_of(ln, w[0]),
                        "block '%.*s' already has an aggregation rule", (int)wl[0], w[0]);
    if (grow(&p->l->aggs, p->l->naggs, sizeof(*r)) < 0)
        return oom(p, ln);
    r = &p->l->aggs[p->l->naggs];
    r->block = dup_n(w[0], wl[0]);
    if (!r->block)
        return oom(p, ln);
    r->agg = agg;
    p->l->naggs++;
    return 0;
}

static int do_option(struct parse *p, const struct line *ln)
{
    const char *w[3], *eq;
    size_t wl[3], n = words(ln, w, wl, 3);
    struct gt_source_option *o;

    eq = n == 2 ? memchr(w[1], '=', wl[1]) : NULL;
    if (!eq || eq == w[1])
        return fail(p, ln->no, col_of(ln, ln->kw) + 6, "'option' takes a source name and KEY=VALUE");
    if (grow(&p->l->options, p->l->noptions, sizeof(*o)) < 0)
        return oom(p, ln);
    o = &p->l->options[p->l->noptions++];
    o->line = ln->no;
    o->source = dup_n(w[0], wl[0]);
    o->key = dup_n(w[1], (size_t)(eq - w[1]));
    o->value = dup_n(eq + 1, wl[1] - (size_t)(eq - w[1]) - 1);
    return o->source && o->key && o->value ? 0 : oom(p, ln);
}

static int do_version(struct parse *p, const struct line *ln)
{
    if (ln->vallen == 1 && ln->val[0] == '1')
        return 0;
    return fail(p, ln->no, ln->vallen ? col_of(ln, ln->val) : (int)ln->len + 1,
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
    return dup_n(s, (size_t)(end - s));
}

static int do_triage(struct parse *p, const struct line *ln)
{
    const char *s = ln->val, *end = ln->val + ln->vallen, *bar1, *bar2;
    struct gt_triage_rule *t;
    const char *kw_end;

    kw_end = s;
    while (kw_end < end && !isspace((unsigned char)*kw_end))
        kw_end++;
    if (!((kw_end - s == 5 && memcmp(s, "queue", 5) == 0) ||
          (kw_end - s == 4 && memcmp(s, "unit", 4) == 0)))
        return fail(p, ln->no, ln->vallen ? col_of(ln, s) : (int)ln->len + 1,
                    "triage rules start with 'queue' or 'unit'");
    bar1 = memchr(kw_end, '|', (size_t)(end - kw_end));
    if (!bar1)
        return fail(p, ln->no, (int)ln->len + 1,
                    "triage rule needs 'METRIC | LABEL' after '%.*s'", (int)(kw_end - s), s);
    bar2 = memchr(bar1 + 1, '|', (size_t)(end - bar1 - 1));
    if (grow(&p->l->triage, p->l->ntriage, sizeof(*t)) < 0)
        return oom(p, ln);
    t = &p->l->triage[p->l->ntriage++];
    t->line = ln->no;
    t->kind = dup_n(s, (size_t)(kw_end - s));
    t->metric = trimmed_dup(kw_end, bar1);
    t->label = trimmed_dup(bar1 + 1, bar2 ? bar2 : end);
    t->verdict = bar2 ? trimmed_dup(bar2 + 1, end) : NULL;
    if (!t->kind || !t->metric || !t->label || (bar2 && !t->verdict))
        return oom(p, ln);
    if (!t->metric[0] || !t->label[0])
        return fail(p, ln->no, col_of(ln, bar1), "triage rule needs both a metric and a label");
    return 0;
}

/* ---- header figures ---- */

static const char *const header_roles[GT_HEADER_NFIGS] = { "busy", "busy-max", "clock" };
/* What each figure's metric must be shown as, so the header can print it. */
static const enum gt_show header_show[GT_HEADER_NFIGS] = {
    GT_SHOW_PERCENT, GT_SHOW_PERCENT, GT_SHOW_VALUE
};

static int header_role(const char *s, size_t n)
{
    int i;

    for (i = 0; i < GT_HEADER_NFIGS; i++)
        if (strlen(header_roles[i]) == n && memcmp(header_roles[i], s, n) == 0)
            return i;
    return -1;
}

static int do_header(struct parse *p, const struct line *ln)
{
    const char *s = ln->val, *end = ln->val + ln->vallen, *name;
    int role;

    while (s < end && !isspace((unsigned char)*s))
        s++;
    role = header_role(ln->val, (size_t)(s - ln->val));
    if (role < 0)
        return fail(p, ln->no, ln->vallen ? col_of(ln, ln->val) : (int)ln->len + 1,
                    "header lines name 'busy', 'busy-max' or 'clock', not '%.*s'",
                    (int)(s - ln->val), ln->val);
    for (name = s; name < end && isspace((unsigned char)*name); name++)
        ;
    if (name == end)
        return fail(p, ln->no, (int)ln->len + 1, "'header %s' needs a metric title or ref",
                    header_roles[role]);
    if (p->hdr[role].metric)
        return fail(p, ln->no, 1, "'header %s' is given twice (line %d)", header_roles[role],
                    p->hdr[role].line);
    p->hdr[role].metric = dup_n(name, (size_t)(end - name));
    p->hdr[role].line = ln->no;
    p->hdr[role].col = col_of(ln, name);
    return p->hdr[role].metric ? 0 : oom(p, ln);
}

static int do_origin(struct parse *p, const struct line *ln)
{
    struct gt_group_def *g = &p->l->groups[p->group];
    int own = ln->vallen == 6 && memcmp(ln->val, "gputop", 6) == 0;

    if (g->count)
        return fail(p, ln->no, col_of(ln, ln->kw),
                    "'origin' must come before the group's first metric");
    if (!own && !(ln->vallen == 5 && memcmp(ln->val, "guide", 5) == 0))
        return fail(p, ln->no, ln->vallen ? col_of(ln, ln->val) : (int)ln->len + 1,
                    "'origin' is 'guide' or 'gputop', not '%.*s'", (int)ln->vallen, ln->val);
    g->own = own;
    return 0;
}

/* ---- body statements ---- */

static int finish_metric(struct parse *p);

static int check_header(struct parse *p, const struct line *ln)
{
    const char *missing = !p->l->name ? "name" : !p->l->title ? "title"
                        : !p->l->family ? "family" : NULL;

    if (missing)
        return fail(p, ln->no, 1, "the header has no '%s' (it must come before the first section)",
                    missing);
    return 0;
}

static int finish_section(struct parse *p)
{
    struct gt_section_def *s;

    if (finish_metric(p) < 0)
        return -1;
    if (p->section < 0)
        return 0;
    s = &p->l->sections[p->section];
    if (!s->key)
        return fail(p, s->line, 1, "section '%s' has no key", s->title);
    if (s->count == 0)
        return fail(p, s->line, 1, "section '%s' has no groups", s->title);
    return 0;
}

static int finish_group(struct parse *p)
{
    struct gt_group_def *g;

    if (finish_metric(p) < 0)
        return -1;
    if (p->group < 0)
        return 0;
    g = &p->l->groups[p->group];
    if (g->count == 0)
        return fail(p, g->line, 1, "%s '%s' has no metrics",
                    g->histogram ? "histogram" : "group", g->title);
    return 0;
}

static int do_section(struct parse *p, const struct line *ln)
{
    struct gt_section_def *s;

    if (!p->in_body && check_header(p, ln) < 0)
        return -1;
    if (finish_group(p) < 0 || finish_section(p) < 0)
        return -1;
    p->in_body = 1;
    if (ln->vallen == 0)
        return fail(p, ln->no, (int)ln->len + 1, "'section' needs a title");
    if (grow(&p->l->sections, p->l->nsections, sizeof(*s)) < 0)
        return oom(p, ln);
    s = &p->l->sections[p->l->nsections];
    s->title = dup_n(ln->val, ln->vallen);
    if (!s->title)
        return oom(p, ln);
    s->line = ln->no;
    s->first = p->l->ngroups;
    p->section = (long)p->l->nsections++;
    p->group = -1;
    return 0;
}

static int do_key(struct parse *p, const struct line *ln)
{
    struct gt_section_def *s = &p->l->sections[p->section];
    size_t i;
    int c;

    if (s->key)
        return fail(p, ln->no, 1, "section '%s' already has a key", s->title);
    if (ln->vallen != 1 || !isgraph((unsigned char)ln->val[0]))
        return fail(p, ln->no, ln->vallen ? col_of(ln, ln->val) : (int)ln->len + 1,
                    "a key is one printable character");
    c = (unsigned char)ln->val[0];
    if (strchr(RESERVED_KEYS, c))
        return fail(p, ln->no, col_of(ln, ln->val),
                    "key '%c' is one of the dashboard's own keys (%s)", c, "q h c r s t p ? / + -");
    for (i = 0; i < p->l->nsections; i++)
        if (p->l->sections[i].key == c)
            return fail(p, ln->no, col_of(ln, ln->val),
                        "key '%c' is already used by section '%s' (line %d)",
                        c, p->l->sections[i].title, p->l->sections[i].line);
    s->key = c;
    return 0;
}

static int do_group(struct parse *p, const struct line *ln, int histogram)
{
    struct gt_group_def *g;

    if (finish_group(p) < 0)
        return -1;
    if (ln->vallen == 0)
        return fail(p, ln->no, (int)ln->len + 1, "'%s' needs a title", histogram ? "histogram" : "group");
    if (grow(&p->l->groups, p->l->ngroups, sizeof(*g)) < 0)
        return oom(p, ln);
    g = &p->l->groups[p->l->ngroups];
    g->title = dup_n(ln->val, ln->vallen);
    if (!g->title)
        return oom(p, ln);
    g->histogram = histogram;
    g->section = (int)p->section;
    g->first = p->l->nmetrics;
    g->line = ln->no;
    p->group = (long)p->l->ngroups++;
    p->l->sections[p->section].count++;
    return 0;
}

static int do_metric(struct parse *p, const struct line *ln)
{
    struct gt_metric_def *m;

    if (finish_metric(p) < 0)
        return -1;
    if (ln->vallen == 0)
        return fail(p, ln->no, (int)ln->len + 1, "'metric' needs a title");
    if (grow(&p->l->metrics, p->l->nmetrics, sizeof(*m)) < 0)
        return oom(p, ln);
    m = &p->l->metrics[p->l->nmetrics];
    m->title = dup_n(ln->val, ln->vallen);
    if (!m->title)
        return oom(p, ln);
    m->section = (int)p->section;
    m->group = (int)p->group;
    m->line = ln->no;  /* until expr says where it starts */
    m->col = 0;
    m->show = p->l->groups[p->group].histogram ? GT_SHOW_BUCKET : (enum gt_show)-1;
    p->metric = (long)p->l->nmetrics++;
    p->l->groups[p->group].count++;
    p->seen_show = p->seen_unit = p->seen_ref = p->seen_desc = 0;
    p->metric_line = ln->no;
    return 0;
}

static int buf_add(struct parse *p, const char *s, size_t n)
{
    if (p->buflen + n + 1 > p->bufcap) {
        size_t cap = (p->buflen + n + 1) * 2;
        char *b = realloc(p->buf, cap);
        if (!b)
            return -1;
        p->buf = b;
        p->bufcap = cap;
    }
    memcpy(p->buf + p->buflen, s, n);
    p->buflen += n;
    p->buf[p->buflen] = '\0';
    return 0;
}

/* Where the expression of an expr, peak or pop statement goes. */
struct expr_target {
    const char *kw;
    char **text;
    struct gt_expr **expr;
    int *line, *col;
};

static struct expr_target expr_target(struct gt_metric_def *m, int cont)
{
    struct expr_target t = { "expr", &m->expr_text, &m->expr, &m->line, &m->col };

    if (cont == CONT_PEAK)
        t = (struct expr_target){ "peak", &m->peak_text, &m->peak, &m->peak_line, &m->peak_col };
    else if (cont == CONT_POP)
        t = (struct expr_target){ "pop", &m->pop_text, &m->pop, &m->pop_line, &m->pop_col };
    return t;
}

static int do_expr(struct parse *p, const struct line *ln, int cont)
{
    struct gt_metric_def *m = &p->l->metrics[p->metric];
    struct expr_target t = expr_target(m, cont);

    if (*t.col)
        return fail(p, ln->no, 1, "metric '%s' already has a%s %s (line %d)", m->title,
                    cont == CONT_EXPR ? "n" : "", t.kw, *t.line);
    if (ln->vallen == 0)
        return fail(p, ln->no, (int)ln->len + 1, "'%s' needs an expression", t.kw);
    p->buflen = 0;
    if (buf_add(p, ln->val, ln->vallen) < 0)
        return oom(p, ln);
    *t.line = ln->no;
    *t.col = col_of(ln, ln->val);
    p->cont = cont;
    p->cont_indent = ln->indent;
    p->pending_blank = 0;
    return 0;
}

static int do_desc(struct parse *p, const struct line *ln)
{
    struct gt_metric_def *m = &p->l->metrics[p->metric];

    if (p->seen_desc++)
        return fail(p, ln->no, 1, "metric '%s' already has a desc", m->title);
    if (ln->vallen == 0)
        return fail(p, ln->no, (int)ln->len + 1, "'desc' needs a value");
    m->desc = dup_n(ln->val, ln->vallen);
    if (!m->desc)
        return oom(p, ln);
    p->cont = CONT_DESC;
    p->cont_indent = ln->indent;
    return 0;
}

static int do_show(struct parse *p, const struct line *ln)
{
    static const struct { const char *name; enum gt_show show; } kinds[] = {
        { "percent", GT_SHOW_PERCENT }, { "count", GT_SHOW_COUNT }, { "value", GT_SHOW_VALUE },
    };
    struct gt_metric_def *m = &p->l->metrics[p->metric];
    size_t i;

    if (p->l->groups[p->group].histogram)
        return fail(p, ln->no, col_of(ln, ln->kw),
                    "'show' has no place in a histogram: its metrics are buckets");
    if (p->seen_show++)
        return fail(p, ln->no, 1, "metric '%s' already has a show", m->title);
    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strlen(kinds[i].name) == ln->vallen && memcmp(kinds[i].name, ln->val, ln->vallen) == 0) {
            m->show = kinds[i].show;
            return 0;
        }
    return fail(p, ln->no, ln->vallen ? col_of(ln, ln->val) : (int)ln->len + 1,
                "unknown display kind '%.*s' (expected percent, count or value)",
                (int)ln->vallen, ln->val);
}

static int do_metric_string(struct parse *p, const struct line *ln, char **dst, int *seen)
{
    if ((*seen)++)
        return fail(p, ln->no, 1, "metric '%s' already has a %.*s",
                    p->l->metrics[p->metric].title, (int)ln->kwlen, ln->kw);
    return set_string(p, ln, dst);
}

/* Ends a pending continuation: compiles a collected expression. */
static int end_continuation(struct parse *p)
{
    struct expr_target t;
    struct gt_diag ed;
    int line, col;

    if (p->cont == CONT_NONE || p->cont == CONT_DESC) {
        p->cont = CONT_NONE;
        return 0;
    }
    t = expr_target(&p->l->metrics[p->metric], p->cont);
    p->cont = CONT_NONE;
    while (p->buflen && isspace((unsigned char)p->buf[p->buflen - 1]))
        p->buf[--p->buflen] = '\0';
    *t.text = dup_n(p->buf, p->buflen);
    if (!*t.text)
        return fail(p, *t.line, *t.col, "out of memory");
    gt_diag_clear(&ed);
    *t.expr = gt_expr_parse(*t.text, strlen(*t.text), &ed);
    if (*t.expr)
        return 0;
    /* Expression positions are relative to its text; its first line starts
     * at the statement's column, later lines are whole file lines. */
    line = *t.line + (ed.line > 0 ? ed.line - 1 : 0);
    col = ed.line <= 1 ? *t.col + ed.col - 1 : ed.col;
    return fail(p, line, col, "%s", ed.msg);
}

static int finish_metric(struct parse *p)
{
    struct gt_metric_def *m;

    if (end_continuation(p) < 0)
        return -1;
    if (p->metric < 0)
        return 0;
    m = &p->l->metrics[p->metric];
    p->metric = -1;
    if (!m->expr)
        return fail(p, p->metric_line, 1, "metric '%s' has no expr", m->title);
    if (m->pop && !m->peak)
        return fail(p, m->pop_line, 1, "metric '%s' has a pop but no peak", m->title);
    if ((int)m->show < 0)
        return fail(p, p->metric_line, 1, "metric '%s' has no 'show' (percent, count or value)",
                    m->title);
    if (!m->unit) {
        m->unit = dup_n("", 0);
        if (!m->unit)
            return fail(p, m->line, 1, "out of memory");
    }
    return 0;
}

/* ---- dispatch ---- */

static int keyword_is(const struct line *ln, const char *kw)
{
    return strlen(kw) == ln->kwlen && memcmp(ln->kw, kw, ln->kwlen) == 0;
}

static int need_context(struct parse *p, const struct line *ln, long cur, const char *where)
{
    if (!p->in_body)
        return fail(p, ln->no, col_of(ln, ln->kw), "'%.*s' before the first section",
                    (int)ln->kwlen, ln->kw);
    if (cur < 0)
        return fail(p, ln->no, col_of(ln, ln->kw), "'%.*s' outside %s",
                    (int)ln->kwlen, ln->kw, where);
    return 0;
}

static int header_only(struct parse *p, const struct line *ln)
{
    if (p->in_body)
        return fail(p, ln->no, col_of(ln, ln->kw),
                    "'%.*s' belongs in the header, before the first section",
                    (int)ln->kwlen, ln->kw);
    return 0;
}

static int statement(struct parse *p, const struct line *ln)
{
    struct gt_layout *l = p->l;

    if (keyword_is(ln, "triage"))
        return finish_metric(p) < 0 ? -1 : do_triage(p, ln);
    if (keyword_is(ln, "header"))
        return finish_metric(p) < 0 ? -1 : do_header(p, ln);
    if (keyword_is(ln, "origin"))
        return need_context(p, ln, p->group, "a group") < 0 || finish_metric(p) < 0 ? -1
             : do_origin(p, ln);
    if (keyword_is(ln, "name"))
        return header_only(p, ln) < 0 ? -1 : do_name(p, ln);
    if (keyword_is(ln, "title"))
        return header_only(p, ln) < 0 ? -1 : set_string(p, ln, &l->title);
    if (keyword_is(ln, "family"))
        return header_only(p, ln) < 0 ? -1 : set_string(p, ln, &l->family);
    if (keyword_is(ln, "gpu"))
        return header_only(p, ln) < 0 ? -1 : do_gpu(p, ln);
    if (keyword_is(ln, "match"))
        return header_only(p, ln) < 0 ? -1 : do_match(p, ln);
    if (keyword_is(ln, "aggregate"))
        return header_only(p, ln) < 0 ? -1 : do_aggregate(p, ln);
    if (keyword_is(ln, "option"))
        return header_only(p, ln) < 0 ? -1 : do_option(p, ln);
    if (keyword_is(ln, "gputop-layout"))
        return fail(p, ln->no, 1, "'gputop-layout' must be the first statement, once");
    if (keyword_is(ln, "section"))
        return do_section(p, ln);
    if (keyword_is(ln, "key"))
        return need_context(p, ln, p->section, "a section") < 0 ? -1 : do_key(p, ln);
    if (keyword_is(ln, "group") || keyword_is(ln, "histogram"))
        return need_context(p, ln, p->section, "a section") < 0 ? -1
             : do_group(p, ln, keyword_is(ln, "histogram"));
    if (keyword_is(ln, "metric"))
        return need_context(p, ln, p->group, "a group") < 0 ? -1 : do_metric(p, ln);
    if (keyword_is(ln, "expr") || keyword_is(ln, "unit") || keyword_is(ln, "show")
        || keyword_is(ln, "desc") || keyword_is(ln, "ref") || keyword_is(ln, "peak")
        || keyword_is(ln, "pop")) {
        if (need_context(p, ln, p->metric, "a metric") < 0)
            return -1;
        if (keyword_is(ln, "expr") || keyword_is(ln, "peak") || keyword_is(ln, "pop"))
            return do_expr(p, ln, keyword_is(ln, "expr") ? CONT_EXPR
                                  : keyword_is(ln, "peak") ? CONT_PEAK : CONT_POP);
        if (keyword_is(ln, "desc"))
            return do_desc(p, ln);
        if (keyword_is(ln, "show"))
            return do_show(p, ln);
        if (keyword_is(ln, "unit"))
            return do_metric_string(p, ln, &l->metrics[p->metric].unit, &p->seen_unit);
        return do_metric_string(p, ln, &l->metrics[p->metric].ref, &p->seen_ref);
    }
    return fail(p, ln->no, col_of(ln, ln->kw), "unknown keyword '%.*s'", (int)ln->kwlen, ln->kw);
}

static void split_line(struct line *ln)
{
    const char *s = ln->s, *end = ln->s + ln->len;

    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    ln->indent = (size_t)(s - ln->s);
    ln->kw = s;
    while (s < end && !isspace((unsigned char)*s))
        s++;
    ln->kwlen = (size_t)(s - ln->kw);
    while (s < end && isspace((unsigned char)*s))
        s++;
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    ln->val = s;
    ln->vallen = (size_t)(end - s);
}

static int continuation(struct parse *p, const struct line *ln)
{
    struct gt_metric_def *m = &p->l->metrics[p->metric];

    if (p->cont != CONT_DESC) {
        /* Keep the line whole so columns in it are the file's columns. */
        while (p->pending_blank > 0) {
            if (buf_add(p, "\n", 1) < 0)
                return oom(p, ln);
            p->pending_blank--;
        }
        if (buf_add(p, "\n", 1) < 0 || buf_add(p, ln->s, ln->len) < 0)
            return oom(p, ln);
        return 0;
    }
    {
        size_t old = strlen(m->desc);
        char *d = realloc(m->desc, old + 1 + ln->kwlen + ln->len + 2);
        const char *s = ln->kw, *end = ln->s + ln->len;
        if (!d)
            return oom(p, ln);
        while (end > s && isspace((unsigned char)end[-1]))
            end--;
        d[old] = ' ';
        memcpy(d + old + 1, s, (size_t)(end - s));
        d[old + 1 + (size_t)(end - s)] = '\0';
        m->desc = d;
    }
    return 0;
}

static int parse_lines(struct parse *p, const char *text, size_t len)
{
    const char *s = text, *end = text + len, *nl;
    struct line ln;
    int no = 0, seen_version = 0;

    while (s < end) {
        nl = memchr(s, '\n', (size_t)(end - s));
        memset(&ln, 0, sizeof(ln));
        ln.s = s;
        ln.len = nl ? (size_t)(nl - s) : (size_t)(end - s);
        if (ln.len && s[ln.len - 1] == '\r')
            ln.len--;
        ln.no = ++no;
        s = nl ? nl + 1 : end;
        if (memchr(ln.s, '\0', ln.len))
            return fail(p, ln.no, 1, "NUL byte in layout text");
        split_line(&ln);
        if (ln.kwlen == 0 || ln.kw[0] == '#') {
            p->pending_blank++;
            continue;
        }
        if (p->cont != CONT_NONE && ln.indent > p->cont_indent) {
            if (continuation(p, &ln) < 0)
                return -1;
            continue;
        }
        p->pending_blank = 0;
        if (end_continuation(p) < 0)
            return -1;
        if (!seen_version) {
            if (!keyword_is(&ln, "gputop-layout"))
                return fail(p, ln.no, col_of(&ln, ln.kw),
                            "a layout starts with 'gputop-layout 1', not '%.*s'",
                            (int)ln.kwlen, ln.kw);
            seen_version = 1;
            if (do_version(p, &ln) < 0)
                return -1;
            continue;
        }
        if (statement(p, &ln) < 0)
            return -1;
    }
    if (!seen_version)
        return fail(p, no > 0 ? no : 1, 1, "empty layout: it must start with 'gputop-layout 1'");
    if (finish_group(p) < 0 || finish_section(p) < 0)
        return -1;
    if (!p->in_body) {
        struct line last = { .s = "", .no = no };
        if (check_header(p, &last) < 0)
            return -1;
        return fail(p, no, 1, "layout has no sections");
    }
    return 0;
}

static int is_ref_text(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s) && *s != '.')
            return 0;
    return 1;
}

/* The metric a rule names by ref or title: its index (the last of *n). */
static int named_metric(const struct gt_layout *l, const char *name, int *n)
{
    int found = -1, by_ref = is_ref_text(name);
    size_t j;

    *n = 0;
    for (j = 0; j < l->nmetrics; j++) {
        const struct gt_metric_def *m = &l->metrics[j];
        const char *key = by_ref ? m->ref : m->title;
        if (key && strcmp(key, name) == 0) {
            found = (int)j;
            (*n)++;
        }
    }
    return found;
}

/* Triage rules name metrics by ref or title; both must be unambiguous. */
static int resolve_triage(struct parse *p)
{
    size_t i;

    for (i = 0; i < p->l->ntriage; i++) {
        struct gt_triage_rule *t = &p->l->triage[i];
        int n, by_ref = is_ref_text(t->metric), found = named_metric(p->l, t->metric, &n);
        if (n == 0)
            return fail(p, t->line, 1, "triage rule names no metric: no %s '%s'",
                        by_ref ? "ref" : "title", t->metric);
        if (n > 1)
            return fail(p, t->line, 1, "triage rule is ambiguous: %d metrics have %s '%s'",
                        n, by_ref ? "ref" : "title", t->metric);
        free(t->metric);
        t->metric = strdup(p->l->metrics[found].title);
        if (!t->metric)
            return fail(p, t->line, 1, "out of memory");
    }
    return 0;
}

static const char *show_word(enum gt_show s)
{
    return s == GT_SHOW_PERCENT ? "percent" : s == GT_SHOW_COUNT ? "count"
         : s == GT_SHOW_VALUE ? "value" : "bucket";
}

/* Each header figure names one metric, shown the way the header prints it. */
static int resolve_header(struct parse *p)
{
    int i, n;

    for (i = 0; i < GT_HEADER_NFIGS; i++) {
        const char *name = p->hdr[i].metric, *role = header_roles[i];
        int line = p->hdr[i].line, col = p->hdr[i].col, m;
        p->l->header[i] = -1;
        if (!name)
            continue;
        m = named_metric(p->l, name, &n);
        if (n == 0)
            return fail(p, line, col, "header %s names no metric: no %s '%s'", role,
                        is_ref_text(name) ? "ref" : "title", name);
        if (n > 1)
            return fail(p, line, col, "header %s is ambiguous: %d metrics have %s '%s'", role,
                        n, is_ref_text(name) ? "ref" : "title", name);
        if (p->l->metrics[m].show != header_show[i])
            return fail(p, line, col, "header %s needs a 'show %s' metric; '%s' is 'show %s'",
                        role, show_word(header_show[i]), p->l->metrics[m].title,
                        show_word(p->l->metrics[m].show));
        p->l->header[i] = m;
    }
    return 0;
}

static void free_parse(struct parse *p)
{
    int i;

    free(p->buf);
    for (i = 0; i < GT_HEADER_NFIGS; i++)
        free(p->hdr[i].metric);
}

struct gt_layout *gt_layout_parse(const char *file, const char *text, size_t len,
                                  struct gt_diag *d)
{
    struct parse p;
    struct gt_layout *l = calloc(1, sizeof(*l));

    gt_diag_clear(d);
    if (!l) {
        gt_diag_set(d, "out of memory");
        return NULL;
    }
    memset(&p, 0, sizeof(p));
    p.l = l;
    p.d = d;
    p.section = p.group = p.metric = -1;
    l->file = strdup(file ? file : "");
    l->text = dup_n(text, len);
    l->text_len = len;
    if (!l->file || !l->text) {
        gt_diag_set(d, "out of memory");
        gt_layout_free(l);
        return NULL;
    }
    if (parse_lines(&p, text, len) < 0 || resolve_triage(&p) < 0 || resolve_header(&p) < 0) {
        free_parse(&p);
        gt_layout_free(l);
        return NULL;
    }
    free_parse(&p);
    return l;
}
