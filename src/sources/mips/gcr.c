/* The coherency manager's GCR block through /dev/mem: where it is (option,
 * device tree, opt-in default), mapping it, checking it is one before any
 * write, single 32-bit accesses through the seam with bus errors caught,
 * and putting the perf registers back as they were. */
#include "cm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* Reads a whole small property; its length or -1 when absent. */
static long dt_prop(const char *dir, const char *name, unsigned char *buf, size_t len)
{
    char path[4096];
    size_t n;
    FILE *f;

    if (join(path, sizeof(path), dir, name) < 0 || !(f = fopen(path, "rb")))
        return -1;
    n = fread(buf, 1, len, f);
    fclose(f);
    return (long)n;
}

/* The parent directory of a node, in place; 0, or -1 at the top. */
static int dt_up(char *dir)
{
    char *slash = strrchr(dir, '/');

    if (!slash || slash == dir)
        return -1;
    *slash = '\0';
    return 0;
}

/* One bus level, as of_translate_one() in drivers/of/address.c does it: an
 * empty ranges is a one-to-one map, a missing one means the bus cannot be
 * translated, else the entry (child address, parent address, size) whose
 * child window holds addr moves it into the parent's space. */
static int dt_translate_one(const char *bus, const char *parent, uint64_t *addr)
{
    unsigned ca = dt_cells(bus, "#address-cells", 2), cs = dt_cells(bus, "#size-cells", 1);
    unsigned pa = dt_cells(parent, "#address-cells", 2), entry;
    unsigned char r[1024];
    long n, off;

    if (ca < 1 || ca > 2 || cs > 2 || pa < 1 || pa > 2)
        return -1;
    if ((n = dt_prop(bus, "ranges", r, sizeof(r))) < 0)
        return -1;
    entry = (ca + pa + cs) * 4;
    if (n == 0)
        return 0;
    for (off = 0; off + (long)entry <= n; off += entry) {
        uint64_t child = be_cells(r + off, ca), par = be_cells(r + off + ca * 4, pa);
        uint64_t size = cs ? be_cells(r + off + (ca + pa) * 4, cs) : 0;
        if (*addr >= child && *addr - child < size) {
            *addr = par + (*addr - child);
            return 0;
        }
    }
    return -1;
}

/* The node's reg address in the CPU's physical space: through every
 * ancestor bus's ranges up to the root, as of_address_to_resource() does
 * (drivers/of/address.c, __of_translate_address). */
static int dt_translate(const char *root, const char *node, uint64_t *addr)
{
    char bus[4096], parent[4096];

    snprintf(bus, sizeof(bus), "%s", node);
    if (dt_up(bus) < 0)
        return -1;
    while (strcmp(bus, root) != 0) {
        snprintf(parent, sizeof(parent), "%s", bus);
        if (dt_up(parent) < 0 || dt_translate_one(bus, parent, addr) < 0)
            return -1;
        snprintf(bus, sizeof(bus), "%s", parent);
    }
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
        if (dt_translate(root, node, base) < 0) {
            gt_diag_set(d, "mips-cm: %s: its reg 0x%" PRIx64 " does not translate to a "
                           "physical address through its parents' ranges; give the GCR base: "
                           "--source mips-cm:gcr-base=0x...", node, *base);
            return -1;
        }
        snprintf(how, howlen, "device tree");
        return 0;
    }
    gt_diag_set(d, "mips-cm: no '%s' node with a reg property under %s; give the GCR base: "
                   "--source mips-cm:gcr-base=0x... (or gcr-base=default for 0x%llx, U-Boot's "
                   "default)", DT_COMPAT, root, (unsigned long long)CM_DEFAULT_BASE);
    return -1;
}

/* A load or store nothing answers raises a bus error, which Linux on MIPS
 * delivers as SIGBUS (arch/mips/kernel/traps.c, do_be()). The handler can
 * reach nothing but these two, so they are per thread: the jump of the
 * guarded call under way on this thread, and the register it touched. */
static _Thread_local sigjmp_buf *guard_jmp;
static _Thread_local uint32_t guard_off;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    if (guard_jmp)
        siglongjmp(*guard_jmp, 1);
    /* Not a guarded access: as if there were no handler; the faulting
     * instruction runs again and the default action ends the process. */
    signal(sig, SIG_DFL);
}

static void catch_sigbus(struct cm_gcr *g)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    g->caught = sigaction(SIGBUS, &sa, &g->old_bus) == 0;
}

static void release_sigbus(struct cm_gcr *g)
{
    if (g->caught)
        sigaction(SIGBUS, &g->old_bus, NULL);
    g->caught = 0;
}

/* Worker threads (the sampler's) run with every signal blocked, and a
 * fault signal that is blocked is delivered with the default action, which
 * ends the process (kernel/signal.c, force_sig_info_to_task). So SIGBUS is
 * unblocked around the accesses; sigsetjmp saved the mask, and both ways
 * out put it back. */
int cm_guarded(struct cm_gcr *g, int (*fn)(struct cm_gcr *g, void *arg), void *arg)
{
    sigjmp_buf jb;
    sigjmp_buf *volatile outer = guard_jmp;
    sigset_t bus, old;
    int r;

    if (g->gone)
        return CM_BUS_ERROR;
    if (sigsetjmp(jb, 1)) {
        guard_jmp = outer;
        g->gone = 1;
        g->fault_off = guard_off;
        return CM_BUS_ERROR;
    }
    sigemptyset(&bus);
    sigaddset(&bus, SIGBUS);
    pthread_sigmask(SIG_UNBLOCK, &bus, &old);
    guard_jmp = &jb;
    r = fn(g, arg);
    guard_jmp = outer;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return r;
}

const char *cm_reg_name(uint32_t off)
{
    switch (off) {
    case CM_GCR_CONFIG: return "GCR_CONFIG";
    case CM_GCR_BASE:   return "GCR_BASE";
    case CM_GCR_REV:    return "GCR_REV";
    case CM_PC_CTL:     return "GCR_DB_PC_CTL";
    case CM_PC_OV:      return "GCR_DB_PC_OV";
    case CM_PC_EVENT:   return "GCR_DB_PC_EVENT";
    case CM_PC_CYCLE:   return "GCR_DB_PC_CYCLE";
    case CM_PC_QUAL0:   return "GCR_DB_PC_QUAL0";
    case CM_PC_CNT0:    return "GCR_DB_PC_CNT0";
    case CM_PC_QUAL1:   return "GCR_DB_PC_QUAL1";
    case CM_PC_CNT1:    return "GCR_DB_PC_CNT1";
    }
    return "a GCR register";
}

/* Once a bus error said the block is gone, nothing touches it again. */
uint32_t cm_rd(const struct cm_gcr *g, uint32_t off)
{
    if (g->gone)
        return 0xffffffffu;
    guard_off = off;
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
    if (!is_pc_reg(off) || g->gone)
        return;
    g->touched = 1;
    guard_off = off;
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
    release_sigbus(g);
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
    g->lock_fd = -1;
    g->base = base;
    if (!sys->reg_read32 || !sys->reg_write32) {
        gt_diag_set(d, "mips-cm: this build's system-call seam has no register access");
        return -1;
    }
    /* O_SYNC: /dev/mem maps uncached only then (drivers/char/mem.c). */
    g->fd = sys->open(sys->ctx, "/dev/mem", O_RDWR | O_SYNC);
    if (g->fd < 0) {
        /* drivers/char/mem.c open_port(): EPERM without CAP_SYS_RAWIO and,
         * as root, under kernel lockdown (LOCKDOWN_DEV_MEM); no node at all
         * without CONFIG_DEVMEM. */
        gt_diag_errno(d, errno, "mips-cm: cannot open /dev/mem: %s%s", strerror(errno),
                      errno == EPERM ? " (needs root or CAP_SYS_RAWIO; as root, kernel lockdown "
                                       "(/sys/kernel/security/lockdown) forbids /dev/mem)"
                      : errno == EACCES ? " (needs root or CAP_SYS_RAWIO)"
                      : errno == ENOENT ? " (kernel built without CONFIG_DEVMEM?)" : "");
        return -1;
    }
    g->map_len = (size_t)(base - start) + CM_GCR_SIZE;
    g->map_len = (g->map_len + CM_MAP_ALIGN - 1) & ~(size_t)(CM_MAP_ALIGN - 1);
    p = sys->mmap(sys->ctx, NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, g->fd,
                  (off_t)start);
    if (p == MAP_FAILED) {
        gt_diag_errno(d, errno, "mips-cm: cannot map /dev/mem at 0x%" PRIx64 " (%zu bytes): %s%s",
                      start, g->map_len, strerror(errno),
                      /* MIPS does not select ARCH_HAS_DEVMEM_IS_ALLOWED, so
                       * there is no STRICT_DEVMEM to blame (arch/mips/Kconfig). */
                      errno == EPERM ? " (MIPS kernels have no STRICT_DEVMEM: kernel lockdown or "
                                       "a security module such as SELinux refused it)" : "");
        unmap(g);
        return -1;
    }
    g->map = p;
    g->regs = (volatile uint8_t *)p + (base - start);
    catch_sigbus(g);
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

struct check {
    int refuse_cm3;
    struct gt_diag *d;
};

static int check_and_save(struct cm_gcr *g, void *arg)
{
    struct check *c = arg;

    if (validate(g, c->refuse_cm3, c->d) < 0)
        return -1;
    cm_gcr_read_regs(g, &g->saved);
    return 0;
}

static int gcr_open(struct cm_gcr *g, const struct gt_sys *sys, uint64_t base, int refuse_cm3,
                    struct gt_diag *d)
{
    char how[sizeof(g->how)];
    struct check c = { refuse_cm3, d };
    int r;

    snprintf(how, sizeof(how), "%s", g->how[0] ? g->how : "given");
    if (map_block(g, sys, base, d) < 0)
        return -1;
    snprintf(g->how, sizeof(g->how), "%s", how);
    r = cm_guarded(g, check_and_save, &c);
    if (r == CM_BUS_ERROR)
        gt_diag_set(d, "mips-cm: no CM at 0x%" PRIx64 " (%s): reading %s raised a bus error "
                       "(SIGBUS): nothing answers at that address; nothing was written",
                    base, g->how, cm_reg_name(g->fault_off));
    if (r < 0) {
        unmap(g);
        return -1;
    }
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

/* Counting and interrupts stop first, so nothing we selected counts into
 * the restored values and no overflow of ours interrupts the owner; their
 * selection and counts go back, then the overflow bits we caused are
 * cleared (write 1 to clear; set ones cannot be set back), and only then
 * their control word, with its interrupt enable and count-on bits. Reset
 * bits are left out of it: they would clear the counts just put back. */
static void restore(struct cm_gcr *g)
{
    const struct cm_regs *s = &g->saved;
    uint32_t ov;

    cm_wr(g, CM_PC_CTL, s->ctl & ~(CM_CTL_COUNTON | CM_CTL_RESETS | CM_CTL_INT_EN));
    cm_wr(g, CM_PC_EVENT, s->event);
    cm_wr(g, CM_PC_QUAL0, s->qual0);
    cm_wr(g, CM_PC_QUAL1, s->qual1);
    cm_wr(g, CM_PC_CYCLE, s->cycle);
    cm_wr(g, CM_PC_CNT0, s->cnt0);
    cm_wr(g, CM_PC_CNT1, s->cnt1);
    ov = cm_rd(g, CM_PC_OV) & ~s->ov & CM_OV_ALL;
    if (ov)
        cm_wr(g, CM_PC_OV, ov);
    cm_wr(g, CM_PC_CTL, s->ctl & ~CM_CTL_RESETS);
}

/* The block has no arbitration (reference/mips/cm.md section 5): two
 * gputops would program each other's events. The lock is an flock on a
 * file named after the base, so it ends with the process however it ends;
 * the file keeps the holder's pid for the message. */
int cm_gcr_lock(struct cm_gcr *g, struct gt_diag *d)
{
    static const char *const dirs[] = { "/run/lock", "/tmp" };
    const char *root = g->sys->root ? g->sys->root : "";
    char pid[32];
    ssize_t n;
    size_t i;
    int fd = -1;

    for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && fd < 0; i++) {
        snprintf(g->lock_path, sizeof(g->lock_path), "%s%s/gputop-mips-cm-%" PRIx64 ".lock",
                 root, dirs[i], g->base);
        fd = open(g->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    }
    if (fd < 0) {
        g->lock_path[0] = '\0';
        return 0;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        n = pread(fd, pid, sizeof(pid) - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        gt_diag_set(d, "mips-cm: the GCR block at 0x%" PRIx64 " is in use by another gputop "
                       "(pid %s, lock %s): two would program each other's events",
                    g->base, pid[0] ? pid : "unknown", g->lock_path);
        close(fd);
        return -1;
    }
    n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n)
        pid[0] = '\0';   /* the lock holds; only the message loses the pid */
    g->lock_fd = fd;
    return 0;
}

void cm_gcr_unlock(struct cm_gcr *g)
{
    if (g->lock_fd >= 0)
        close(g->lock_fd);
    g->lock_fd = -1;
}

static int restore_guarded(struct cm_gcr *g, void *arg)
{
    (void)arg;
    restore(g);
    return 0;
}

/* Not after a bus error (the block is gone: writes would fault again) nor
 * when another agent took the counters over (their settings now). */
void cm_gcr_close(struct cm_gcr *g)
{
    if (g->map && g->saved_ok && g->touched && !g->gone && !g->foreign)
        cm_guarded(g, restore_guarded, NULL);
    unmap(g);
    cm_gcr_unlock(g);
}
