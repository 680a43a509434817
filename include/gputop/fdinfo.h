/* Per-process GPU use from /proc/PID/fdinfo (the kernel's DRM client
 * usage stats, drm-usage-stats.rst), for any driver that prints them.
 * Costly part: the walk of every process's fds to find DRM clients; so
 * the fds found are kept open and re-read each period, and the full walk
 * for new clients runs only every walk_every periods. */
#ifndef GPUTOP_FDINFO_H
#define GPUTOP_FDINFO_H

#include <stddef.h>
#include <stdint.h>
#include "gputop/sys.h"

#define GT_FDINFO_ENGINES 8

/* Which per-engine keys a client printed (gt_fdinfo_engine.keys). */
enum {
    GT_FDINFO_K_NS = 1, GT_FDINFO_K_CAPACITY = 2, GT_FDINFO_K_CYCLES = 4,
    GT_FDINFO_K_MAXFREQ = 8, GT_FDINFO_K_TOTAL = 16, GT_FDINFO_K_CURFREQ = 32,
};

struct gt_fdinfo_engine {
    char name[24];            /* "fragment", "gfx", "render", ... */
    uint64_t ns;              /* drm-engine-NAME, cumulative (never goes back) */
    uint64_t cycles;          /* drm-cycles-NAME, 0 if not printed */
    uint64_t total_cycles;    /* drm-total-cycles-NAME (the GPU clock's count), 0 if not */
    uint64_t maxfreq_hz;      /* drm-maxfreq-NAME, 0 if not printed */
    uint64_t curfreq_hz;      /* drm-curfreq-NAME, 0 if not printed */
    uint32_t capacity;        /* drm-engine-capacity-NAME, 1 if not printed */
    int has_ns;               /* drm-engine-NAME printed (profiling on) */
    unsigned keys;            /* GT_FDINFO_K_* printed for it */
    double busy_pct;          /* over the last period; capacity taken into account */
    /* Growth over the last update; 0 on a client's (or engine's) first
     * reading, which is only its baseline. */
    uint64_t d_ns, d_cycles, d_total_cycles;
};

/* One DRM client: an open DRM file, however many fds or processes share it. */
struct gt_fdinfo_client {
    int pid;                  /* lowest pid seen holding it */
    char comm[32];
    char driver[16];          /* drm-driver */
    char pdev[32];            /* drm-pdev, "" if not printed */
    uint64_t client_id;       /* drm-client-id */
    int nengines;
    struct gt_fdinfo_engine engine[GT_FDINFO_ENGINES];
    uint64_t mem_bytes;       /* drm-total-* summed (else drm-resident-*, drm-memory-*) */
    double busy_pct;          /* the busiest engine's busy_pct */
    uint64_t seen_ns;         /* when last read */
};

struct gt_fdinfo_stats {
    uint64_t walks, rereads, walk_ns_last, reread_ns_last;
    uint64_t fds_seen;        /* DRM fds the last full walk found */
};

struct gt_fdinfo;

/* walk_every: a full walk every N updates (>= 1). NULL on no memory. */
struct gt_fdinfo *gt_fdinfo_new(const struct gt_sys *sys, unsigned walk_every);
void gt_fdinfo_free(struct gt_fdinfo *f);
/* Walks when period_ns has passed since the last walk (the first update
 * always walks) instead of every walk_every updates; 0 restores the count. */
void gt_fdinfo_set_walk_period(struct gt_fdinfo *f, uint64_t period_ns);
/* Re-reads known clients, walks /proc when due (or when force_walk),
 * drops clients whose fds are gone, and computes each engine's busy share
 * over the time since the previous update. 0, or -1 with errno when /proc
 * cannot be listed. */
int gt_fdinfo_update(struct gt_fdinfo *f, uint64_t now_ns, int force_walk);
/* The clients after the last update, busiest first (ties: lower pid). */
size_t gt_fdinfo_clients(const struct gt_fdinfo *f,
                         const struct gt_fdinfo_client *const **out);
const struct gt_fdinfo_stats *gt_fdinfo_stats(const struct gt_fdinfo *f);
/* 1 when clients of a panfrost/panthor device print no drm-engine keys:
 * the sysfs 'profiling' switch is off. */
int gt_fdinfo_profiling_off(const struct gt_fdinfo *f);

/* The costly half of a walk on its own: every fd below /proc that links
 * to a DRM node, as (pid, fd), without reading any fdinfo. It touches no
 * reader, so it can run on another thread; *out is malloc'ed. Returns
 * the count, or -1 with errno when /proc cannot be listed. */
struct gt_fdinfo_fdref {
    int pid, fd;
};
long gt_fdinfo_scan(const struct gt_sys *sys, struct gt_fdinfo_fdref **out);
/* Takes the DRM fds a scan found that f does not know yet; each new
 * client's first reading is a baseline, as after a walk. */
void gt_fdinfo_adopt(struct gt_fdinfo *f, const struct gt_fdinfo_fdref *fds, size_t n);

/* The walk on a thread of its own (fdinfo_walker.c), for readers that
 * must not walk inside a sample: every period_ns it scans /proc, and
 * feed() hands the latest scan's fds, if any, to f on the caller's
 * thread. NULL when the thread cannot start. */
struct gt_fdinfo_walker;
struct gt_fdinfo_walker *gt_fdinfo_walker_start(const struct gt_sys *sys, uint64_t period_ns);
void gt_fdinfo_walker_feed(struct gt_fdinfo_walker *w, struct gt_fdinfo *f);
void gt_fdinfo_walker_stop(struct gt_fdinfo_walker *w);

/* Walks the reader behind a drm-fdinfo source did itself: the one at
 * open, and with walk=0 one in every sample. */
struct gt_source;
uint64_t gt_fdinfo_source_walks(const struct gt_source *s);

/* Parses one fdinfo file's text into c (engines, memory, driver, client
 * id); 0, or -1 when it holds no drm-driver key (not a DRM client). */
int gt_fdinfo_parse(const char *text, struct gt_fdinfo_client *c);

/* Every counter --source drm-fdinfo can have (all 8 engine slots, named
 * engine0..7), for --check-layout. 0 or -1. */
struct gt_catalog;
int gt_fdinfo_catalog_full(struct gt_catalog *c);

/* ---- the watcher: the reader on its own thread (fdinfo_watch.c) ---- */

/* One row of the Processes view. */
struct gt_fdinfo_row {
    int pid;
    char comm[32];
    char driver[16];
    double busy_pct;          /* busiest engine */
    uint64_t mem_bytes;
    char engines[128];        /* "fragment 25% vertex-tiler 5%" */
};

struct gt_fdinfo_watch;

/* A thread of its own, off the counter sampler's, that reads nothing
 * until the rows are wanted; then it updates every period_ns with a full
 * walk every walk_every updates (the first one included). NULL when the
 * thread cannot start. */
struct gt_fdinfo_watch *gt_fdinfo_watch_start(const struct gt_sys *sys, uint64_t period_ns,
                                              unsigned walk_every);
/* Whether anything shows the rows (the Processes view is on screen).
 * Unwanted, the thread sleeps without waking; wanted again, it walks
 * /proc at once and publishes rows a quarter period later (busy shares
 * over that quarter, not over the time they were hidden); till then no
 * rows and *updates 0. Cheap when nothing changes: call it every refresh. */
void gt_fdinfo_watch_want(struct gt_fdinfo_watch *w, int wanted);
/* Copies up to max rows of the last update, busiest first; *updates
 * counts the updates so far (0: none yet) and *profiling_off is set when
 * panfrost/panthor clients print no engine time. */
size_t gt_fdinfo_watch_rows(struct gt_fdinfo_watch *w, struct gt_fdinfo_row *rows, size_t max,
                            int *profiling_off, uint64_t *updates);
void gt_fdinfo_watch_stop(struct gt_fdinfo_watch *w);

#endif
