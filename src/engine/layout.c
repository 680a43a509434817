/* The layout parser: a line-oriented format (man/gputop-layout.5) read into
 * sections, groups and metrics; every error names file:line:column. */
#include "gputop/layout.h"
#include "gputop/expr.h"
#include "gputop/triage.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout_parse.h"

#define RESERVED_KEYS "qhcrstp?/+- "

/* ---- body statements ---- */

static int finish_metric(struct parse *p);

static int check_header(struct parse *p, const struct line *ln)
{
    const char *missing = !p->l->name ? "name" : !p->l->title ? "title"
                        : !p->l->family ? "family" : NULL;

    if (missing)
        return gt_lp_fail(p, ln->no, 1,
                          "the header has no '%s' (it must come before the first section)",
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
        return gt_lp_fail(p, s->line, 1, "section '%s' has no key", s->title);
    if (s->count == 0)
        return gt_lp_fail(p, s->line, 1, "section '%s' has no groups", s->title);
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
        return gt_lp_fail(p, g->line, 1, "%s '%s' has no metrics",
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
        return gt_lp_fail(p, ln->no, (int)ln->len + 1, "'section' needs a title");
    if (gt_lp_grow(&p->l->sections, p->l->nsections, sizeof(*s)) < 0)
        return gt_lp_oom(p, ln);
    s = &p->l->sections[p->l->nsections];
    s->title = gt_lp_dup(ln->val, ln->vallen);
    if (!s->title)
        return gt_lp_oom(p, ln);
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
        return gt_lp_fail(p, ln->no, 1, "section '%s' already has a key", s->title);
    if (ln->vallen != 1 || !isgraph((unsigned char)ln->val[0]))
        return gt_lp_fail(p, ln->no, ln->vallen ? gt_lp_col(ln, ln->val) : (int)ln->len + 1,
                          "a key is one printable character");
    c = (unsigned char)ln->val[0];
    if (strchr(RESERVED_KEYS, c))
        return gt_lp_fail(p, ln->no, gt_lp_col(ln, ln->val),
                          "key '%c' is one of the dashboard's own keys (%s)", c,
                          "q h c r s t p ? / + -");
    for (i = 0; i < p->l->nsections; i++)
        if (p->l->sections[i].key == c)
            return gt_lp_fail(p, ln->no, gt_lp_col(ln, ln->val),
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
        return gt_lp_fail(p, ln->no, (int)ln->len + 1, "'%s' needs a title",
                          histogram ? "histogram" : "group");
    if (gt_lp_grow(&p->l->groups, p->l->ngroups, sizeof(*g)) < 0)
        return gt_lp_oom(p, ln);
    g = &p->l->groups[p->l->ngroups];
    g->title = gt_lp_dup(ln->val, ln->vallen);
    if (!g->title)
        return gt_lp_oom(p, ln);
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
        return gt_lp_fail(p, ln->no, (int)ln->len + 1, "'metric' needs a title");
    if (gt_lp_grow(&p->l->metrics, p->l->nmetrics, sizeof(*m)) < 0)
        return gt_lp_oom(p, ln);
    m = &p->l->metrics[p->l->nmetrics];
    m->title = gt_lp_dup(ln->val, ln->vallen);
    if (!m->title)
        return gt_lp_oom(p, ln);
    m->section = (int)p->section;
    m->group = (int)p->group;
    m->line = ln->no;  /* until expr says where it starts */
    m->col = 0;
    m->show = p->l->groups[p->group].histogram ? GT_SHOW_BUCKET : (enum gt_show)-1;
    p->metric = (long)p->l->nmetrics++;
    p->l->groups[p->group].count++;
    p->seen_show = p->seen_unit = p->seen_ref = p->seen_desc = 0;
    p->seen_good = p->seen_share = 0;
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
        return gt_lp_fail(p, ln->no, 1, "metric '%s' already has a%s %s (line %d)", m->title,
                          cont == CONT_EXPR ? "n" : "", t.kw, *t.line);
    if (ln->vallen == 0)
        return gt_lp_fail(p, ln->no, (int)ln->len + 1, "'%s' needs an expression", t.kw);
    p->buflen = 0;
    if (buf_add(p, ln->val, ln->vallen) < 0)
        return gt_lp_oom(p, ln);
    *t.line = ln->no;
    *t.col = gt_lp_col(ln, ln->val);
    p->cont = cont;
    p->cont_indent = ln->indent;
    p->pending_blank = 0;
    return 0;
}

static int do_desc(struct parse *p, const struct line *ln)
{
    struct gt_metric_def *m = &p->l->metrics[p->metric];

    if (p->seen_desc++)
        return gt_lp_fail(p, ln->no, 1, "metric '%s' already has a desc", m->title);
    if (ln->vallen == 0)
        return gt_lp_fail(p, ln->no, (int)ln->len + 1, "'desc' needs a value");
    m->desc = gt_lp_dup(ln->val, ln->vallen);
    if (!m->desc)
        return gt_lp_oom(p, ln);
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
        return gt_lp_fail(p, ln->no, gt_lp_col(ln, ln->kw),
                          "'show' has no place in a histogram: its metrics are buckets");
    if (p->seen_show++)
        return gt_lp_fail(p, ln->no, 1, "metric '%s' already has a show", m->title);
    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strlen(kinds[i].name) == ln->vallen && memcmp(kinds[i].name, ln->val, ln->vallen) == 0) {
            m->show = kinds[i].show;
            return 0;
        }
    return gt_lp_fail(p, ln->no, ln->vallen ? gt_lp_col(ln, ln->val) : (int)ln->len + 1,
                      "unknown display kind '%.*s' (expected percent, count or value)",
                      (int)ln->vallen, ln->val);
}

static int do_metric_string(struct parse *p, const struct line *ln, char **dst, int *seen)
{
    if ((*seen)++)
        return gt_lp_fail(p, ln->no, 1, "metric '%s' already has a %.*s",
                          p->l->metrics[p->metric].title, (int)ln->kwlen, ln->kw);
    return gt_lp_set_string(p, ln, dst);
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
    *t.text = gt_lp_dup(p->buf, p->buflen);
    if (!*t.text)
        return gt_lp_fail(p, *t.line, *t.col, "out of memory");
    gt_diag_clear(&ed);
    *t.expr = gt_expr_parse(*t.text, strlen(*t.text), &ed);
    if (*t.expr)
        return 0;
    /* Expression positions are relative to its text; its first line starts
     * at the statement's column, later lines are whole file lines. */
    line = *t.line + (ed.line > 0 ? ed.line - 1 : 0);
    col = ed.line <= 1 ? *t.col + ed.col - 1 : ed.col;
    return gt_lp_fail(p, line, col, "%s", ed.msg);
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
        return gt_lp_fail(p, p->metric_line, 1, "metric '%s' has no expr", m->title);
    if (m->pop && !m->peak)
        return gt_lp_fail(p, m->pop_line, 1, "metric '%s' has a pop but no peak", m->title);
    if ((int)m->show < 0)
        return gt_lp_fail(p, p->metric_line, 1,
                          "metric '%s' has no 'show' (percent, count or value)",
                          m->title);
    if (m->share_active && m->show != GT_SHOW_PERCENT)
        return gt_lp_fail(p, p->metric_line, 1,
                          "metric '%s' is a 'share active' but not 'show percent'", m->title);
    if (!m->unit) {
        m->unit = gt_lp_dup("", 0);
        if (!m->unit)
            return gt_lp_fail(p, m->line, 1, "out of memory");
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
        return gt_lp_fail(p, ln->no, gt_lp_col(ln, ln->kw), "'%.*s' before the first section",
                          (int)ln->kwlen, ln->kw);
    if (cur < 0)
        return gt_lp_fail(p, ln->no, gt_lp_col(ln, ln->kw), "'%.*s' outside %s",
                          (int)ln->kwlen, ln->kw, where);
    return 0;
}

static int header_only(struct parse *p, const struct line *ln)
{
    if (p->in_body)
        return gt_lp_fail(p, ln->no, gt_lp_col(ln, ln->kw),
                          "'%.*s' belongs in the header, before the first section",
                          (int)ln->kwlen, ln->kw);
    return 0;
}

static int statement(struct parse *p, const struct line *ln)
{
    struct gt_layout *l = p->l;

    if (keyword_is(ln, "triage"))
        return finish_metric(p) < 0 ? -1 : gt_lp_triage(p, ln);
    if (keyword_is(ln, "header"))
        return finish_metric(p) < 0 ? -1 : gt_lp_header(p, ln);
    if (keyword_is(ln, "origin"))
        return need_context(p, ln, p->group, "a group") < 0 || finish_metric(p) < 0 ? -1
             : gt_lp_origin(p, ln);
    if (keyword_is(ln, "name"))
        return header_only(p, ln) < 0 ? -1 : gt_lp_name(p, ln);
    if (keyword_is(ln, "title"))
        return header_only(p, ln) < 0 ? -1 : gt_lp_set_string(p, ln, &l->title);
    if (keyword_is(ln, "family"))
        return header_only(p, ln) < 0 ? -1 : gt_lp_set_string(p, ln, &l->family);
    if (keyword_is(ln, "gpu"))
        return header_only(p, ln) < 0 ? -1 : gt_lp_gpu(p, ln);
    if (keyword_is(ln, "match"))
        return header_only(p, ln) < 0 ? -1 : gt_lp_match(p, ln);
    if (keyword_is(ln, "aggregate"))
        return header_only(p, ln) < 0 ? -1 : gt_lp_aggregate(p, ln);
    if (keyword_is(ln, "option"))
        return header_only(p, ln) < 0 ? -1 : gt_lp_option(p, ln);
    if (keyword_is(ln, "gputop-layout"))
        return gt_lp_fail(p, ln->no, 1, "'gputop-layout' must be the first statement, once");
    if (keyword_is(ln, "section"))
        return do_section(p, ln);
    if (keyword_is(ln, "key"))
        return need_context(p, ln, p->section, "a section") < 0 ? -1 : do_key(p, ln);
    if (keyword_is(ln, "tab"))
        return need_context(p, ln, p->section, "a section") < 0 ? -1 : gt_lp_tab(p, ln);
    if (keyword_is(ln, "good"))
        return need_context(p, ln, p->metric, "a metric") < 0 ? -1 : gt_lp_good(p, ln);
    if (keyword_is(ln, "share"))
        return need_context(p, ln, p->metric, "a metric") < 0 ? -1 : gt_lp_share(p, ln);
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
    return gt_lp_fail(p, ln->no, gt_lp_col(ln, ln->kw), "unknown keyword '%.*s'", (int)ln->kwlen,
                      ln->kw);
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
                return gt_lp_oom(p, ln);
            p->pending_blank--;
        }
        if (buf_add(p, "\n", 1) < 0 || buf_add(p, ln->s, ln->len) < 0)
            return gt_lp_oom(p, ln);
        return 0;
    }
    {
        size_t old = strlen(m->desc);
        char *d = realloc(m->desc, old + 1 + ln->kwlen + ln->len + 2);
        const char *s = ln->kw, *end = ln->s + ln->len;
        if (!d)
            return gt_lp_oom(p, ln);
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
            return gt_lp_fail(p, ln.no, 1, "NUL byte in layout text");
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
                return gt_lp_fail(p, ln.no, gt_lp_col(&ln, ln.kw),
                                  "a layout starts with 'gputop-layout 1', not '%.*s'",
                                  (int)ln.kwlen, ln.kw);
            seen_version = 1;
            if (gt_lp_version(p, &ln) < 0)
                return -1;
            continue;
        }
        if (statement(p, &ln) < 0)
            return -1;
    }
    if (!seen_version)
        return gt_lp_fail(p, no > 0 ? no : 1, 1,
                          "empty layout: it must start with 'gputop-layout 1'");
    if (finish_group(p) < 0 || finish_section(p) < 0)
        return -1;
    if (!p->in_body) {
        struct line last = { .s = "", .no = no };
        if (check_header(p, &last) < 0)
            return -1;
        return gt_lp_fail(p, no, 1, "layout has no sections");
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
    char err[256];
    int line;

    for (i = 0; i < p->l->ntriage; i++) {
        struct gt_triage_rule *t = &p->l->triage[i];
        int n, by_ref = is_ref_text(t->metric), found = named_metric(p->l, t->metric, &n);
        if (n == 0)
            return gt_lp_fail(p, t->line, 1, "triage rule names no metric: no %s '%s'",
                              by_ref ? "ref" : "title", t->metric);
        if (n > 1)
            return gt_lp_fail(p, t->line, 1, "triage rule is ambiguous: %d metrics have %s '%s'",
                              n, by_ref ? "ref" : "title", t->metric);
        free(t->metric);
        t->metric = strdup(p->l->metrics[found].title);
        if (!t->metric)
            return gt_lp_fail(p, t->line, 1, "out of memory");
    }
    if (gt_layout_triage_resolve(p->l, err, sizeof(err), &line) < 0)
        return gt_lp_fail(p, line, 1, "%s", err);
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
        const char *name = p->hdr[i].metric, *role = gt_lp_header_roles[i];
        int line = p->hdr[i].line, col = p->hdr[i].col, m;
        p->l->header[i] = -1;
        if (!name)
            continue;
        m = named_metric(p->l, name, &n);
        if (n == 0)
            return gt_lp_fail(p, line, col, "header %s names no metric: no %s '%s'", role,
                              is_ref_text(name) ? "ref" : "title", name);
        if (n > 1)
            return gt_lp_fail(p, line, col, "header %s is ambiguous: %d metrics have %s '%s'", role,
                              n, is_ref_text(name) ? "ref" : "title", name);
        if (p->l->metrics[m].show != gt_lp_header_show[i])
            return gt_lp_fail(p, line, col, "header %s needs a 'show %s' metric; '%s' is 'show %s'",
                              role, show_word(gt_lp_header_show[i]), p->l->metrics[m].title,
                              show_word(p->l->metrics[m].show));
        p->l->header[i] = m;
    }
    gt_layout_bind_busy(p->l, p->l);
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
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    memset(&p, 0, sizeof(p));
    p.l = l;
    p.d = d;
    p.section = p.group = p.metric = -1;
    l->file = strdup(file ? file : "");
    l->text = gt_lp_dup(text, len);
    l->text_len = len;
    if (!l->file || !l->text) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
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
