/* The fake amdgpu kernel (fake_amdgpu.h): facts from
 * ../shared/reference/amd/kernel-interfaces.md, decoded at raw offsets. */
#include "fakes/fake_amdgpu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFDS 32
#define FD_BASE 1000
#define NREGS 512
#define NRATES 256
#define MAXINST 64

/* Ioctl numbers as the kernel defines them (x86_64/aarch64). */
#define IOC_DRM_VERSION   0xC0406400ul   /* _IOWR('d', 0x00, struct drm_version: 64 B) */
#define IOC_AMDGPU_INFO   0x40206445ul   /* _IOW('d', 0x40 + 0x05, 32 B) */
#define IOC_AMDGPU_CTX    0xC0106442ul   /* _IOWR('d', 0x40 + 0x02, 16 B) */
#define IOC_REGS2_V1      0xC0282000ul
#define IOC_REGS2_V2      0xC02C2001ul

enum fd_type { FD_FREE, FD_NODE, FD_RUNTIME, FD_METRICS, FD_DRI_DIR, FD_REGS2, FD_GFXOFF,
               FD_DEAD };      /* opened before an unbind: ENODEV for good */

enum dom { D_GPU, D_SE, D_SA, D_WGP, D_CU, D_GL2C };

/* GC 11.5 counter banks: select and LO data dwords (segment 1 = 0xA000). */
static const struct {
    const char *name;
    enum dom dom;
    unsigned n;
    uint32_t sel[8], data[8];
    uint32_t selmask;
} bank[] = {
    { "GRBM", D_GPU, 2, { 0x3840, 0x3841 }, { 0x3040, 0x3043 }, 0x3ff },
    { "SQG", D_SE, 8, { 0x39d0, 0x39d1, 0x39d2, 0x39d3, 0x39d4, 0x39d5, 0x39d6, 0x39d7 },
      { 0x31e4, 0x31e6, 0x31e8, 0x31ea, 0x31ec, 0x31ee, 0x31f0, 0x31f2 }, 0x1ff },
    { "SQ_WGP", D_WGP, 8, { 0x39c0, 0x39c2, 0x39c4, 0x39c6, 0x39c8, 0x39ca, 0x39cc, 0x39ce },
      { 0x31c0, 0x31c2, 0x31c4, 0x31c6, 0x31c8, 0x31ca, 0x31cc, 0x31ce }, 0x1ff },
    { "TCP", D_CU, 4, { 0x3b40, 0x3b42, 0x3b44, 0x3b45 }, { 0x3340, 0x3342, 0x3344, 0x3346 },
      0x3ff },
    { "GL1C", D_SA, 4, { 0x3ba0, 0x3ba2, 0x3ba3, 0x3ba4 }, { 0x33a0, 0x33a2, 0x33a4, 0x33a6 },
      0x3ff },
    { "GL2C", D_GL2C, 4, { 0x3b80, 0x3b82, 0x3b84, 0x3b85 }, { 0x3380, 0x3382, 0x3384, 0x3386 },
      0x3ff },
};
#define NBANK (sizeof(bank) / sizeof(bank[0]))
#define SEG1 0xA000u
#define CP_PERFMON_CNTL (SEG1 + 0x3808u)
#define SQ_WGP_BANK 2
#define SQG_BANK 1
#define SQG_PERFCOUNTER_CTRL (SEG1 + 0x39d8u)
#define SQG_STAGES 0x55u          /* PS_EN, GS_EN, HS_EN, CS_EN */

/* soc21_allowed_read_registers, absolute dwords with GC seg0 = 0x1260. */
/* (The CP_STALLED, CP_CPF/CPC and GB_ADDR_CONFIG entries are left out:
 * their offsets are not in the reference notes, and gputop reads none.) */
static const uint32_t whitelist[] = {
    0x2004, 0x2002, 0x2005, 0x2006, 0x200e, 0x200f,  /* GRBM_STATUS, 2, SE0..3 */
    0x21a0,                                          /* CP_STAT */
};

struct fake_amdgpu {
    struct gt_sys sys;
    struct fa_config cfg;
    struct { enum fd_type type; uint32_t se, sh, inst; int v2_state; } fd[NFDS];
    char power[32];
    int has_power;
    unsigned char blob[264];
    size_t blob_len;
    uint32_t grbm[64][2];
    unsigned ngrbm, grbm_pos;
    struct { unsigned bank, event, inst; uint64_t per_pass; } rate[NRATES];
    unsigned nrates;
    uint64_t ctr[NBANK][8][MAXINST];
    struct { uint32_t dword, value, initial; int written; } reg[NREGS];
    unsigned nregs;
    unsigned perfmon;          /* PERFMON_STATE */
    uint32_t sensor[16];
    uint32_t ctx_alloc;
    int unplugged;
    struct fa_stats st;
};

static void protocol_error(struct fake_amdgpu *fa, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(fa->st.last_error, sizeof(fa->st.last_error), fmt, ap);
    va_end(ap);
    fa->st.protocol_errors++;
}

static int err(int e)
{
    errno = e;
    return -1;
}

static int asleep(const struct fake_amdgpu *fa)
{
    return fa->has_power && strcmp(fa->power, "active") != 0;
}

/* ---- registers ---- */

static int reg_index(struct fake_amdgpu *fa, uint32_t dword)
{
    unsigned i;

    for (i = 0; i < fa->nregs; i++)
        if (fa->reg[i].dword == dword)
            return (int)i;
    if (fa->nregs == NREGS)
        return -1;
    /* Power-on values nobody would write, so a restore is visible. */
    fa->reg[fa->nregs].dword = dword;
    fa->reg[fa->nregs].initial = fa->reg[fa->nregs].value = 0x5a000000u | (dword & 0xffff);
    if (dword == CP_PERFMON_CNTL || dword == SQG_PERFCOUNTER_CTRL)
        fa->reg[fa->nregs].initial = fa->reg[fa->nregs].value = 0;   /* disabled */
    return (int)fa->nregs++;
}

static uint32_t domain_instance(const struct fake_amdgpu *fa, enum dom dom, int f)
{
    uint32_t se = fa->fd[f].se == 0xffffffffu ? 0 : fa->fd[f].se;
    uint32_t sh = fa->fd[f].sh == 0xffffffffu ? 0 : fa->fd[f].sh;
    uint32_t in = fa->fd[f].inst == 0xffffffffu ? 0 : fa->fd[f].inst;

    switch (dom) {
    case D_GPU:  return 0;
    case D_SE:   return se;
    case D_SA:   return se * 2 + sh;
    case D_WGP:  return (se * 2 + sh) * 5 + in;
    case D_CU:   return (se * 2 + sh) * 10 + in;
    case D_GL2C: return in;
    }
    return 0;
}

/* A data register: bank, counter, and 0 for LO / 1 for HI; -1 if none. */
static int data_reg(uint32_t dword, unsigned *b, unsigned *n)
{
    for (*b = 0; *b < NBANK; (*b)++)
        for (*n = 0; *n < bank[*b].n; (*n)++) {
            if (dword == SEG1 + bank[*b].data[*n])
                return 0;
            if (dword == SEG1 + bank[*b].data[*n] + 1 && *b != SQ_WGP_BANK)
                return 1;
        }
    return -1;
}

static uint64_t rate_of(const struct fake_amdgpu *fa, unsigned b, unsigned event, unsigned inst)
{
    unsigned i;

    for (i = 0; i < fa->nrates; i++)
        if (fa->rate[i].bank == b && fa->rate[i].event == event && fa->rate[i].inst == inst)
            return fa->rate[i].per_pass;
    return 0;
}

static unsigned ninst(enum dom dom)
{
    switch (dom) {
    case D_GPU:  return 1;
    case D_SE:   return 2;
    case D_SA:   return 4;
    case D_WGP:  return 20;
    case D_CU:   return 40;
    case D_GL2C: return 4;
    }
    return 1;
}

/* One pass's worth of counting, by what each select register holds; SQG
 * counts only waves of the stages SQG_PERFCOUNTER_CTRL enables. */
static void count_pass(struct fake_amdgpu *fa)
{
    int ctrl = reg_index(fa, SQG_PERFCOUNTER_CTRL);
    unsigned b, n, i;

    for (b = 0; b < NBANK; b++)
        for (n = 0; n < bank[b].n; n++) {
            if (b == SQG_BANK && (ctrl < 0 || !(fa->reg[ctrl].value & SQG_STAGES)))
                continue;
            int r = reg_index(fa, SEG1 + bank[b].sel[n]);
            unsigned ev = r < 0 ? 0 : fa->reg[r].value & bank[b].selmask;
            for (i = 0; i < ninst(bank[b].dom); i++) {
                fa->ctr[b][n][i] += rate_of(fa, b, ev, i);
                if (b == SQ_WGP_BANK)
                    fa->ctr[b][n][i] &= 0xffffffffu;   /* low halves only */
            }
        }
}

static void write_perfmon(struct fake_amdgpu *fa, uint32_t v)
{
    unsigned state = v & 0xf;

    if (state == 0) {
        memset(fa->ctr, 0, sizeof(fa->ctr));
    } else if (state == 1) {
        if (fa->perfmon != 1)
            fa->st.passes++;
    } else if (state == 2 && fa->perfmon == 1) {
        count_pass(fa);
    }
    fa->perfmon = state;
}

static uint32_t read_reg(struct fake_amdgpu *fa, int f, uint32_t dword)
{
    unsigned b, n;
    int hi = data_reg(dword, &b, &n), r;
    uint64_t v;

    if (hi >= 0) {
        /* The kernel takes any instance number (it checks only SE and SH);
         * a unit the GPU does not have answers nothing. */
        uint32_t i = domain_instance(fa, bank[b].dom, f);
        v = i < MAXINST ? fa->ctr[b][n][i] : 0;
        return (uint32_t)(hi ? v >> 32 : v);
    }
    r = reg_index(fa, dword);
    return r < 0 ? 0 : fa->reg[r].value;
}

static void write_reg(struct fake_amdgpu *fa, int f, uint32_t dword, uint32_t v)
{
    int r = reg_index(fa, dword);

    if (r < 0)
        return;
    if (fa->fd[f].se != 0xffffffffu || fa->fd[f].sh != 0xffffffffu ||
        fa->fd[f].inst != 0xffffffffu)
        protocol_error(fa, "register 0x%x written to one instance; gputop writes broadcast",
                       dword);
    fa->reg[r].value = v;
    fa->reg[r].written = 1;
    if (dword == CP_PERFMON_CNTL)
        write_perfmon(fa, v);
}

/* ---- file descriptors ---- */

static int slot(int fd)
{
    int f = fd - FD_BASE;

    return f >= 0 && f < NFDS ? f : -1;
}

static int new_fd(struct fake_amdgpu *fa, enum fd_type t)
{
    int f;

    for (f = 0; f < NFDS; f++)
        if (fa->fd[f].type == FD_FREE) {
            memset(&fa->fd[f], 0, sizeof(fa->fd[f]));
            fa->fd[f].type = t;
            fa->fd[f].se = fa->fd[f].sh = fa->fd[f].inst = 0xffffffffu;
            fa->st.open_fds++;
            return FD_BASE + f;
        }
    return err(EMFILE);
}

static int fa_open(void *ctx, const char *path, int flags)
{
    struct fake_amdgpu *fa = ctx;
    const char *dbg = "/sys/kernel/debug/dri";

    (void)flags;
    if (fa->unplugged && (strncmp(path, "/dev/dri/", 9) == 0 ||
                          strncmp(path, "/sys/", 5) == 0))
        return err(ENOENT);   /* the device's nodes, sysfs and debugfs dirs are gone */
    if (strcmp(path, "/dev/dri/renderD128") == 0 || strcmp(path, "/dev/dri/card0") == 0) {
        if (fa->cfg.no_gpu)
            return err(ENOENT);
        if (asleep(fa))
            fa->st.woken++;
        return new_fd(fa, FD_NODE);
    }
    if (strcmp(path, "/sys/class/drm/renderD128/device/power/runtime_status") == 0)
        return fa->has_power ? new_fd(fa, FD_RUNTIME) : err(ENOENT);
    if (strcmp(path, "/sys/class/drm/renderD128/device/gpu_metrics") == 0)
        return fa->blob_len ? new_fd(fa, FD_METRICS) : err(ENOENT);
    if (strncmp(path, dbg, strlen(dbg)) == 0) {
        if (fa->cfg.no_debugfs)
            return err(ENOENT);
        if (!fa->cfg.root)
            return err(EACCES);   /* debugfs is mounted 0700 */
        if (strcmp(path, dbg) == 0)
            return new_fd(fa, FD_DRI_DIR);
        if (strcmp(path, "/sys/kernel/debug/dri/0/amdgpu_regs2") == 0)
            return new_fd(fa, FD_REGS2);
        if (strcmp(path, "/sys/kernel/debug/dri/0/amdgpu_gfxoff") == 0)
            return new_fd(fa, FD_GFXOFF);
    }
    return err(ENOENT);
}

static int fa_close(void *ctx, int fd)
{
    struct fake_amdgpu *fa = ctx;
    int f = slot(fd);

    if (f < 0 || fa->fd[f].type == FD_FREE)
        return err(EBADF);
    fa->fd[f].type = FD_FREE;
    fa->st.open_fds--;
    return 0;
}

static ssize_t copy_out(const void *src, size_t srclen, void *buf, size_t len, off_t off)
{
    size_t n;

    if ((size_t)off >= srclen)
        return 0;
    n = srclen - (size_t)off < len ? srclen - (size_t)off : len;
    memcpy(buf, (const char *)src + off, n);
    return (ssize_t)n;
}

static ssize_t fa_pread(void *ctx, int fd, void *buf, size_t len, off_t off)
{
    struct fake_amdgpu *fa = ctx;
    int f = slot(fd);
    size_t i;

    if (f < 0 || fa->fd[f].type == FD_FREE)
        return err(EBADF);
    if (fa->fd[f].type == FD_DEAD)
        return err(ENODEV);
    switch (fa->fd[f].type) {
    case FD_RUNTIME: {
        char text[40];
        snprintf(text, sizeof(text), "%s\n", fa->power);
        return copy_out(text, strlen(text), buf, len, off);
    }
    case FD_METRICS:
        if (asleep(fa))
            return err(EPERM);   /* kernels since ~6.13: pm_runtime_get_if_active */
        return copy_out(fa->blob, fa->blob_len, buf, len, off);
    case FD_REGS2:
        if (asleep(fa))
            fa->st.woken++;
        if (len % 4 || off % 4)
            return err(EINVAL);
        for (i = 0; i < len / 4; i++) {
            uint32_t v = read_reg(fa, f, (uint32_t)(off / 4 + (off_t)i));
            memcpy((char *)buf + 4 * i, &v, 4);
        }
        return (ssize_t)len;
    case FD_GFXOFF: {
        uint32_t v = fa->st.gfxoff_refs ? 2 : 0;
        return copy_out(&v, 4, buf, len, off);
    }
    default:
        return err(EINVAL);
    }
}

static ssize_t fa_read(void *ctx, int fd, void *buf, size_t len)
{
    struct fake_amdgpu *fa = ctx;
    int f = slot(fd);

    /* Whole-file reads of sysfs text start at 0 each open; files are
     * small enough to come in one piece. */
    if (f >= 0 && fa->fd[f].type == FD_RUNTIME) {
        ssize_t n = fa_pread(ctx, fd, buf, len, (off_t)fa->fd[f].v2_state);
        if (n > 0)
            fa->fd[f].v2_state += (int)n;
        return n;
    }
    return fa_pread(ctx, fd, buf, len, 0);
}

static ssize_t fa_pwrite(void *ctx, int fd, const void *buf, size_t len, off_t off)
{
    struct fake_amdgpu *fa = ctx;
    int f = slot(fd);
    uint32_t v;
    size_t i;

    if (f < 0 || fa->fd[f].type == FD_FREE)
        return err(EBADF);
    if (fa->fd[f].type == FD_DEAD)
        return err(ENODEV);
    if (fa->fd[f].type == FD_GFXOFF) {
        if (len != 4)
            return err(EINVAL);
        memcpy(&v, buf, 4);
        if (v == 0)
            fa->st.gfxoff_refs++;
        else if (fa->st.gfxoff_refs == 0)
            protocol_error(fa, "amdgpu_gfxoff: allowing GFXOFF with no request held (WARN)");
        else
            fa->st.gfxoff_refs--;
        return 4;
    }
    if (fa->fd[f].type != FD_REGS2)
        return err(EBADF);
    if (asleep(fa))
        fa->st.woken++;
    if (len % 4 || off % 4)
        return err(EINVAL);
    for (i = 0; i < len / 4; i++) {
        memcpy(&v, (const char *)buf + 4 * i, 4);
        write_reg(fa, f, (uint32_t)(off / 4 + (off_t)i), v);
    }
    return (ssize_t)len;
}

/* ---- ioctls ---- */

static uint32_t get32(const void *p, size_t off)
{
    uint32_t v;

    memcpy(&v, (const char *)p + off, 4);
    return v;
}

static uint64_t get64(const void *p, size_t off)
{
    uint64_t v;

    memcpy(&v, (const char *)p + off, 8);
    return v;
}

static void put32(void *p, size_t off, uint32_t v)
{
    memcpy((char *)p + off, &v, 4);
}

static void put64(void *p, size_t off, uint64_t v)
{
    memcpy((char *)p + off, &v, 8);
}

static int drm_version(struct fake_amdgpu *fa, void *arg)
{
    const char *name = fa->cfg.driver_radeon ? "radeon" : "amdgpu";
    uint64_t len = get64(arg, 16);
    char *dst = (char *)(uintptr_t)get64(arg, 24);

    put32(arg, 0, 3);
    put32(arg, 4, fa->cfg.driver_radeon ? 50 : 61);
    put32(arg, 8, 0);
    if (dst && len)
        memcpy(dst, name, len < strlen(name) ? len : strlen(name));
    put64(arg, 16, strlen(name));
    return 0;
}

static int dev_info(struct fake_amdgpu *fa, void *out, uint32_t size)
{
    unsigned char di[448];
    int navi = fa->cfg.gpu == FA_NAVI10;

    memset(di, 0, sizeof(di));
    put32(di, 0, navi ? 0x731f : 0x1586);     /* device_id */
    put32(di, 16, navi ? 143 : 150);          /* family */
    put32(di, 20, 2);                         /* num_shader_engines */
    put32(di, 24, 2);                         /* num_shader_arrays_per_engine */
    put32(di, 28, 100000);                    /* gpu_counter_freq kHz */
    put64(di, 32, navi ? 1905000 : 2900000);  /* max_engine_clock kHz */
    put64(di, 40, 8000000);                   /* max_memory_clock kHz */
    put32(di, 48, 40);                        /* cu_active_number */
    put32(di, 240, 32);                       /* wave_front_size */
    put32(di, 248, 10);                       /* num_cu_per_sh */
    put32(di, 252, navi ? 16 : 4);            /* num_tcc_blocks */
    for (unsigned i = 0; i < 4; i++)
        if (fa->cfg.dev_info_patch[i].off && fa->cfg.dev_info_patch[i].off + 4 <= sizeof(di))
            put32(di, fa->cfg.dev_info_patch[i].off, fa->cfg.dev_info_patch[i].value);
    memcpy(out, di, size < sizeof(di) ? size : sizeof(di));
    return 0;
}

static int mmr_read(struct fake_amdgpu *fa, const void *q, void *out, uint32_t size)
{
    uint32_t dword = get32(q, 16), count = get32(q, 20), i, k;

    fa->st.mmr_reads++;
    if (count > 128 || size < count * 4)
        return err(EINVAL);
    for (i = 0; i < count; i++) {
        uint32_t v = 0;
        for (k = 0; k < sizeof(whitelist) / sizeof(whitelist[0]) && whitelist[k] != dword + i;
             k++)
            ;
        if (k == sizeof(whitelist) / sizeof(whitelist[0]))
            return err(EFAULT);
        if (fa->ngrbm && (dword + i == 0x2004 || dword + i == 0x2002)) {
            v = fa->grbm[fa->grbm_pos % fa->ngrbm][dword + i == 0x2002];
            /* Each pair of reads (STATUS then STATUS2) takes one entry. */
            if (dword + i == 0x2002)
                fa->grbm_pos++;
        }
        put32(out, 4 * i, v);
    }
    return 0;
}

static int amdgpu_info(struct fake_amdgpu *fa, void *q)
{
    void *out = (void *)(uintptr_t)get64(q, 0);
    uint32_t size = get32(q, 8), query = get32(q, 12), type;
    unsigned char hw[32];

    if (asleep(fa))
        fa->st.woken++;
    switch (query) {
    case 0x16:   /* DEV_INFO */
        return dev_info(fa, out, size);
    case 0x02:   /* HW_IP_INFO */
        memset(hw, 0, sizeof(hw));
        put32(hw, 0, fa->cfg.gpu == FA_NAVI10 ? 10 : 11);
        put32(hw, 28, fa->cfg.gpu == FA_NAVI10 ? 0x0a010a : 0x0b0501);
        memcpy(out, hw, size < 32 ? size : 32);
        return 0;
    case 0x1D:   /* SENSOR */
        type = get32(q, 16);
        if (type >= 16 || !fa->sensor[type] || size < 4)
            return err(ENOENT);
        put32(out, 0, fa->sensor[type]);
        return 0;
    case 0x15:   /* READ_MMR_REG */
        return mmr_read(fa, q, out, size);
    default:
        return err(EINVAL);
    }
}

static int amdgpu_ctx(struct fake_amdgpu *fa, void *a)
{
    uint32_t op = get32(a, 0), flags = get32(a, 4), id = get32(a, 8);

    switch (op) {
    case 1:   /* ALLOC_CTX */
        put32(a, 0, ++fa->ctx_alloc);
        put32(a, 4, 0);
        return 0;
    case 2:   /* FREE_CTX: the level it found comes back */
        fa->st.pstate = 0;
        return 0;
    case 6:   /* SET_STABLE_PSTATE */
        if (id == 0 || id > fa->ctx_alloc || flags > 4)
            return err(EINVAL);
        if (fa->cfg.pstate_busy)
            return err(EBUSY);
        fa->st.pstate = (int)flags;
        return 0;
    default:
        return err(EINVAL);
    }
}

static int regs2_state(struct fake_amdgpu *fa, int f, unsigned long req, void *arg)
{
    uint32_t se = get32(arg, 12), sh = get32(arg, 16), inst = get32(arg, 20);

    if (req == IOC_REGS2_V2 && fa->cfg.no_regs2_v2)
        return err(EINVAL);
    if (get32(arg, 4) != 1)
        protocol_error(fa, "regs2 SET_STATE without use_grbm");
    if ((se != 0xffffffffu && se >= 2) || (sh != 0xffffffffu && sh >= 2))
        return err(EINVAL);
    fa->fd[f].se = se;
    fa->fd[f].sh = sh;
    fa->fd[f].inst = inst;
    return 0;
}

static int fa_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
    struct fake_amdgpu *fa = ctx;
    int f = slot(fd);

    if (f < 0 || fa->fd[f].type == FD_FREE)
        return err(EBADF);
    if (fa->fd[f].type == FD_DEAD)
        return err(ENODEV);   /* drm_dev_is_unplugged */
    if (fa->fd[f].type == FD_REGS2) {
        if (req == IOC_REGS2_V1 || req == IOC_REGS2_V2)
            return regs2_state(fa, f, req, arg);
        return err(EINVAL);
    }
    if (fa->fd[f].type != FD_NODE)
        return err(ENOTTY);
    if (req == IOC_DRM_VERSION)
        return drm_version(fa, arg);
    if (req == IOC_AMDGPU_INFO)
        return amdgpu_info(fa, arg);
    if (req == IOC_AMDGPU_CTX)
        return amdgpu_ctx(fa, arg);
    return err(ENOTTY);
}

static int fa_devices(void *ctx, struct gt_drm_device *out, int max)
{
    struct fake_amdgpu *fa = ctx;
    int n = 0;

    if (max < 2)
        return 0;
    /* A second GPU of another vendor, which discovery must pass over. */
    memset(out, 0, 2 * sizeof(*out));
    snprintf(out[n].render, sizeof(out[n].render), "/dev/dri/renderD129");
    snprintf(out[n].primary, sizeof(out[n].primary), "/dev/dri/card1");
    out[n].vendor = 0x10de;
    out[n].device = 0x2584;
    n++;
    if (fa->cfg.no_gpu || fa->unplugged)
        return n;
    snprintf(out[n].render, sizeof(out[n].render), "/dev/dri/renderD128");
    snprintf(out[n].primary, sizeof(out[n].primary), "/dev/dri/card0");
    snprintf(out[n].pci_slot, sizeof(out[n].pci_slot), "0000:c3:00.0");
    out[n].vendor = 0x1002;
    out[n].device = fa->cfg.gpu == FA_NAVI10 ? 0x731f : 0x1586;
    out[n].revision = 0xc1;
    return n + 1;
}

/* ---- set-up ---- */

void fa_set_metric(struct fake_amdgpu *fa, unsigned off, unsigned width, uint32_t value)
{
    /* v2.1 keeps some fields elsewhere: translate the v3.0 offset. */
    if (fa->cfg.metrics == FA_METRICS_V2_1) {
        static const unsigned map[][2] = { { 4, 4 }, { 42, 28 }, { 112, 40 }, { 124, 46 },
                                           { 174, 64 }, { 186, 68 }, { 182, 70 } };
        size_t i;
        for (i = 0; i < sizeof(map) / sizeof(map[0]) && map[i][0] != off; i++)
            ;
        if (i == sizeof(map) / sizeof(map[0]))
            return;   /* no such field in v2.1 */
        off = map[i][1];
        width = 2;
    }
    if (off + width <= sizeof(fa->blob))
        memcpy(fa->blob + off, &value, width);
}

static void init_blob(struct fake_amdgpu *fa)
{
    uint16_t size;

    memset(fa->blob, 0xff, sizeof(fa->blob));   /* unfilled fields read as all ones */
    switch (fa->cfg.metrics) {
    case FA_METRICS_NONE:
        fa->blob_len = 0;
        return;
    case FA_METRICS_V3_0:
        size = 264;
        fa->blob[2] = 3;
        fa->blob[3] = 0;
        break;
    case FA_METRICS_V2_1:
        size = 120;
        fa->blob[2] = 2;
        fa->blob[3] = 1;
        break;
    default:
        size = 64;
        fa->blob[2] = 9;
        fa->blob[3] = 9;
        break;
    }
    memcpy(fa->blob, &size, 2);
    fa->blob_len = size;
}

struct fake_amdgpu *fa_new(const struct fa_config *cfg)
{
    struct fake_amdgpu *fa = calloc(1, sizeof(*fa));

    if (!fa)
        return NULL;
    fa->cfg = *cfg;
    fa->sys.ctx = fa;
    fa->sys.open = fa_open;
    fa->sys.close = fa_close;
    fa->sys.ioctl = fa_ioctl;
    fa->sys.read = fa_read;
    fa->sys.pread = fa_pread;
    fa->sys.pwrite = fa_pwrite;
    fa->sys.drm_devices = fa_devices;
    fa->sys.root = "";
    fa_set_power(fa, cfg->power);
    init_blob(fa);
    fa->sensor[1] = 2900;     /* GFX_SCLK MHz */
    fa->sensor[2] = 1000;     /* GFX_MCLK MHz */
    fa->sensor[3] = 55000;    /* GPU_TEMP milli-degC */
    fa->sensor[4] = 37;       /* GPU_LOAD % */
    fa->sensor[5] = 42;       /* GPU_AVG_POWER W */
    return fa;
}

void fa_free(struct fake_amdgpu *fa)
{
    free(fa);
}

const struct gt_sys *fa_sys(struct fake_amdgpu *fa)
{
    return &fa->sys;
}

void fa_set_grbm(struct fake_amdgpu *fa, const uint32_t *status, const uint32_t *status2,
                 unsigned n)
{
    unsigned i;

    fa->ngrbm = n < 64 ? n : 64;
    fa->grbm_pos = 0;
    for (i = 0; i < fa->ngrbm; i++) {
        fa->grbm[i][0] = status[i];
        fa->grbm[i][1] = status2[i];
    }
}

void fa_set_rate(struct fake_amdgpu *fa, const char *hw_block, unsigned event, unsigned inst,
                 uint64_t per_pass)
{
    unsigned b;

    for (b = 0; b < NBANK && strcmp(bank[b].name, hw_block) != 0; b++)
        ;
    if (b == NBANK || fa->nrates == NRATES)
        return;
    fa->rate[fa->nrates].bank = b;
    fa->rate[fa->nrates].event = event;
    fa->rate[fa->nrates].inst = inst;
    fa->rate[fa->nrates].per_pass = per_pass;
    fa->nrates++;
}

void fa_set_power(struct fake_amdgpu *fa, const char *status)
{
    unsigned i;

    /* Runtime suspend puts the GPU in D3: GC loses its registers, which
     * come back at their power-on values when the driver resumes it. */
    if (!asleep(fa) && status && strcmp(status, "active") != 0) {
        for (i = 0; i < fa->nregs; i++)
            fa->reg[i].value = fa->reg[i].initial;
        memset(fa->ctr, 0, sizeof(fa->ctr));
        fa->perfmon = 0;
    }
    fa->has_power = status != NULL;
    snprintf(fa->power, sizeof(fa->power), "%s", status ? status : "");
}

void fa_unplug(struct fake_amdgpu *fa)
{
    unsigned i;
    int f;

    fa->unplugged = 1;
    for (f = 0; f < NFDS; f++)
        if (fa->fd[f].type != FD_FREE)
            fa->fd[f].type = FD_DEAD;
    /* Rebinding resets the GPU: registers at power-on values, and the
     * driver's GFXOFF requests and pstate gone with the old instance. */
    for (i = 0; i < fa->nregs; i++)
        fa->reg[i].value = fa->reg[i].initial;
    memset(fa->ctr, 0, sizeof(fa->ctr));
    fa->perfmon = 0;
    fa->st.gfxoff_refs = 0;
    fa->st.pstate = 0;
}

void fa_replug(struct fake_amdgpu *fa)
{
    fa->unplugged = 0;
}

void fa_set_sensor(struct fake_amdgpu *fa, unsigned type, uint32_t value)
{
    if (type < 16)
        fa->sensor[type] = value;
}

const struct fa_stats *fa_stats(struct fake_amdgpu *fa)
{
    unsigned i;

    fa->st.regs_written = fa->st.regs_not_restored = 0;
    for (i = 0; i < fa->nregs; i++)
        if (fa->reg[i].written) {
            fa->st.regs_written++;
            fa->st.regs_not_restored += fa->reg[i].value != fa->reg[i].initial;
        }
    return &fa->st;
}
