/* Performance counters through debugfs amdgpu_regs2 (root): select
 * registers written in broadcast, LO/HI data read per instance with
 * GRBM_GFX_INDEX banking, counter groups rotated across samples when a
 * block has more counters than registers, and every register written
 * restored on close. Register addresses: kernel-interfaces.md §7. */
#include "amd.h"
#include "gputop/amd_gfx1151.h"
#include "gputop/amdgpu_uapi.h"
#include "gputop/catalog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REGS 8
#define MAX_SAVED 64
#define MAX_PASSES 16

/* One register bank: how many counters run at once, their select and
 * data registers (offsets in GC segment 1), and the data width. */
struct bank {
    const char *hw_block;
    unsigned limit;
    uint32_t sel[MAX_REGS], data[MAX_REGS];
    unsigned width;            /* bytes read: 8 for LO/HI, 4 for LO only */
};

/* TCP has four registers but counts one event per pass in practice on
 * gfx1151 (rdna35.md §1, ROCm/rocm-systems PR #10041). GRBM, GL1C and
 * GL2C addresses are Mesa's; GL1C's select fields are presumed to be the
 * TCP/GL2C layout (PERF_SEL in the low bits), which no header confirms.
 * The SQG / SQ_WGP split is the catalogue's reading of the selector
 * ranges (src/sources/amd/catalog_gfx1151.c). All UNVERIFIED on hardware. */
static const struct bank banks[] = {
    { "GRBM", 2, { 0x3840, 0x3841 }, { 0x3040, 0x3043 }, 8 },
    { "SQG", 8, { 0x39d0, 0x39d1, 0x39d2, 0x39d3, 0x39d4, 0x39d5, 0x39d6, 0x39d7 },
      { 0x31e4, 0x31e6, 0x31e8, 0x31ea, 0x31ec, 0x31ee, 0x31f0, 0x31f2 }, 8 },
    /* Selects 0, 2, .., 14 feed the eight low-half-only data registers. */
    { "SQ_WGP", 8, { 0x39c0, 0x39c2, 0x39c4, 0x39c6, 0x39c8, 0x39ca, 0x39cc, 0x39ce },
      { 0x31c0, 0x31c2, 0x31c4, 0x31c6, 0x31c8, 0x31ca, 0x31cc, 0x31ce }, 4 },
    { "TCP", 1, { 0x3b40, 0x3b42, 0x3b44, 0x3b45 }, { 0x3340, 0x3342, 0x3344, 0x3346 }, 8 },
    { "GL1C", 4, { 0x3ba0, 0x3ba2, 0x3ba3, 0x3ba4 }, { 0x33a0, 0x33a2, 0x33a4, 0x33a6 }, 8 },
    { "GL2C", 4, { 0x3b80, 0x3b82, 0x3b84, 0x3b85 }, { 0x3380, 0x3382, 0x3384, 0x3386 }, 8 },
};
#define NBANKS (sizeof(banks) / sizeof(banks[0]))

/* Counters one row divides or adds up count in the same pass where the
 * limits allow, so a ratio never mixes two passes. */
static const char *const together[][5] = {
    { "GRBM_COUNT", "GRBM_GUI_ACTIVE" },
    { "GL2C_HIT", "GL2C_MISS" },
    { "GL2C_MC_WRREQ", "GL2C_EA_WRREQ_64B" },
    { "GL2C_EA_RDREQ_32B", "GL2C_EA_RDREQ_64B", "GL2C_EA_RDREQ_96B", "GL2C_EA_RDREQ_128B" },
    { "GL2C_READ_32_REQ", "GL2C_READ_64_REQ", "GL2C_READ_128_REQ",
      "GL2C_COMPRESSED_READ_96_REQ" },
    { "GL1C_REQ", "GL1C_REQ_MISS" },
    { "GL1C_GL2_REQ_READ_32B", "GL1C_GL2_REQ_READ_64B", "GL1C_GL2_REQ_READ_128B" },
    { "SQ_INSTS_ALL", "SQ_INSTS_INTERNAL" },
    { "SQC_ICACHE_HITS", "SQC_ICACHE_MISSES" },
    { "SQC_DCACHE_HITS", "SQC_DCACHE_MISSES" },
};
#define NTOGETHER (sizeof(together) / sizeof(together[0]))

struct ctr {
    int cat;                   /* catalogue index */
    uint32_t slot, n;
    uint32_t event;
    enum gt_amd_domain domain;
    unsigned bank, group, reg; /* which pass and which register */
    int set;                   /* index in together[], -1 if none */
    int used;
    uint64_t *last;            /* n values of its latest pass */
};

struct saved {
    uint32_t dword, value;
};

struct gt_amd_pmc {
    struct gt_amd_dev *dev;
    struct gt_amd_device geom;
    int fd, v2;                /* regs2; V2 ioctl works */
    int gfxoff_fd;             /* amdgpu_gfxoff while held, else -1 */
    uint32_t ctx_id;           /* stable-pstate context, 0 if none */
    struct ctr *ctr;
    size_t nctr;
    unsigned ngroups[NBANKS];
    unsigned pass;
    int counting;
    struct saved saved[MAX_SAVED];
    size_t nsaved;
    struct { uint32_t se, sh, inst; int valid; } state;
};

/* ---- regs2 access ---- */

static int set_state(struct gt_amd_pmc *p, uint32_t se, uint32_t sh, uint32_t inst)
{
    const struct gt_sys *sys = p->dev->sys;
    struct gt_regs2_iocdata_v2 v2;
    int r;

    if (p->state.valid && p->state.se == se && p->state.sh == sh && p->state.inst == inst)
        return 0;
    memset(&v2, 0, sizeof(v2));
    v2.use_grbm = 1;
    v2.grbm.se = se;
    v2.grbm.sh = sh;
    v2.grbm.instance = inst;
    if (p->v2) {
        r = sys->ioctl(sys->ctx, p->fd, GT_REGS2_IOC_SET_STATE_V2, &v2);
        if (r < 0 && (errno == EINVAL || errno == ENOTTY)) {
            p->v2 = 0;   /* a kernel before the XCC series (about 6.5) */
            return set_state(p, se, sh, inst);
        }
    } else {
        r = sys->ioctl(sys->ctx, p->fd, GT_REGS2_IOC_SET_STATE, &v2);
    }
    if (r < 0)
        return -1;
    p->state.se = se;
    p->state.sh = sh;
    p->state.inst = inst;
    p->state.valid = 1;
    return 0;
}

static int broadcast(struct gt_amd_pmc *p)
{
    return set_state(p, GT_REGS2_BROADCAST, GT_REGS2_BROADCAST, GT_REGS2_BROADCAST);
}

/* The file offset is the register's byte address. */
static int rd(struct gt_amd_pmc *p, uint32_t dword, void *buf, size_t len)
{
    const struct gt_sys *sys = p->dev->sys;
    ssize_t n = sys->pread(sys->ctx, p->fd, buf, len, (off_t)dword * 4);

    if (n != (ssize_t)len) {
        if (n >= 0)
            errno = EIO;
        return -1;
    }
    return 0;
}

static int wr(struct gt_amd_pmc *p, uint32_t dword, uint32_t v)
{
    const struct gt_sys *sys = p->dev->sys;
    ssize_t n;

    if (!sys->pwrite) {
        errno = ENOSYS;
        return -1;
    }
    n = sys->pwrite(sys->ctx, p->fd, &v, sizeof(v), (off_t)dword * 4);
    if (n != (ssize_t)sizeof(v)) {
        if (n >= 0)
            errno = EIO;
        return -1;
    }
    return 0;
}

/* Writes in broadcast, saving the register's old value the first time. */
static int wr_saved(struct gt_amd_pmc *p, uint32_t dword, uint32_t v)
{
    size_t i;

    if (broadcast(p) < 0)
        return -1;
    for (i = 0; i < p->nsaved && p->saved[i].dword != dword; i++)
        ;
    if (i == p->nsaved) {
        uint32_t old;
        if (p->nsaved == MAX_SAVED) {
            errno = ENOSPC;
            return -1;
        }
        if (rd(p, dword, &old, sizeof(old)) < 0)
            return -1;
        p->saved[p->nsaved].dword = dword;
        p->saved[p->nsaved].value = old;
        p->nsaved++;
    }
    return wr(p, dword, v);
}

/* ---- the plan: which counter in which pass and register ---- */

static int bank_of(const char *hw_block)
{
    size_t b;

    for (b = 0; b < NBANKS; b++)
        if (strcmp(banks[b].hw_block, hw_block) == 0)
            return (int)b;
    return -1;
}

static int set_of(const char *name)
{
    size_t s, i;

    for (s = 0; s < NTOGETHER; s++)
        for (i = 0; i < 5 && together[s][i]; i++)
            if (strcmp(together[s][i], name) == 0)
                return (int)s;
    return -1;
}

static unsigned first_fit(unsigned *fill, unsigned need, unsigned limit)
{
    unsigned g;

    for (g = 0; g < MAX_PASSES - 1 && fill[g] + need > limit; g++)
        ;
    return g;
}

static void assign(struct ctr *c, unsigned *fill, unsigned g)
{
    c->group = g;
    c->reg = fill[g]++;
}

/* Sets first, each whole into the first pass with room for it (a set
 * larger than a pass goes member by member), then the lone counters. */
static void plan(struct gt_amd_pmc *p)
{
    unsigned fill[MAX_PASSES], b, g, need;
    size_t i, j;

    for (i = 0; i < p->nctr; i++)
        p->ctr[i].group = UINT32_MAX;
    for (b = 0; b < NBANKS; b++) {
        memset(fill, 0, sizeof(fill));
        for (i = 0; i < p->nctr; i++) {
            struct ctr *c = &p->ctr[i];
            if (c->bank != b || !c->used || c->group != UINT32_MAX || c->set < 0)
                continue;
            for (need = 0, j = i; j < p->nctr; j++)
                need += p->ctr[j].bank == b && p->ctr[j].used && p->ctr[j].set == c->set;
            if (need > banks[b].limit)
                continue;
            g = first_fit(fill, need, banks[b].limit);
            for (j = i; j < p->nctr; j++)
                if (p->ctr[j].bank == b && p->ctr[j].used && p->ctr[j].set == c->set)
                    assign(&p->ctr[j], fill, g);
        }
        for (i = 0; i < p->nctr; i++) {
            struct ctr *c = &p->ctr[i];
            if (c->bank == b && c->used && c->group == UINT32_MAX)
                assign(c, fill, first_fit(fill, 1, banks[b].limit));
        }
        for (g = 0; g < MAX_PASSES && fill[g]; g++)
            ;
        p->ngroups[b] = g;
    }
}

unsigned gt_amd_pmc_passes(const struct gt_amd_pmc *p)
{
    unsigned b, most = 0;

    for (b = 0; b < NBANKS; b++)
        if (p->ngroups[b] > most)
            most = p->ngroups[b];
    return most;
}

unsigned gt_amd_pmc_ncounters(const struct gt_amd_pmc *p)
{
    unsigned n = 0;
    size_t i;

    for (i = 0; i < p->nctr; i++)
        n += p->ctr[i].used != 0;
    return n;
}

void gt_amd_pmc_describe(const struct gt_amd_pmc *p, char *buf, size_t len)
{
    size_t b, i, off = 0;

    buf[0] = '\0';
    for (b = 0; b < NBANKS && off < len; b++) {
        unsigned n = 0;
        for (i = 0; i < p->nctr; i++)
            n += p->ctr[i].bank == b && p->ctr[i].used;
        if (!n)
            continue;
        off += (size_t)snprintf(buf + off, len - off, "%s%s %u in %u pass%s (limit %u)",
                                off ? ", " : "", banks[b].hw_block, n, p->ngroups[b],
                                p->ngroups[b] == 1 ? "" : "es", banks[b].limit);
    }
}

void gt_amd_pmc_select(struct gt_amd_pmc *p, const unsigned char *used, struct gt_catalog *c)
{
    size_t i;

    for (i = 0; i < p->nctr; i++)
        p->ctr[i].used = !used || used[p->ctr[i].cat];
    plan(p);
    for (i = 0; i < p->nctr; i++)
        c->counters[p->ctr[i].cat].estimated = p->ctr[i].used && p->ngroups[p->ctr[i].bank] > 1;
}

/* ---- instances: what GRBM_GFX_INDEX selects for instance i ---- */

static void instance_of(const struct gt_amd_pmc *p, enum gt_amd_domain dom, uint32_t i,
                        uint32_t *se, uint32_t *sh, uint32_t *inst)
{
    const struct gt_amd_device *g = &p->geom;
    uint32_t nsa = g->se * g->sa_per_se, per_sa;

    *se = *sh = *inst = GT_REGS2_BROADCAST;
    switch (dom) {
    case GT_AMD_GPU:
        return;
    case GT_AMD_SE:
        *se = i;
        *sh = 0;
        *inst = 0;
        return;
    case GT_AMD_SA:
        *se = i / g->sa_per_se;
        *sh = i % g->sa_per_se;
        *inst = 0;
        return;
    case GT_AMD_WGP:
    case GT_AMD_CU:
        /* Harvested CUs are not modelled: active CUs split evenly. */
        per_sa = gt_amd_instances(g, dom) / (nsa ? nsa : 1);
        per_sa = per_sa ? per_sa : 1;
        *se = (i / per_sa) / g->sa_per_se;
        *sh = (i / per_sa) % g->sa_per_se;
        *inst = i % per_sa;
        return;
    case GT_AMD_GL2C:
        *inst = i;
        return;
    }
}

/* ---- counting ---- */

static int program(struct gt_amd_pmc *p)
{
    size_t i;

    for (i = 0; i < p->nctr; i++) {
        const struct ctr *c = &p->ctr[i];
        const struct bank *bk = &banks[c->bank];
        if (!c->used || c->group != p->pass % p->ngroups[c->bank])
            continue;
        /* PERF_SEL in the low bits; CNTR_MODE and PERF_MODE 0 = accumulate. */
        if (wr_saved(p, GT_GC_SEG1 + bk->sel[c->reg], c->event) < 0)
            return -1;
    }
    if (wr_saved(p, GT_REG_CP_PERFMON_CNTL, GT_PERFMON_RESET) < 0 ||
        wr_saved(p, GT_REG_CP_PERFMON_CNTL, GT_PERFMON_START) < 0)
        return -1;
    p->counting = 1;
    return 0;
}

/* errno is kept: the source tells a device gone (ENODEV) by it. */
static int fail(struct gt_amd_pmc *p, struct gt_diag *d, const char *what)
{
    int e = errno;

    gt_diag_set(d, "%s/amdgpu_regs2: %s failed: %s", p->dev->debugfs, what, strerror(e));
    errno = e;
    return -1;
}

int gt_amd_pmc_start(struct gt_amd_pmc *p, struct gt_diag *d)
{
    p->pass = 0;
    /* SQ counts only waves of the stages enabled here, and only from
     * queues whose PERFCOUNT_ENABLE is set (README, "AMD"). */
    if (wr_saved(p, GT_GC_SEG1 + 0x39d8u, GT_SQG_CTRL_ALL_STAGES) < 0)
        return fail(p, d, "enabling SQ counting (SQG_PERFCOUNTER_CTRL)");
    if (program(p) < 0)
        return fail(p, d, "programming the counter selects");
    return 0;
}

static int read_ctr(struct gt_amd_pmc *p, struct ctr *c, uint64_t *deltas)
{
    const struct bank *bk = &banks[c->bank];
    uint32_t i, se, sh, inst;

    for (i = 0; i < c->n; i++) {
        uint64_t v = 0;
        instance_of(p, c->domain, i, &se, &sh, &inst);
        if (set_state(p, se, sh, inst) < 0 ||
            rd(p, GT_GC_SEG1 + bk->data[c->reg], &v, bk->width) < 0)
            return -1;
        c->last[i] = v;
        deltas[c->slot + i] = v;
    }
    return 0;
}

int gt_amd_pmc_sample(struct gt_amd_pmc *p, uint64_t *deltas, unsigned *estimated,
                      struct gt_diag *d)
{
    size_t i;

    *estimated = 0;
    if (wr_saved(p, GT_REG_CP_PERFMON_CNTL, GT_PERFMON_STOP) < 0)
        return fail(p, d, "stopping the counters (CP_PERFMON_CNTL)");
    for (i = 0; i < p->nctr; i++) {
        struct ctr *c = &p->ctr[i];
        if (!c->used)
            continue;
        if (c->group == p->pass % p->ngroups[c->bank]) {
            if (read_ctr(p, c, deltas) < 0)
                return fail(p, d, "reading a counter");
            continue;
        }
        /* Not counted this pass: its last pass stands in (the sampling
         * period is fixed, so a count per interval carries over). */
        memcpy(deltas + c->slot, c->last, c->n * sizeof(uint64_t));
        (*estimated)++;
    }
    p->pass++;
    if (program(p) < 0)
        return fail(p, d, "programming the next pass");
    return 0;
}

/* ---- keeping GFX powered ---- */

static int gfxoff_hold(struct gt_amd_pmc *p, struct gt_diag *d)
{
    const struct gt_sys *sys = p->dev->sys;
    char path[96];
    uint32_t zero = 0;

    snprintf(path, sizeof(path), "%s/amdgpu_gfxoff", p->dev->debugfs);
    p->gfxoff_fd = sys->open(sys->ctx, path, O_RDWR | O_CLOEXEC);
    /* Each 0 written is one reference against GFXOFF; close() does not
     * drop it, so gt_amd_pmc_close writes the matching 1. */
    if (p->gfxoff_fd < 0 || sys->pwrite(sys->ctx, p->gfxoff_fd, &zero, 4, 0) != 4) {
        gt_diag_set(d, "%s: cannot keep GFX powered: %s (try keepon=pstate)", path,
                    strerror(errno));
        if (p->gfxoff_fd >= 0)
            sys->close(sys->ctx, p->gfxoff_fd);
        p->gfxoff_fd = -1;
        return -1;
    }
    return 0;
}

static int ctx_op(struct gt_amd_pmc *p, union drm_amdgpu_ctx *a)
{
    const struct gt_sys *sys = p->dev->sys;

    return sys->ioctl(sys->ctx, p->dev->fd, DRM_IOCTL_AMDGPU_CTX, a);
}

/* A context holding the STANDARD profile ungates GFX; only one context
 * on the device may hold a stable pstate (-EBUSY otherwise). */
static int pstate_hold(struct gt_amd_pmc *p, struct gt_diag *d)
{
    union drm_amdgpu_ctx a;

    memset(&a, 0, sizeof(a));
    a.in.op = AMDGPU_CTX_OP_ALLOC_CTX;
    if (ctx_op(p, &a) < 0) {
        gt_diag_set(d, "%s: AMDGPU_CTX alloc failed: %s", p->dev->drm.render, strerror(errno));
        return -1;
    }
    p->ctx_id = a.out.alloc.ctx_id;
    memset(&a, 0, sizeof(a));
    a.in.op = AMDGPU_CTX_OP_SET_STABLE_PSTATE;
    a.in.ctx_id = p->ctx_id;
    a.in.flags = AMDGPU_CTX_STABLE_PSTATE_STANDARD;
    if (ctx_op(p, &a) == 0)
        return 0;
    if (errno == EBUSY)
        gt_diag_set(d, "%s: the stable power state is held by another program (a profiler: "
                       "RGP, rocprof, another gputop): EBUSY; keepon=gfxoff keeps GFX on "
                       "without it", p->dev->drm.render);
    else
        gt_diag_set(d, "%s: SET_STABLE_PSTATE failed: %s", p->dev->drm.render,
                    strerror(errno));
    return -1;
}

static void release_power(struct gt_amd_pmc *p)
{
    const struct gt_sys *sys = p->dev->sys;
    union drm_amdgpu_ctx a;
    uint32_t one = 1;

    if (p->gfxoff_fd >= 0) {
        sys->pwrite(sys->ctx, p->gfxoff_fd, &one, 4, 0);
        sys->close(sys->ctx, p->gfxoff_fd);
        p->gfxoff_fd = -1;
    }
    if (p->ctx_id) {
        /* Freeing the context restores the level it found. */
        memset(&a, 0, sizeof(a));
        a.in.op = AMDGPU_CTX_OP_FREE_CTX;
        a.in.ctx_id = p->ctx_id;
        ctx_op(p, &a);
        p->ctx_id = 0;
    }
}

/* ---- open and close ---- */

static int build(struct gt_amd_pmc *p, const struct gt_catalog *c)
{
    size_t i;

    p->ctr = calloc(c->ncounters ? c->ncounters : 1, sizeof(*p->ctr));
    if (!p->ctr)
        return -1;
    for (i = 0; i < c->ncounters; i++) {
        const struct gt_amd_counter_def *def = gt_amd_gfx1151_find(c->counters[i].name);
        struct ctr *k = &p->ctr[p->nctr];
        int b;
        if (!def || def->kind != GT_AMD_PMC || (b = bank_of(def->hw_block)) < 0)
            continue;
        k->cat = (int)i;
        k->slot = c->counters[i].slot;
        k->n = c->counters[i].instances;
        k->event = (uint32_t)def->event;
        k->domain = def->domain;
        k->bank = (unsigned)b;
        k->set = set_of(def->name);
        k->used = 1;
        k->last = calloc(k->n, sizeof(uint64_t));
        if (!k->last)
            return -1;
        p->nctr++;
    }
    plan(p);
    return 0;
}

static const char *debugfs_why(const struct gt_amd_dev *dev, int err, enum gt_amd_pmc_fail *f)
{
    const struct gt_sys *sys = dev->sys;
    int fd;

    if (err == EACCES || err == EPERM) {
        *f = GT_PMC_FAIL_ROOT;
        return "needs root (debugfs is root-only)";
    }
    if (err != ENOENT)
        return "";
    fd = gt_sys_open_below(sys, "/sys/kernel/debug/dri");
    if (fd >= 0) {
        sys->close(sys->ctx, fd);
        *f = GT_PMC_FAIL_DEBUGFS;
        return "this kernel has no amdgpu_regs2 (it came in Linux 5.16)";
    }
    if (errno == EACCES || errno == EPERM) {
        *f = GT_PMC_FAIL_ROOT;
        return "needs root (debugfs is root-only)";
    }
    *f = GT_PMC_FAIL_DEBUGFS;
    return "debugfs is not mounted (mount -t debugfs none /sys/kernel/debug) or the kernel "
           "lacks CONFIG_DEBUG_FS";
}

static int open_regs2(struct gt_amd_pmc *p, enum gt_amd_pmc_fail *f, struct gt_diag *d)
{
    const struct gt_sys *sys = p->dev->sys;
    char path[96];

    snprintf(path, sizeof(path), "%s/amdgpu_regs2", p->dev->debugfs);
    p->fd = sys->open(sys->ctx, path, O_RDWR | O_CLOEXEC);
    if (p->fd < 0) {
        int err = errno;
        const char *why = debugfs_why(p->dev, err, f);
        gt_diag_set(d, "%s/amdgpu_regs2: %s%s%s", p->dev->debugfs, strerror(err),
                    why[0] ? ": " : "", why);
        return -1;
    }
    p->v2 = 1;
    if (broadcast(p) < 0) {
        gt_diag_set(d, "%s/amdgpu_regs2: SET_STATE failed: %s", p->dev->debugfs,
                    strerror(errno));
        return -1;
    }
    return 0;
}

struct gt_amd_pmc *gt_amd_pmc_open(struct gt_amd_dev *dev, const struct gt_amd_device *geom,
                                   const struct gt_catalog *c, enum gt_amd_keepon keepon,
                                   enum gt_amd_pmc_fail *f, struct gt_diag *d)
{
    struct gt_amd_pmc *p = calloc(1, sizeof(*p));

    *f = GT_PMC_FAIL_OTHER;
    if (!p) {
        gt_diag_set(d, "out of memory");
        return NULL;
    }
    p->dev = dev;
    p->geom = *geom;
    p->fd = -1;
    p->gfxoff_fd = -1;
    if (!dev->pmc_regs) {
        gt_diag_set(d, "%s: gputop knows the counter registers of GC 11.5 (gfx1150-1153) "
                       "only, not of this %s", dev->drm.render, dev->name);
        goto fail;
    }
    if (open_regs2(p, f, d) < 0)
        goto fail;
    if (build(p, c) < 0) {
        gt_diag_set(d, "out of memory");
        goto fail;
    }
    if ((keepon == GT_KEEPON_PSTATE ? pstate_hold(p, d) : gfxoff_hold(p, d)) < 0)
        goto fail;
    return p;
fail:
    gt_amd_pmc_close(p);
    return NULL;
}

/* Puts back every register written, in broadcast, oldest value first
 * written last so a register written twice ends at its original. */
static void restore(struct gt_amd_pmc *p)
{
    size_t i;

    if (p->fd < 0 || broadcast(p) < 0)
        return;
    if (p->counting)
        wr(p, GT_REG_CP_PERFMON_CNTL, GT_PERFMON_STOP);
    for (i = p->nsaved; i-- > 0;)
        wr(p, p->saved[i].dword, p->saved[i].value);
    p->nsaved = 0;
}

void gt_amd_pmc_close(struct gt_amd_pmc *p)
{
    size_t i;

    if (!p)
        return;
    restore(p);
    release_power(p);
    if (p->fd >= 0)
        p->dev->sys->close(p->dev->sys->ctx, p->fd);
    for (i = 0; i < p->nctr; i++)
        free(p->ctr[i].last);
    free(p->ctr);
    free(p);
}
