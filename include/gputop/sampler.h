/* The sampler thread: calls the sources on absolute CLOCK_MONOTONIC
 * deadlines and publishes their deltas through a double buffer; when the
 * reader falls behind, new deltas are added to the unread snapshot, so no
 * count is ever lost. */
#ifndef GPUTOP_SAMPLER_H
#define GPUTOP_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include "gputop/diag.h"
#include "gputop/lateness.h"
#include "gputop/snapshot.h"
#include "gputop/source.h"

#define GT_INTERVAL_MIN_NS 1000000ull          /* 1 ms */
#define GT_INTERVAL_MAX_NS 10000000000ull      /* 10 s */

enum gt_sampler_state {
    GT_SAMPLER_IDLE,        /* not started */
    GT_SAMPLER_RUNNING,
    GT_SAMPLER_RETRYING,    /* a source failed; retried with backoff */
    GT_SAMPLER_ENDED,       /* the sources are exhausted (end of a replay) */
};

struct gt_sampler_stats {
    uint64_t samples;       /* sampling rounds with data from every source */
    uint64_t nodata;        /* rounds published with a source's data missing */
    uint64_t merged;        /* rounds added into a snapshot not yet read */
    uint64_t late;          /* wake-ups that missed their deadline by a whole interval */
    uint64_t errors;        /* failed source samples */
    uint64_t warnings;      /* good samples a source warned about */
    uint64_t capture_errors; /* rounds on_sample (the recorder) could not
                                keep: 0 or 1, as it is not called again */
    /* How late each timed wake-up was after its absolute deadline (none
     * for self-paced sources, which wait in the source itself). */
    struct gt_lateness_summary lateness;
    /* Kernel-timed sampling (kernel_timed set): how far each sample's
     * kernel timestamp lies off the period's grid, and how long after
     * its end each sample was handed over. */
    int kernel_timed;
    struct gt_lateness_summary jitter, drain;
    enum gt_sampler_state state;
    char last_error[GT_DIAG_MSG + 64];   /* "SOURCE: message" */
    enum gt_err last_error_code;         /* the failing source's code */
    char last_warning[GT_DIAG_MSG + 64];
    char last_capture_error[GT_DIAG_MSG];
};

struct gt_sampler_config {
    struct gt_source **sources;
    size_t nsources;
    const uint32_t *slot_offset;  /* per source: its first slot in the merged snapshot
                                     (copied by gt_sampler_new) */
    uint32_t nslots;              /* merged snapshot size */
    uint64_t interval_ns;
    int lossless;                 /* wait for the reader instead of merging */
    /* Called on the sampler thread with every raw round (the recorder);
     * after a non-zero return (a full disk) it is not called again, and
     * the stats' capture_errors say so. */
    int (*on_sample)(void *arg, const struct gt_snapshot *s, struct gt_diag *d);
    void *arg;
    /* The slots anyone reads (gt_engine_spans); only these are cleared,
     * merged and handed over. NULL: every slot (a recorder needs them all). */
    const struct gt_span *spans;
    size_t nspans;
    /* Wait for the reader, as lossless does, between the samples of a
     * drain (batch rows: one for each kernel-timed sample). */
    int each_drained;
    int timer_only;               /* no kernel-timed sampling (--timer-sampling) */
};

struct gt_sampler;

struct gt_sampler *gt_sampler_new(const struct gt_sampler_config *cfg);
/* Starts the sources and the sampler thread (a no-op when running). */
int  gt_sampler_start(struct gt_sampler *s, struct gt_diag *d);
/* Waits up to timeout_ns for a snapshot, hands it over in out and marks it
 * read. out must be sized for nslots (gt_snapshot_init); its array is
 * exchanged with the sampler's rather than copied, so only the configured
 * spans of it hold this snapshot's values, the other slots anything. Returns 1 when one was taken, 0 on timeout,
 * -1 when the sampler has ended and everything was read. */
int  gt_sampler_take(struct gt_sampler *s, struct gt_snapshot *out, uint64_t timeout_ns);
/* A descriptor that becomes readable when a snapshot is published at or
 * after the time last given to gt_sampler_wake_after (read it to clear
 * it, or watch it edge-triggered in epoll: each write is an edge); -1 if
 * none can be made. Lets a view refresh right after new
 * data arrives instead of on a timer of its own. */
int  gt_sampler_wake_fd(struct gt_sampler *s);
void gt_sampler_wake_after(struct gt_sampler *s, uint64_t t_ns);
void gt_sampler_set_interval(struct gt_sampler *s, uint64_t ns);
uint64_t gt_sampler_interval(struct gt_sampler *s);
uint32_t gt_sampler_nslots(const struct gt_sampler *s);
void gt_sampler_get_stats(struct gt_sampler *s, struct gt_sampler_stats *st);
/* The state and the warning count alone: what a view asks every refresh,
 * without copying the messages or summarizing the lateness. */
enum gt_sampler_state gt_sampler_state(struct gt_sampler *s, uint64_t *warnings);
/* capture_errors alone, for a view to ask every refresh. */
uint64_t gt_sampler_capture_errors(struct gt_sampler *s);
/* Kernel-timed: the thread hands over what the kernels counted up to now
 * (the samples in their rings, and the last one that ending periodic
 * mode gives) and ends, so gt_sampler_take gives the rest, then -1.
 * Returns 1 so; 0 on gputop's timer, where nothing more is to come. */
int  gt_sampler_finish(struct gt_sampler *s);
/* Stops and joins the thread, then lets each source publish into its info
 * what it kept while sampling (GT_PLAYBACK_SETTLE); safe to call twice.
 * Kernel-timed, the thread first hands over what the kernels counted, as
 * gt_sampler_finish does, unless each_drained (batch rows): their reader
 * stops it after the last row it wants, where the capture must end too. */
void gt_sampler_stop(struct gt_sampler *s);
void gt_sampler_free(struct gt_sampler *s);

/* The deadline after a round that started at now, for a period on the
 * grid next + k * interval: deadlines missed by a whole interval are
 * skipped (counted in *late), never caught up in a burst, and the grid
 * never shifts, so there is no drift. */
uint64_t gt_deadline_advance(uint64_t next, uint64_t now, uint64_t interval, uint64_t *late);

#endif
