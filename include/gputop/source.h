/* Counter sources: one interface (open, describe, start, sample, close)
 * for hardware, simulated and recorded counters. Each source is one file in
 * src/sources/ exporting one struct gt_source_type; registry.c lists them. */
#ifndef GPUTOP_SOURCE_H
#define GPUTOP_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "gputop/catalog.h"
#include "gputop/diag.h"
#include "gputop/snapshot.h"
#include "gputop/sys.h"

struct gt_source;

/* What a source type counts, which decides when it is opened. */
enum gt_source_kind {
    GT_SOURCE_CPU,           /* CPU counters beside a GPU source */
    GT_SOURCE_HARDWARE,      /* a real GPU; probed when no --source is given */
    GT_SOURCE_VIRTUAL,       /* simulated or recorded GPU counters */
    GT_SOURCE_COMPANION,     /* hardware beside a GPU source (mips-cm): reached
                                through the seam, probed only when named */
    GT_SOURCE_CLOCKS,        /* the GPU's clock, temperature and power from
                                /sys (gpu-clocks): reached through the seam,
                                added beside a hardware GPU source on its own
                                unless that one keeps its own (own_clocks) */
};

/* What an opened source describes of itself. */
struct gt_source_info {
    char device[128];        /* what was opened: "/dev/mali0", "simulated", a file */
    char gpu[64];            /* GPU name, "" for non-GPU sources */
    char layout[64];         /* layout that fits its counters, "" if none */
    char family[32];         /* "mali-g720", ... */
    uint64_t gpu_id;         /* product id a layout's 'match' line names */
    uint32_t shader_cores, l2_slices, bus_width_bits;
    char core_noun[16];      /* what shader_cores counts ("CUs"); "" cores */
    uint64_t core_mask;      /* shader cores present, bit N = core N; 0 unknown */
    char detail[256];        /* driver interface and version, scene, ... */
    char ended[256];         /* why the source stopped early ("" if it did
                                not): a damaged capture, ... */
    int self_paced;          /* 1: sample() itself waits for the next record
                                (replay), so the sampler does not sleep */
    uint64_t max_interval_ns; /* longest sampling period its counters survive
                                (32-bit counters wrap); 0 when any will do */
    /* Kernel-timed sampling (gt_source_type.periodic): the shortest period
     * the kernel takes (0: none; the sampler's timer calls sample()), the
     * samples its ring holds, and the clock of the samples' timestamps
     * (CLOCK_MONOTONIC_RAW for kbase). */
    uint64_t periodic_min_ns;
    uint32_t periodic_ring;
    int periodic_clock;
    int own_clocks;          /* 1: its GPU's clock and temperature are not
                                devfreq's (amdgpu gives them in its own
                                gpu_metrics), so no clocks source is added
                                beside it */
};

/* Playback commands (gt_playback_ops.control). */
enum gt_playback_cmd {
    GT_PLAYBACK_PAUSE,       /* sample() waits, holding the record shown */
    GT_PLAYBACK_RESUME,
    GT_PLAYBACK_STEP,        /* arg +1 / -1: the record after / before the
                                last one delivered, at once; pauses */
    GT_PLAYBACK_SEEK,        /* arg k: record k (from 0) at once, clamped to
                                the records there are; playing goes on */
    GT_PLAYBACK_INDEX,       /* before the first sample: index the records
                                (one checking scan of the file) so that N is
                                known and STEP and SEEK work; -1 when the
                                file cannot be indexed (a pipe). Batch
                                output, which never seeks, skips the scan */
    GT_PLAYBACK_HOLD,        /* arg 1: at the end (or damage) wait for a
                                command instead of ending (the dashboard) */
    GT_PLAYBACK_INTERRUPT,   /* a waiting sample() returns GT_SAMPLE_END at
                                once, and so does every later one: the
                                sampler stops */
    GT_PLAYBACK_SETTLE,      /* the sampler thread has been joined: what
                                sample() kept under the source's own lock
                                (an end or damage message) goes into info,
                                which the main thread then reads alone */
    GT_PLAYBACK_SPEED,       /* arg: the pace in thousandths of the recorded
                                one (500: half speed), from the next record;
                                -1 when it is out of range or the replay
                                plays as fast as it can (speed=max) */
};

enum gt_play_state { GT_PLAY_PLAYING, GT_PLAY_PAUSED, GT_PLAY_ENDED };

struct gt_source_position {
    uint64_t k;              /* the record shown, from 1; 0 before the first */
    uint64_t n;              /* records there are; 0 when unknown */
    uint64_t t_ns;           /* recorded time at its end, from the start of
                                the first record */
    double speed;            /* 1: the recorded pace; N times; 0: as fast
                                as the records are taken */
    enum gt_play_state state;
    int stale;               /* shown was read before the latest STEP or
                                SEEK (the sampler may hold one read ahead):
                                a view drops it */
    char why[256];           /* GT_PLAY_ENDED: why, without the file name */
    char damage[256];        /* once reached: where and why the file is
                                damaged, naming it; "" otherwise */
};

/* Optional, for sources that play something back (replay); both are
 * thread-safe, called by a view while sample() runs on the sampler
 * thread. NULL in the type for live sources. */
struct gt_playback_ops {
    /* 0, or -1 when the command does not apply (STEP without an index). */
    int  (*control)(struct gt_source *s, enum gt_playback_cmd cmd, int64_t arg);
    /* Where the playback is. shown (NULL: the newest) is the snapshot on
     * screen, so that k and t are those of the record shown, not of one
     * already read ahead. */
    void (*position)(struct gt_source *s, const struct gt_snapshot *shown,
                     struct gt_source_position *pos);
};

/* What sample() says of the round. */
enum gt_sample_result {
    GT_SAMPLE_ERROR = -1,    /* no data, d says why (its code too); the
                                sampler retries later */
    GT_SAMPLE_OK = 0,
    GT_SAMPLE_END = 1,       /* exhausted (a replay's end): no data, no more */
    GT_SAMPLE_WARN = 2,      /* good data, and d holds a warning for the user
                                (a saturated counter, ...) */
    GT_SAMPLE_EMPTY = 3,     /* periodic mode: no sample is waiting in the
                                kernel's ring; no data, none lost */
};

/* What --probe hands a source type's probe op. */
struct gt_probe {
    const struct gt_sys *sys; /* the seam the devices are reached through */
    FILE *out;               /* the report */
    /* Runs the sampler on spec for a moment at a 1 ms period and reports
     * how late it woke (used: as for select). The command line's, so that
     * a source need not know the sampler. */
    void (*timing)(const struct gt_probe *p, const char *spec, const unsigned char *used);
};

enum gt_probe_result {
    GT_PROBE_NONE = -1,      /* no device of the type here; nothing printed */
    GT_PROBE_WORKS = 0,      /* one opened and gave a sample */
    GT_PROBE_FAILED = 1,     /* one was found; the report says what failed */
};

struct gt_source_type {
    const char *name;        /* as in --source NAME[:ARGS] */
    const char *usage;       /* its ARGS as --help shows them:
                                "mali[:/dev/maliN][,interface=...]" */
    const char *help;        /* what it reads, for --help and --list-sources */
    const char *const *keys; /* the argument keys open() takes, NULL-
                                terminated; "" for bare words (a path) */
    enum gt_source_kind kind;
    int recorded;            /* 1: plays a recording back (replay, csv), which
                                holds the CPU counters of its run, or none */
    /* 0 when it can run on this machine; else -1 and the reason in why. */
    int  (*available)(const struct gt_sys *sys, char *why, size_t len);
    /* Optional: --probe's report on a device, step by step. args NULL (no
     * --source given): every device of the type there is; else the one
     * ARGS names ("" the default one). */
    enum gt_probe_result (*probe)(const struct gt_probe *p, const char *args);
    /* Opens with ARGS ("" if none); fills s->info and s->catalog. */
    int  (*open)(struct gt_source *s, const char *args, struct gt_diag *d);
    int  (*start)(struct gt_source *s, struct gt_diag *d);
    /* Writes the deltas since the previous sample into out, laid out by
     * s->catalog, with the interval's start and end times; nsamples = 1.
     * d's text never names the source: the sampler does. */
    enum gt_sample_result (*sample)(struct gt_source *s, struct gt_snapshot *out,
                                    struct gt_diag *d);
    void (*close)(struct gt_source *s);
    /* Optional, before start: used[k] is non-zero when counter k of
     * s->catalog feeds a metric, so hardware sources can enable only those
     * and, unless s->capturing, write only those. Returns 0 or -1 with d
     * set. */
    int  (*select)(struct gt_source *s, const unsigned char *used, struct gt_diag *d);
    /* Optional, where info.periodic_min_ns is set: from now on the kernel
     * takes a sample every *period_ns into its ring, and sample() hands
     * over the oldest one waiting, with the kernel's timestamps, or
     * returns GT_SAMPLE_EMPTY. *period_ns 0 goes back to sample() taking
     * each sample itself. What the ring held at a change comes out of the
     * next sample(). Sets *period_ns to the period the kernel uses. 0, or
     * -1 with d set: the sampler keeps its timer. Called after start(),
     * on the sampler's thread once it runs. */
    int  (*periodic)(struct gt_source *s, uint64_t *period_ns, struct gt_diag *d);
    /* Optional: what the source was doing at the end of snap's interval,
     * for the header ("scene cycle: game"); "" when nothing. Called on the
     * view's thread while sample() runs, so it reads only what open() and
     * start() set, and snap. */
    void (*activity)(const struct gt_source *s, const struct gt_snapshot *snap,
                     char *buf, size_t len);
    /* Optional, before select: one setting from the layout's 'option'
     * lines that name this source (KEY=VALUE). Returns 0 or -1 with d set. */
    int  (*configure)(struct gt_source *s, const char *key, const char *value,
                      struct gt_diag *d);
    const struct gt_playback_ops *playback;  /* NULL: a live source */
};

struct gt_source {
    const struct gt_source_type *type;
    const struct gt_sys *sys;
    void *priv;
    struct gt_source_info info;
    struct gt_catalog catalog;
    /* Set before select() when every slot goes into a capture: a source
     * then delivers all it counts, not only what select() asked for (as
     * the sampler moves every slot then, not only the layout's). */
    int capturing;
};

/* Every source type built in, NULL-terminated. */
extern const struct gt_source_type *const gt_source_types[];
const struct gt_source_type *gt_source_type_find(const char *name);

/* Opens "NAME[:ARGS]"; a comma may stand for the colon ("sim,scene=game"),
 * since the name is never more than letters. On error returns NULL with d
 * set. */
struct gt_source *gt_source_open(const char *spec, const struct gt_sys *sys, struct gt_diag *d);
void gt_source_close(struct gt_source *s);
/* The length of the NAME part of a spec: up to the first ':' or ','. */
size_t gt_source_name_len(const char *spec);

/* Source arguments: "a,b=1,c=x" — a bare word is a positional value. */
/* Returns the value of key (or NULL); positional words match key "". */
const char *gt_args_get(const char *args, const char *key, char *buf, size_t len);
/* Checks that every key in args is one of the NULL-terminated list;
 * returns 0 or -1 with d naming the unknown key. */
int gt_args_check(const char *args, const char *const *keys, const char *source,
                  struct gt_diag *d);
/* A value of decimal digits only (no sign, no spaces) into *out; 0, or -1
 * when it is not one or overflows. */
int gt_args_u64(const char *s, uint64_t *out);

#endif
