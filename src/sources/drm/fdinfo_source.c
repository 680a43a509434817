/* --source drm-fdinfo: GPU-wide engine activity as the sum of every DRM
 * client's engine time (/proc/PID/fdinfo) on one device, for GPUs without
 * a counter uAPI (panthor) or any driver that prints the keys. */
#include "gputop/drm.h"
#include "gputop/fdinfo.h"
#include "gputop/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The walker's tick, and how many ticks a rotation of all of /proc
 * takes: new clients found within a second, every process looked at
 * every 5 s (on big machines less often: each tick's slice is capped at
 * a thousandth of the tick in CPU). */
#define WALK_TICK_NS 1000000000ull
#define WALK_SPREAD 5
#define NS  GT_FDINFO_K_NS
#define CYC GT_FDINFO_K_CYCLES
#define TOT GT_FDINFO_K_TOTAL
#define CUR GT_FDINFO_K_CURFREQ
#define MAX GT_FDINFO_K_MAXFREQ

/* The engines each driver prints, in its own order, and which keys. */
static const struct drv {
    const char *name;
    unsigned keys;
    const char *engines[GT_FDINFO_ENGINES];
} drivers[] = {
    { "panfrost", NS | CYC | CUR | MAX, { "fragment", "vertex-tiler" } },
    { "panthor", NS | CYC | CUR | MAX, { "panthor" } },
    { "msm", NS | CYC | MAX, { "gpu" } },
    { "v3d", NS, { "bin", "render", "tfu", "csd", "cache_clean", "cpu" } },
    { "lima", NS, { "gp", "pp" } },
    /* not etnaviv: etnaviv_show_fdinfo prints memory stats only */
    { "i915", NS, { "render", "copy", "video", "video-enhance", "compute" } },
    { "xe", CYC | TOT, { "rcs", "bcs", "vcs", "vecs", "ccs" } },
    { "amdgpu", NS, { "gfx", "compute", "dma", "dec", "enc", "enc_1", "jpeg", "vpe" } },
};

struct slot {
    char name[24];
    unsigned keys;
    uint32_t capacity;
    int ns, cycles, total, curfreq, maxfreq;   /* catalogue indices, -1 none */
};

struct fdsrc {
    struct gt_sys sys;                /* the caller's, with root= applied */
    char root[256];
    struct gt_fdinfo *f;
    char driver[GT_FDINFO_DRIVER], pdev[32];
    struct slot slot[GT_FDINFO_ENGINES];
    int nslots;
    int samples, clients, active, mem, busiest, prof_off, over;
    char prof_path[200], prof_old[16], hint[256];
    int prof_saved;
    atomic_int ignored;               /* engines past the 8 slots seen */
    int warned_off;
    uint64_t prev_t, walk_ns;
    struct gt_fdinfo_walker *walker;  /* walk_ns > 0: the walk off sample() */
};

static const struct drv *driver_info(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
        if (strcmp(drivers[i].name, name) == 0)
            return &drivers[i];
    return NULL;
}

static int mine(const struct fdsrc *p, const struct gt_fdinfo_client *c)
{
    return strcmp(c->driver, p->driver) == 0 && (!p->pdev[0] || strcmp(c->pdev, p->pdev) == 0);
}

static struct slot *find_slot(struct fdsrc *p, const char *name)
{
    int i;

    for (i = 0; i < p->nslots; i++)
        if (strcmp(p->slot[i].name, name) == 0)
            return &p->slot[i];
    return NULL;
}

static struct slot *add_slot(struct fdsrc *p, const char *name, unsigned keys)
{
    struct slot *s;

    if (p->nslots == GT_FDINFO_ENGINES)
        return NULL;
    s = &p->slot[p->nslots++];
    memset(s, 0, sizeof(*s));
    snprintf(s->name, sizeof(s->name), "%s", name);
    s->keys = keys;
    s->capacity = 1;
    return s;
}

/* The driver's own engines first, then those the first walk found. */
static void plan_slots(struct fdsrc *p)
{
    const struct drv *d = driver_info(p->driver);
    const struct gt_fdinfo_client *const *c;
    size_t n = gt_fdinfo_clients(p->f, &c), i;
    int k;

    for (k = 0; d && k < GT_FDINFO_ENGINES && d->engines[k]; k++)
        add_slot(p, d->engines[k], d->keys);
    for (i = 0; i < n; i++) {
        if (!mine(p, c[i]))
            continue;
        for (k = 0; k < c[i]->nengines; k++) {
            const struct gt_fdinfo_engine *e = &c[i]->engine[k];
            struct slot *s = find_slot(p, e->name);
            if (!s && !(s = add_slot(p, e->name, 0)))
                continue;
            s->keys |= e->keys;
            if (e->keys & GT_FDINFO_K_CAPACITY)
                s->capacity = e->capacity;
        }
    }
}

static int add_named(struct gt_catalog *c, const char *fmt, int i, const char *hw,
                     int constant, double value)
{
    char name[48];
    int k;

    snprintf(name, sizeof(name), fmt, i);
    k = constant ? gt_catalog_add_constant(c, name, value)
                 : gt_catalog_add(c, name, "drm", GT_COUNTER_DELTA, 1, 1.0);
    if (k >= 0 && hw && !(c->counters[k].hw_name = strdup(hw)))
        return -1;
    return k;
}

static int add_slot_counters(struct gt_catalog *c, struct slot *s, int i)
{
    s->ns = s->keys & NS ? add_named(c, "DrmEngine%dNs", i, s->name, 0, 0) : -1;
    s->cycles = s->keys & CYC ? add_named(c, "DrmEngine%dCycles", i, s->name, 0, 0) : -1;
    s->total = s->keys & TOT ? add_named(c, "DrmEngine%dTotalCycles", i, s->name, 0, 0) : -1;
    s->curfreq = s->keys & CUR ? add_named(c, "DrmEngine%dCurFreqHz", i, s->name, 0, 0) : -1;
    /* A level per sample, not a constant of the open: the top clock
     * comes from whichever client prints it, one started later too. */
    s->maxfreq = s->keys & MAX ? add_named(c, "DrmEngine%dMaxFreqHz", i, s->name, 0, 0) : -1;
    if (add_named(c, "DrmEngine%dCapacity", i, s->name, 1, s->capacity) < 0)
        return -1;
    return (s->keys & NS && s->ns < 0) || (s->keys & CYC && s->cycles < 0) ||
           (s->keys & TOT && s->total < 0) || (s->keys & CUR && s->curfreq < 0) ||
           (s->keys & MAX && s->maxfreq < 0) ? -1 : 0;
}

static int build_catalog(struct gt_source *s, struct fdsrc *p)
{
    struct gt_catalog *c = &s->catalog;
    int i;

    for (i = 0; i < p->nslots; i++)
        if (add_slot_counters(c, &p->slot[i], i) < 0)
            return -1;
    p->samples = gt_catalog_add(c, "DrmSamples", "drm", GT_COUNTER_DELTA, 1, 1.0);
    p->clients = gt_catalog_add(c, "DrmClients", "drm", GT_COUNTER_DELTA, 1, 1.0);
    p->active = gt_catalog_add(c, "DrmActiveClients", "drm", GT_COUNTER_DELTA, 1, 1.0);
    p->mem = gt_catalog_add(c, "DrmMemoryBytes", "drm", GT_COUNTER_DELTA, 1, 1.0);
    p->busiest = gt_catalog_add(c, "DrmBusiestNs", "drm", GT_COUNTER_DELTA, 1, 1.0);
    p->prof_off = gt_catalog_add(c, "DrmProfilingOff", "drm", GT_COUNTER_DELTA, 1, 1.0);
    p->over = gt_catalog_add(c, "DrmOverCapacity", "drm", GT_COUNTER_DELTA, 1, 1.0);
    return p->samples < 0 || p->clients < 0 || p->active < 0 || p->mem < 0 ||
           p->busiest < 0 || p->prof_off < 0 || p->over < 0 ? -1 : 0;
}

int gt_fdinfo_catalog_full(struct gt_catalog *c)
{
    struct fdsrc *p = calloc(1, sizeof(*p));
    struct gt_source s;
    int i, r;

    if (!p)
        return -1;
    for (i = 0; i < GT_FDINFO_ENGINES; i++) {
        char name[16];
        snprintf(name, sizeof(name), "engine%u", (unsigned)i & 7);
        add_slot(p, name, NS | CYC | TOT | CUR | MAX);
    }
    memset(&s, 0, sizeof(s));
    s.catalog = *c;
    r = build_catalog(&s, p);
    *c = s.catalog;
    free(p);
    return r;
}

/* ---- device choice ---- */

/* The first discovered device whose driver prints fdinfo keys, into
 * node; -1 when none. */
static int first_device(const struct gt_sys *sys, struct gt_drm_node *node)
{
    struct gt_drm_node list[GT_DRM_MAX_DEVICES];
    int n = gt_drm_list(sys, list, GT_DRM_MAX_DEVICES), i;

    for (i = 0; i < n; i++)
        if (driver_info(list[i].driver)) {
            *node = list[i];
            return 0;
        }
    return -1;
}

static int choose_device(struct fdsrc *p, struct gt_diag *d)
{
    struct gt_drm_node node;

    if (p->driver[0])
        return 0;
    if (first_device(&p->sys, &node) == 0) {
        snprintf(p->driver, sizeof(p->driver), "%.*s", (int)sizeof(p->driver) - 1, node.driver);
        if (!p->pdev[0])
            snprintf(p->pdev, sizeof(p->pdev), "%.*s", (int)sizeof(p->pdev) - 1, node.dev.pci_slot);
        return 0;
    }
    gt_diag_set(d, "drm-fdinfo: no DRM device driven by a driver known to print fdinfo "
                   "engine keys (panfrost, panthor, msm, v3d, lima, i915, xe, amdgpu); "
                   "name the driver: --source drm-fdinfo:driver=NAME");
    return -1;
}

/* A driver named that prints no engine time at all: refused, saying
 * where its memory is shown instead. */
static int engine_time_printed(const struct fdsrc *p, struct gt_diag *d)
{
    if (strcmp(p->driver, "etnaviv") != 0)
        return 0;
    gt_diag_set(d, "drm-fdinfo: etnaviv prints no engine time in fdinfo (etnaviv_drv.c: "
                   "memory only), so there is no busy share to sum; its clients' memory is "
                   "in the Processes view (key P)");
    return -1;
}

/* ---- the profiling switch (panfrost, panthor) ---- */

static const char *prof_value(const char *driver)
{
    /* panthor's is a mask: 1 cycles, 2 timestamps (engine time). */
    return strcmp(driver, "panthor") == 0 ? "3" : "1";
}

/* /sys/bus/platform/drivers/DRIVER/DEV/profiling: DEV is pdev= or the
 * first device bound to the driver that has the file. */
static void find_switch(struct fdsrc *p)
{
    char dir[96], path[400], buf[16];
    DIR *dp;
    struct dirent *e;

    if (strcmp(p->driver, "panfrost") != 0 && strcmp(p->driver, "panthor") != 0)
        return;
    snprintf(dir, sizeof(dir), "/sys/bus/platform/drivers/%s", p->driver);
    snprintf(p->hint, sizeof(p->hint), "echo %s | sudo tee %s/%s/profiling",
             prof_value(p->driver), dir, p->pdev[0] ? p->pdev : "DEVICE");
    snprintf(path, sizeof(path), "%s%s", p->root, dir);
    dp = opendir(path);
    while (dp && (e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.' || (p->pdev[0] && strcmp(e->d_name, p->pdev) != 0))
            continue;
        snprintf(path, sizeof(path), "%s/%.64s/profiling", dir, e->d_name);
        if (gt_sys_read_file(&p->sys, path, buf, sizeof(buf)) < 0)
            continue;
        snprintf(p->prof_path, sizeof(p->prof_path), "%.199s", path);
        snprintf(p->hint, sizeof(p->hint), "echo %s | sudo tee %.199s", prof_value(p->driver), path);
        break;
    }
    if (dp)
        closedir(dp);
}

static int write_switch(struct fdsrc *p, const char *v, struct gt_diag *d)
{
    char full[768];
    int fd;
    ssize_t n;

    snprintf(full, sizeof(full), "%s%s", p->root, p->prof_path);
    fd = p->sys.open(p->sys.ctx, full, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        gt_diag_errno(d, errno, "drm-fdinfo: %s: cannot open for writing: %s%s", p->prof_path,
                      strerror(errno), errno == EACCES || errno == EPERM
                      ? " (profiling=on must run as root)" : "");
        return -1;
    }
    n = p->sys.pwrite ? p->sys.pwrite(p->sys.ctx, fd, v, strlen(v), 0) : -1;
    if (n < 0)
        gt_diag_errno(d, errno, "drm-fdinfo: %s: cannot write '%s': %s", p->prof_path, v,
                      p->sys.pwrite ? strerror(errno) : "no pwrite in the seam");
    p->sys.close(p->sys.ctx, fd);
    return n < 0 ? -1 : 0;
}

/* profiling=on: the switch set now and put back at close (which a
 * SIGINT, SIGTERM or SIGHUP reaches too; a SIGKILL does not). */
static int switch_on(struct fdsrc *p, struct gt_diag *d)
{
    if (!p->prof_path[0]) {
        gt_diag_set(d, "drm-fdinfo: profiling=on: no profiling switch found for %s below "
                    "/sys/bus/platform/drivers/%s (kernel older than 6.8 for panfrost, 6.11 "
                    "for panthor, or not this driver)", p->driver, p->driver);
        return -1;
    }
    if (gt_sys_read_file(&p->sys, p->prof_path, p->prof_old, sizeof(p->prof_old)) < 0) {
        gt_diag_errno(d, errno, "drm-fdinfo: %s: cannot read: %s", p->prof_path, strerror(errno));
        return -1;
    }
    p->prof_old[strcspn(p->prof_old, "\n")] = '\0';
    if (write_switch(p, prof_value(p->driver), d) < 0)
        return -1;
    p->prof_saved = 1;
    return 0;
}

/* ---- the source ---- */

static void fd_close(struct gt_source *s)
{
    struct fdsrc *p = s->priv;
    struct gt_diag ignored;

    if (!p)
        return;
    gt_fdinfo_walker_stop(p->walker);
    if (p->prof_saved)
        write_switch(p, p->prof_old[0] ? p->prof_old : "0", &ignored);
    gt_fdinfo_free(p->f);
    free(p);
    s->priv = NULL;
}

/* parse_args's arguments; the type lists them too, for --help's test. */
static const char *const fd_keys[] = { "driver", "pdev", "profiling", "root", "walk", NULL };

static int parse_args(struct fdsrc *p, const char *args, struct gt_diag *d)
{
    char v[24];

    if (gt_args_check(args, fd_keys, "drm-fdinfo", d) < 0)
        return -1;
    gt_args_get(args, "driver", p->driver, sizeof(p->driver));
    gt_args_get(args, "pdev", p->pdev, sizeof(p->pdev));
    /* root= names the tree; else the seam's /proc tree (--proc-root) */
    if (!gt_args_get(args, "root", p->root, sizeof(p->root)))
        snprintf(p->root, sizeof(p->root), "%s", p->sys.proc_root ? p->sys.proc_root
                                                 : p->sys.root ? p->sys.root : "");
    p->sys.root = p->root;
    p->walk_ns = WALK_TICK_NS;
    if (gt_args_get(args, "walk", v, sizeof(v))) {
        uint64_t ms;
        if (gt_args_u64(v, &ms) < 0 || ms > 3600000) {
            gt_diag_set(d, "drm-fdinfo: walk=%s: milliseconds, 0 to 3600000", v);
            return -1;
        }
        p->walk_ns = ms * 1000000ull;
    }
    if (gt_args_get(args, "profiling", v, sizeof(v)) && strcmp(v, "on") != 0) {
        gt_diag_set(d, "drm-fdinfo: profiling=%s: the only value is 'on'", v);
        return -1;
    }
    return 0;
}

static void describe(struct gt_source *s, const struct fdsrc *p)
{
    snprintf(s->info.device, sizeof(s->info.device), "/proc/*/fdinfo (%s%s%s)", p->driver,
             p->pdev[0] ? " " : "", p->pdev);
    snprintf(s->info.gpu, sizeof(s->info.gpu), "%s", p->driver);
    /* amdgpu has no devfreq node; its clocks are its gpu_metrics page's */
    s->info.own_clocks = strcmp(p->driver, "amdgpu") == 0;
    snprintf(s->info.layout, sizeof(s->info.layout), "drm-fdinfo");
    snprintf(s->info.family, sizeof(s->info.family), "drm-fdinfo");
    snprintf(s->info.detail, sizeof(s->info.detail),
             "DRM client usage stats summed over clients, %d engine%s", p->nslots,
             p->nslots == 1 ? "" : "s");
}

static int fd_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    struct fdsrc *p = calloc(1, sizeof(*p));
    char v[16];

    if (!p) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return -1;
    }
    s->priv = p;
    p->sys = *s->sys;
    if (parse_args(p, args, d) < 0 || choose_device(p, d) < 0 || engine_time_printed(p, d) < 0)
        goto fail;
    find_switch(p);
    if (gt_args_get(args, "profiling", v, sizeof(v)) && switch_on(p, d) < 0)
        goto fail;
    p->f = gt_fdinfo_new(&p->sys, 1);
    if (!p->f) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    /* walk=0: a full walk in every sample (tests); else the reader never
     * walks after this first one, the walker thread finds new clients */
    gt_fdinfo_set_walk_period(p->f, p->walk_ns ? UINT64_MAX : 1);
    if (gt_fdinfo_update(p->f, gt_now_ns(), 1) < 0) {
        gt_diag_errno(d, errno, "drm-fdinfo: cannot list %s/proc: %s", p->root, strerror(errno));
        goto fail;
    }
    plan_slots(p);
    if (build_catalog(s, p) < 0) {
        gt_diag_fail(d, GT_ERR_NOMEM, "drm-fdinfo: out of memory building the catalogue");
        goto fail;
    }
    describe(s, p);
    return 0;
fail:
    fd_close(s);
    return -1;
}

static int fd_start(struct gt_source *s, struct gt_diag *d)
{
    struct fdsrc *p = s->priv;

    p->prev_t = gt_now_ns();
    gt_fdinfo_update(p->f, p->prev_t, 0);
    if (p->walk_ns && !(p->walker = gt_fdinfo_walker_start(&p->sys, p->walk_ns, WALK_SPREAD))) {
        gt_diag_set(d, "drm-fdinfo: cannot start the /proc walk's thread");
        return -1;
    }
    return 0;
}

uint64_t gt_fdinfo_source_walks(const struct gt_source *s)
{
    const struct fdsrc *p = s->priv;

    return p ? gt_fdinfo_stats(p->f)->walks : 0;
}

static void put(struct gt_snapshot *out, const struct gt_source *s, int k, uint64_t v)
{
    if (k >= 0)
        out->deltas[s->catalog.counters[k].slot] += v;
}

/* A level the clients share (a clock): the largest one printed. */
static void put_max(struct gt_snapshot *out, const struct gt_source *s, int k, uint64_t v)
{
    uint64_t *d;

    if (k < 0 || !v)
        return;
    d = &out->deltas[s->catalog.counters[k].slot];
    *d = v > *d ? v : *d;
}

/* One engine of one client into its slot; 1 when it ran. */
static int add_engine(struct gt_source *s, struct fdsrc *p, const struct gt_fdinfo_engine *e,
                      struct gt_snapshot *out, uint64_t *tot_max)
{
    struct slot *sl = find_slot(p, e->name);
    int i;

    if (!sl) {
        atomic_store(&p->ignored, 1);
        return 0;
    }
    i = (int)(sl - p->slot);
    put(out, s, sl->ns, e->d_ns);
    put(out, s, sl->cycles, e->d_cycles);
    /* The GPU clock's count is the same for every client: the largest
     * one seen, not their sum. */
    if (e->d_total_cycles > tot_max[i])
        tot_max[i] = e->d_total_cycles;
    put_max(out, s, sl->curfreq, e->curfreq_hz);
    put_max(out, s, sl->maxfreq, e->maxfreq_hz);
    return e->d_ns || e->d_cycles;
}

static double got(const struct gt_source *s, const struct gt_snapshot *out, int k)
{
    return k >= 0 ? (double)out->deltas[s->catalog.counters[k].slot] : 0;
}

/* The busiest engine's time in ns: engine time over its capacity, else
 * cycles over the GPU clock's count or over the max clock. *over is set
 * when one ran past its capacity (GT_FDINFO_OVER_PCT of dt). */
static uint64_t busiest_ns(const struct gt_source *s, const struct fdsrc *p,
                           const struct gt_snapshot *out, const uint64_t *tot, uint64_t dt,
                           int *over)
{
    double best = 0;
    int i;

    *over = 0;
    for (i = 0; i < p->nslots; i++) {
        const struct slot *sl = &p->slot[i];
        double ns = got(s, out, sl->ns), cyc = got(s, out, sl->cycles);
        double maxfreq = got(s, out, sl->maxfreq);
        if (ns)
            ns /= sl->capacity;
        else if (cyc && tot[i])
            ns = cyc / (double)tot[i] * (double)dt / sl->capacity;
        else if (cyc && maxfreq)
            ns = cyc * 1e9 / maxfreq / sl->capacity;
        best = ns > best ? ns : best;
        *over |= dt && ns * 100.0 > GT_FDINFO_OVER_PCT * (double)dt;
    }
    return (uint64_t)(best + 0.5);
}

/* GT_FDINFO_PROF_* bits of this device's driver, 0 when on. */
static int profiling_off(const struct fdsrc *p)
{
    return p->hint[0] ? gt_fdinfo_profiling_off(p->f) : 0;
}

static enum gt_sample_result fd_sample(struct gt_source *s, struct gt_snapshot *out,
                                       struct gt_diag *d)
{
    struct fdsrc *p = s->priv;
    const struct gt_fdinfo_client *const *c;
    uint64_t tot[GT_FDINFO_ENGINES] = { 0 }, now = gt_now_ns(), nclients = 0, nactive = 0;
    size_t n, i;
    int k, off, over;

    if (p->walker)
        gt_fdinfo_walker_feed(p->walker, p->f);
    if (gt_fdinfo_update(p->f, now, 0) < 0) {
        gt_diag_errno(d, errno, "cannot list %s/proc: %s", p->root, strerror(errno));
        return GT_SAMPLE_ERROR;
    }
    n = gt_fdinfo_clients(p->f, &c);
    for (i = 0; i < n; i++) {
        int ran = 0;
        if (!mine(p, c[i]))
            continue;
        nclients++;
        for (k = 0; k < c[i]->nengines; k++)
            ran |= add_engine(s, p, &c[i]->engine[k], out, tot);
        nactive += ran != 0;
        put(out, s, p->mem, c[i]->mem_bytes);
    }
    for (k = 0; k < p->nslots; k++)
        put(out, s, p->slot[k].total, tot[k]);
    put(out, s, p->samples, 1);
    put(out, s, p->clients, nclients);
    put(out, s, p->active, nactive);
    put(out, s, p->busiest, busiest_ns(s, p, out, tot, now - p->prev_t, &over));
    put(out, s, p->over, (uint64_t)over);
    off = profiling_off(p);
    put(out, s, p->prof_off, off != 0);
    out->t_start_ns = p->prev_t;
    out->t_end_ns = now;
    out->nsamples = 1;
    p->prev_t = now;
    if (off && !p->warned_off) {
        p->warned_off = 1;
        gt_diag_set(d, "no engine time, %s: %s (or drm-fdinfo:profiling=on)",
                    off & GT_FDINFO_PROF_PANTHOR_CYCLES
                    ? "panthor's profiling mask is 1 (cycles only)" : "profiling off",
                    p->hint);
        return GT_SAMPLE_WARN;
    }
    p->warned_off = off;
    return GT_SAMPLE_OK;
}

static uint64_t snap_value(const struct gt_source *s, const struct gt_snapshot *snap, int k)
{
    uint32_t slot;

    if (k < 0 || !snap->deltas)
        return 0;
    slot = s->catalog.counters[k].slot;
    return slot < snap->nslots ? snap->deltas[slot] : 0;
}

static void fd_activity(const struct gt_source *s, const struct gt_snapshot *snap, char *buf,
                        size_t len)
{
    const struct fdsrc *p = s->priv;
    uint64_t samples = snap_value(s, snap, p->samples);
    uint64_t clients = samples ? snap_value(s, snap, p->clients) / samples : 0;
    int ignored = atomic_load((atomic_int *)&p->ignored);

    if (snap_value(s, snap, p->prof_off))
        snprintf(buf, len, "%s: profiling off, no engine time", p->driver);
    else
        snprintf(buf, len, "%s: %llu client%s%s%s", p->driver, (unsigned long long)clients,
                 clients == 1 ? "" : "s",
                 snap_value(s, snap, p->over)
                 ? "; engine time past 100 %: the driver sums work that ran at once" : "",
                 ignored ? "; engines first seen after start not shown" : "");
}

static int fd_available(const struct gt_sys *sys, char *why, size_t len)
{
    struct gt_drm_node node;

    if (first_device(sys, &node) == 0)
        return 0;
    snprintf(why, len, "no DRM device whose driver prints fdinfo engine keys "
                       "(driver=NAME names one)");
    return -1;
}

const struct gt_source_type gt_source_drm_fdinfo = {
    .name = "drm-fdinfo",
    .usage = "drm-fdinfo[:driver=NAME][,pdev=SLOT][,profiling=on][,walk=MS][,root=DIR]",
    .help = "GPU-wide engine busy from /proc/*/fdinfo, any DRM driver",
    .keys = fd_keys,
    .kind = GT_SOURCE_HARDWARE,
    .available = fd_available,
    .probe = gt_drm_fdinfo_probe,
    .open = fd_open,
    .start = fd_start,
    .sample = fd_sample,
    .close = fd_close,
    .activity = fd_activity,
};
