/* Sections and metrics found by what a user types (--section, --metrics),
 * against the built-in mali-t8xx layout, whose sections are, in order:
 * 1 CPU performance, 2 GPU activity, 3 Content behavior, 4 Shader core data
 * path, 5 Shader core functional units, 7 Shader core texture unit,
 * 8 Shader core load/store unit, i GPU configuration. */
#include <criterion/criterion.h>
#include <string.h>

#include "gputop/layout.h"

static struct gt_layout *t8xx(void)
{
    struct gt_diag d;
    struct gt_layout *l = gt_layout_load("mali-t8xx", &d);

    cr_assert_not_null(l, "%s", d.msg);
    return l;
}

Test(layout_lookup, section_by_key_title_or_unique_prefix)
{
    struct gt_layout *l = t8xx();

    cr_assert_eq(gt_layout_find_section(l, "2", NULL), 1);
    cr_assert_eq(gt_layout_find_section(l, "i", NULL), 7);
    cr_assert_eq(gt_layout_find_section(l, "I", NULL), 7);
    cr_assert_eq(gt_layout_find_section(l, "GPU ACTIVITY", NULL), 1);
    cr_assert_eq(gt_layout_find_section(l, "content", NULL), 2);
    cr_assert_eq(gt_layout_find_section(l, "shader core t", NULL), 5);
    cr_assert_eq(gt_layout_find_section(l, "gpu c", NULL), 7);
    gt_layout_free(l);
}

Test(layout_lookup, unknown_or_ambiguous_section_lists_the_valid_ones)
{
    struct gt_layout *l = t8xx();
    struct gt_diag d;

    gt_diag_clear(&d);
    cr_assert_eq(gt_layout_find_section(l, "nope", &d), -1);
    cr_assert_str_eq(d.msg, "no such section in layout mali-t8xx; sections: 1 CPU performance, "
                            "2 GPU activity, 3 Content behavior, 4 Shader core data path, "
                            "5 Shader core functional units, 7 Shader core texture unit, "
                            "8 Shader core load/store unit, i GPU configuration");
    gt_diag_clear(&d);
    cr_assert_eq(gt_layout_find_section(l, "shader", &d), -1);
    cr_assert(strncmp(d.msg, "matches more than one section in layout mali-t8xx; sections: 1 ",
                      63) == 0, "%s", d.msg);
    cr_assert_eq(gt_layout_find_section(l, "gpu", NULL), -1);    /* GPU activity, configuration */
    cr_assert_eq(gt_layout_find_section(l, "", NULL), -1);
    cr_assert_eq(gt_layout_find_section(l, "6", NULL), -1);      /* no section has key 6 */
    gt_layout_free(l);
}

Test(layout_lookup, metrics_by_title_glob_or_reference)
{
    struct gt_layout *l = t8xx();
    int tiler = gt_layout_find_metric(l, "Tiler utilization");

    cr_assert_geq(tiler, 0);
    cr_assert(gt_layout_metric_matches(&l->metrics[tiler], NULL));
    cr_assert(gt_layout_metric_matches(&l->metrics[tiler], "*UTIL*"));
    cr_assert(gt_layout_metric_matches(&l->metrics[tiler], "3.2.*"));
    cr_assert(gt_layout_metric_matches(&l->metrics[tiler], "3.2.3"));
    cr_assert_not(gt_layout_metric_matches(&l->metrics[tiler], "3.2.1"));
    cr_assert_not(gt_layout_metric_matches(&l->metrics[tiler], "*bytes*"));
    gt_layout_free(l);
}
