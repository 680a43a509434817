/* The simulated GPU's scenes and their parameters, shared by mali/sim_model.c (the base
 * scenes and the model) and scenes.c (scenes built for one triage verdict). */
#ifndef GPUTOP_SIM_SCENES_H
#define GPUTOP_SIM_SCENES_H

enum scene {
    SCENE_IDLE, SCENE_UI, SCENE_GAME, SCENE_COMPUTE, SCENE_RT, SCENE_MEMORY,
    NSCENES,
    SCENE_CYCLE = NSCENES,
};

static const char *const scene_names[NSCENES] = {
    "idle", "ui", "game", "compute", "raytracing", "memory-bound",
};

/* Scene parameters. The ones before P_NFRACTIONS are shares in 0..1. */
enum param {
    P_BUSY,       /* GPU active / clock cycles */
    P_DVFS,       /* clock / the family's top clock */
    P_FRAG,       /* fragment (main phase) queue / GPU active */
    P_VERT,       /* vertex (binning phase) queue / GPU active */
    P_COMP,       /* compute queue / GPU active */
    P_BLOCKED,    /* endpoint-stalled share of queued cycles */
    P_CORE,       /* shader core active / GPU active */
    P_EXEC,       /* execution core active / shader core active */
    P_ARITH,      /* unit issue cycles / execution core active ... */
    P_TEX,
    P_LS,
    P_VARY,
    P_RT,
    P_EZS_KILL,   /* early ZS killed / early ZS tested quads */
    P_LZS,        /* late ZS tested / shaded quads */
    P_COARSE,     /* coarse / fine quads (variable-rate shading) */
    P_TE,         /* tile writes killed as unchanged */
    P_OFFSCREEN,  /* primitives outside the frustum */
    P_SMALL,      /* remaining primitives too small to hit a sample */
    P_L2HIT,      /* core reads served by the L2 */
    P_LAT,        /* 0: fast memory .. 1: saturated */
    P_STALL,      /* external read stall cycles / GPU active at full load */
    P_COHERENT,   /* ray batches with 13-16 active rays */
    P_NFRACTIONS,
    P_QUADS = P_NFRACTIONS, /* fine quads per fragment-active core cycle */
    P_NF_TPC,     /* non-fragment threads per non-fragment-active cycle */
    P_OVERDRAW,   /* fragment threads per pixel */
    P_PRIMS,      /* input primitives per vertex-queue cycle */
    P_VPP,        /* position-shaded vertices per input primitive */
    P_BYTES,      /* bytes a load/store read fetches from L2 */
    NPARAMS,
};

/* A scene built from a base scene with a few parameters changed, so that
 * by construction it gets one triage verdict. Numbered from
 * SIM_VARIANT_FIRST; never part of scene=cycle. */
#define SIM_VARIANT_FIRST (SCENE_CYCLE + 1)
#define SIM_VARIANT_MAXSET 4

struct sim_variant {
    const char *name;
    int base;                 /* a base scene */
    int nset;
    int param[SIM_VARIANT_MAXSET];
    double value[SIM_VARIANT_MAXSET];
    double fpk;               /* FPK buffer non-empty share of fragment-active cycles */
    double cpu;               /* the render thread's CPU busy share; 0: the base scene's */
};

/* The CPU load a scene models (sim/cpu.c): the render thread's CPU and
 * every other CPU, busy shares. */
void sim_scene_cpu(int scene, double *render, double *others);

/* The variant with scene number scene, or NULL for a base scene. */
const struct sim_variant *sim_variant(int scene);
/* Its scene number, or -1. */
int sim_variant_find(const char *name);
/* "serial-queues, front-end-starved, ..." for messages. */
const char *sim_variant_names(void);

#endif
