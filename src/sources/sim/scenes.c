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
    { "serial-queues", SCENE_GAME, 3, { P_FRAG, P_VERT, P_COMP }, { 0.45, 0.30, 0.25 }, 0, 0 },
    /* The FPK buffer is empty most of the fragment-active time (5.3.4), so
     * the execution core is short of warps (5.3.5). */
    { "front-end-starved", SCENE_GAME, 2, { P_TEX, P_EXEC }, { 0.50, 0.55 }, 0.35, 0 },
    /* One functional unit near saturation with the execution core busy (6.1). */
    { "arithmetic-bound", SCENE_COMPUTE, 2, { P_ARITH, P_LS }, { 1.00, 0.30 }, 0, 0 },
    { "varying-bound", SCENE_GAME, 2, { P_VARY, P_TEX }, { 0.98, 0.40 }, 0, 0 },
    { "texture-bound", SCENE_GAME, 1, { P_TEX }, { 0.97 }, 0, 0 },
    { "load-store-bound", SCENE_COMPUTE, 2, { P_LS, P_ARITH }, { 0.97, 0.40 }, 0, 0 },
    /* One render thread runs all the time while the GPU, busy less than
     * half the time, waits for it (G715 2.1). */
    { "cpu-bound", SCENE_GAME, 1, { P_BUSY }, { 0.45 }, 0, 1.0 },
    /* Busy all the time at 60 % of the top clock: held down by a thermal
     * or DVFS cap (3.2). */
    { "clock-capped", SCENE_GAME, 1, { P_DVFS }, { 0.60 }, 0, 0 },
    /* Warps resident but every unit under half its rate: they wait (5.3.5). */
    { "latency-bound", SCENE_COMPUTE, 3, { P_ARITH, P_LS, P_TEX }, { 0.35, 0.30, 0.20 }, 0, 0 },
    /* The execution core idle much of the shader core's active time (5.3.5). */
    { "core-under-used", SCENE_GAME, 1, { P_EXEC }, { 0.50 }, 0, 0 },
    /* A game on a hot device: the zone passes its passive trip and the
     * cooling device takes the clock's cap down (sim/clocks.c); the GPU,
     * busy at the capped clock, is clock-capped by heat, not the governor. */
    { "thermal", SCENE_GAME, 1, { P_BUSY }, { 0.97 }, 0, 0 },
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

/* Busy shares of the render thread's CPU and of the others per base scene
 * (ours): a game keeps its render thread busy most of a frame, a UI little. */
static const double scene_cpu[NSCENES][2] = {
    [SCENE_IDLE] = { 0.05, 0.03 },   [SCENE_UI] = { 0.35, 0.10 },
    [SCENE_GAME] = { 0.70, 0.30 },   [SCENE_COMPUTE] = { 0.40, 0.15 },
    [SCENE_RT] = { 0.75, 0.30 },     [SCENE_MEMORY] = { 0.70, 0.30 },
};

const struct sim_variant *sim_variant(int scene)
{
    if (scene < SIM_VARIANT_FIRST || (size_t)(scene - SIM_VARIANT_FIRST) >= NVARIANTS)
        return NULL;
    return &variants[scene - SIM_VARIANT_FIRST];
}

void sim_scene_cpu(int scene, double *render, double *others)
{
    const struct sim_variant *v = sim_variant(scene);
    int base = v ? v->base : scene;

    if (base < 0 || base >= NSCENES)
        base = SCENE_IDLE;
    *render = v && v->cpu > 0 ? v->cpu : scene_cpu[base][0];
    *others = scene_cpu[base][1];
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
           "load-store-bound, cpu-bound, clock-capped, latency-bound, core-under-used, thermal";
}
