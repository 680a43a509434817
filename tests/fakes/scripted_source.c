/* A test source that plays a script of deltas with exact timestamps. */
#include "scripted_source.h"

#include <stdlib.h>
#include <string.h>

static enum gt_sample_result scripted_sample(struct gt_source *s, struct gt_snapshot *out,
                                             struct gt_diag *d)
{
    struct scripted *sc = s->priv;

    if (sc->next >= sc->nrows)
        return GT_SAMPLE_END;
    if (sc->calls < 64 && (sc->fail_mask >> sc->calls++ & 1)) {
        out->t_start_ns = sc->t;
        sc->t += sc->interval_ns;
        out->t_end_ns = sc->t;
        gt_diag_set(d, "device lost");
        return GT_SAMPLE_ERROR;
    }
    memcpy(out->deltas, sc->rows + sc->next * out->nslots, out->nslots * sizeof(uint64_t));
    sc->next++;
    out->t_start_ns = sc->t;
    sc->t += sc->interval_ns;
    out->t_end_ns = sc->t;
    out->nsamples = 1;
    return GT_SAMPLE_OK;
}

const struct gt_source_type scripted_source_type = {
    .name = "scripted",
    .help = "test script",
    .kind = GT_SOURCE_VIRTUAL,
    .sample = scripted_sample,
};

struct gt_source *scripted_source_new(struct scripted *script,
                                      void (*build)(struct gt_catalog *c))
{
    struct gt_source *s = calloc(1, sizeof(*s));

    s->type = &scripted_source_type;
    s->priv = script;
    s->info.self_paced = 1;
    if (!script->t)
        script->t = 1000000000ull;
    gt_catalog_init(&s->catalog);
    build(&s->catalog);
    return s;
}

void scripted_source_free(struct gt_source *s)
{
    gt_catalog_free(&s->catalog);
    free(s);
}
