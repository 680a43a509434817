/* {hw:COUNTER} titles bound to a hand-built catalogue: names replaced by
 * the counters' hw_name, metrics naming absent counters left out, and the
 * groups, sections, header figures and triage references renumbered. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/catalog.h"
#include "gputop/layout.h"

static const char text[] =
    "gputop-layout 1\nname t\ntitle T\nfamily t\n"
    "header busy Busiest\n"
    "header clock {hw:E1} clock\n"
    "triage unit {hw:E0} busy | e0 | e0-bound\n"
    "triage unit {hw:E1} busy | e1 | e1-bound\n"
    "triage step hot | {hw:E1} busy > 50 | 1 | look at e1\n"
    "triage step calm | Busiest < 50 | 1 | nothing to do\n"
    "section Engines\n  key e\n"
    "  group Busy\n"
    "    metric {hw:E0} busy\n      expr $E0\n      show percent\n"
    "    metric {hw:E1} busy\n      expr $E1\n      show percent\n"
    "    metric {hw:E0} and {hw:E2}\n      expr $E0\n      show percent\n"
    "  group Only missing\n"
    "    metric {hw:E1} clock\n      expr $E0\n      show value\n"
    "  group Totals\n"
    "    metric Busiest\n      expr $E0\n      show percent\n"
    "section Gone\n  key g\n"
    "  group Also missing\n"
    "    metric {hw:E3} x\n      expr $E0\n      show value\n";

static void catalog(struct gt_catalog *c)
{
    int k;

    gt_catalog_init(c);
    k = gt_catalog_add(c, "E0", "drm", GT_COUNTER_DELTA, 1, 1.0);
    cr_assert_geq(k, 0);
    c->counters[k].hw_name = strdup("fragment");
    k = gt_catalog_add(c, "E2", "drm", GT_COUNTER_DELTA, 1, 1.0);
    cr_assert_geq(k, 0);   /* no hw_name: its own name stands in */
}

Test(layout_bind, names_replaced_and_missing_metrics_left_out)
{
    struct gt_catalog c;
    struct gt_diag d;
    struct gt_layout *l = gt_layout_parse("b.layout", text, strlen(text), &d);

    cr_assert_not_null(l, "%d:%d %s", d.line, d.col, d.msg);
    cr_assert_eq(l->nmetrics, 6);
    catalog(&c);
    cr_assert_eq(gt_layout_bind_names(l, &c), 0);
    cr_assert_eq(l->nmetrics, 3, "the {hw:E1} and {hw:E3} metrics left out");
    cr_assert_str_eq(l->metrics[0].title, "fragment busy");
    cr_assert_str_eq(l->metrics[1].title, "fragment and E2");
    cr_assert_str_eq(l->metrics[2].title, "Busiest");
    cr_assert_eq(l->ngroups, 2, "emptied groups dropped");
    cr_assert_str_eq(l->groups[1].title, "Totals");
    cr_assert_eq(l->groups[1].first, 2);
    cr_assert_eq(l->groups[1].count, 1);
    cr_assert_eq(l->metrics[2].group, 1);
    cr_assert_eq(l->nsections, 1, "an emptied section dropped");
    cr_assert_eq(l->sections[0].count, 2);
    cr_assert_eq(l->header[GT_HEADER_BUSY], 2, "renumbered");
    cr_assert_eq(l->header[GT_HEADER_CLOCK], -1, "its metric went");
    cr_assert_eq(l->ntriage, 1);
    cr_assert_str_eq(l->triage[0].metric, "fragment busy");
    cr_assert_eq(l->nsteps, 1, "the step on a missing metric dropped");
    cr_assert_str_eq(l->steps[0].verdict, "calm");
    cr_assert_eq(l->steps[0].conds[0].metric, 2);
    gt_layout_free(l);
    gt_catalog_free(&c);
}

Test(layout_bind, a_layout_without_placeholders_is_unchanged)
{
    struct gt_catalog c;
    struct gt_diag d;
    static const char t[] = "gputop-layout 1\nname t\ntitle T\nfamily t\n"
                            "section S\n  key x\n  group G\n"
                            "    metric A {b}\n      expr $E0\n      show count\n";
    struct gt_layout *l = gt_layout_parse("u.layout", t, strlen(t), &d);

    cr_assert_not_null(l, "%s", d.msg);
    catalog(&c);
    cr_assert_eq(gt_layout_bind_names(l, &c), 0);
    cr_assert_eq(l->nmetrics, 1);
    cr_assert_str_eq(l->metrics[0].title, "A {b}");
    gt_layout_free(l);
    gt_catalog_free(&c);
}
