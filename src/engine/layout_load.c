/* Layouts as a whole: where they come from (compiled into the binary, by
 * name, or a file read at start-up, by path; both go through
 * gt_layout_parse) and lookups in a parsed layout. */
#include "gputop/layout.h"
#include "gputop/triage.h"
#include "gputop/embedded.h"
#include "gputop/expr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LAYOUT_BYTES (4u << 20)

static char *read_file(const char *path, size_t *len, struct gt_diag *d)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    size_t n;

    if (!f) {
        gt_diag_at(d, path, 0, 0, NULL, 0);
        gt_diag_set(d, "cannot open: %s", strerror(errno));
        return NULL;
    }
    buf = malloc(MAX_LAYOUT_BYTES + 1);
    if (!buf) {
        fclose(f);
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    n = fread(buf, 1, MAX_LAYOUT_BYTES + 1, f);
    if (ferror(f) || n > MAX_LAYOUT_BYTES) {
        gt_diag_at(d, path, 0, 0, NULL, 0);
        gt_diag_set(d, ferror(f) ? "read error" : "larger than %u bytes: not a layout",
                    MAX_LAYOUT_BYTES);
        fclose(f);
        free(buf);
        return NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

struct gt_layout *gt_layout_load(const char *name_or_path, struct gt_diag *d)
{
    char label[300];
    struct gt_layout *l;
    size_t i, len;
    char *text;

    gt_diag_clear(d);
    for (i = 0; i < gt_embedded_layout_count(); i++) {
        if (strcmp(gt_embedded_layout_name(i), name_or_path) != 0)
            continue;
        text = gt_embedded_layout_copy(i, &len);
        if (!text) {
            gt_diag_set(d, "built-in layout '%s' cannot be unpacked (out of memory, or a "
                        "damaged build)", name_or_path);
            return NULL;
        }
        /* Messages name what the user knows: the name, not our source tree. */
        snprintf(label, sizeof(label), "built-in layout %s", name_or_path);
        l = gt_layout_parse(label, text, len, d);
        free(text);
        return l;
    }
    if (!strchr(name_or_path, '/') && !strstr(name_or_path, ".layout")) {
        FILE *f = fopen(name_or_path, "rb");
        if (!f) {
            char names[256] = "";
            for (i = 0; i < gt_embedded_layout_count(); i++) {
                strncat(names, i ? ", " : "", sizeof(names) - strlen(names) - 1);
                strncat(names, gt_embedded_layout_name(i), sizeof(names) - strlen(names) - 1);
            }
            gt_diag_set(d, "no layout named '%s' (built in: %s) and no such file",
                        name_or_path, names);
            return NULL;
        }
        fclose(f);
    }
    text = read_file(name_or_path, &len, d);
    if (!text)
        return NULL;
    l = gt_layout_parse(name_or_path, text, len, d);
    free(text);
    return l;
}

size_t gt_embedded_layout_count(void)
{
    return gt_embedded_layouts_count;
}

const char *gt_embedded_layout_name(size_t i)
{
    return i < gt_embedded_layouts_count ? gt_embedded_layouts[i].path : NULL;
}

char *gt_embedded_layout_copy(size_t i, size_t *len)
{
    const struct gt_embedded_file *f;
    size_t plain;
    char *text;

    if (i >= gt_embedded_layouts_count)
        return NULL;
    f = &gt_embedded_layouts[i];
    plain = f->plain_len ? f->plain_len : f->len;
    text = malloc(plain + 1);
    if (!text)
        return NULL;
    if (!f->plain_len)
        memcpy(text, f->data, plain);
    else if (gt_unpack(f->data, f->len, text, plain) != (long)plain) {
        free(text);
        return NULL;
    }
    text[plain] = '\0';
    *len = plain;
    return text;
}

enum gt_agg gt_layout_agg_for(const struct gt_layout *l, const char *block)
{
    size_t i;

    for (i = 0; i < l->naggs; i++)
        if (strcmp(l->aggs[i].block, block) == 0)
            return l->aggs[i].agg;
    return GT_AGG_SUM;
}

int gt_layout_find_metric(const struct gt_layout *l, const char *title)
{
    size_t i;

    for (i = 0; i < l->nmetrics; i++)
        if (strcmp(l->metrics[i].title, title) == 0 ||
            (l->metrics[i].ref && strcmp(l->metrics[i].ref, title) == 0))
            return (int)i;
    return -1;
}
