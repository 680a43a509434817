/* The simulated phone's GPU clock, temperature and power, as the gpu-clocks
 * companion reads them from sysfs on a device: a clock that follows the
 * scene's, a temperature that follows its load, and a 'thermal' scene in
 * which the zone crosses its passive trip and a cooling device lowers the
 * clock's cap. */
#ifndef GPUTOP_SIM_CLOCKS_H
#define GPUTOP_SIM_CLOCKS_H

#include <stdint.h>
#include "gputop/gpu_clocks.h"

#define SIM_CLK_OPPS 6

struct sim_clocks {
    struct gt_clk_slots slots;
    uint64_t opp_hz[SIM_CLK_OPPS];
    double top_mhz;
    unsigned cores;               /* shader cores in the core mask */
    double temp_c;                /* the zone's temperature, modelled */
    unsigned cool;                /* the bound cooling device's state */
    double ms[SIM_CLK_OPPS];      /* time at each operating point since start */
    double rail_uws, rail_ms;     /* the GPU rail's energy meter */
    struct gt_clk_reading prev;
    uint32_t first, n;            /* the counters' slots, [first, first + n) */
    uint64_t *scratch;            /* a reading's deltas, by slot */
    unsigned char *chosen;        /* per slot: written (all, until select) */
};

/* Adds the gpu-clocks counters for a GPU whose top clock is top_mhz. */
int  sim_clocks_catalog(struct sim_clocks *sc, struct gt_catalog *c, double top_mhz,
                        unsigned cores);
/* With a layout's counters selected (used[counter] of c), only those
 * slots are written. */
void sim_clocks_select(struct sim_clocks *sc, const struct gt_catalog *c,
                       const unsigned char *used);
void sim_clocks_free(struct sim_clocks *sc);
/* The cap (MHz) the cooling device leaves the GPU this interval. */
double sim_clocks_cap(const struct sim_clocks *sc);
/* One interval of dt_ns at mhz with the GPU busy for busy of it; hot: the
 * thermal scene (the device heats towards 95 degC whatever the clock).
 * Writes one reading's counters into deltas (the chosen slots only). */
void sim_clocks_interval(struct sim_clocks *sc, double mhz, double busy, int hot,
                         uint64_t dt_ns, uint64_t *deltas);

#endif
