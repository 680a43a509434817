/* A snapshot: the counter deltas of one interval, laid out by a catalogue. */
#ifndef GPUTOP_SNAPSHOT_H
#define GPUTOP_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

struct gt_snapshot {
    uint64_t t_start_ns;    /* start of the interval (CLOCK_MONOTONIC or kernel time) */
    uint64_t t_end_ns;      /* end of the interval */
    uint32_t nsamples;      /* samples summed into this snapshot (>1 after overrun) */
    uint32_t nslots;
    uint64_t *deltas;       /* nslots values */
    /* Bit i set: source i (in the sampler's order) failed or was waiting
     * to be retried during this interval, so its slots hold no data — a
     * view shows the interval as "no data", never as zeros. Merging ORs
     * it: an interval partly without data has none for that source. */
    uint32_t missing;
};

/* A run of slots [first, first + count): the part of a snapshot a layout
 * reads. Snapshots are copied and merged by spans so that the sampler and
 * the views touch only those slots, not a whole catalogue. */
struct gt_span {
    uint32_t first, count;
};

int  gt_snapshot_init(struct gt_snapshot *s, uint32_t nslots);
void gt_snapshot_free(struct gt_snapshot *s);
void gt_snapshot_zero(struct gt_snapshot *s);
/* dst += src: deltas summed, interval widened; slot counts must match,
 * and the two arrays be apart. */
void gt_snapshot_accumulate(struct gt_snapshot *dst, const struct gt_snapshot *src);
void gt_snapshot_copy(struct gt_snapshot *dst, const struct gt_snapshot *src);
/* The same on the slots of spans only (each within both snapshots); the
 * other slots keep their values. */
void gt_snapshot_zero_spans(struct gt_snapshot *s, const struct gt_span *sp, size_t n);
void gt_snapshot_accumulate_spans(struct gt_snapshot *dst, const struct gt_snapshot *src,
                                  const struct gt_span *sp, size_t n);
void gt_snapshot_copy_spans(struct gt_snapshot *dst, const struct gt_snapshot *src,
                            const struct gt_span *sp, size_t n);
/* dst takes src's deltas and interval by exchanging arrays, not copying:
 * src is left with dst's old array, whose values are then anything.
 * Both must have the same slot count. */
void gt_snapshot_exchange(struct gt_snapshot *dst, struct gt_snapshot *src);
/* Sorts spans by first slot and joins those that overlap or lie within
 * gap slots of each other (copying a few idle slots is cheaper than a
 * loop turn); returns the new count. */
size_t gt_spans_normalize(struct gt_span *sp, size_t n, uint32_t gap);
/* The slots of a that are in no span of b, as spans in out (room for
 * na + nb); a and b normalized (sorted, apart). Returns the count. */
size_t gt_spans_subtract(const struct gt_span *a, size_t na, const struct gt_span *b, size_t nb,
                         struct gt_span *out);
static inline uint64_t gt_snapshot_ns(const struct gt_snapshot *s)
{
    return s->t_end_ns > s->t_start_ns ? s->t_end_ns - s->t_start_ns : 0;
}

#endif
