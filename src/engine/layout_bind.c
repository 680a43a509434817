/* Titles named by the source: {hw:COUNTER} in a metric title becomes that
 * counter's hw_name (an engine's name, known only when the source opens),
 * and a metric naming a counter the catalogue lacks is left out, with the
 * groups, sections, header figures and triage references it leaves behind
 * renumbered or dropped. */
#include "gputop/layout.h"

#include <stdlib.h>
#include <string.h>

#include "gputop/catalog.h"
#include "gputop/expr.h"
#include "gputop/triage.h"

#define TAG "{hw:"

/* title with every {hw:NAME} replaced: a new string in *out (NULL when
 * title has none). 0 done, 1 a NAME missing from c, -1 no memory. */
static int subst(const char *title, const struct gt_catalog *c, char **out)
{
    size_t cap = strlen(title) + 1, len = 0;
    const char *p = title, *tag;
    char *s;

    *out = NULL;
    if (!strstr(title, TAG))
        return 0;
    s = malloc(cap);
    if (!s)
        return -1;
    while ((tag = strstr(p, TAG)) != NULL) {
        const char *end = strchr(tag, '}'), *hw;
        char name[128];
        size_t n;
        int k;
        if (!end || (size_t)(end - tag) - 4 >= sizeof(name))
            break;
        memcpy(name, tag + 4, (size_t)(end - tag) - 4);
        name[end - tag - 4] = '\0';
        k = gt_catalog_find(c, name);
        if (k < 0) {
            free(s);
            return 1;
        }
        hw = c->counters[k].hw_name ? c->counters[k].hw_name : c->counters[k].name;
        n = (size_t)(tag - p);
        cap += strlen(hw);
        {
            char *g = realloc(s, cap);
            if (!g) {
                free(s);
                return -1;
            }
            s = g;
        }
        memcpy(s + len, p, n);
        memcpy(s + len + n, hw, strlen(hw));
        len += n + strlen(hw);
        p = end + 1;
    }
    strcpy(s + len, p);
    *out = s;
    return 0;
}

/* Replaces *str in place; 1 when it names a missing counter. */
static int bind_string(char **str, const struct gt_catalog *c)
{
    char *n = NULL;
    int r = *str ? subst(*str, c, &n) : 0;

    if (r == 0 && n) {
        free(*str);
        *str = n;
    }
    return r;
}

/* Metrics kept move down; map[old] is the new index or -1. */
static int bind_metrics(struct gt_layout *l, const struct gt_catalog *c, int *map)
{
    size_t i, n = 0;

    for (i = 0; i < l->nmetrics; i++) {
        int r = bind_string(&l->metrics[i].title, c);
        if (r < 0)
            return -1;
        if (r == 1) {
            gt_layout_metric_free(&l->metrics[i]);
            map[i] = -1;
            continue;
        }
        map[i] = (int)n;
        l->metrics[n++] = l->metrics[i];
    }
    l->nmetrics = n;
    return 0;
}

/* Groups recounted from their metrics (kept in order); empty ones go. */
static void bind_groups(struct gt_layout *l, int *gmap)
{
    size_t g, n = 0, m;

    for (g = 0; g < l->ngroups; g++) {
        struct gt_group_def *gd = &l->groups[g];
        size_t first = (size_t)-1, count = 0;
        for (m = 0; m < l->nmetrics; m++)
            if (l->metrics[m].group == (int)g) {
                first = first == (size_t)-1 ? m : first;
                count++;
            }
        if (!count) {
            free(gd->title);
            gmap[g] = -1;
            continue;
        }
        gd->first = first;
        gd->count = count;
        gmap[g] = (int)n;
        l->groups[n++] = *gd;
    }
    l->ngroups = n;
    for (m = 0; m < l->nmetrics; m++)
        l->metrics[m].group = gmap[l->metrics[m].group];
}

static void bind_sections(struct gt_layout *l, int *smap)
{
    size_t s, n = 0, g;

    for (s = 0; s < l->nsections; s++) {
        struct gt_section_def *sd = &l->sections[s];
        size_t first = (size_t)-1, count = 0;
        for (g = 0; g < l->ngroups; g++)
            if (l->groups[g].section == (int)s) {
                first = first == (size_t)-1 ? g : first;
                count++;
            }
        if (!count) {
            free(sd->title);
            free(sd->tab);
            smap[s] = -1;
            continue;
        }
        sd->first = first;
        sd->count = count;
        smap[s] = (int)n;
        l->sections[n++] = *sd;
    }
    l->nsections = n;
    for (g = 0; g < l->ngroups; g++)
        l->groups[g].section = smap[l->groups[g].section];
    for (g = 0; g < l->nmetrics; g++)
        l->metrics[g].section = smap[l->metrics[g].section];
}

/* Triage rules name metrics by title: placeholders bound the same way,
 * and a rule whose metric went is dropped. */
static int bind_rules(struct gt_layout *l, const struct gt_catalog *c)
{
    size_t i, n = 0;

    for (i = 0; i < l->ntriage; i++) {
        struct gt_triage_rule *r = &l->triage[i];
        int b = bind_string(&r->metric, c);
        if (b < 0)
            return -1;
        if (b == 1) {
            gt_layout_rule_free(r);
            continue;
        }
        l->triage[n++] = *r;
    }
    l->ntriage = n;
    return 0;
}

/* Steps refer to metrics by index; one whose metric went is dropped. */
static int bind_steps(struct gt_layout *l, const struct gt_catalog *c, const int *map)
{
    size_t i, k, n = 0;

    for (i = 0; i < l->nsteps; i++) {
        struct gt_triage_step *st = &l->steps[i];
        int gone = 0;
        for (k = 0; k < st->nconds; k++) {
            struct gt_triage_cond *cd = &st->conds[k];
            if (cd->alt >= 0)
                cd->alt = map[cd->alt];
            if (cd->metric >= 0 && (cd->metric = map[cd->metric]) < 0)
                gone = 1;
            if (!gone && bind_string(&cd->name, c) < 0)
                return -1;
        }
        if (gone) {
            gt_triage_step_free(st);
            continue;
        }
        l->steps[n++] = *st;
    }
    l->nsteps = n;
    return 0;
}

int gt_layout_bind_names(struct gt_layout *l, const struct gt_catalog *c)
{
    int *map = malloc((l->nmetrics + 1) * sizeof(*map));
    int *gmap = malloc((l->ngroups + 1) * sizeof(*gmap));
    int *smap = malloc((l->nsections + 1) * sizeof(*smap));
    int r = -1, f;

    if (!map || !gmap || !smap || bind_metrics(l, c, map) < 0)
        goto out;
    bind_groups(l, gmap);
    bind_sections(l, smap);
    for (f = 0; f < GT_HEADER_NFIGS; f++)
        if (l->header[f] >= 0)
            l->header[f] = map[l->header[f]];
    if (bind_rules(l, c) < 0 || bind_steps(l, c, map) < 0)
        goto out;
    r = 0;
out:
    free(map);
    free(gmap);
    free(smap);
    return r;
}
