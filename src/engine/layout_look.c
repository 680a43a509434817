/* Layout statements on how the dashboard shows things rather than what it
 * computes: a section's short tab label, a metric's good direction and
 * whether it is a share of active cycles (man/gputop-layout.5). */
#include "gputop/layout.h"

#include <string.h>

#include "layout_parse.h"

/* Tabs share one line with every other section's: a label longer than
 * this could not sit beside the others at 80 columns. */
#define TAB_MAX 14

static int value_is(const struct line *ln, const char *w)
{
    return strlen(w) == ln->vallen && memcmp(ln->val, w, ln->vallen) == 0;
}

static int value_col(const struct line *ln)
{
    return ln->vallen ? gt_lp_col(ln, ln->val) : (int)ln->len + 1;
}

static int utf8_columns(const char *s, size_t n)
{
    int c = 0;
    size_t i;

    for (i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

int gt_lp_tab(struct parse *p, const struct line *ln)
{
    struct gt_section_def *s = &p->l->sections[p->section];

    if (s->tab)
        return gt_lp_fail(p, ln->no, 1, "section '%s' already has a tab label", s->title);
    if (ln->vallen == 0)
        return gt_lp_fail(p, ln->no, value_col(ln), "'tab' needs a label");
    if (utf8_columns(ln->val, ln->vallen) > TAB_MAX)
        return gt_lp_fail(p, ln->no, value_col(ln),
                          "tab label '%.*s' is longer than %d characters",
                          (int)ln->vallen, ln->val, TAB_MAX);
    s->tab = gt_lp_dup(ln->val, ln->vallen);
    return s->tab ? 0 : gt_lp_oom(p, ln);
}

int gt_lp_good(struct parse *p, const struct line *ln)
{
    struct gt_metric_def *m = &p->l->metrics[p->metric];

    if (p->seen_good++)
        return gt_lp_fail(p, ln->no, 1, "metric '%s' already has a good", m->title);
    if (value_is(ln, "high"))
        m->good = GT_GOOD_HIGH;
    else if (value_is(ln, "low"))
        m->good = GT_GOOD_LOW;
    else if (value_is(ln, "none"))
        m->good = GT_GOOD_NONE;
    else
        return gt_lp_fail(p, ln->no, value_col(ln),
                          "unknown direction '%.*s' (expected high, low or none)",
                          (int)ln->vallen, ln->val);
    return 0;
}

int gt_lp_share(struct parse *p, const struct line *ln)
{
    struct gt_metric_def *m = &p->l->metrics[p->metric];

    if (p->seen_share++)
        return gt_lp_fail(p, ln->no, 1, "metric '%s' already has a share", m->title);
    if (!value_is(ln, "active"))
        return gt_lp_fail(p, ln->no, value_col(ln), "unknown share '%.*s' (expected active)",
                          (int)ln->vallen, ln->val);
    m->share_active = 1;
    return 0;
}
