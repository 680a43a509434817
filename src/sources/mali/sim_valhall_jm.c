/* The simulated Valhall job-manager GPU (Mali-G78): job-manager queues in
 * front of Valhall cores (16-wide warps, FMA/CVT/SFU pipes), keeping the
 * relations of Arm's G78 counter reference for the mali-valhall-jm layout. */
#include "sim_model.h"

#include "../sim/args.h"

/* The G78 reference takes the busiest of the FMA, CVT and SFU (x4) pipes
 * as arithmetic issue: FMA carries the arithmetic load here. A varying
 * slot is one issue cycle (the reference adds 32- and 16-bit slots). Its
 * texture CPI divides filtering cycles by messages x 4 samples: about 1.4
 * cycles a sample, as on the Bifrost model. */
static void put_core_valhall_jm(struct sim *m, const struct work *w, uint32_t c,
                                const struct core *k)
{
    (void)w;
    sim_put(m, V_TEX_MSG, c, sim_scale(k->tex, 1.0 / (4.0 * 1.4 * sim_jitter(m, 0.05))));
    uint64_t slot16 = gt_sim_part(k->vary, 0.6);

    sim_put(m, V_FMA, c, k->arith);
    sim_put(m, V_CVT, c, gt_sim_part(k->arith, 0.17));
    sim_put(m, V_SFU, c, gt_sim_part(k->arith, 0.08));
    sim_put(m, V_VARY_SLOT16, c, slot16);
    sim_put(m, V_VARY_SLOT32, c, k->vary - slot16);
}

void sim_model_valhall_jm(struct sim *m, struct work *w)
{
    sim_model_jm(m, w, put_core_valhall_jm);
}
