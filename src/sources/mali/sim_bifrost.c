/* The simulated Bifrost GPU (Mali-G52): job-manager queues, IDVS, 8-wide
 * warps, one arithmetic issue count, and the counters the mali-bifrost
 * layout reads, keeping the relations of Arm's G52 counter reference. */
#include "sim_model.h"

#include "../sim/args.h"

/* A Bifrost core's units: executed instructions are the arithmetic issue
 * cycles the reference divides by execution core cycles; a varying slot
 * is one issue cycle; texture requests are quads (4 samples each), and a
 * sample takes about 1.4 filtering cycles (bilinear at 2 per cycle, mixed
 * with trilinear and 3D). */
static void put_core_bifrost(struct sim *m, const struct work *w, uint32_t c,
                             const struct core *k)
{
    uint64_t slot16 = gt_sim_part(k->vary, 0.6);

    sim_put(m, V_ARITH_WORDS, c, k->arith);
    sim_put(m, V_DIVERGED, c, gt_sim_part(k->arith, 0.03 + 0.05 * w->p[P_COMP]));
    sim_put(m, V_VARY_SLOT16, c, slot16);
    sim_put(m, V_VARY_SLOT32, c, k->vary - slot16);
    sim_put(m, V_TEX_REQ, c, sim_scale(k->tex, 1.0 / (4.0 * 1.4 * sim_jitter(m, 0.05))));
}

void sim_model_bifrost(struct sim *m, struct work *w)
{
    sim_model_jm(m, w, put_core_bifrost);
}
