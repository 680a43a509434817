/* From a Mali counter dump to the catalogue: the legacy block order's
 * decoder and the counter map, shared by the kbase source and panfrost
 * (whose perfcnt dump has the same layout). */
#include "gputop/catalog.h"
#include "gputop/kbase.h"
#include "gputop/snapshot.h"

#include <stdlib.h>
#include <string.h>

#define LEGACY_VALUES 64

static void add_block(struct gt_kbase_frame *f, int block, uint32_t inst, const uint8_t *src,
                      uint32_t enabled)
{
    uint64_t *row;
    unsigned i;

    /* values 0..3 are the block header, not counts */
    if (gt_kbase_frame_begin_row(f, block, inst, LEGACY_VALUES, &row))
        memset(row, 0, LEGACY_VALUES * sizeof(*row));
    for (i = 4; i < LEGACY_VALUES; i++) {
        uint32_t x;

        memcpy(&x, src + 4 * i, 4);
        row[i] += x;
        /* The hardware counters are 32 bits wide; a full one means lost counts. */
        if (x == 0xFFFFFFFFu && (enabled >> (i / 4)) & 1u)
            f->flags |= GT_KB_FRAME_SATURATED;
    }
}

void gt_kbase_decode_legacy(struct gt_kbase_frame *f, const struct gt_kbase_gpu *g,
                            const uint8_t *dump, uint32_t shader_blocks,
                            const uint32_t enabled[GT_KB_NBLOCKS])
{
    const size_t bsize = LEGACY_VALUES * 4;
    uint32_t i;
    unsigned p;

    add_block(f, GT_KB_FE, 0, dump, enabled[GT_KB_FE]);
    add_block(f, GT_KB_TILER, 0, dump + bsize, enabled[GT_KB_TILER]);
    for (i = 0; i < g->l2_slices && i < f->ninst[GT_KB_MEMSYS]; i++)
        add_block(f, GT_KB_MEMSYS, i, dump + (2 + i) * bsize, enabled[GT_KB_MEMSYS]);
    for (p = 0; p < shader_blocks; p++) {
        int rank = gt_kbase_core_rank(g->core_mask, p);
        if (rank >= 0 && (uint32_t)rank < f->ninst[GT_KB_SHADER])
            add_block(f, GT_KB_SHADER, (uint32_t)rank, dump + (2 + g->l2_slices + p) * bsize,
                      enabled[GT_KB_SHADER]);
    }
}

static int block_of(const char *name)
{
    if (strcmp(name, "front-end") == 0)
        return GT_KB_FE;
    if (strcmp(name, "tiler") == 0)
        return GT_KB_TILER;
    if (strcmp(name, "memsys") == 0)
        return GT_KB_MEMSYS;
    if (strcmp(name, "shadercore") == 0)
        return GT_KB_SHADER;
    return -1;
}

int gt_kbase_map_build(struct gt_kbase_map *m, const struct gt_catalog *c)
{
    size_t i;

    m->n = 0;
    m->map = calloc(c->ncounters ? c->ncounters : 1, sizeof(*m->map));
    if (!m->map)
        return -1;
    for (i = 0; i < c->ncounters; i++) {
        const struct gt_counter *ct = &c->counters[i];
        struct gt_kbase_hw_map *h = &m->map[m->n];
        int b = block_of(ct->block);
        if (ct->kind != GT_COUNTER_DELTA || b < 0 || ct->hw_index < 0 ||
            ct->hw_index >= GT_KB_MAX_VALUES)
            continue;
        h->counter = (uint32_t)i;
        h->slot = ct->slot;
        h->instances = ct->instances;
        h->block = (uint16_t)b;
        h->index = (uint16_t)ct->hw_index;
        m->n++;
    }
    return 0;
}

void gt_kbase_map_free(struct gt_kbase_map *m)
{
    free(m->map);
    free(m->copy);
    m->map = NULL;
    m->copy = NULL;
    m->n = m->ncopy = 0;
}

static int by_value(const void *a, const void *b)
{
    const struct gt_kbase_copy *x = a, *y = b;

    return (x->value > y->value) - (x->value < y->value);
}

/* At 1 kHz the copy is a good part of a sample's own cost: one flat list,
 * read in the frame's order, instead of a walk over counters and their
 * instances that strides across the rows. */
int gt_kbase_map_plan(struct gt_kbase_map *m, const struct gt_kbase_frame *f)
{
    size_t i, n = 0;
    uint32_t k;

    free(m->copy);
    m->copy = NULL;
    m->ncopy = 0;
    for (i = 0; i < m->n; i++)
        for (k = 0; k < m->map[i].instances && k < f->ninst[m->map[i].block]; k++)
            n++;
    m->copy = calloc(n ? n : 1, sizeof(*m->copy));
    if (!m->copy)
        return -1;
    for (i = 0; i < m->n; i++) {
        const struct gt_kbase_hw_map *h = &m->map[i];
        for (k = 0; k < h->instances && k < f->ninst[h->block]; k++) {
            m->copy[m->ncopy].value = (f->base[h->block] + k) * GT_KB_MAX_VALUES + h->index;
            m->copy[m->ncopy].slot = h->slot + k;
            m->ncopy++;
        }
    }
    qsort(m->copy, m->ncopy, sizeof(*m->copy), by_value);
    return 0;
}

void gt_kbase_map_copy(const struct gt_kbase_map *m, struct gt_kbase_frame *f,
                       struct gt_snapshot *out)
{
    const struct gt_kbase_copy *c = m->copy, *end = m->copy + m->ncopy;
    const uint64_t *values = f->values;
    const uint8_t *state = f->state;
    uint64_t *restrict deltas = out->deltas;

    for (; c < end; c++) {
        uint64_t v = values[c->value];
        deltas[c->slot] = state[c->value / GT_KB_MAX_VALUES] & GT_KB_STATE_MISSING ? 0 : v;
    }
}
