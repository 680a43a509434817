/* The frame a Mali dump is decoded into and the copy from it to a
 * snapshot: rows a dump did not hold read as zeros, never as an earlier
 * dump's values, and a second dump before a clear adds (a drained ring). */
#include <criterion/criterion.h>

#include "gputop/kbase.h"
#include "gputop/snapshot.h"

#include <string.h>

struct rig {
    struct gt_kbase_frame f;
    struct gt_kbase_map m;
    struct gt_kbase_hw_map h[2];
    struct gt_snapshot out;
};

/* One L2 slice, two cores; counter "A" is shader value 10 at slots 0-1,
 * "B" front-end value 6 at slot 2. */
static void rig_up(struct rig *r)
{
    struct gt_kbase_gpu g;

    memset(&g, 0, sizeof(g));
    g.core_mask = 0x3;
    g.shader_cores = 2;
    g.l2_slices = 1;
    cr_assert_eq(gt_kbase_frame_init(&r->f, &g), 0);
    r->h[0] = (struct gt_kbase_hw_map){ 0, 0, 2, GT_KB_SHADER, 10 };
    r->h[1] = (struct gt_kbase_hw_map){ 1, 2, 1, GT_KB_FE, 6 };
    memset(&r->m, 0, sizeof(r->m));
    r->m.map = r->h;
    r->m.n = 2;
    cr_assert_eq(gt_kbase_map_plan(&r->m, &r->f), 0);
    cr_assert_eq(r->m.ncopy, 3);
    cr_assert_eq(gt_snapshot_init(&r->out, 3), 0);
}

/* Writes value 10 of shader core inst (or value 6 of the front end) as a
 * reader's decoder does: whole on the row's first block, added after. */
static void put(struct gt_kbase_frame *f, int block, uint32_t inst, unsigned idx, uint64_t v)
{
    uint64_t *row, vals[64];

    memset(vals, 0, sizeof(vals));
    vals[idx] = v;
    if (gt_kbase_frame_begin_row(f, block, inst, 64, &row)) {
        memcpy(row, vals, sizeof(vals));
        return;
    }
    for (unsigned i = 0; i < 64; i++)
        row[i] += vals[i];
}

static void rig_down(struct rig *r)
{
    free(r->m.copy);
    gt_kbase_frame_free(&r->f);
    gt_snapshot_free(&r->out);
}

Test(kbase_frame, a_row_missing_from_the_next_dump_reads_zero)
{
    struct rig r;

    rig_up(&r);
    gt_kbase_frame_clear(&r.f);
    put(&r.f, GT_KB_FE, 0, 6, 111);
    put(&r.f, GT_KB_SHADER, 0, 10, 222);
    put(&r.f, GT_KB_SHADER, 1, 10, 333);
    gt_kbase_map_copy(&r.m, &r.f, &r.out);
    cr_assert_eq(r.out.deltas[0], 222);
    cr_assert_eq(r.out.deltas[1], 333);
    cr_assert_eq(r.out.deltas[2], 111);

    /* core 1 powered down: its block is absent from the second dump */
    gt_kbase_frame_clear(&r.f);
    put(&r.f, GT_KB_FE, 0, 6, 5);
    put(&r.f, GT_KB_SHADER, 0, 10, 7);
    gt_kbase_map_copy(&r.m, &r.f, &r.out);
    cr_assert_eq(r.out.deltas[0], 7);
    cr_assert_eq(r.out.deltas[1], 0, "core 1 kept %llu from the first dump",
                 (unsigned long long)r.out.deltas[1]);
    cr_assert_eq(r.out.deltas[2], 5);
    rig_down(&r);
}

Test(kbase_frame, dumps_without_a_clear_between_add_up)
{
    struct rig r;

    rig_up(&r);
    gt_kbase_frame_clear(&r.f);
    put(&r.f, GT_KB_FE, 0, 6, 100);
    put(&r.f, GT_KB_SHADER, 1, 10, 40);
    put(&r.f, GT_KB_FE, 0, 6, 23);
    put(&r.f, GT_KB_SHADER, 1, 10, 2);
    put(&r.f, GT_KB_SHADER, 0, 10, 9);
    gt_kbase_map_copy(&r.m, &r.f, &r.out);
    cr_assert_eq(r.out.deltas[0], 9);
    cr_assert_eq(r.out.deltas[1], 42);
    cr_assert_eq(r.out.deltas[2], 123);
    rig_down(&r);
}

Test(kbase_frame, a_legacy_dump_after_a_wide_one_leaves_no_tail)
{
    struct rig r;
    uint64_t *row;

    rig_up(&r);
    /* a 128-value block writes value 100; a later 64-value one must not
     * leave it behind */
    gt_kbase_frame_clear(&r.f);
    cr_assert_eq(gt_kbase_frame_begin_row(&r.f, GT_KB_FE, 0, 128, &row), 1);
    memset(row, 0, 128 * sizeof(*row));
    row[100] = 9;
    gt_kbase_frame_clear(&r.f);
    cr_assert_eq(gt_kbase_frame_begin_row(&r.f, GT_KB_FE, 0, 64, &row), 1);
    cr_assert_eq(row[100], 0);
    rig_down(&r);
}
