/* sim:mips-cm: a simulated MIPS coherency manager beside a simulated GPU.
 * A memory-path load per scene (drifting slowly, or stepping); every count
 * follows from the bus cycles, so no bus is busier than the CM has cycles
 * and no sub-class (sharing misses, coherent requests) exceeds the
 * requests it belongs to. Events take turns on two counters as on the
 * hardware (mux.c): only the pair counted in an interval is fresh, the
 * others hold their last rate, so a step shows the same lag and ages a
 * real CM would. A CM2.5 with one IOCU: the 2nd IOCU's event is absent. */
#include "../sim/args.h"
#include "gputop/sim.h"
#include "gputop/source.h"
#include "cm.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIM_CM_MHZ   800.0
#define SIM_T0_NS    1000000000ull   /* stepped time starts here, as sim's does */
#define SIM_MAX_STEP 60000000000ull
#define SIM_REV      0x0700u          /* CM2.5 */
#define SIM_CONFIG   0x0103u          /* 4 cores, 1 IOCU */
#define STEP_PERIOD  2.0              /* seconds of each level in scene=step */

enum { E_REQ, E_COH, E_WR, E_CMD, E_RD, E_SHARE, E_RESP, E_L2PIPE, E_L2HM, E_IOCU0, E_IOCU1 };

enum { SCENE_DRIFT, SCENE_STEP };

struct sim_cm {
    struct cm_slots slot;
    struct cm_mux mux;
    int used[CM_NEVENTS], present[CM_NEVENTS], scene;
    uint32_t qual[CM_NEVENTS];
    uint64_t seed, step_ns, last_ns, own_ns;
};


const char *gt_sim_cm_scenes(void)
{
    return "drift, step";
}

/* parse_args's arguments; the type lists them too, for --help's test. */
static const char *const sim_cm_keys[] = { "", "seed", "step", "scene", NULL };

static int parse_args(struct sim_cm *m, const char *args, struct gt_diag *d)
{
    char scene[32];

    if (gt_args_check(args, sim_cm_keys, "sim", d) < 0)
        return -1;
    if (!gt_args_get(args, "scene", scene, sizeof(scene)))
        snprintf(scene, sizeof(scene), "drift");
    if (strcmp(scene, "drift") == 0) {
        m->scene = SCENE_DRIFT;
    } else if (strcmp(scene, "step") == 0) {
        m->scene = SCENE_STEP;
    } else {
        gt_diag_set(d, "sim: mips-cm: scene=%s: expected drift (a load drifting over a "
                       "minute) or step (the load stepping between 10 %% and 80 %% every 2 s)",
                    scene);
        return -1;
    }
    return gt_sim_seed_step(args, SIM_MAX_STEP, &m->seed, &m->step_ns, d);
}

static void set_events(struct sim_cm *m)
{
    int ev[CM_NEVENTS], i;
    size_t n = 0;

    for (i = 0; i < CM_NEVENTS; i++)
        if (m->used[i] && m->present[i])
            ev[n++] = i;
    cm_mux_init(&m->mux, ev, n, m->qual);
}

static void describe(struct gt_source *s, const struct sim_cm *m)
{
    size_t n, i;
    char *p = s->info.detail;

    n = (size_t)snprintf(p, sizeof(s->info.detail), "simulated CM2.5 at %.0f MHz, seed %llu%s; "
                         "%zu events%s", SIM_CM_MHZ, (unsigned long long)m->seed,
                         m->scene == SCENE_STEP ? ", scene step" : "",
                         m->mux.nevents, cm_mux_multiplexed(&m->mux)
                         ? " over 2 counters (multiplexed, estimates)" : ", exact");
    for (i = 0; i < CM_NEVENTS && n < sizeof(s->info.detail); i++)
        if (m->used[i] && m->qual[i])
            n += (size_t)snprintf(p + n, sizeof(s->info.detail) - n, "; %s qual 0x%08x",
                                  cm_events[i].counter, m->qual[i]);
}

static void sim_cm_close(struct gt_source *s)
{
    free(s->priv);
    s->priv = NULL;
}

static int sim_cm_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    struct sim_cm *m = calloc(1, sizeof(*m));
    int i;

    if (!m) {
        gt_diag_fail(d, GT_ERR_NOMEM, "sim: out of memory");
        return -1;
    }
    s->priv = m;
    cm_events_present(SIM_REV, SIM_CONFIG, m->present);
    if (parse_args(m, args, d) < 0 || cm_catalog_add(&s->catalog, &m->slot, m->present) < 0) {
        if (!d->msg[0])
            gt_diag_fail(d, GT_ERR_NOMEM, "sim: out of memory");
        sim_cm_close(s);
        return -1;
    }
    for (i = 0; i < CM_NEVENTS; i++)
        m->used[i] = m->present[i];
    set_events(m);
    cm_catalog_mark(&s->catalog, m->used, cm_mux_multiplexed(&m->mux));
    snprintf(s->info.device, sizeof(s->info.device), "simulated");
    snprintf(s->info.layout, sizeof(s->info.layout), "mips-cm");
    snprintf(s->info.family, sizeof(s->info.family), "mips-cm");
    describe(s, m);
    m->last_ns = m->step_ns ? SIM_T0_NS : gt_now_ns();
    return 0;
}

static void model(const struct sim_cm *m, uint64_t cycles, uint64_t v[CM_NEVENTS]);

/* Like the hardware source's warm-up: each pair counted for a moment at
 * the start, so every event has a rate for the first interval. */
static int sim_cm_start(struct gt_source *s, struct gt_diag *d)
{
    struct sim_cm *m = s->priv;
    uint64_t v[CM_NEVENTS], warm = (uint64_t)(SIM_CM_MHZ * 1e3);   /* 1 ms */
    size_t p;
    int e0, e1;

    (void)d;
    m->last_ns = m->step_ns ? SIM_T0_NS : gt_now_ns();
    m->own_ns = 0;
    m->mux.cur = 0;
    model(m, warm, v);
    for (p = 0; p < m->mux.npairs; p++) {
        cm_mux_pair(&m->mux, m->mux.cur, &e0, &e1);
        cm_mux_record(&m->mux, e0 >= 0 ? v[e0] : 0, e1 >= 0 ? v[e1] : 0, warm);
        cm_mux_next(&m->mux);
    }
    return 0;
}

/* The load at a time: a read share drifting over a minute with a seeded
 * phase, or stepping between two levels. */
static double read_share(const struct sim_cm *m)
{
    double t = (double)m->own_ns / 1e9 + (double)(m->seed % 97);

    if (m->scene == SCENE_STEP)
        return fmod((double)m->own_ns / 1e9, 2 * STEP_PERIOD) < STEP_PERIOD ? 0.10 : 0.80;
    return 0.35 + 0.25 * sin(t * 0.21) + 0.05 * sin(t * 1.7);
}

static void model(const struct sim_cm *m, uint64_t cycles, uint64_t v[CM_NEVENTS])
{
    double c = (double)cycles, rd = read_share(m), wr = 0.55 * rd;
    double cmd = fmin(0.5 * (rd + wr) + 0.05, 0.98);

    v[E_RD] = (uint64_t)(c * fmin(rd, 0.98));
    v[E_WR] = (uint64_t)(c * fmin(wr, 0.98));
    v[E_CMD] = (uint64_t)(c * cmd);
    /* a request holds the command bus for two cycles */
    v[E_REQ] = v[E_CMD] / 2;
    v[E_COH] = v[E_REQ] * 3 / 10;
    v[E_SHARE] = v[E_COH] / 5;
    v[E_RESP] = v[E_SHARE] * 4;          /* a line is four d-words */
    v[E_L2PIPE] = v[E_REQ] + v[E_REQ] / 10;
    v[E_L2HM] = v[E_REQ] * 9 / 10;
    v[E_IOCU0] = v[E_REQ] * 15 / 100;    /* the GPU's DMA through the first IOCU */
    v[E_IOCU1] = 0;                      /* absent: one IOCU in this configuration */
}

static enum gt_sample_result sim_cm_sample(struct gt_source *s, struct gt_snapshot *out,
                                           struct gt_diag *d)
{
    struct sim_cm *m = s->priv;
    uint64_t now, dt, cycles, v[CM_NEVENTS];
    int i, e0, e1;

    (void)d;
    now = m->step_ns ? m->last_ns + m->step_ns : gt_now_ns();
    dt = now > m->last_ns ? now - m->last_ns : 0;
    gt_snapshot_zero(out);
    out->t_start_ns = m->last_ns;
    out->t_end_ns = m->last_ns + dt;
    out->nsamples = 1;
    m->last_ns += dt;
    m->own_ns += dt;
    cycles = (uint64_t)((double)dt * SIM_CM_MHZ / 1e3);
    model(m, cycles, v);
    out->deltas[m->slot.cycles] = cycles;
    /* the pair on the counters sees this interval; the others hold */
    cm_mux_pair(&m->mux, m->mux.cur, &e0, &e1);
    cm_mux_record(&m->mux, e0 >= 0 ? v[e0] : 0, e1 >= 0 ? v[e1] : 0, cycles);
    for (i = 0; i < CM_NEVENTS; i++) {
        int64_t est = cm_mux_estimate(&m->mux, i, cycles);
        if (!m->used[i] || !m->present[i] || est < 0)
            continue;
        out->deltas[m->slot.event[i]] = (uint64_t)est;
        out->deltas[m->slot.age[i]] = m->mux.age[i];
        out->deltas[m->slot.qual[i]] = m->qual[i];
    }
    out->deltas[m->slot.reg[CM_R_SAMPLES]] = 1;
    out->deltas[m->slot.reg[CM_R_P0EVENT]] = e0 >= 0 ? cm_events[e0].number : 0;
    out->deltas[m->slot.reg[CM_R_P1EVENT]] = e1 >= 0 ? cm_events[e1].number : 0;
    out->deltas[m->slot.reg[CM_R_COUNTON]] = 3;
    out->deltas[m->slot.reg[CM_R_PAIRS]] = m->mux.npairs;
    out->deltas[m->slot.reg[CM_R_QUAL0]] = e0 >= 0 ? m->qual[e0] : 0;
    out->deltas[m->slot.reg[CM_R_QUAL1]] = e1 >= 0 ? m->qual[e1] : 0;
    if (cm_mux_multiplexed(&m->mux))
        cm_mux_next(&m->mux);
    return GT_SAMPLE_OK;
}

static int sim_cm_select(struct gt_source *s, const unsigned char *used, struct gt_diag *d)
{
    struct sim_cm *m = s->priv;
    int i, k;

    (void)d;
    for (i = 0; i < CM_NEVENTS; i++) {
        k = gt_catalog_find(&s->catalog, cm_events[i].counter);
        m->used[i] = k >= 0 && used[k];
    }
    set_events(m);
    cm_catalog_mark(&s->catalog, m->used, cm_mux_multiplexed(&m->mux));
    describe(s, m);
    return 0;
}

/* The same qualifier settings as the hardware source takes; the model
 * ignores them but records them in the detail line (and so in captures). */
static int sim_cm_configure(struct gt_source *s, const char *key, const char *value,
                            struct gt_diag *d)
{
    struct sim_cm *m = s->priv;
    unsigned long long v = 0;
    char *end;
    int e;

    if (strncmp(key, "qual.", 5) != 0 || (e = cm_event_find(key + 5)) < 0) {
        gt_diag_set(d, "sim: mips-cm: unknown option '%s' (expected qual.EVENT)", key);
        return -1;
    }
    if (strcmp(value, "reset") != 0) {
        errno = 0;
        v = strtoull(value, &end, 0);
        if (errno || *end || end == value || v > 0xffffffffull || *value == '-') {
            gt_diag_set(d, "sim: mips-cm: %s=%s: a qualifier is a 32-bit number or 'reset'",
                        key, value);
            return -1;
        }
    }
    m->qual[e] = (uint32_t)v;
    set_events(m);
    describe(s, m);
    return 0;
}

/* Reached through sim's open ("sim:mips-cm"), which hands the source over. */
const struct gt_source_type gt_source_sim_cm = {
    .name = "sim",
    .usage = "sim:mips-cm[,scene=drift|step][,seed=N][,step=NS]",
    .help = "simulated MIPS coherency manager",
    .keys = sim_cm_keys,
    .kind = GT_SOURCE_VIRTUAL,
    .open = sim_cm_open,
    .start = sim_cm_start,
    .sample = sim_cm_sample,
    .close = sim_cm_close,
    .select = sim_cm_select,
    .configure = sim_cm_configure,
};
