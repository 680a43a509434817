/* What every simulated family shares: the seed= and step= arguments, a
 * seeded random stream, and arithmetic that keeps counter relations exact. */
#ifndef GPUTOP_SOURCES_SIM_ARGS_H
#define GPUTOP_SOURCES_SIM_ARGS_H

#include <stdint.h>
#include "gputop/diag.h"

/* seed=N (default 1) and step=NS (a virtual clock, 1 .. max_step ns; 0 when
 * not given) from args; 0, or -1 with d naming the bad value. */
int gt_sim_seed_step(const char *args, uint64_t max_step, uint64_t *seed, uint64_t *step_ns,
                     struct gt_diag *d);

/* floor(whole * f) for f clamped to 0..1: never more than whole. Inline:
 * the models call it about a thousand times a sample. */
static inline uint64_t gt_sim_part(uint64_t whole, double f)
{
    double v;

    if (!(f > 0.0))
        return 0;
    if (f >= 1.0)
        return whole;
    /* Up to 2^53 a whole is exact as a double and whole * f rounds to at
     * most whole, so signed conversions (cheaper on x86-64) give the same
     * result without the final test. */
    if (whole >> 53 == 0)
        return (uint64_t)(int64_t)((double)(int64_t)whole * f);
    v = (double)whole * f;
    return v >= (double)whole ? whole : (uint64_t)v;
}

/* Random numbers: splitmix64 turns a seed into a state, xorshift64* steps
 * it; gt_sim_unit gives [0, 1) from one step. */
uint64_t gt_sim_splitmix64(uint64_t *x);

/* Inline, as gt_sim_part: every jittered quantity steps the stream. */
static inline uint64_t gt_sim_xorshift(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545F4914F6CDD1Dull;
}

static inline double gt_sim_unit(uint64_t *state)
{
    return (double)(gt_sim_xorshift(state) >> 11) * 0x1.0p-53;
}

#endif
