/* Layout format: a good layout read back in full, and every error path with
 * its message and file:line:column. */
#include <criterion/criterion.h>
#include <string.h>

#include "gputop/expr.h"
#include "gputop/layout.h"

#define HEADER "gputop-layout 1\nname test\ntitle Test GPU\nfamily test\n"

static const char good[] =
    "# a comment\n"
    "gputop-layout 1\n"
    "name mali-test\n"
    "title Test GPU\n"
    "family mali-test\n"
    "gpu G720 G715\n"
    "match mali 0xC000 49153\n"
    "aggregate shadercore mean\n"
    "aggregate memsys sum\n"
    "triage queue 3.2.1 | binning phase\n"
    "triage unit Texture unit utilization | texture unit | texture-bound\n"
    "\n"
    "section GPU activity\n"
    "  key 2\n"
    "  group GPU utilization\n"
    "    metric Binning phase queue utilization\n"
    "      ref 3.2.1\n"
    "      expr max(min((($MaliA -\n"
    "           $MaliB) / $MaliC) * 100,\n"
    "\n"
    "           # comments inside continuation are skipped\n"
    "           100), 0)\n"
    "      unit %\n"
    "      show percent\n"
    "      desc Share of busy cycles\n"
    "        with binning work issued.\n"
    "    metric Texture unit utilization\n"
    "      expr $MaliT\n"
    "      show value\n"
    "  histogram External memory read latency\n"
    "    metric Output external read latency 0-127 cycles\n"
    "      expr $MaliL0\n"
    "      unit beats\n"
    "    metric Output external read latency 384+ cycles\n"
    "      expr $MaliR - $MaliL0\n"
    "section GPU configuration\n"
    "  key i\n"
    "  group GPU configuration counters\n"
    "    metric Shader core count\n"
    "      expr $MaliConstantsShaderCoreCount\n"
    "      show value\n";

Test(layout, good_layout_reads_back_in_full)
{
    struct gt_diag d;
    struct gt_layout *l = gt_layout_parse("good.layout", good, strlen(good), &d);
    const struct gt_metric_def *m;

    cr_assert_not_null(l, "%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
    cr_assert_str_eq(l->name, "mali-test");
    cr_assert_str_eq(l->title, "Test GPU");
    cr_assert_str_eq(l->family, "mali-test");
    cr_assert_eq(l->ngpus, 2);
    cr_assert_str_eq(l->gpus[1], "G715");
    cr_assert_eq(l->nmatches, 1);
    cr_assert_str_eq(l->matches[0].source, "mali");
    cr_assert_eq(l->matches[0].nids, 2);
    cr_assert_eq(l->matches[0].ids[0], 0xC000);
    cr_assert_eq(l->matches[0].ids[1], 0xC001);
    cr_assert_eq(gt_layout_agg_for(l, "shadercore"), GT_AGG_MEAN);
    cr_assert_eq(gt_layout_agg_for(l, "memsys"), GT_AGG_SUM);
    cr_assert_eq(gt_layout_agg_for(l, "tiler"), GT_AGG_SUM);
    cr_assert_eq(l->nsections, 2);
    cr_assert_str_eq(l->sections[0].title, "GPU activity");
    cr_assert_eq(l->sections[0].key, '2');
    cr_assert_eq(l->sections[0].count, 2);
    cr_assert_eq(l->sections[1].key, 'i');
    cr_assert_eq(l->ngroups, 3);
    cr_assert_eq(l->groups[1].histogram, 1);
    cr_assert_eq(l->groups[1].first, 2);
    cr_assert_eq(l->groups[1].count, 2);
    cr_assert_eq(l->nmetrics, 5);
    m = &l->metrics[0];
    cr_assert_str_eq(m->title, "Binning phase queue utilization");
    cr_assert_str_eq(m->ref, "3.2.1");
    cr_assert_str_eq(m->unit, "%");
    cr_assert_eq(m->show, GT_SHOW_PERCENT);
    cr_assert_str_eq(m->desc, "Share of busy cycles with binning work issued.");
    cr_assert_eq(m->line, 18);
    cr_assert_eq(m->col, 12);
    cr_assert(strstr(m->expr_text, "max(min((($MaliA -\n") == m->expr_text);
    cr_assert_eq(gt_expr_nrefs(m->expr), 3);
    cr_assert_eq(l->metrics[1].show, GT_SHOW_VALUE);
    cr_assert_str_eq(l->metrics[1].unit, "");
    cr_assert_null(l->metrics[1].ref);
    cr_assert_eq(l->metrics[2].show, GT_SHOW_BUCKET);
    cr_assert_eq(l->metrics[3].group, 1);
    cr_assert_eq(l->metrics[4].section, 1);
    cr_assert_eq(l->ntriage, 2);
    cr_assert_str_eq(l->triage[0].kind, "queue");
    cr_assert_str_eq(l->triage[0].metric, "Binning phase queue utilization");
    cr_assert_str_eq(l->triage[0].label, "binning phase");
    cr_assert_null(l->triage[0].verdict);
    cr_assert_str_eq(l->triage[1].verdict, "texture-bound");
    cr_assert_eq(gt_layout_find_metric(l, "3.2.1"), 0);
    cr_assert_eq(gt_layout_find_metric(l, "Shader core count"), 4);
    cr_assert_eq(gt_layout_find_metric(l, "nope"), -1);
    gt_layout_free(l);
}

/* How things look: a section's tab label, a metric's good direction and
 * 'share active'; a layout without them gets none, 'good none' and 0. */
Test(layout, tab_label_good_direction_and_share_active)
{
    static const char t[] = HEADER
        "section Shader core texture unit\n  key 7\n  tab Texture\n  group G\n"
        "    metric Hit rate\n      expr 1\n      show percent\n      good high\n"
        "    metric Stall rate\n      expr 1\n      show percent\n      good low\n"
        "      share active\n"
        "    metric Cycles\n      expr 1\n      show count\n      good none\n"
        "section Plain\n  key 8\n  group H\n    metric M\n      expr 1\n      show percent\n";
    struct gt_diag d;
    struct gt_layout *l = gt_layout_parse("look", t, strlen(t), &d);

    cr_assert_not_null(l, "%d:%d %s", d.line, d.col, d.msg);
    cr_assert_str_eq(l->sections[0].tab, "Texture");
    cr_assert_null(l->sections[1].tab);
    cr_assert_eq(l->metrics[0].good, GT_GOOD_HIGH);
    cr_assert_eq(l->metrics[1].good, GT_GOOD_LOW);
    cr_assert_eq(l->metrics[1].share_active, 1);
    cr_assert_eq(l->metrics[0].share_active, 0);
    cr_assert_eq(l->metrics[2].good, GT_GOOD_NONE);
    cr_assert_eq(l->metrics[3].good, GT_GOOD_NONE);
    gt_layout_free(l);
}

/* The header's figures name metrics by title or ref; a group marked
 * 'origin gputop' holds gputop's own metrics, not the guide's. */
Test(layout, header_figures_and_own_groups)
{
    static const char t[] =
        HEADER
        "header busy GPU busy\n"
        "header clock GPU clock\n"
        "section S\n  key x\n"
        "  group Time and clock\n"
        "    origin gputop\n"
        "    metric GPU busy\n      expr $A / $C * 100\n      show percent\n"
        "    metric GPU clock\n      expr $C / $GputopIntervalSeconds / 1000000\n"
        "      unit MHz\n      show value\n"
        "  group G\n"
        "    origin guide\n"
        "    metric Busy at max clock\n      ref 3.9\n      expr $A\n      show percent\n"
        "header busy-max 3.9\n";
    struct gt_diag d;
    struct gt_layout *l = gt_layout_parse("h.layout", t, strlen(t), &d);

    cr_assert_not_null(l, "%d:%d %s", d.line, d.col, d.msg);
    cr_assert_eq(l->header[GT_HEADER_BUSY], 0);
    cr_assert_eq(l->header[GT_HEADER_CLOCK], 1);
    cr_assert_eq(l->header[GT_HEADER_BUSY_MAX], 2);
    cr_assert_eq(l->groups[0].own, 1);
    cr_assert_eq(l->groups[1].own, 0);
    gt_layout_free(l);
}

Test(layout, no_header_lines_no_figures)
{
    struct gt_diag d;
    struct gt_layout *l = gt_layout_parse("good.layout", good, strlen(good), &d);

    cr_assert_not_null(l);
    cr_assert_eq(l->header[GT_HEADER_BUSY], -1);
    cr_assert_eq(l->header[GT_HEADER_BUSY_MAX], -1);
    cr_assert_eq(l->header[GT_HEADER_CLOCK], -1);
    cr_assert_eq(l->groups[0].own, 0);
    gt_layout_free(l);
}

Test(layout, crlf_line_ends_are_accepted)
{
    const char *t = "gputop-layout 1\r\nname a\r\ntitle A\r\nfamily a\r\nsection S\r\nkey x\r\n"
                    "group G\r\nmetric M\r\nexpr $X\r\nshow count\r\n";
    struct gt_diag d;
    struct gt_layout *l = gt_layout_parse("crlf", t, strlen(t), &d);

    cr_assert_not_null(l, "%d:%d %s", d.line, d.col, d.msg);
    cr_assert_str_eq(l->metrics[0].title, "M");
    gt_layout_free(l);
}

struct lerr {
    const char *text;
    int line, col;
    const char *msg;
};

static void expect_layout_error(const struct lerr *c)
{
    struct gt_diag d;
    struct gt_layout *l = gt_layout_parse("bad.layout", c->text, strlen(c->text), &d);
    char buf[2048];

    cr_assert_null(l, "should fail: %s", c->msg);
    gt_diag_format(&d, buf, sizeof(buf));
    cr_assert(strstr(d.msg, c->msg), "message '%s' lacks '%s'", d.msg, c->msg);
    cr_assert_str_eq(d.file, "bad.layout");
    cr_assert_eq(d.line, c->line, "'%s': line %d, expected %d", d.msg, d.line, c->line);
    cr_assert_eq(d.col, c->col, "'%s': col %d, expected %d", d.msg, d.col, c->col);
}

#define SEC "section S\n  key x\n  group G\n"

Test(layout_errors, each_with_message_and_position)
{
    static const struct lerr cases[] = {
        { "", 1, 1, "empty layout" },
        { "name x\n", 1, 1, "a layout starts with 'gputop-layout 1'" },
        { "gputop-layout 2\n", 1, 15, "unsupported layout format version '2'" },
        { HEADER "gputop-layout 1\n", 5, 1, "must be the first statement" },
        { "gputop-layout 1\nname Bad_Name\n", 2, 6, "only lower-case letters" },
        { "gputop-layout 1\nname a\nname b\n", 3, 1, "'name' is given twice" },
        { "gputop-layout 1\ntitle\n", 2, 6, "'title' needs a value" },
        { "gputop-layout 1\nname a\nsection S\n", 3, 1, "the header has no 'title'" },
        { "gputop-layout 1\nname a\ntitle T\n", 3, 1, "the header has no 'family'" },
        { HEADER, 4, 1, "layout has no sections" },
        { HEADER "match mali\n", 5, 6, "needs a source name and at least one device id" },
        { HEADER "match mali 0xC000 0xZZ\n", 5, 19, "bad device id '0xZZ'" },
        { HEADER "aggregate shadercore average\n", 5, 22, "unknown aggregation 'average'" },
        { HEADER "aggregate shadercore\n", 5, 10, "'aggregate' takes a block name" },
        { HEADER "aggregate a sum\naggregate a mean\n", 6, 11, "already has an aggregation rule" },
        { HEADER "gpu\n", 5, 4, "'gpu' needs at least one GPU name" },
        { HEADER "frobnicate 3\n", 5, 1, "unknown keyword 'frobnicate'" },
        { HEADER "  key x\n", 5, 3, "'key' before the first section" },
        { HEADER "group G\n", 5, 1, "'group' before the first section" },
        { HEADER "section S\n  key x\n  metric M\n", 7, 3, "'metric' outside a group" },
        { HEADER "section S\n  key x\n  group G\n  expr 1\n", 8, 3, "'expr' outside a metric" },
        { HEADER "section S\n  key x\n  group G\n    metric M\n      expr 1\n      show count\nname z\n",
          11, 1, "'name' belongs in the header" },
        { HEADER "section S\n  group G\n    metric M\n      expr 1\n      show count\n", 5, 1,
          "section 'S' has no key" },
        { HEADER "section S\n  key q\n", 6, 7, "key 'q' is one of the dashboard's own keys" },
        { HEADER "section S\n  key xy\n", 6, 7, "a key is one printable character" },
        { HEADER "section S\n  key x\n  key y\n", 7, 1, "already has a key" },
        { HEADER SEC "    metric M\n      expr 1\n      show count\nsection T\n  key x\n", 12, 7,
          "key 'x' is already used by section 'S' (line 5)" },
        { HEADER "section S\n  key x\n", 5, 1, "section 'S' has no groups" },
        { HEADER SEC, 7, 1, "group 'G' has no metrics" },
        { HEADER "section S\n  key x\n  histogram H\n", 7, 1, "histogram 'H' has no metrics" },
        { HEADER SEC "    metric M\n      show count\n", 8, 1, "metric 'M' has no expr" },
        { HEADER SEC "    metric M\n      expr 1\n", 8, 1, "metric 'M' has no 'show'" },
        { HEADER SEC "    metric M\n      expr 1\n      expr 2\n      show count\n", 10, 1,
          "already has an expr" },
        { HEADER SEC "    metric M\n      expr 1\n      show bar\n", 10, 12,
          "unknown display kind 'bar'" },
        { HEADER SEC "    metric M\n      expr 1\n      show count\n      show count\n", 11, 1,
          "already has a show" },
        { HEADER "section S\n  key x\n  histogram H\n    metric M\n      expr 1\n      show count\n",
          10, 7, "'show' has no place in a histogram" },
        { HEADER SEC "    metric M\n      expr 1\n      unit a\n      unit b\n      show count\n",
          11, 1, "already has a unit" },
        { HEADER SEC "    metric\n", 8, 11, "'metric' needs a title" },
        { HEADER SEC "    metric M\n      expr\n", 9, 11, "'expr' needs an expression" },
        /* expression errors land on the file position */
        { HEADER SEC "    metric M\n      expr max(mn($A, 1), 0)\n      show count\n", 9, 16,
          "unknown function 'mn'" },
        { HEADER SEC "    metric M\n      expr max(min($A,\n        1), 0\n      show count\n", 9, 12,
          "unbalanced parenthesis: 'max(' is never closed" },
        { HEADER SEC "    metric M\n      expr $A +\n        $B *\n      show count\n", 10, 12,
          "dangling operator '*'" },
        { HEADER SEC "    metric M\n      expr $A\n        + ) \n      show count\n", 10, 9,
          "dangling operator '+'" },
        { HEADER SEC "    metric M\n      expr 1\n      show count\ntriage queue X | x\n", 11, 1,
          "triage rule names no metric: no title 'X'" },
        { HEADER SEC "    metric M\n      expr 1\n      show count\ntriage queue 9.9 | x\n", 11, 1,
          "no ref '9.9'" },
        { HEADER SEC "    metric M\n      expr 1\n      show count\n    metric M\n      expr 2\n"
          "      show count\ntriage unit M | m | m-bound\n", 14, 1, "triage rule is ambiguous" },
        { HEADER "triage stall X | y\n", 5, 8, "triage lines start with 'queue', 'unit', 'step', 'step-if-available', 'side-step', 'note', 'hold' or 'band'" },
        { HEADER "triage queue X\n", 5, 15, "triage rule needs 'METRIC | LABEL'" },
        { HEADER "triage queue X |  \n", 5, 16, "needs both a metric and a label" },
        /* header figures and gputop's own groups */
        { HEADER "header speed X\n", 5, 8,
          "header lines name 'busy', 'busy-max', 'clock', 'freq', 'freq-cap', 'freq-top' or 'temp', not 'speed'" },
        { HEADER "header\n", 5, 7, "header lines name 'busy', 'busy-max', 'clock', 'freq', 'freq-cap', 'freq-top' or 'temp'" },
        { HEADER "header busy\n", 5, 12, "'header busy' needs a metric title or ref" },
        { HEADER "header busy A\nheader busy B\n", 6, 1, "'header busy' is given twice (line 5)" },
        { HEADER SEC "    metric M\n      expr 1\n      show percent\nheader busy X\n", 11, 13,
          "header busy names no metric: no title 'X'" },
        { HEADER SEC "    metric M\n      expr 1\n      show count\nheader busy-max M\n", 11, 17,
          "header busy-max needs a 'show percent' metric; 'M' is 'show count'" },
        { HEADER SEC "    metric M\n      expr 1\n      show percent\nheader clock M\n", 11, 14,
          "header clock needs a 'show value' metric; 'M' is 'show percent'" },
        /* how things look */
        { HEADER "section S\n  key x\n  tab\n", 7, 6, "'tab' needs a label" },
        { HEADER "section S\n  key x\n  tab A\n  tab B\n", 8, 1, "already has a tab label" },
        { HEADER "section S\n  key x\n  tab Shader core texture\n", 7, 7,
          "tab label 'Shader core texture' is longer than 14 characters" },
        { HEADER "tab A\n", 5, 1, "'tab' before the first section" },
        { HEADER SEC "    metric M\n      expr 1\n      show percent\n      good up\n", 11, 12,
          "unknown direction 'up' (expected high, low or none)" },
        { HEADER SEC "    metric M\n      expr 1\n      show percent\n      good low\n"
          "      good high\n", 12, 1, "metric 'M' already has a good" },
        { HEADER SEC "  good low\n", 8, 3, "'good' outside a metric" },
        { HEADER SEC "    metric M\n      expr 1\n      show percent\n      share idle\n", 11, 13,
          "unknown share 'idle' (expected active)" },
        { HEADER SEC "    metric M\n      expr 1\n      show count\n      share active\n", 8, 1,
          "metric 'M' is a 'share active' but not 'show percent'" },
        { HEADER SEC "  origin vendor\n", 8, 10, "'origin' is 'guide' or 'gputop', not 'vendor'" },
        { HEADER "section S\n  key x\n  origin gputop\n", 7, 3, "'origin' outside a group" },
        { HEADER SEC "    metric M\n      expr 1\n      show count\n    origin gputop\n", 11, 5,
          "'origin' must come before the group's first metric" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        expect_layout_error(&cases[i]);
}

Test(layout_errors, formatted_with_caret_under_the_fault)
{
    const char *t = HEADER SEC "    metric M\n      expr max(mn($A, 1), 0)\n      show count\n";
    struct gt_diag d;
    char buf[1024];

    cr_assert_null(gt_layout_parse("x.layout", t, strlen(t), &d));
    gt_diag_format(&d, buf, sizeof(buf));
    cr_assert_str_eq(buf,
        "x.layout:9:16: error: unknown function 'mn' (expected min or max)\n"
        "        expr max(mn($A, 1), 0)\n"
        "                 ^\n");
}

Test(layout_errors, nul_bytes_and_missing_files)
{
    const char t[] = "gputop-layout 1\nna\0me x\n";
    struct gt_diag d;

    cr_assert_null(gt_layout_parse("n.layout", t, sizeof(t) - 1, &d));
    cr_assert(strstr(d.msg, "NUL byte"));
    cr_assert_eq(d.line, 2);
    cr_assert_null(gt_layout_load("/nonexistent/dir/x.layout", &d));
    cr_assert(strstr(d.msg, "cannot open"));
    cr_assert_str_eq(d.file, "/nonexistent/dir/x.layout");
    cr_assert_null(gt_layout_load("no-such-layout", &d));
    cr_assert(strstr(d.msg, "no layout named 'no-such-layout' (built in:"), "%s", d.msg);
}
