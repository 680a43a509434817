/* Appending a layout's sections to another's (a source beside the GPU's):
 * indices renumbered, options carried, a key clash refused unchanged. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "gputop/layout.h"

static struct gt_layout *parse(const char *text)
{
    struct gt_diag d;
    struct gt_layout *l = gt_layout_parse("t.layout", text, strlen(text), &d);

    cr_assert_not_null(l, "%s", d.msg);
    return l;
}

#define GPU "gputop-layout 1\nname gpu\ntitle G\nfamily g\n" \
            "section A\n  key 1\n  group A1\n    metric a\n      expr $X\n      show count\n" \
            "section B\n  key 2\n  group B1\n    metric b\n      expr $Y\n      show count\n"
#define CM  "gputop-layout 1\nname cm\ntitle C\nfamily mips-cm\noption mips-cm qual.CMRequests=7\n" \
            "section CM\n  key %c\n  group C1\n    metric c1\n      expr $Z\n      show count\n" \
            "  group C2\n    metric c2\n      expr $W\n      show count\n" \
            "    metric c3\n      expr $V\n      show value\n"

Test(layout_merge, sections_groups_metrics_and_options_renumbered)
{
    char text[1024];
    struct gt_layout *g = parse(GPU), *c;
    struct gt_diag d;

    snprintf(text, sizeof(text), CM, 'm');
    c = parse(text);
    cr_assert_eq(gt_layout_append(g, c, &d), 0, "%s", d.msg);
    cr_expect_eq(g->nsections, 3u);
    cr_expect_eq(g->ngroups, 4u);
    cr_expect_eq(g->nmetrics, 5u);
    cr_expect_str_eq(g->sections[2].title, "CM");
    cr_expect_eq(g->sections[2].first, 2u);
    cr_expect_eq(g->sections[2].count, 2u);
    cr_expect_eq(g->groups[3].section, 2);
    cr_expect_eq(g->groups[3].first, 3u);
    cr_expect_eq(g->groups[3].count, 2u);
    cr_expect_str_eq(g->metrics[4].title, "c3");
    cr_expect_eq(g->metrics[4].section, 2);
    cr_expect_eq(g->metrics[4].group, 3);
    cr_expect_eq(g->noptions, 1u);
    cr_expect_str_eq(g->options[0].source, "mips-cm");
    cr_expect_str_eq(g->options[0].key, "qual.CMRequests");
    cr_expect_str_eq(g->options[0].value, "7");
    cr_expect_eq(gt_layout_find_metric(g, "c2"), 3);
    gt_layout_free(c);
    gt_layout_free(g);
}

Test(layout_merge, key_clash_is_refused_and_changes_nothing)
{
    char text[1024];
    struct gt_layout *g = parse(GPU), *c;
    struct gt_diag d;

    snprintf(text, sizeof(text), CM, '2');
    c = parse(text);
    cr_assert_eq(gt_layout_append(g, c, &d), -1);
    cr_expect(strstr(d.msg, "section 'CM' uses key '2', which layout 'gpu' already uses"), "%s",
              d.msg);
    cr_expect_eq(d.line, 6);
    cr_expect_eq(g->nsections, 2u);
    cr_expect_eq(c->nsections, 1u);
    gt_layout_free(c);
    gt_layout_free(g);
}

Test(layout_merge, option_line_needs_key_and_value)
{
    static const char bad[] = "gputop-layout 1\nname x\ntitle X\nfamily x\noption mips-cm qual\n";
    struct gt_diag d;

    cr_expect_null(gt_layout_parse("t.layout", bad, strlen(bad), &d));
    cr_expect(strstr(d.msg, "'option' takes a source name and KEY=VALUE"), "%s", d.msg);
    cr_expect_eq(d.line, 5);
}

/* The gpu-clocks layout beside a GPU layout: its header figures fill the
 * GPU's empty ones, and its notes join the GPU's steps with their metrics
 * renumbered and 'busy' bound to the GPU layout's busy figure. */
#define CLK "gputop-layout 1\nname clk\ntitle K\nfamily clk\nheader freq f\n" \
            "triage note slow | busy >= 80 & f < 90 | k | n\n" \
            "triage note hot | f < 50 | k | n\n" \
            "section K\n  key k\n  group K1\n    metric f\n      expr $F\n      show value\n"

Test(layout_merge, header_figures_and_notes_come_along)
{
    struct gt_layout *g = parse("gputop-layout 1\nname gpu\ntitle G\nfamily g\nheader busy a\n"
                                "triage step idle | a < 15 | 3.2 | n\n"
                                "section A\n  key 1\n  group A1\n    metric a\n      expr $X\n"
                                "      show percent\n");
    struct gt_layout *k = parse(CLK);
    struct gt_diag d;

    cr_assert_eq(gt_layout_append(g, k, &d), 0, "%s", d.msg);
    cr_assert_eq(g->header[GT_HEADER_FREQ], 1);          /* f, after a */
    cr_assert_eq(g->header[GT_HEADER_BUSY], 0);
    cr_assert_eq(g->nsteps, 3u);
    cr_expect_str_eq(g->steps[1].verdict, "slow");
    cr_expect_eq(g->steps[1].conds[0].metric, 0);        /* busy: the GPU's a */
    cr_expect_eq(g->steps[1].conds[1].metric, 1);        /* f renumbered */
    cr_expect_eq(g->steps[2].conds[0].metric, 1);
    gt_layout_free(k);
    gt_layout_free(g);
}

/* A GPU layout without a busy figure: the note on 'busy' stays behind,
 * the other comes along. */
Test(layout_merge, a_busy_note_needs_a_busy_figure)
{
    struct gt_layout *g = parse(GPU), *k = parse(CLK);
    struct gt_diag d;

    cr_assert_eq(gt_layout_append(g, k, &d), 0, "%s", d.msg);
    cr_assert_eq(g->nsteps, 1u);
    cr_expect_str_eq(g->steps[0].verdict, "hot");
    cr_expect_eq(g->steps[0].conds[0].metric, 2);
    cr_expect_eq(k->nsteps, 1u);
    gt_layout_free(k);
    gt_layout_free(g);
}
