/* The fake amdgpu kernel (fake_amdgpu.h): files, ioctls and sysfs, facts
 * from ../shared/reference/amd/kernel-interfaces.md decoded at raw
 * offsets; the GC registers and counters are in fake_amdgpu_regs.c. */
#include "fakes/fake_amdgpu_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFDS FA_NFDS
#define FD_BASE 1000
#define MS 1000000ull

/* Ioctl numbers as the kernel defines them (x86_64/aarch64). */
#define IOC_DRM_VERSION   0xC0406400ul   /* _IOWR('d', 0x00, struct drm_version: 64 B) */
#define IOC_AMDGPU_INFO   0x40206445ul   /* _IOW('d', 0x40 + 0x05, 32 B) */
#define IOC_AMDGPU_CTX    0xC0106442ul   /* _IOWR('d', 0x40 + 0x02, 16 B) */
#define IOC_REGS2_V1      0xC0282000ul
#define IOC_REGS2_V2      0xC02C2001ul

/* soc21_allowed_read_registers (soc21.c, gc_11_0_0_offset.h offsets in GC
 * segment 0): GRBM_STATUS, GRBM_STATUS2, GRBM_STATUS_SE0..3, CP_STAT. (The
 * CP_STALLED, CP_CPF/CPC and GB_ADDR_CONFIG entries are left out: their
 * offsets are not in the reference notes, and gputop reads none.) */
static const uint32_t whitelist[] = { 0x0da4, 0x0da2, 0x0da5, 0x0da6, 0x0dae, 0x0daf, 0x0f40 };

void fa_protocol_error(struct fake_amdgpu *fa, const char *fmt, ...)
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

/* ---- GFXOFF ---- */

int fa_gfx_held(const struct fake_amdgpu *fa)
{
    return fa->st.gfxoff_refs > 0 || fa->st.pstate > 0;
}

/* An idle GFX powers down (GFXOFF) once nothing has asked for it for
 * GFX_OFF_DELAY_ENABLE, 100 ms (amdgpu_gfx.c amdgpu_gfx_off_ctrl); every
 * READ_MMR_REG asks for it while it reads (amdgpu_kms.c wraps the reads in
 * amdgpu_gfx_off_ctrl(false) / (true)), as do amdgpu_gfxoff requests and a
 * profile pstate (gfx_v11_0_set_powergating_state UNGATE). */
unsigned long long fa_now(struct fake_amdgpu *fa)
{
    return fa->cfg.manual_clock ? fa->clock_ns : gt_now_ns();
}

void fa_advance(struct fake_amdgpu *fa, unsigned long long ns)
{
    fa->clock_ns += ns;
}

static unsigned long long seam_now(void *ctx)
{
    return fa_now(ctx);
}

/* A regs2 access takes time (a system call, an MMIO round trip), during
 * which the counters go on counting. */
static void access_cost(struct fake_amdgpu *fa)
{
    if (fa->cfg.manual_clock)
        fa->clock_ns += fa->cfg.call_ns;
}

static int gfx_off_now(const struct fake_amdgpu *fa, unsigned long long now)
{
    return !fa_gfx_held(fa) && now - fa->gfx_released_ns >= 100 * MS;
}

/* GFX is asked for now: count the GFXOFF it comes out of. */
static void gfx_wake(struct fake_amdgpu *fa)
{
    if (gfx_off_now(fa, fa_now(fa)))
        fa->gfxoff_done++;
}

/* The request ends now (or a hold is released). */
static void gfx_release(struct fake_amdgpu *fa)
{
    fa->gfx_released_ns = fa_now(fa);
}

/* ---- file descriptors ---- */

static int slot(int fd)
{
    int f = fd - FD_BASE;

    return f >= 0 && f < NFDS ? f : -1;
}

static int new_fd(struct fake_amdgpu *fa, enum fa_fd_type t)
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

static int text_fd(struct fake_amdgpu *fa, const char *text)
{
    int fd = new_fd(fa, FD_TEXT);

    if (fd >= 0)
        snprintf(fa->fd[fd - FD_BASE].text, sizeof(fa->fd[0].text), "%s", text);
    return fd;
}

/* amdgpu_discovery.c: ip_discovery/die/<die>/<hw_id>/<instance>/base_addr
 * prints one "0x%08X" line per segment; GC is hw_id 11 (soc15_hw_ip.h).
 * Only the first two segments are modelled. */
static int base_addr_file(struct fake_amdgpu *fa)
{
    char text[64];

    if (fa->cfg.no_ip_discovery)
        return err(ENOENT);
    snprintf(text, sizeof(text), "0x%08X\n0x%08X\n", fa->base[0], fa->base[1]);
    return text_fd(fa, text);
}

/* security/lockdown/lockdown.c: the modes with the current one bracketed. */
static int lockdown_file(struct fake_amdgpu *fa)
{
    return text_fd(fa, fa->cfg.lockdown ? "none [integrity] confidentiality\n"
                                        : "[none] integrity confidentiality\n");
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
    if (strcmp(path, "/sys/class/drm/renderD128/device/ip_discovery/die/0/11/0/base_addr") == 0)
        return base_addr_file(fa);
    if (strcmp(path, "/sys/kernel/security/lockdown") == 0)
        return lockdown_file(fa);
    if (strncmp(path, dbg, strlen(dbg)) == 0) {
        if (fa->cfg.no_debugfs)
            return err(ENOENT);
        if (!fa->cfg.root)
            return err(EACCES);   /* debugfs is mounted 0700 */
        if (strcmp(path, dbg) == 0)
            return new_fd(fa, FD_DRI_DIR);
        /* fs/debugfs/file.c: under lockdown, files with write or ioctl
         * operations refuse to open, root included (-EPERM). */
        if (fa->cfg.lockdown)
            return err(EPERM);
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
    case FD_TEXT:
        return copy_out(fa->fd[f].text, strlen(fa->fd[f].text), buf, len, off);
    case FD_REGS2:
        access_cost(fa);
        if (asleep(fa))
            fa->st.woken++;
        if (len % 4 || off % 4)
            return err(EINVAL);
        for (i = 0; i < len / 4; i++) {
            uint32_t v = fa_reg_read(fa, fa->fd[f].se, fa->fd[f].sh, fa->fd[f].inst,
                                     (uint32_t)(off / 4 + (off_t)i));
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
    if (f >= 0 && (fa->fd[f].type == FD_RUNTIME || fa->fd[f].type == FD_TEXT)) {
        ssize_t n = fa_pread(ctx, fd, buf, len, (off_t)fa->fd[f].pos);
        if (n > 0)
            fa->fd[f].pos += (int)n;
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
        if (v == 0) {
            gfx_wake(fa);
            fa->st.gfxoff_refs++;
        } else if (fa->st.gfxoff_refs == 0) {
            fa_protocol_error(fa, "amdgpu_gfxoff: allowing GFXOFF with no request held (WARN)");
        } else if (--fa->st.gfxoff_refs == 0) {
            gfx_release(fa);
        }
        return 4;
    }
    if (fa->fd[f].type != FD_REGS2)
        return err(EBADF);
    access_cost(fa);
    if (asleep(fa))
        fa->st.woken++;
    if (len % 4 || off % 4)
        return err(EINVAL);
    for (i = 0; i < len / 4; i++) {
        memcpy(&v, (const char *)buf + 4 * i, 4);
        fa_reg_write(fa, fa->fd[f].se, fa->fd[f].sh, fa->fd[f].inst,
                     (uint32_t)(off / 4 + (off_t)i), v);
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

/* amdgpu_kms.c: cu_active_number is cu_info.number, the CUs set in the
 * bitmap (gfx_v11_0_get_cu_info). */
static uint32_t cu_active(const struct fake_amdgpu *fa)
{
    uint32_t n = 0;

    for (unsigned se = 0; se < 4; se++)
        for (unsigned sa = 0; sa < 4; sa++)
            n += (uint32_t)__builtin_popcount(fa->cu_bitmap[se][sa]);
    return n;
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
    put32(di, 48, cu_active(fa));             /* cu_active_number */
    for (unsigned se = 0; se < 4; se++)       /* cu_bitmap[4][4] at 56 */
        for (unsigned sa = 0; sa < 4; sa++)
            put32(di, 56 + 4 * (4 * se + sa), fa->cu_bitmap[se][sa]);
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
    gfx_wake(fa);
    gfx_release(fa);
    for (i = 0; i < count; i++) {
        uint32_t v = 0, r = dword + i - fa->base[0];
        for (k = 0; k < sizeof(whitelist) / sizeof(whitelist[0]) && whitelist[k] != r; k++)
            ;
        if (k == sizeof(whitelist) / sizeof(whitelist[0]))
            return err(EFAULT);
        if (fa->ngrbm && (r == 0x0da4 || r == 0x0da2)) {
            v = fa->grbm[fa->grbm_pos % fa->ngrbm][r == 0x0da2];
            /* Each pair of reads (STATUS then STATUS2) takes one entry. */
            if (r == 0x0da2)
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
        fa_count_to_now(fa);   /* the perfmon clock may gate from here */
        if (fa->st.pstate)
            gfx_release(fa);
        fa->st.pstate = 0;
        return 0;
    case 6:   /* SET_STABLE_PSTATE */
        if (id == 0 || id > fa->ctx_alloc || flags > 4)
            return err(EINVAL);
        if (fa->cfg.pstate_busy)
            return err(EBUSY);
        fa_count_to_now(fa);
        if (flags)
            gfx_wake(fa);
        else if (fa->st.pstate)
            gfx_release(fa);
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
        fa_protocol_error(fa, "regs2 SET_STATE without use_grbm");
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
    fa->sys.now_ns = seam_now;
    fa->clock_ns = 1000000000ull;   /* a manual clock starts at 1 s */
    fa->sys.root = "";
    fa->base[0] = cfg->gc_base[0] ? cfg->gc_base[0] : 0x1260;   /* gc_11_5_0 seg 0 */
    fa->base[1] = cfg->gc_base[1] ? cfg->gc_base[1] : 0xA000;   /* seg 1 */
    memcpy(fa->cu_bitmap, cfg->cu_bitmap, sizeof(fa->cu_bitmap));
    if (!cu_active(fa) && cfg->harvested) {
        /* WGP masks 1f, 07, 0f, 03: two CU bits a WGP (gfx_v11_0.c). */
        fa->cu_bitmap[0][0] = 0x3ff;
        fa->cu_bitmap[0][1] = 0x03f;
        fa->cu_bitmap[1][0] = 0x0ff;
        fa->cu_bitmap[1][1] = 0x00f;
    }
    if (!cu_active(fa)) {
        /* 2 SE x 2 SA x 5 WGP, all present (counter-programming.md §1). */
        for (unsigned se = 0; se < 2; se++)
            for (unsigned sa = 0; sa < 2; sa++)
                fa->cu_bitmap[se][sa] = 0x3ff;
    }
    /* Booted idle: GFX has been off since before anyone looked. */
    fa->gfx_released_ns = fa_now(fa);
    fa_set_power(fa, cfg->power);
    init_blob(fa);
    fa->sensor[1] = 2900;     /* GFX_SCLK MHz */
    fa->sensor[2] = 1000;     /* GFX_MCLK MHz */
    fa->sensor[3] = 55000;    /* GPU_TEMP milli-degC */
    fa->sensor[4] = 37;       /* GPU_LOAD % */
    fa->sensor[5] = 42;       /* GPU_AVG_POWER W */
    fa->sensor[10] = 2900;    /* PEAK_PSTATE_GFX_SCLK MHz: max sclk (smu_v14_0_0_ppt.c) */
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

void fa_set_rate(struct fake_amdgpu *fa, const char *block, unsigned event, unsigned unit,
                 uint64_t per_ms)
{
    int b = fa_bank_by_name(block);

    unsigned i;

    if (b < 0)
        return;
    fa_count_to_now(fa);       /* what counted so far counted at the old rate */
    for (i = 0; i < fa->nrates; i++)
        if (fa->rate[i].bank == (unsigned)b && fa->rate[i].event == event &&
            fa->rate[i].unit == unit)
            break;
    if (i == FA_NRATES)
        return;
    fa->rate[i].bank = (unsigned)b;
    fa->rate[i].event = event;
    fa->rate[i].unit = unit;
    fa->rate[i].per_ms = per_ms;
    if (i == fa->nrates)
        fa->nrates++;
}

void fa_set_load(struct fake_amdgpu *fa, const char *block, unsigned event, const unsigned *pct,
                 unsigned n)
{
    int b = fa_bank_by_name(block);
    unsigned i;

    if (b < 0 || n == 0 || n > 16 || fa->nloads == 64)
        return;
    fa_count_to_now(fa);
    i = fa->nloads++;
    fa->load[i].bank = (unsigned)b;
    fa->load[i].event = event;
    fa->load[i].n = n;
    memcpy(fa->load[i].pct, pct, n * sizeof(*pct));
}

void fa_set_power(struct fake_amdgpu *fa, const char *status)
{
    /* Runtime suspend puts the GPU in D3: GC loses its registers, which
     * come back at their power-on values when the driver resumes it. */
    if (!asleep(fa) && status && strcmp(status, "active") != 0)
        fa_regs_power_on(fa);
    fa->has_power = status != NULL;
    snprintf(fa->power, sizeof(fa->power), "%s", status ? status : "");
}

void fa_unplug(struct fake_amdgpu *fa)
{
    int f;

    fa->unplugged = 1;
    for (f = 0; f < NFDS; f++)
        if (fa->fd[f].type != FD_FREE)
            fa->fd[f].type = FD_DEAD;
    /* Rebinding resets the GPU: registers at power-on values, and the
     * driver's GFXOFF requests and pstate gone with the old instance. */
    fa_regs_power_on(fa);
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
    fa->st.gfxoff_entries = fa->gfxoff_done + gfx_off_now(fa, fa_now(fa));
    return &fa->st;
}
