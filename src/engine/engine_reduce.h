/* How the engine reduces a counter's per-instance deltas to the value
 * expressions see (sums in 64-bit integers, then mean and scale as
 * doubles): shared by the whole-layout evaluation and the per-core view. */
#ifndef GPUTOP_ENGINE_REDUCE_H
#define GPUTOP_ENGINE_REDUCE_H

#include <stdint.h>
#include "gputop/expr.h"

/* A counter the program reads, reduced from its slots. */
struct input {
    uint32_t slot, n;
    uint32_t den_slot;     /* ratio counters */
    double scale;
    uint8_t mean, ratio;
};

/* How an input reduces: a sum, a mean or a ratio of sums. */
enum { IN_SUM, IN_MEAN, IN_RATIO };

/* Inlined even where the compiler would not (a run whose count has no
 * loop of its own): a call per counter cost more than the sum. */
#if defined(__GNUC__)
#define REDUCE_INLINE inline __attribute__((always_inline))
#else
#define REDUCE_INLINE inline
#endif

/* Four running sums let the additions of a 12-core block overlap. */
static inline uint64_t sum_loop(const uint64_t *d, uint32_t n)
{
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    uint32_t j = 0;

    for (; j + 4 <= n; j += 4) {
        s0 += d[j];
        s1 += d[j + 1];
        s2 += d[j + 2];
        s3 += d[j + 3];
    }
    for (; j < n; j++)
        s0 += d[j];
    return s0 + s1 + s2 + s3;
}

/* Up to 16 slots (one front end, 2-4 L2 slices, 1-16 shader cores):
 * one jump into a run of additions, no loop to control (the loop's control
 * was a third of an input's cost). Integer sums: any order, same value. */
static REDUCE_INLINE uint64_t sum_slots(const uint64_t *d, uint32_t n)
{
    uint64_t s = 0;

    switch (n) {
    case 16: s += d[15]; /* fall through */
    case 15: s += d[14]; /* fall through */
    case 14: s += d[13]; /* fall through */
    case 13: s += d[12]; /* fall through */
    case 12: s += d[11]; /* fall through */
    case 11: s += d[10]; /* fall through */
    case 10: s += d[9]; /* fall through */
    case 9: s += d[8]; /* fall through */
    case 8: s += d[7]; /* fall through */
    case 7: s += d[6]; /* fall through */
    case 6: s += d[5]; /* fall through */
    case 5: s += d[4]; /* fall through */
    case 4: s += d[3]; /* fall through */
    case 3: s += d[2]; /* fall through */
    case 2: s += d[1]; /* fall through */
    case 1: return s + d[0];
    case 0: return 0;
    default: return sum_loop(d, n);
    }
}

/* The one place a counter's slots become the value expressions see: sums
 * in 64-bit integers first, then the mean and scale as doubles. */
static inline double reduce(const struct input *in, const uint64_t *d)
{
    double v = (double)sum_slots(d + in->slot, in->n);

    if (in->ratio)
        return gt_op_div(in->scale * v, (double)sum_slots(d + in->den_slot, in->n));
    if (in->mean)
        v = v / in->n;
    return v * in->scale;
}

/* reduce() for a count and kind known where it is inlined. */
static REDUCE_INLINE double reduce_as(const struct input *in, const uint64_t *d, uint32_t n, int kind)
{
    double v = (double)sum_slots(d + in->slot, n);

    if (kind == IN_RATIO)
        return gt_op_div(in->scale * v, (double)sum_slots(d + in->den_slot, n));
    if (kind == IN_MEAN)
        v = v / n;
    return v * in->scale;
}

static inline int input_kind(const struct input *in)
{
    return in->ratio ? IN_RATIO : in->mean ? IN_MEAN : IN_SUM;
}

#endif
