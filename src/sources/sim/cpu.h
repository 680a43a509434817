/* The simulated phone's CPUs: per-CPU and per-cluster ticks as the cpu
 * source reports them from /proc/stat, with a load each scene models, so
 * the triage's CPU tests judge the simulated device, not this machine. */
#ifndef GPUTOP_SIM_CPU_H
#define GPUTOP_SIM_CPU_H

#include <stdint.h>
#include "gputop/catalog.h"

#define SIM_CPUS     8   /* CPUs 0-3 the little cluster, 4-7 the big one */
#define SIM_CLUSTERS 2

struct sim_cpu {
    int user, sys, total, cycles;             /* per-cluster counters, -1 none */
    int core_user, core_sys, core_total;      /* per-CPU counters, -1 none */
    double carry_total, carry_busy[SIM_CPUS]; /* fractions of a tick still owed */
};

/* Adds the counters (2 clusters, 8 CPUs) and finds their slots. */
int  sim_cpu_catalog(struct sim_cpu *sc, struct gt_catalog *c);
/* With a layout's counters selected (used[counter]), only those are written. */
void sim_cpu_select(struct sim_cpu *sc, const unsigned char *used);
/* One interval of dt_ns: the render thread's CPU (4) busy for render of
 * the time, every other CPU for others; deltas written by slot. */
void sim_cpu_interval(struct sim_cpu *sc, const struct gt_catalog *c, double render,
                      double others, uint64_t dt_ns, uint64_t *deltas);

#endif
