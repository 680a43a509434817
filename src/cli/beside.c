/* Sources beside the GPU's: their layouts appended to the GPU layout, the
 * layout's option lines handed to them, their estimated counters marked in
 * the merged catalogue, their description kept in captures, and the
 * sampling period kept short enough for their 32-bit counters. */
#include "beside.h"
#include "gputop/cli.h"

#include <stdio.h>
#include <string.h>

/* One layout name; done lists those appended, blank-separated. */
static int append_one(struct gt_layout *l, const char *name, char *done, size_t len)
{
    struct gt_layout *more;
    struct gt_diag d;
    char key[72];

    snprintf(key, sizeof(key), " %s ", name);
    if (strcmp(name, l->name) == 0 || strstr(done, key))
        return 0;
    more = gt_layout_load_named(name, NULL, &d);
    if (!more) {
        gt_report_diag(stderr, &d);
        return -1;
    }
    /* the same family's layout is the GPU's own, under another name */
    if (strcmp(more->family, l->family) != 0 && gt_layout_append(l, more, &d) < 0) {
        gt_report_diag(stderr, &d);
        gt_layout_free(more);
        return -1;
    }
    gt_layout_free(more);
    if (strlen(done) + strlen(key) < len)
        strcat(done, key + 1);
    return 0;
}

int gt_beside_append_layouts(struct gt_layout *l, struct gt_source *const *src, size_t n,
                             int chosen)
{
    char done[512] = " ", name[64];
    const char *p;
    size_t i;
    int used, own;

    for (i = 0; i < n; i++)
        for (p = src[i]->info.layout, own = i == 0; sscanf(p, " %63s%n", name, &used) == 1;
             p += used, own = 0)
            if (!(own && chosen) && append_one(l, name, done, sizeof(done)) < 0)
                return -1;
    return 0;
}

static int takes(const struct gt_source *s, const char *name)
{
    return s->type->configure &&
           (strcmp(name, s->type->name) == 0 || strcmp(name, s->info.family) == 0);
}

int gt_beside_configure(const struct gt_layout *l, struct gt_source *const *src, size_t n)
{
    const struct gt_source_option *o;
    struct gt_diag d;
    size_t i, j;

    for (i = 0; i < l->noptions; i++)
        for (o = &l->options[i], j = 0; j < n; j++) {
            if (!takes(src[j], o->source))
                continue;
            gt_diag_clear(&d);
            if (src[j]->type->configure(src[j], o->key, o->value, &d) < 0) {
                fprintf(stderr, "gputop: layout %s, line %d: %s\n", l->file, o->line, d.msg);
                return -1;
            }
        }
    return 0;
}

void gt_beside_copy_estimated(struct gt_catalog *merged, struct gt_source *const *src, size_t n)
{
    size_t i, k;
    int m;

    for (i = 0; i < n; i++)
        for (k = 0; k < src[i]->catalog.ncounters; k++)
            if ((m = gt_catalog_find(merged, src[i]->catalog.counters[k].name)) >= 0)
                merged->counters[m].estimated = src[i]->catalog.counters[k].estimated;
}

void gt_beside_capture_info(struct gt_source_info *info, struct gt_source *const *src, size_t n)
{
    size_t i, len, add;

    *info = src[0]->info;
    for (i = 1; i < n; i++) {
        const struct gt_source_info *in = &src[i]->info;
        len = strlen(info->detail);
        /* how it counted (mips-cm: qualifiers, multiplexing), as far as it fits */
        if (in->family[0] && in->detail[0] && len + 4 < sizeof(info->detail) &&
            snprintf(info->detail + len, sizeof(info->detail) - len, "; %s: %s", in->family,
                     in->detail) < 0)
            info->detail[len] = '\0';
        /* and its layout, so a replay shows its sections again */
        len = strlen(info->layout);
        add = strlen(in->layout);
        if (add && len + add + 2 <= sizeof(info->layout) && !strstr(info->layout, in->layout)) {
            info->layout[len] = ' ';
            memcpy(info->layout + len + 1, in->layout, add + 1);
        }
    }
}

uint64_t gt_beside_interval(uint64_t ns, struct gt_source *const *src, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        uint64_t max = src[i]->info.max_interval_ns;
        if (max && ns > max) {
            fprintf(stderr, "gputop: sampling every %.3g s instead of %.3g s: %s counters "
                            "would wrap\n", (double)max / 1e9, (double)ns / 1e9,
                    src[i]->type->name);
            ns = max;
        }
    }
    return ns;
}
