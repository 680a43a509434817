/* The sampler's insides, shared by sampler.c (the thread, the timer and
 * the double buffer) and drain.c (kernel-timed sampling). */
#ifndef GPUTOP_SAMPLER_INT_H
#define GPUTOP_SAMPLER_INT_H

#include "gputop/sampler.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define BACKOFF_MAX_NS 5000000000ull

struct source_slot {
    struct gt_snapshot view;   /* window into back: deltas point inside it */
    uint64_t retry_at;         /* 0 or the time before which it is not retried */
    uint64_t backoff;
    /* The end of the last interval accounted for, on the source's clock,
     * and our clock then: a lost interval runs on from it. */
    uint64_t src_end, mono_end;
    uint32_t offset;           /* its first slot in the merged snapshot (copied:
                                  the caller's array need not outlive us) */
    int ended;
    /* Kernel-timed (gt_source_type.periodic): the kernel samples at period
     * into a ring of ring samples, which a drain empties */
    int timed;
    uint64_t period;
    uint32_t ring;
    uint64_t prev_end;         /* the kernel's end of its last sample */
    uint64_t drained_at;       /* the drain's start, on the source's clock */
    uint64_t last_got;         /* our clock when a sample last came */
};

struct gt_sampler {
    struct gt_sampler_config cfg;
    struct source_slot *src;
    struct gt_snapshot back, front;
    struct gt_span *spans;     /* what is cleared, merged and copied */
    size_t nspans;
    int front_full;            /* front holds deltas not yet taken */
    pthread_t thread;
    int started, stopping;
    /* gt_sampler_finish: the kernels' rings are drained to the end
     * before the thread ends, for a reader that takes the rest */
    int finishing;
    /* each_drained: the reader waits in gt_sampler_take for the next
     * snapshot, so that the thread may record it (a row is written after
     * its take, and -n stops after the last row) */
    int asking;
    pthread_mutex_t lock;
    /* The thread sleeps on this word until a deadline: a futex rather than
     * a condition variable, so that a sleep is one system call and its
     * timeout no mutex round trip. Bumped to wake it (stop, new interval). */
    atomic_uint wake_seq;
    pthread_cond_t ready;      /* readers wait on it for a snapshot */
    pthread_cond_t taken;      /* lossless mode: the thread waits for the reader */
    uint64_t interval_ns;
    struct gt_sampler_stats stats;
    struct gt_lateness lateness;   /* of timed wake-ups; summarized into stats */
    int wake_fd;               /* eventfd a reader polls, -1 none */
    uint64_t wake_at;          /* 0, or the time from which a publish wakes it */
    /* Kernel-timed sampling: a source's kernel fills its ring at the
     * period and the thread drains it when half full or a reader is due */
    int timed;
    uint64_t deadline;         /* of the drain the thread sleeps for */
    uint64_t last_drain;
    int hold_wake;             /* mid-drain: the reader is woken at its end */
    struct gt_lateness jitter; /* kernel timestamps off the period's grid */
    struct gt_lateness drain;  /* a sample's end to its hand-over */
    uint64_t reader_last, reader_every;   /* a view's last due time, its step */
};

enum { SLEPT, WOKEN };

/* round.c: the steps of a round, called by sampler.c and drain.c */
void gt_smp_ts_from_ns(struct timespec *ts, uint64_t ns);
void gt_smp_note_error(struct gt_sampler *s, const struct gt_source *src,
                       const struct gt_diag *d);
void gt_smp_note_warning(struct gt_sampler *s, const struct gt_source *src,
                         const struct gt_diag *d);
void gt_smp_mark_lost(struct gt_sampler *s, size_t i, uint64_t now);
void gt_smp_back_off(struct gt_sampler *s, struct source_slot *ss, uint64_t now);
/* Calls source i; 1 when it gave data, 0 when it has none for this round,
 * -1 when it has ended. */
int  gt_smp_sample_one(struct gt_sampler *s, size_t i, uint64_t now);
/* Hands the back buffer over (or adds it to the front not yet taken). */
void gt_smp_publish(struct gt_sampler *s);
/* Sleeps until the absolute CLOCK_MONOTONIC deadline: SLEPT, or WOKEN
 * when woken after the wake count was seq. */
int  gt_smp_sleep_until(struct gt_sampler *s, uint64_t deadline, unsigned seq);
void gt_smp_update_state(struct gt_sampler *s);
void gt_smp_wake_thread(struct gt_sampler *s);

/* drain.c: after the sources start, each that can is made kernel-timed;
 * then the thread drains them: 1 when it stops (after a last drain, see
 * drain_final) or all ended, 0 to go on with the timer. */
void gt_smp_start_periodic(struct gt_sampler *s);
int  gt_smp_drain_run(struct gt_sampler *s);

#endif
