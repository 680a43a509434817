/* Simulated scenes built for one triage verdict each: a base scene with the
 * few parameters changed that make that verdict true by construction. */
#include "scenes.h"

#include <stddef.h>
#include <string.h>

/* Each keeps its base scene's busy GPU at the top clock and changes only
 * what the verdict tests, with margin for the model's few % of noise. */
static const struct sim_variant variants[] = {
    /* Queues that add up to GPU active and never overlap: no queue near
     * 100 % (3.2). */
    { "serial-queues", SCENE_GAME, 3, { P_FRAG, P_VERT, P_COMP }, { 0.45, 0.30, 0.25 }, 0 },
    /* The FPK buffer is empty most of the fragment-active time (5.3.4). */
    { "front-end-starved", SCENE_GAME, 1, { P_TEX }, { 0.50 }, 0.35 },
    /* One functional unit near saturation with the execution core busy (6.1). */
    { "arithmetic-bound", SCENE_COMPUTE, 2, { P_ARITH, P_LS }, { 1.00, 0.30 }, 0 },
    { "varying-bound", SCENE_GAME, 2, { P_VARY, P_TEX }, { 0.98, 0.40 }, 0 },
    { "texture-bound", SCENE_GAME, 1, { P_TEX }, { 0.97 }, 0 },
    { "load-store-bound", SCENE_COMPUTE, 2, { P_LS, P_ARITH }, { 0.97, 0.40 }, 0 },
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

const struct sim_variant *sim_variant(int scene)
{
    if (scene < SIM_VARIANT_FIRST || (size_t)(scene - SIM_VARIANT_FIRST) >= NVARIANTS)
        return NULL;
    return &variants[scene - SIM_VARIANT_FIRST];
}

int sim_variant_find(const char *name)
{
    size_t i;

    for (i = 0; i < NVARIANTS; i++)
        if (strcmp(variants[i].name, name) == 0)
            return SIM_VARIANT_FIRST + (int)i;
    return -1;
}

const char *sim_variant_names(void)
{
    return "serial-queues, front-end-starved, arithmetic-bound, varying-bound, texture-bound, "
           "load-store-bound";
}
