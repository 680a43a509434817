/* The frame both counter readers decode a dump into: one row of values per
 * block instance, written whole by the first block of a dump. */
#include "gputop/kbase.h"

#include <stdlib.h>
#include <string.h>


int gt_kbase_frame_init(struct gt_kbase_frame *f, const struct gt_kbase_gpu *g)
{
    memset(f, 0, sizeof(*f));
    f->ninst[GT_KB_FE] = 1;
    f->ninst[GT_KB_TILER] = 1;
    f->ninst[GT_KB_MEMSYS] = g->l2_slices;
    f->ninst[GT_KB_SHADER] = g->shader_cores;
    for (int b = 0; b < GT_KB_NBLOCKS; b++) {
        f->base[b] = f->nrows;
        f->nrows += f->ninst[b];
    }
    f->state = calloc(f->nrows, 1);
    f->values = calloc((size_t)f->nrows * GT_KB_MAX_VALUES, sizeof(uint64_t));
    if (!f->state || !f->values) {
        gt_kbase_frame_free(f);
        return -1;
    }
    return 0;
}

void gt_kbase_frame_free(struct gt_kbase_frame *f)
{
    free(f->state);
    free(f->values);
    f->state = NULL;
    f->values = NULL;
}

/* At 1 kHz zeroing every row before each dump was a tenth of a sample's
 * cost: the rows are marked instead, and written whole by their block. */
void gt_kbase_frame_clear(struct gt_kbase_frame *f)
{
    memset(f->state, GT_KB_STATE_MISSING, f->nrows);
    f->ts_start_ns = f->ts_end_ns = 0;
    f->cycles[0] = f->cycles[1] = 0;
    f->ncycles = 0;
    f->flags = 0;
    f->merged = 0;
}

int gt_kbase_frame_begin_row(struct gt_kbase_frame *f, int block, uint32_t inst, unsigned n,
                             uint64_t **row)
{
    uint8_t *state = &f->state[f->base[block] + inst];

    *row = gt_kbase_frame_row(f, block, inst);
    if (!(*state & GT_KB_STATE_MISSING))
        return 0;
    *state &= (uint8_t)~GT_KB_STATE_MISSING;
    if (n < GT_KB_MAX_VALUES)
        memset(*row + n, 0, (GT_KB_MAX_VALUES - n) * sizeof(**row));
    return 1;
}
