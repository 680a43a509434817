/* Per-process GPU use from /proc/PID/fdinfo (the kernel's DRM client
 * usage stats, drm-usage-stats.rst), for any driver that prints them.
 * Costly part: the walk of every process's fds to find DRM clients; so
 * the fds found are re-read each period, new pids are probed as they
 * appear, and the walk of every process is spread over walk_every
 * periods, each slice capped in CPU time (fdinfo_find.c). */
#ifndef GPUTOP_FDINFO_H
#define GPUTOP_FDINFO_H

#include <stddef.h>
#include <stdint.h>
#include "gputop/sys.h"

#define GT_FDINFO_ENGINES 8
/* drm-driver as drm_show_fdinfo prints the driver's name: "amdxdna_accel_driver"
 * is 20 characters. */
#define GT_FDINFO_DRIVER 48
/* A share past this is not a timing wobble between our clock and the
 * driver's accounting but engine time the driver summed over things that
 * ran at once (amdgpu: rings and contexts, amdgpu_ctx_mgr_usage; panthor:
 * groups on several CSG slots): shown as such, never clamped. */
#define GT_FDINFO_OVER_PCT 100.5

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
    char cmdline[256];        /* /proc/PID/cmdline, arguments joined by blanks; "" none */
    char container[48];       /* from /proc/PID/cgroup: "docker:0123abcd4567", a unit, "" */
    char driver[GT_FDINFO_DRIVER]; /* drm-driver */
    char pdev[32];            /* drm-pdev, "" if not printed */
    uint64_t client_id;       /* drm-client-id */
    int nengines;
    struct gt_fdinfo_engine engine[GT_FDINFO_ENGINES];
    /* Memory (drm-usage-stats.rst), summed over the driver's regions:
     * resident = drm-resident-* (else the deprecated drm-memory-*, its
     * alias); private = drm-total-* less drm-shared-* (total is shared +
     * private), has_private when drm-total-* was printed; vram and gtt
     * the resident part of those regions (amdgpu). mem_bytes is what a
     * sum over clients may add without counting a shared buffer twice:
     * private, else resident. */
    uint64_t mem_resident, mem_private, mem_vram, mem_gtt, mem_bytes;
    int has_private, has_vram_gtt;
    double busy_pct;          /* the busiest engine's busy_pct, not clamped */
    int over;                 /* an engine ran past its capacity (GT_FDINFO_OVER_PCT) */
    uint64_t seen_ns;         /* when last read */
};

struct gt_fdinfo_stats {
    uint64_t walks, rereads, walk_ns_last, reread_ns_last;
    uint64_t fds_seen;        /* DRM fds the last full walk found */
};

struct gt_fdinfo;

/* walk_every: the first update walks all of /proc; later ones probe new
 * pids and walk a slice, all of /proc every walk_every updates (>= 1).
 * NULL on no memory. */
struct gt_fdinfo *gt_fdinfo_new(const struct gt_sys *sys, unsigned walk_every);
void gt_fdinfo_free(struct gt_fdinfo *f);
/* A full walk when period_ns has passed since the last one (the first
 * update always walks) and no finder in between (UINT64_MAX: never
 * again, a walker thread finds them); 0 restores the rotation. */
void gt_fdinfo_set_walk_period(struct gt_fdinfo *f, uint64_t period_ns);
/* CPU time a rotation slice may take per update (default 1 ms; 0: none). */
void gt_fdinfo_set_find_budget(struct gt_fdinfo *f, uint64_t budget_ns);
struct gt_fdinfo_find_stats;
const struct gt_fdinfo_find_stats *gt_fdinfo_find_stats(const struct gt_fdinfo *f);
/* Re-reads known clients, walks /proc when due (or when force_walk),
 * drops clients whose fds are gone, and computes each engine's busy share
 * over the time since the previous update. 0, or -1 with errno when /proc
 * cannot be listed. */
int gt_fdinfo_update(struct gt_fdinfo *f, uint64_t now_ns, int force_walk);
/* The clients after the last update, busiest first (ties: lower pid). */
size_t gt_fdinfo_clients(const struct gt_fdinfo *f,
                         const struct gt_fdinfo_client *const **out);
const struct gt_fdinfo_stats *gt_fdinfo_stats(const struct gt_fdinfo *f);
/* Which profiling switches are off, as GT_FDINFO_PROF_* bits (0: none):
 * panfrost clients print no drm-engine key with 'profiling' at 0;
 * panthor's is a mask (panthor_drv.c: bit 0 cycles, bit 1 timestamps),
 * so with 1 its clients print drm-cycles-panthor but no engine time. */
enum {
    GT_FDINFO_PROF_PANFROST_OFF = 1,   /* echo 1 > .../panfrost/DEV/profiling */
    GT_FDINFO_PROF_PANTHOR_OFF = 2,    /* echo 3 > .../panthor/DEV/profiling */
    GT_FDINFO_PROF_PANTHOR_CYCLES = 4, /* at 1: cycles only; 3 for engine time */
};
int gt_fdinfo_profiling_off(const struct gt_fdinfo *f);
/* The processes the first walk listed (0: /proc has no pid directories). */
size_t gt_fdinfo_procs_listed(const struct gt_fdinfo *f);

/* The costly half of a walk on its own: every fd below /proc that links
 * to a DRM node, as (pid, fd), without reading any fdinfo. It touches no
 * reader, so it can run on another thread; *out is malloc'ed. Returns
 * the count, or -1 with errno when /proc cannot be listed. */
struct gt_fdinfo_fdref {
    int pid, fd;
    int young;                /* found on a new or young pid (not the rotation) */
};
long gt_fdinfo_scan(const struct gt_sys *sys, struct gt_fdinfo_fdref **out);
/* The same, also counting the processes listed into *procs. */
long gt_fdinfo_scan_all(const struct gt_sys *sys, struct gt_fdinfo_fdref **out, size_t *procs);
/* Takes the DRM fds a scan found that f does not know yet; each new
 * client's first reading is a baseline, as after a walk. */
void gt_fdinfo_adopt(struct gt_fdinfo *f, const struct gt_fdinfo_fdref *fds, size_t n);

/* A DRM fd read where it was found (the walker's thread), so that its
 * first reading, the baseline, is as old as the finding. */
struct gt_fdinfo_reading {
    int pid, fd;
    uint64_t t_ns;
    struct gt_fdinfo_client c;
};
/* Reads the fdinfo of fds[i] at now_ns into out[k]; how many were DRM
 * clients. No reader touched. */
size_t gt_fdinfo_read_refs(const struct gt_sys *sys, const struct gt_fdinfo_fdref *fds, size_t n,
                           uint64_t now_ns, struct gt_fdinfo_reading *out);
/* Takes the readings of fds f does not know yet, each reading the new
 * client's baseline at its own time. */
void gt_fdinfo_adopt_readings(struct gt_fdinfo *f, const struct gt_fdinfo_reading *r, size_t n);

/* ---- finding new clients cheaply (fdinfo_find.c) ---- */

struct gt_fdinfo_refs {
    struct gt_fdinfo_fdref *v;
    size_t n, cap;
};
int gt_fdinfo_refs_push(struct gt_fdinfo_refs *r, int pid, int fd, int young);
int gt_fdinfo_number(const char *s);
/* Every DRM fd of pid into r; -1 when its fd directory does not open. */
int gt_fdinfo_scan_process(struct gt_fdinfo_refs *r, const char *root, int pid, int young);

struct gt_fdinfo_find_stats {
    uint64_t probes;          /* new or young pids probed */
    uint64_t scanned;         /* processes the rotation scanned */
    uint64_t rotations;       /* rotations completed */
    uint64_t over_budget;     /* ticks whose slice the CPU budget cut short */
};
/* Each tick probes the pids handed out since the last one (/proc/loadavg's
 * last pid), re-probes young ones for 10 s, and walks the next slice of
 * /proc: a rotation covers every process in spread ticks, a slice
 * stopping early once it used budget_ns of the thread's CPU (0: no cap). */
struct gt_fdinfo_finder;
struct gt_fdinfo_finder *gt_fdinfo_finder_new(const struct gt_sys *sys, unsigned spread,
                                              uint64_t budget_ns);
void gt_fdinfo_finder_free(struct gt_fdinfo_finder *fi);
/* DRM fds found into r; 1 when a rotation ended with it, 0 when not,
 * -1 with errno when /proc cannot be listed. */
int gt_fdinfo_finder_tick(struct gt_fdinfo_finder *fi, uint64_t now_ns, struct gt_fdinfo_refs *r);
/* A full walk of procs processes was just made: the rotation restarts. */
void gt_fdinfo_finder_walked(struct gt_fdinfo_finder *fi, size_t procs);
void gt_fdinfo_finder_set_budget(struct gt_fdinfo_finder *fi, uint64_t budget_ns);
const struct gt_fdinfo_find_stats *gt_fdinfo_finder_stats(const struct gt_fdinfo_finder *fi);

/* The walk on a thread of its own (fdinfo_walker.c), for readers that
 * must not walk inside a sample: every tick_ns a finder tick (rotation
 * over spread ticks), new fds on new or young pids read there at once;
 * feed() hands what was found since, if anything, to f on the caller's
 * thread. NULL when the thread cannot start. */
struct gt_fdinfo_walker;
struct gt_fdinfo_walker *gt_fdinfo_walker_start(const struct gt_sys *sys, uint64_t tick_ns,
                                                unsigned spread);
void gt_fdinfo_walker_feed(struct gt_fdinfo_walker *w, struct gt_fdinfo *f);
void gt_fdinfo_walker_stop(struct gt_fdinfo_walker *w);
/* The walker's finder stats, copied. */
void gt_fdinfo_walker_stats(struct gt_fdinfo_walker *w, struct gt_fdinfo_find_stats *out);

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
    char cmdline[256];        /* the whole command line, "" when unknown */
    char container[48];
    char driver[GT_FDINFO_DRIVER];
    char pdev[32];
    double busy_pct;          /* busiest engine, not clamped */
    int over;                 /* past its capacity: see GT_FDINFO_OVER_PCT */
    uint64_t mem_resident, mem_private, mem_vram, mem_gtt;
    int has_private, has_vram_gtt;
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
/* The rows are wanted for good (--serve's --processes series read them):
 * from now on the view being hidden no longer stops the thread. */
void gt_fdinfo_watch_keep(struct gt_fdinfo_watch *w);
/* Copies up to max rows of the last update, busiest first; *updates
 * counts the updates so far (0: none yet) and *profiling_off gets the
 * GT_FDINFO_PROF_* bits of the switches that are off. */
size_t gt_fdinfo_watch_rows(struct gt_fdinfo_watch *w, struct gt_fdinfo_row *rows, size_t max,
                            int *profiling_off, uint64_t *updates);
void gt_fdinfo_watch_stop(struct gt_fdinfo_watch *w);
/* Processes the first walk listed below root/proc; 0 with updates > 0:
 * the tree holds no pid directories (a wrong --proc-root). */
size_t gt_fdinfo_watch_procs(struct gt_fdinfo_watch *w);
/* The root /proc is read below ("" for /). */
const char *gt_fdinfo_watch_root(const struct gt_fdinfo_watch *w);
/* 1 when root/dev/mali0 exists: Arm's kbase driver, which prints no
 * fdinfo, so the list stays empty (Android phones). */
int gt_fdinfo_watch_kbase(const struct gt_fdinfo_watch *w);

/* ---- GPU time per Android app UID (gpu_work_period.c) ---- */

/* The power/gpu_work_period tracepoint (Android 14+, kbase) read from an
 * ftrace instance of gputop's own; needs root. */
struct gt_gpu_work;
/* Never NULL but out of memory; gt_gpu_work_why() says why it reads
 * nothing ("" when it reads). */
struct gt_gpu_work *gt_gpu_work_open(const struct gt_sys *sys);
const char *gt_gpu_work_why(const struct gt_gpu_work *g);
/* Active time per uid of the events read since the last call. */
size_t gt_gpu_work_take(struct gt_gpu_work *g, unsigned *uid, uint64_t *active_ns, size_t max);
void gt_gpu_work_close(struct gt_gpu_work *g);
/* One trace line; 0 with its uid and active time, -1 when not the event. */
int gt_gpu_work_parse(const char *line, unsigned *uid, uint64_t *active_ns);
/* "u0_a123" for an app uid, else "uid N". */
void gt_gpu_work_uid_name(unsigned uid, char *buf, size_t len);
/* Why the watcher reads no GPU time per app ("" when it does or when
 * there is no kbase GPU). */
const char *gt_fdinfo_watch_gpu_work_why(const struct gt_fdinfo_watch *w);

/* The container or service a process runs in, from /proc/PID/cgroup's
 * text: "docker:ID12", "podman:ID12", "containerd:ID12", "crio:ID12",
 * "k8s-pod:UID8", "lxc:NAME", else the innermost systemd .service or
 * .scope; "" when none. */
void gt_fdinfo_container(const char *cgroup, char *out, size_t len);

#endif
