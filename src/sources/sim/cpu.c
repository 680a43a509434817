/* The simulated phone's CPUs (see cpu.h). Ticks count in USER_HZ, 100 a
 * second on most architectures (proc(5), /proc/stat), as the cpu source
 * reads them; user and system time split 4:1 (ours). */
#include "cpu.h"

#include <string.h>

#define USER_HZ     100.0
#define RENDER_CPU  4
static const double cluster_hz[SIM_CLUSTERS] = { 1.8e9, 2.8e9 };  /* little, big (ours) */

int sim_cpu_catalog(struct sim_cpu *sc, struct gt_catalog *c)
{
    memset(sc, 0, sizeof(*sc));
    if (gt_catalog_add_cpu(c, SIM_CLUSTERS) < 0 || gt_catalog_add_cpu_cores(c, SIM_CPUS) < 0)
        return -1;
    sc->user = gt_catalog_find(c, "CPUTicksUser");
    sc->sys = gt_catalog_find(c, "CPUTicksSystem");
    sc->total = gt_catalog_find(c, "CPUTicksTotal");
    sc->cycles = gt_catalog_find(c, "CyclesCPUCycles");
    sc->core_user = gt_catalog_find(c, "CPUCoreTicksUser");
    sc->core_sys = gt_catalog_find(c, "CPUCoreTicksSystem");
    sc->core_total = gt_catalog_find(c, "CPUCoreTicksTotal");
    return 0;
}

void sim_cpu_select(struct sim_cpu *sc, const unsigned char *used)
{
    int *ids[] = { &sc->user, &sc->sys, &sc->total, &sc->cycles,
                   &sc->core_user, &sc->core_sys, &sc->core_total };
    size_t i;

    for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        if (*ids[i] >= 0 && !used[*ids[i]])
            *ids[i] = -1;
}

static void put(const struct gt_catalog *c, int k, uint32_t inst, uint64_t v, uint64_t *deltas)
{
    if (k >= 0)
        deltas[c->counters[k].slot + inst] = v;
}

/* Whole ticks of x, the fraction carried to the next interval so that
 * the long-run share is exact. */
static uint64_t ticks(double x, double *carry)
{
    uint64_t n;

    x += *carry;
    n = (uint64_t)x;
    *carry = x - (double)n;
    return n;
}

void sim_cpu_interval(struct sim_cpu *sc, const struct gt_catalog *c, double render,
                      double others, uint64_t dt_ns, uint64_t *deltas)
{
    uint64_t total = ticks((double)dt_ns / 1e9 * USER_HZ, &sc->carry_total);
    uint64_t cl_busy[SIM_CLUSTERS] = { 0 }, cl_user[SIM_CLUSTERS] = { 0 };
    uint32_t i, k;

    for (i = 0; i < SIM_CPUS; i++) {
        double load = i == RENDER_CPU ? render : others;
        uint64_t busy = ticks((double)total * load, &sc->carry_busy[i]);
        uint64_t sys = busy / 5;
        if (busy > total)
            busy = total;
        put(c, sc->core_user, i, busy - sys, deltas);
        put(c, sc->core_sys, i, sys, deltas);
        put(c, sc->core_total, i, total, deltas);
        cl_busy[i / 4] += busy;
        cl_user[i / 4] += busy - sys;
    }
    for (k = 0; k < SIM_CLUSTERS; k++) {
        put(c, sc->user, k, cl_user[k], deltas);
        put(c, sc->sys, k, cl_busy[k] - cl_user[k], deltas);
        put(c, sc->total, k, 4 * total, deltas);
        put(c, sc->cycles, k, (uint64_t)((double)cl_busy[k] / USER_HZ * cluster_hz[k]), deltas);
    }
}
