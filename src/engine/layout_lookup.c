/* Finding a layout's sections and metrics by what a user types: the same
 * rules for --section and --metrics in the dashboard and in batch output. */
#include "gputop/layout.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* "1 CPU performance, 2 GPU activity, ..." into buf, cut to fit. */
size_t gt_layout_section_list(const struct gt_layout *l, char *buf, size_t len)
{
    size_t i, n = 0;
    int w;

    if (len)
        buf[0] = '\0';
    for (i = 0; i < l->nsections && n < len; i++) {
        w = snprintf(buf + n, len - n, "%s%c %s", i ? ", " : "", l->sections[i].key,
                     l->sections[i].title);
        if (w < 0)
            break;
        n += (size_t)w;
    }
    return n < len ? n : len ? len - 1 : 0;
}

static int tolower_key(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static void fail(const struct gt_layout *l, const char *why, struct gt_diag *d)
{
    char list[400];

    if (!d)
        return;
    gt_layout_section_list(l, list, sizeof(list));
    gt_diag_set(d, "%s in layout %s; sections: %s", why, l->name, list);
}

long gt_layout_find_section(const struct gt_layout *l, const char *want, struct gt_diag *d)
{
    size_t i, n = strlen(want);
    long found = -1;
    int hits = 0;

    for (i = 0; i < l->nsections; i++)
        if (strcasecmp(l->sections[i].title, want) == 0 ||
            (n == 1 && tolower_key(l->sections[i].key) == tolower_key(want[0])))
            return (long)i;
    for (i = 0; n > 0 && i < l->nsections; i++)
        if (strncasecmp(l->sections[i].title, want, n) == 0) {
            found = (long)i;
            hits++;
        }
    if (hits == 1)
        return found;
    fail(l, hits ? "matches more than one section" : "no such section", d);
    return -1;
}

int gt_layout_metric_matches(const struct gt_metric_def *m, const char *pattern)
{
    if (!pattern)
        return 1;
    if (fnmatch(pattern, m->title, FNM_CASEFOLD) == 0)
        return 1;
    return m->ref && fnmatch(pattern, m->ref, 0) == 0;
}
