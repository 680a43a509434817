/* Snapshots: per-slot counter deltas over one interval, and how two
 * consecutive intervals merge when a reader falls behind. */
#include "gputop/snapshot.h"

#include <stdlib.h>
#include <string.h>

int gt_snapshot_init(struct gt_snapshot *s, uint32_t nslots)
{
    memset(s, 0, sizeof(*s));
    s->deltas = calloc(nslots ? nslots : 1, sizeof(uint64_t));
    if (!s->deltas)
        return -1;
    s->nslots = nslots;
    return 0;
}

void gt_snapshot_free(struct gt_snapshot *s)
{
    free(s->deltas);
    memset(s, 0, sizeof(*s));
}

void gt_snapshot_zero(struct gt_snapshot *s)
{
    memset(s->deltas, 0, (size_t)s->nslots * sizeof(uint64_t));
    s->t_start_ns = s->t_end_ns = 0;
    s->nsamples = 0;
}

void gt_snapshot_accumulate(struct gt_snapshot *dst, const struct gt_snapshot *src)
{
    uint32_t i, n = dst->nslots < src->nslots ? dst->nslots : src->nslots;

    for (i = 0; i < n; i++)
        dst->deltas[i] += src->deltas[i];
    if (dst->nsamples == 0)
        dst->t_start_ns = src->t_start_ns;
    dst->t_end_ns = src->t_end_ns;
    dst->nsamples += src->nsamples;
}

void gt_snapshot_copy(struct gt_snapshot *dst, const struct gt_snapshot *src)
{
    uint32_t n = dst->nslots < src->nslots ? dst->nslots : src->nslots;

    memcpy(dst->deltas, src->deltas, (size_t)n * sizeof(uint64_t));
    dst->t_start_ns = src->t_start_ns;
    dst->t_end_ns = src->t_end_ns;
    dst->nsamples = src->nsamples;
}
