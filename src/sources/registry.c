/* The table of built-in sources, and opening one from a "NAME[:ARGS]" spec
 * (or "NAME,ARGS": people type the comma they use between the options). */
#include "gputop/source.h"

#include <stdlib.h>
#include <string.h>

extern const struct gt_source_type gt_source_mali;
extern const struct gt_source_type gt_source_amdgpu;
extern const struct gt_source_type gt_source_panfrost;
extern const struct gt_source_type gt_source_drm_fdinfo;
extern const struct gt_source_type gt_source_sim;
extern const struct gt_source_type gt_source_cpu;
extern const struct gt_source_type gt_source_replay;
extern const struct gt_source_type gt_source_csv;
extern const struct gt_source_type gt_source_mips_cm;
extern const struct gt_source_type gt_source_gpu_clocks;

/* Hardware sources first: with no --source, the first that opens wins. */
const struct gt_source_type *const gt_source_types[] = {
    &gt_source_mali,
    &gt_source_amdgpu,
    &gt_source_panfrost,
    &gt_source_drm_fdinfo,   /* last: engine time only, when no counters */
    &gt_source_sim,
    &gt_source_cpu,
    &gt_source_replay,
    &gt_source_csv,
    &gt_source_mips_cm,
    &gt_source_gpu_clocks,
    NULL,
};

const struct gt_source_type *gt_source_type_find(const char *name)
{
    size_t i;

    for (i = 0; gt_source_types[i]; i++)
        if (strcmp(gt_source_types[i]->name, name) == 0)
            return gt_source_types[i];
    return NULL;
}

size_t gt_source_name_len(const char *spec)
{
    return strcspn(spec, ":,");
}

struct gt_source *gt_source_open(const char *spec, const struct gt_sys *sys, struct gt_diag *d)
{
    size_t n = gt_source_name_len(spec);
    const struct gt_source_type *t = NULL;
    struct gt_source *s;
    char name[32];
    size_t i;

    gt_diag_clear(d);
    if (n < sizeof(name)) {
        memcpy(name, spec, n);
        name[n] = '\0';
        t = gt_source_type_find(name);
    }
    if (!t) {
        char known[256] = "";
        for (i = 0; gt_source_types[i]; i++) {
            strncat(known, i ? ", " : "", sizeof(known) - strlen(known) - 1);
            strncat(known, gt_source_types[i]->name, sizeof(known) - strlen(known) - 1);
        }
        gt_diag_set(d, "unknown source '%.*s' (known: %s)", (int)n, spec, known);
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    s->type = t;
    s->sys = sys ? sys : gt_sys_real();
    gt_catalog_init(&s->catalog);
    if (t->open(s, spec[n] ? spec + n + 1 : "", d) < 0) {
        gt_catalog_free(&s->catalog);
        free(s);
        return NULL;
    }
    return s;
}

void gt_source_close(struct gt_source *s)
{
    if (!s)
        return;
    if (s->type->close)
        s->type->close(s);
    gt_catalog_free(&s->catalog);
    free(s);
}
