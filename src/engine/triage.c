/* The triage verdict from one interval's values: the unit rule whose
 * metric is highest names what the work is bound by. */
#include "gputop/export.h"

#include <math.h>
#include <string.h>

const char *gt_triage_verdict(const struct gt_layout *l, const int *rule_metric,
                              const double *vals, long *unit_rule)
{
    double best = NAN;
    long win = -1;
    size_t i;

    for (i = 0; i < l->ntriage; i++) {
        int m = rule_metric[i];
        double v = m >= 0 ? vals[m] : NAN;
        if (isnan(v) || strcmp(l->triage[i].kind, "unit") != 0)
            continue;
        if (isnan(best) || v > best) {
            best = v;
            win = (long)i;
        }
    }
    if (unit_rule)
        *unit_rule = win;
    return win >= 0 ? l->triage[win].verdict : NULL;
}
