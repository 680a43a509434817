/* The arguments every simulated family takes alike: seed= and step=. */
#ifndef GPUTOP_SOURCES_SIM_ARGS_H
#define GPUTOP_SOURCES_SIM_ARGS_H

#include <stdint.h>
#include "gputop/diag.h"

/* seed=N (default 1) and step=NS (a virtual clock, 1 .. max_step ns; 0 when
 * not given) from args; 0, or -1 with d naming the bad value. */
int gt_sim_seed_step(const char *args, uint64_t max_step, uint64_t *seed, uint64_t *step_ns,
                     struct gt_diag *d);

#endif
