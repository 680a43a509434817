/* The coherency manager's GCR block through /dev/mem: where it is (option,
 * device tree, opt-in default), mapping it, checking it is one before any
 * write, single 32-bit accesses through the seam, and putting the perf
 * registers back as they were. */
#include "cm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define DT_ROOT   "/sys/firmware/devicetree/base"
#define DT_COMPAT "mti,mips-cm"
#define DT_DEPTH  8

const struct cm_event cm_events[CM_NEVENTS] = {
    { 0,  "CMRequests",          "Request Count" },
    { 1,  "CMCoherentReqResp",   "Coherent Request or Response" },
    { 2,  "CMWriteDataUsage",    "CM Write Data Usage" },
    { 3,  "CMCommandBusUsage",   "CM Command Bus Usage" },
    { 4,  "CMReadDataUsage",     "CM Read Data Usage" },
    { 5,  "CMSharingMiss",       "Sharing Miss" },
    { 6,  "CMResponseUnitUsage", "Response Unit Usage" },
    { 8,  "CML2Pipeline",        "L2 Pipeline Utilization" },
    { 9,  "CML2HitsMisses",      "L2 Hits/Misses" },
    { 16, "CMIOCU0Requests",     "1st IOCU Requests" },
    { 17, "CMIOCU1Requests",     "2nd IOCU Requests" },
};

int cm_event_find(const char *counter)
{
    int i;

    for (i = 0; i < CM_NEVENTS; i++)
        if (strcmp(cm_events[i].counter, counter) == 0)
            return i;
    return -1;
}

static int parse_base(const char *arg, uint64_t *base, struct gt_diag *d)
{
    char *end;

    errno = 0;
    *base = strtoull(arg, &end, 0);
    if (errno || *end || end == arg || *arg == '-') {
        gt_diag_set(d, "mips-cm: gcr-base '%s' is not an address (e.g. 0x1fbf8000, or "
                       "'default')", arg);
        return -1;
    }
    if (*base & ~(uint64_t)CM_GCR_BASE_MASK) {
        gt_diag_set(d, "mips-cm: gcr-base 0x%" PRIx64 " is not a CM2 GCR address: GCRBASE is "
                       "bits 31:15, so it is 32 KiB aligned and below 4 GiB", *base);
        return -1;
    }
    return 0;
}

/* dir/name in out; -1 when it does not fit. */
static int join(char *out, size_t n, const char *dir, const char *name)
{
    int r = snprintf(out, n, "%s/%s", dir, name);

    return r < 0 || (size_t)r >= n ? -1 : 0;
}

/* A big-endian cell list, as the device tree stores every number. */
static uint64_t be_cells(const unsigned char *p, unsigned cells)
{
    uint64_t v = 0;
    unsigned i;

    for (i = 0; i < cells * 4; i++)
        v = v << 8 | p[i];
    return v;
}

static unsigned dt_cells(const char *dir, const char *name, unsigned dflt)
{
    char path[4096];
    unsigned char b[4];
    FILE *f;
    size_t n;

    if (join(path, sizeof(path), dir, name) < 0 || !(f = fopen(path, "rb")))
        return dflt;
    n = fread(b, 1, 4, f);
    fclose(f);
    return n == 4 ? (unsigned)be_cells(b, 1) : dflt;
}

static int has_compat(const char *dir)
{
    char path[4096], buf[512];
    size_t n, i;
    FILE *f;

    if (join(path, sizeof(path), dir, "compatible") < 0 || !(f = fopen(path, "rb")))
        return 0;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* a NUL-separated list of strings */
    for (i = 0; i < n; i += strlen(buf + i) + 1)
        if (strcmp(buf + i, DT_COMPAT) == 0)
            return 1;
    return 0;
}

/* The node's first reg address, with its parent's #address-cells. */
static int dt_reg(const char *parent, const char *dir, uint64_t *base)
{
    unsigned ac = dt_cells(parent, "#address-cells", 2), sc = dt_cells(parent, "#size-cells", 1);
    unsigned char b[16];
    char path[4096];
    size_t n;
    FILE *f;

    if (ac < 1 || ac > 2 || sc > 2)
        return -1;
    if (join(path, sizeof(path), dir, "reg") < 0 || !(f = fopen(path, "rb")))
        return -1;
    n = fread(b, 1, sizeof(b), f);
    fclose(f);
    if (n < (ac + sc) * 4)
        return -1;
    *base = be_cells(b, ac);
    return 0;
}

static int dt_walk(const char *dir, int depth, uint64_t *base, char *node, size_t len)
{
    struct dirent *de;
    char sub[4096];
    DIR *dp;
    int found = 0;

    if (depth > DT_DEPTH || !(dp = opendir(dir)))
        return 0;
    while (!found && (de = readdir(dp))) {
        if (de->d_name[0] == '.' || de->d_type != DT_DIR)
            continue;
        if (join(sub, sizeof(sub), dir, de->d_name) < 0)
            continue;
        if (has_compat(sub) && dt_reg(dir, sub, base) == 0) {
            snprintf(node, len, "%s", sub);
            found = 1;
        } else {
            found = dt_walk(sub, depth + 1, base, node, len);
        }
    }
    closedir(dp);
    return found;
}

int cm_find_base(const struct gt_sys *sys, const char *arg, uint64_t *base, char *how,
                 size_t howlen, struct gt_diag *d)
{
    char root[4096], node[4096];

    if (arg && strcmp(arg, "default") == 0) {
        *base = CM_DEFAULT_BASE;
        snprintf(how, howlen, "built-in default");
        return 0;
    }
    if (arg && arg[0]) {
        snprintf(how, howlen, "gcr-base option");
        return parse_base(arg, base, d);
    }
    snprintf(root, sizeof(root), "%s%s", sys->root ? sys->root : "", DT_ROOT);
    if (dt_walk(root, 0, base, node, sizeof(node))) {
        snprintf(how, howlen, "device tree");
        return 0;
    }
    gt_diag_set(d, "mips-cm: no '%s' node with a reg property under %s; give the GCR base: "
                   "--source mips-cm:gcr-base=0x... (or gcr-base=default for 0x%llx, U-Boot's "
                   "default)", DT_COMPAT, root, (unsigned long long)CM_DEFAULT_BASE);
    return -1;
}

uint32_t cm_rd(const struct cm_gcr *g, uint32_t off)
{
    return g->sys->reg_read32(g->sys->ctx, g->regs + off);
}

static int is_pc_reg(uint32_t off)
{
    return off == CM_PC_CTL || off == CM_PC_OV || off == CM_PC_EVENT || off == CM_PC_CYCLE ||
           off == CM_PC_QUAL0 || off == CM_PC_CNT0 || off == CM_PC_QUAL1 || off == CM_PC_CNT1;
}

void cm_wr(struct cm_gcr *g, uint32_t off, uint32_t v)
{
    /* The document describes these eight; nothing else is ours to write. */
    if (!is_pc_reg(off))
        return;
    g->touched = 1;
    g->sys->reg_write32(g->sys->ctx, g->regs + off, v);
}

void cm_gcr_read_regs(const struct cm_gcr *g, struct cm_regs *r)
{
    r->ctl = cm_rd(g, CM_PC_CTL);
    r->ov = cm_rd(g, CM_PC_OV);
    r->event = cm_rd(g, CM_PC_EVENT);
    r->cycle = cm_rd(g, CM_PC_CYCLE);
    r->qual0 = cm_rd(g, CM_PC_QUAL0);
    r->cnt0 = cm_rd(g, CM_PC_CNT0);
    r->qual1 = cm_rd(g, CM_PC_QUAL1);
    r->cnt1 = cm_rd(g, CM_PC_CNT1);
}

static void unmap(struct cm_gcr *g)
{
    if (g->map)
        g->sys->munmap(g->sys->ctx, g->map, g->map_len);
    if (g->fd >= 0)
        g->sys->close(g->sys->ctx, g->fd);
    g->map = NULL;
    g->fd = -1;
}

static int map_block(struct cm_gcr *g, const struct gt_sys *sys, uint64_t base, struct gt_diag *d)
{
    uint64_t start = base & ~(uint64_t)(CM_MAP_ALIGN - 1);
    void *p;

    memset(g, 0, sizeof(*g));
    g->sys = sys;
    g->fd = -1;
    g->base = base;
    if (!sys->reg_read32 || !sys->reg_write32) {
        gt_diag_set(d, "mips-cm: this build's system-call seam has no register access");
        return -1;
    }
    /* O_SYNC: /dev/mem maps uncached only then (drivers/char/mem.c). */
    g->fd = sys->open(sys->ctx, "/dev/mem", O_RDWR | O_SYNC);
    if (g->fd < 0) {
        gt_diag_set(d, "mips-cm: cannot open /dev/mem: %s%s", strerror(errno),
                    errno == EACCES || errno == EPERM ? " (needs root or CAP_SYS_RAWIO)"
                    : errno == ENOENT ? " (kernel built without CONFIG_DEVMEM?)" : "");
        return -1;
    }
    g->map_len = (size_t)(base - start) + CM_GCR_SIZE;
    g->map_len = (g->map_len + CM_MAP_ALIGN - 1) & ~(size_t)(CM_MAP_ALIGN - 1);
    p = sys->mmap(sys->ctx, NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, g->fd,
                  (off_t)start);
    if (p == MAP_FAILED) {
        gt_diag_set(d, "mips-cm: cannot map /dev/mem at 0x%" PRIx64 " (%zu bytes): %s%s", start,
                    g->map_len, strerror(errno),
                    errno == EPERM ? " (CONFIG_STRICT_DEVMEM may forbid it)" : "");
        unmap(g);
        return -1;
    }
    g->map = p;
    g->regs = (volatile uint8_t *)p + (base - start);
    return 0;
}

/* Everything read, nothing written: a wrong address must not be poked. */
static int validate(struct cm_gcr *g, int refuse_cm3, struct gt_diag *d)
{
    uint32_t rb = cm_rd(g, CM_GCR_BASE), major, ctl;

    if ((rb & CM_GCR_BASE_MASK) != (uint32_t)g->base) {
        gt_diag_set(d, "mips-cm: no GCR block at 0x%" PRIx64 " (%s): GCR_BASE reads 0x%08x, "
                       "its GCRBASE field should be 0x%08x", g->base, g->how, rb,
                    (uint32_t)g->base);
        return -1;
    }
    g->rev = cm_rd(g, CM_GCR_REV);
    g->config = cm_rd(g, CM_GCR_CONFIG);
    major = g->rev >> 8 & 0xff;
    if (major < 6 || major > 9) {
        gt_diag_set(d, "mips-cm: GCR at 0x%" PRIx64 ": GCR_REV 0x%04x (major %u) is not a "
                       "CM2 (6), CM2.5 (7), CM3 (8) or CM3.5 (9)", g->base, g->rev & 0xffff, major);
        return -1;
    }
    if (refuse_cm3 && major >= 8) {
        gt_diag_set(d, "mips-cm: GCR at 0x%" PRIx64 ": GCR_REV %u.%u is a CM3 or later, whose "
                       "performance-register layout is not known to gputop; refusing to count "
                       "(--probe shows it read-only)", g->base, major, g->rev & 0xff);
        return -1;
    }
    ctl = cm_rd(g, CM_PC_CTL);
    if ((ctl & CM_CTL_NUM_CNT) != 2) {
        gt_diag_set(d, "mips-cm: GCR at 0x%" PRIx64 ": GCR_DB_PC_CTL 0x%08x has Perf_Num_Cnt %u, "
                       "the document says 2", g->base, ctl, ctl & CM_CTL_NUM_CNT);
        return -1;
    }
    return 0;
}

static int gcr_open(struct cm_gcr *g, const struct gt_sys *sys, uint64_t base, int refuse_cm3,
                    struct gt_diag *d)
{
    char how[sizeof(g->how)];

    snprintf(how, sizeof(how), "%s", g->how[0] ? g->how : "given");
    if (map_block(g, sys, base, d) < 0)
        return -1;
    snprintf(g->how, sizeof(g->how), "%s", how);
    if (validate(g, refuse_cm3, d) < 0) {
        unmap(g);
        return -1;
    }
    cm_gcr_read_regs(g, &g->saved);
    g->saved_ok = 1;
    return 0;
}

int cm_gcr_open(struct cm_gcr *g, const struct gt_sys *sys, uint64_t base, struct gt_diag *d)
{
    return gcr_open(g, sys, base, 1, d);
}

int cm_gcr_open_readonly(struct cm_gcr *g, const struct gt_sys *sys, uint64_t base,
                         struct gt_diag *d)
{
    return gcr_open(g, sys, base, 0, d);
}

/* Counting stops first, so nothing we selected counts into the restored
 * values; the saved control word goes back before the counts, since its
 * reset bits (if whoever had the counters left them set) act on the write. */
static void restore(struct cm_gcr *g)
{
    const struct cm_regs *s = &g->saved;
    uint32_t ov;

    cm_wr(g, CM_PC_CTL, s->ctl & ~(CM_CTL_COUNTON | CM_CTL_RESETS));
    cm_wr(g, CM_PC_EVENT, s->event);
    cm_wr(g, CM_PC_QUAL0, s->qual0);
    cm_wr(g, CM_PC_QUAL1, s->qual1);
    cm_wr(g, CM_PC_CTL, s->ctl);
    cm_wr(g, CM_PC_CYCLE, s->cycle);
    cm_wr(g, CM_PC_CNT0, s->cnt0);
    cm_wr(g, CM_PC_CNT1, s->cnt1);
    /* Overflow bits can only be cleared: clear those we caused. */
    ov = cm_rd(g, CM_PC_OV) & ~s->ov & CM_OV_ALL;
    if (ov)
        cm_wr(g, CM_PC_OV, ov);
}

void cm_gcr_close(struct cm_gcr *g)
{
    if (g->map && g->saved_ok && g->touched)
        restore(g);
    unmap(g);
}
