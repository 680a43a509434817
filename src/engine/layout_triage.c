/* Layout lines of the triage decision tree: 'triage step' (a verdict and the
 * conditions that give it), 'triage note' (a side finding), 'triage hold'
 * and 'triage band' (hysteresis in time and in value), parsed and checked. */
#include "gputop/triage.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int err_at(char *err, size_t errlen, size_t *off, size_t at, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    *off = at;
    return -1;
}

/* [s, e) without surrounding blanks, as a new string. */
static char *trim_dup(const char *s, const char *e)
{
    char *r;

    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    r = malloc((size_t)(e - s) + 1);
    if (!r)
        return NULL;
    memcpy(r, s, (size_t)(e - s));
    r[e - s] = '\0';
    return r;
}

static int parse_hold(struct gt_layout *l, const char *s, const char *e, const char *val,
                      char *err, size_t errlen, size_t *off)
{
    char buf[32], *end;
    long n;
    size_t len;

    while (s < e && isspace((unsigned char)*s))
        s++;
    len = (size_t)(e - s);
    if (len == 0 || len >= sizeof(buf))
        return err_at(err, errlen, off, (size_t)(s - val), "triage hold needs a number of intervals (1..100)");
    memcpy(buf, s, len);
    buf[len] = '\0';
    n = strtol(buf, &end, 10);
    if (*end || n < 1 || n > 100)
        return err_at(err, errlen, off, (size_t)(s - val),
                      "triage hold needs a number of intervals (1..100), not '%s'", buf);
    l->triage_hold = (int)n;
    return 0;
}

static int parse_band(struct gt_layout *l, const char *s, const char *e, const char *val,
                      char *err, size_t errlen, size_t *off)
{
    char buf[32], *end;
    double b;
    size_t len;

    while (s < e && isspace((unsigned char)*s))
        s++;
    len = (size_t)(e - s);
    if (len == 0 || len >= sizeof(buf))
        return err_at(err, errlen, off, (size_t)(s - val), "triage band needs a number (0..50)");
    memcpy(buf, s, len);
    buf[len] = '\0';
    b = strtod(buf, &end);
    if (*end || !(b >= 0 && b <= 50))
        return err_at(err, errlen, off, (size_t)(s - val),
                      "triage band needs a number (0..50), not '%s'", buf);
    l->triage_band = b;
    return 0;
}

/* "METRIC else FALLBACK": the fallback's name moved to alt_name. */
static int split_else(struct gt_triage_cond *c)
{
    char *e = strstr(c->name, " else ");
    char *alt;

    if (!e)
        return 0;
    alt = trim_dup(e + 6, e + strlen(e));
    *e = '\0';
    if (!alt)
        return -1;
    c->alt_name = alt;
    while (e > c->name && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return c->name[0] && alt[0] ? 0 : -1;
}

/* "METRIC OP NUMBER", OP one of < <= > >=. */
static int parse_cond(struct gt_triage_cond *c, const char *s, const char *e, const char *val,
                      char *err, size_t errlen, size_t *off)
{
    const char *op = s, *num;
    char buf[64], *end;
    size_t len;

    while (op < e && *op != '<' && *op != '>')
        op++;
    if (op == e)
        return err_at(err, errlen, off, (size_t)(s - val),
                      "triage condition needs 'METRIC < NUMBER' (or <=, >, >=)");
    c->name = trim_dup(s, op);
    c->alt = -1;
    if (!c->name)
        return err_at(err, errlen, off, (size_t)(s - val), "out of memory");
    if (!c->name[0])
        return err_at(err, errlen, off, (size_t)(op - val), "triage condition names no metric");
    if (split_else(c) < 0)
        return err_at(err, errlen, off, (size_t)(s - val),
                      "triage condition 'METRIC else FALLBACK' needs a metric on both sides");
    num = op + 1;
    if (num < e && *num == '=') {
        c->op = *op == '<' ? GT_TRIAGE_LE : GT_TRIAGE_GE;
        num++;
    } else {
        c->op = *op == '<' ? GT_TRIAGE_LT : GT_TRIAGE_GT;
    }
    while (num < e && isspace((unsigned char)*num))
        num++;
    len = (size_t)(e - num);
    while (len && isspace((unsigned char)num[len - 1]))
        len--;
    if (len == 0 || len >= sizeof(buf))
        return err_at(err, errlen, off, (size_t)(num - val), "triage condition needs a threshold number");
    memcpy(buf, num, len);
    buf[len] = '\0';
    c->threshold = strtod(buf, &end);
    if (*end || !isfinite(c->threshold))
        return err_at(err, errlen, off, (size_t)(num - val),
                      "triage threshold '%s' is not a number", buf);
    return 0;
}

static int parse_conds(struct gt_triage_step *st, const char *s, const char *e, const char *val,
                       char *err, size_t errlen, size_t *off)
{
    const char *p = s, *amp;

    while (s < e && isspace((unsigned char)*s))
        s++;
    if (s == e)
        return 0; /* no condition: the step always holds (the tree's last) */
    for (p = s; p <= e; p = amp + 1) {
        struct gt_triage_cond *c;
        amp = memchr(p, '&', (size_t)(e - p));
        if (!amp)
            amp = e;
        c = realloc(st->conds, (st->nconds + 1) * sizeof(*c));
        if (!c)
            return err_at(err, errlen, off, (size_t)(p - val), "out of memory");
        st->conds = c;
        c = &st->conds[st->nconds++];
        memset(c, 0, sizeof(*c));
        if (parse_cond(c, p, amp, val, err, errlen, off) < 0)
            return -1;
        if (amp == e)
            break;
    }
    return 0;
}

static int parse_step(struct gt_layout *l, int line, int note, const char *s, const char *e,
                      const char *val, char *err, size_t errlen, size_t *off)
{
    const char *bar[3], *p = s;
    struct gt_triage_step *st;
    int i;

    for (i = 0; i < 3; i++) {
        bar[i] = memchr(p, '|', (size_t)(e - p));
        if (!bar[i])
            return err_at(err, errlen, off, (size_t)(e - val),
                          "triage %s needs 'VERDICT | CONDITIONS | REF | NEXT STEP'",
                          note ? "note" : "step");
        p = bar[i] + 1;
    }
    st = realloc(l->steps, (l->nsteps + 1) * sizeof(*st));
    if (!st)
        return err_at(err, errlen, off, 0, "out of memory");
    l->steps = st;
    st = &l->steps[l->nsteps++];
    memset(st, 0, sizeof(*st));
    st->line = line;
    st->note = note;
    st->verdict = trim_dup(s, bar[0]);
    st->ref = trim_dup(bar[1] + 1, bar[2]);
    st->next = trim_dup(bar[2] + 1, e);
    if (!st->verdict || !st->ref || !st->next)
        return err_at(err, errlen, off, 0, "out of memory");
    if (!st->verdict[0] || !st->ref[0] || !st->next[0])
        return err_at(err, errlen, off, (size_t)(s - val),
                      "triage %s needs a verdict, a guide reference and a next step",
                      note ? "note" : "step");
    return parse_conds(st, bar[0] + 1, bar[1], val, err, errlen, off);
}

int gt_layout_triage_parse(struct gt_layout *l, int line, const char *val, size_t len,
                           char *err, size_t errlen, size_t *off)
{
    const char *e = val + len, *kw_end = val;

    while (kw_end < e && !isspace((unsigned char)*kw_end))
        kw_end++;
    if (kw_end - val == 4 && memcmp(val, "hold", 4) == 0)
        return parse_hold(l, kw_end, e, val, err, errlen, off);
    if (kw_end - val == 4 && memcmp(val, "band", 4) == 0)
        return parse_band(l, kw_end, e, val, err, errlen, off);
    if (kw_end - val == 4 && (memcmp(val, "step", 4) == 0 || memcmp(val, "note", 4) == 0))
        return parse_step(l, line, val[0] == 'n', kw_end, e, val, err, errlen, off);
    if (kw_end - val == 9 && memcmp(val, "side-step", 9) == 0) {
        if (parse_step(l, line, 0, kw_end, e, val, err, errlen, off) < 0)
            return -1;
        l->steps[l->nsteps - 1].side = 1;
        return 0;
    }
    if (kw_end - val == 17 && memcmp(val, "step-if-available", 17) == 0) {
        if (parse_step(l, line, 0, kw_end, e, val, err, errlen, off) < 0)
            return -1;
        l->steps[l->nsteps - 1].if_available = 1;
        return 0;
    }
    return err_at(err, errlen, off, 0,
                  "triage lines start with 'queue', 'unit', 'step', 'step-if-available', "
                  "'side-step', 'note', 'hold' or 'band'");
}

static int has_rule(const struct gt_layout *l, const char *kind)
{
    size_t i;

    for (i = 0; i < l->ntriage; i++)
        if (strcmp(l->triage[i].kind, kind) == 0)
            return 1;
    return 0;
}

/* A metric by ref or title: its index, or -1 with err set. */
/* 1 when a metric has name as its ref or title. */
static int names_metric(const struct gt_layout *l, const char *name)
{
    size_t j;

    for (j = 0; j < l->nmetrics; j++)
        if ((l->metrics[j].ref && strcmp(l->metrics[j].ref, name) == 0) ||
            strcmp(l->metrics[j].title, name) == 0)
            return 1;
    return 0;
}

static int find_cond_metric(const struct gt_layout *l, const char *name, char *err, size_t errlen)
{
    size_t j;
    int found = -1, n = 0;

    for (j = 0; j < l->nmetrics; j++) {
        const struct gt_metric_def *m = &l->metrics[j];
        if ((m->ref && strcmp(m->ref, name) == 0) || strcmp(m->title, name) == 0) {
            found = (int)j;
            n++;
        }
    }
    if (n == 1)
        return found;
    if (n)
        snprintf(err, errlen, "triage condition is ambiguous: %d metrics are '%s'", n, name);
    else
        snprintf(err, errlen, "triage condition names no metric: no ref or title '%s'", name);
    return -1;
}

/* Names a condition's metric (and its fallback) by ref or title, like the
 * other triage lines. */
static int resolve_cond(const struct gt_layout *l, struct gt_triage_cond *c, char *err,
                        size_t errlen)
{
    if (strcmp(c->name, "unit") == 0 || strcmp(c->name, "queue") == 0 ||
        strcmp(c->name, "queue sum") == 0) {
        const char *kind = c->name[0] == 'u' ? "unit" : "queue";
        c->metric = c->name[0] == 'u' ? GT_TRIAGE_UNIT
                  : c->name[5] ? GT_TRIAGE_QUEUE_SUM : GT_TRIAGE_QUEUE;
        if (c->alt_name) {
            snprintf(err, errlen, "triage condition '%s else %s': only a metric has a fallback",
                     c->name, c->alt_name);
            return -1;
        }
        if (has_rule(l, kind))
            return 0;
        snprintf(err, errlen, "triage condition on '%s' but the layout has no 'triage %s' line",
                 c->name, kind);
        return -1;
    }
    /* no metric of that name: the header's busy figure, bound once the
     * header is read (layout.c) or the layout appended (layout_merge.c) */
    if (strcmp(c->name, "busy") == 0 && !c->alt_name && !names_metric(l, c->name)) {
        c->metric = GT_TRIAGE_BUSY;
        return 0;
    }
    if ((c->metric = find_cond_metric(l, c->name, err, errlen)) < 0)
        return -1;
    if (c->alt_name && (c->alt = find_cond_metric(l, c->alt_name, err, errlen)) < 0)
        return -1;
    return 0;
}

void gt_layout_bind_busy(struct gt_layout *l, const struct gt_layout *figs)
{
    int busy = figs->header[GT_HEADER_BUSY] >= 0 ? figs->header[GT_HEADER_BUSY]
                                                 : figs->header[GT_HEADER_BUSY_MAX];
    size_t i, k;

    for (i = 0; busy >= 0 && i < l->nsteps; i++)
        for (k = 0; k < l->steps[i].nconds; k++)
            if (l->steps[i].conds[k].metric == GT_TRIAGE_BUSY)
                l->steps[i].conds[k].metric = busy;
}

/* The index of the last 'triage step' (notes may follow it). */
static size_t last_step(const struct gt_layout *l)
{
    size_t i = l->nsteps;

    while (i > 0 && l->steps[i - 1].note)
        i--;
    return i ? i - 1 : 0;
}

/* A good-directed metric the tree tests the bad way (a stall rate '>= 10',
 * a buffer's fill '< 70') is flagged from that threshold on, the test
 * nearest the good end where several do, so that the dashboard never
 * draws as good a value that gives a verdict. */
static void set_flags(struct gt_layout *l)
{
    size_t i, k;

    for (i = 0; i < l->nmetrics; i++)
        l->metrics[i].flagged = 0;
    for (i = 0; i < l->nsteps; i++)
        for (k = 0; k < l->steps[i].nconds; k++) {
            const struct gt_triage_cond *c = &l->steps[i].conds[k];
            struct gt_metric_def *m = c->metric >= 0 ? &l->metrics[c->metric] : NULL;
            int low = c->op == GT_TRIAGE_LT || c->op == GT_TRIAGE_LE;
            if (!m || m->good == GT_GOOD_NONE || low != (m->good == GT_GOOD_HIGH))
                continue;
            if (!m->flagged || (low ? c->threshold > m->flag_at : c->threshold < m->flag_at))
                m->flag_at = c->threshold;
            m->flagged = 1;
        }
}

int gt_layout_triage_resolve(struct gt_layout *l, char *err, size_t errlen, int *line)
{
    size_t i, k;

    for (i = 0; i < l->nsteps; i++) {
        struct gt_triage_step *st = &l->steps[i];
        *line = st->line;
        for (k = 0; k < st->nconds; k++)
            if (resolve_cond(l, &st->conds[k], err, errlen) < 0)
                return -1;
        if (strcmp(st->verdict, "unit-bound") == 0 && !has_rule(l, "unit")) {
            snprintf(err, errlen, "triage step 'unit-bound' but the layout has no 'triage unit' line");
            return -1;
        }
        if (st->note && st->nconds == 0) {
            snprintf(err, errlen, "triage note '%s' needs a condition", st->verdict);
            return -1;
        }
        if (!st->note && st->nconds == 0 && last_step(l) != i) {
            snprintf(err, errlen, "triage step '%s' has no condition, so the steps after it "
                     "are never reached; it must come last", st->verdict);
            return -1;
        }
    }
    set_flags(l);
    return 0;
}

void gt_triage_step_free(struct gt_triage_step *st)
{
    size_t k;

    for (k = 0; k < st->nconds; k++) {
        free(st->conds[k].name);
        free(st->conds[k].alt_name);
    }
    free(st->conds);
    free(st->verdict);
    free(st->ref);
    free(st->next);
}

void gt_layout_triage_free(struct gt_layout *l)
{
    size_t i;

    for (i = 0; i < l->nsteps; i++)
        gt_triage_step_free(&l->steps[i]);
    free(l->steps);
    l->steps = NULL;
    l->nsteps = 0;
}
