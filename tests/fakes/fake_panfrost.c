/* The fake panfrost device (see fake_panfrost.h): behaviour as the
 * mainline driver's panfrost_drv.c and panfrost_perfcnt.c show it. */
#include "fakes/fake_panfrost.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE "/dev/dri/renderD129"
#define UEVENT "/sys/class/drm/renderD129/device/uevent"
#define UEVENT_TEXT "DRIVER=panfrost\nOF_NAME=gpu\nOF_FULLNAME=/gpu@ff9a0000\n"
#define MAX_BLOCKS 64
#define OTHER_CLIENT 1000   /* the owner fd of a client outside this test */
/* Request numbers as the kernel's header expands them (not gputop's macros). */
#define REQ_GET_PARAM      0xc0106444ul
#define REQ_PERFCNT_ENABLE 0x40086446ul
#define REQ_PERFCNT_DUMP   0x40086447ul

enum { FD_NONE, FD_NODE, FD_UEVENT, FD_FDINFO, FD_DEAD };

struct fake_panfrost {
    struct gt_sys sys;
    struct fp_config cfg;
    int kind[64];             /* by fd: FD_* */
    size_t upos[64];          /* read position in a text file */
    char text[64][512];       /* by fd: a text file's contents */
    uint32_t counters[MAX_BLOCKS][64];
    int hang;
    int unplugged;
    struct fp_stats st;
};

static unsigned fls64(uint64_t m)
{
    unsigned n = 0;

    while (n < 64 && (m >> n) != 0)
        n++;
    return n;
}

static size_t dump_bytes(const struct fake_panfrost *fp)
{
    /* (nl2c + ncores + 2) * 64 * 4: nl2c from MEM_FEATURES 0x1 is 1. */
    return (size_t)(1 + fls64(fp->cfg.shader_present) + 2) * 64 * 4;
}

/* What panfrost_show_fdinfo prints for an open node (6.6 on): driver,
 * client id, and per engine the top and current clock (engine time and
 * cycles only with profiling on, which this fake leaves off). */
static int fdinfo_text(const struct fake_panfrost *fp, int node, char *buf, size_t len)
{
    static const char *const engines[] = { "fragment", "vertex-tiler" };
    size_t used;
    int i;

    if (node < 0 || node >= 64 || fp->kind[node] != FD_NODE)
        return -1;
    used = (size_t)snprintf(buf, len, "pos:\t0\nflags:\t02100002\nmnt_id:\t24\n"
                                      "drm-driver:\tpanfrost\ndrm-client-id:\t%d\n", node);
    for (i = 0; fp->cfg.maxfreq_hz && i < 2 && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used,
                                 "drm-maxfreq-%s:\t%llu Hz\ndrm-curfreq-%s:\t%llu Hz\n",
                                 engines[i], (unsigned long long)fp->cfg.maxfreq_hz,
                                 engines[i], (unsigned long long)fp->cfg.maxfreq_hz / 2);
    return 0;
}

static int fake_open(void *ctx, const char *path, int flags)
{
    struct fake_panfrost *fp = ctx;
    char text[512];
    int fd, kind, node;

    (void)flags;
    if (fp->unplugged && (strcmp(path, NODE) == 0 || strcmp(path, UEVENT) == 0)) {
        errno = ENOENT;
        return -1;
    }
    if (strcmp(path, NODE) == 0)
        kind = FD_NODE;
    else if (strcmp(path, UEVENT) == 0)
        kind = FD_UEVENT;
    else if (sscanf(path, "/proc/self/fdinfo/%d", &node) == 1 &&
             fdinfo_text(fp, node, text, sizeof(text)) == 0)
        kind = FD_FDINFO;
    else {
        errno = ENOENT;
        return -1;
    }
    for (fd = 3; fd < 64; fd++)
        if (fp->kind[fd] == FD_NONE)
            break;
    if (fd == 64) {
        errno = EMFILE;
        return -1;
    }
    fp->kind[fd] = kind;
    fp->upos[fd] = 0;
    snprintf(fp->text[fd], sizeof(fp->text[fd]), "%s",
             kind == FD_UEVENT ? UEVENT_TEXT : kind == FD_FDINFO ? text : "");
    fp->st.open_fds++;
    return fd;
}

static int fake_close(void *ctx, int fd)
{
    struct fake_panfrost *fp = ctx;

    if (fd < 0 || fd >= 64 || fp->kind[fd] == FD_NONE) {
        errno = EBADF;
        return -1;
    }
    /* The owner's close turns the counters off (panfrost_perfcnt_close). */
    if (fp->st.owner_fd == fd) {
        fp->st.owner_fd = -1;
        fp->st.closed_enabled++;
    }
    fp->kind[fd] = FD_NONE;
    fp->st.open_fds--;
    return 0;
}

static ssize_t fake_read(void *ctx, int fd, void *buf, size_t len)
{
    struct fake_panfrost *fp = ctx;
    const char *text;
    size_t left;

    if (fd < 0 || fd >= 64 || (fp->kind[fd] != FD_UEVENT && fp->kind[fd] != FD_FDINFO)) {
        errno = EBADF;
        return -1;
    }
    text = fp->text[fd];
    left = strlen(text) - fp->upos[fd];
    if (len > left)
        len = left;
    memcpy(buf, text + fp->upos[fd], len);
    fp->upos[fd] += len;
    return (ssize_t)len;
}

static uint32_t get32(const void *arg, size_t off)
{
    uint32_t v;

    memcpy(&v, (const uint8_t *)arg + off, 4);
    return v;
}

static uint64_t get64(const void *arg, size_t off)
{
    uint64_t v;

    memcpy(&v, (const uint8_t *)arg + off, 8);
    return v;
}

static int fail(int e)
{
    errno = e;
    return -1;
}

/* drm_panfrost_get_param: param u32 @0, pad u32 @4 (must be 0), value u64 @8. */
static int get_param(struct fake_panfrost *fp, void *arg)
{
    uint64_t v;

    fp->st.get_params++;
    if (get32(arg, 4) != 0)
        return fail(EINVAL);
    switch (get32(arg, 0)) {
    case 0: v = fp->cfg.prod_id; break;            /* GPU_PROD_ID: GPU_ID >> 16 */
    case 1: v = 0x1000; break;                     /* GPU_REVISION: r1p0 */
    case 2: v = fp->cfg.shader_present; break;     /* SHADER_PRESENT */
    case 3: v = 0x1; break;                        /* TILER_PRESENT */
    case 4: v = 0x1; break;                        /* L2_PRESENT */
    case 8: v = 0x07120206; break;                 /* L2_FEATURES: 2^7-bit bus */
    case 11: v = 0x1; break;                       /* MEM_FEATURES: one L2 slice */
    default: return fail(EINVAL);
    }
    memcpy((uint8_t *)arg + 8, &v, 8);
    return 0;
}

/* drm_panfrost_perfcnt_enable: enable u32 @0, counterset u32 @4. */
static int perfcnt_enable(struct fake_panfrost *fp, int fd, void *arg)
{
    if (!fp->cfg.unstable_ioctls)
        return fail(ENOSYS);
    if (get32(arg, 4) != 0)
        return fail(EINVAL);      /* Midgard has one counter set */
    if (get32(arg, 0)) {
        fp->st.enables++;
        if (fp->st.owner_fd != -1)
            return fail(EBUSY);
        fp->st.owner_fd = fd;
        return 0;
    }
    fp->st.disables++;
    if (fp->st.owner_fd != fd)
        return fail(EINVAL);
    fp->st.owner_fd = -1;
    return 0;
}

/* drm_panfrost_perfcnt_dump: buf_ptr u64 @0; the kernel copies the whole
 * dump there. The hardware clears the counters as it samples. */
static int perfcnt_dump(struct fake_panfrost *fp, int fd, void *arg)
{
    uint8_t *dst = (uint8_t *)(uintptr_t)get64(arg, 0);
    size_t nblocks = dump_bytes(fp) / 256, b;

    if (!fp->cfg.unstable_ioctls)
        return fail(ENOSYS);
    fp->st.dumps++;
    if (fp->st.owner_fd != fd)
        return fail(EINVAL);
    if (fp->hang) {
        fp->hang = 0;
        return fail(ETIMEDOUT);
    }
    if (!dst)
        return fail(EFAULT);
    fp->st.good_dumps++;
    for (b = 0; b < nblocks; b++)
        memcpy(dst + b * 256, fp->counters[b], 256);
    return 0;
}

static int fake_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
    struct fake_panfrost *fp = ctx;

    if (fd >= 0 && fd < 64 && fp->kind[fd] == FD_DEAD)
        return fail(ENODEV);      /* drm_ioctl on an unplugged device */
    if (fd < 0 || fd >= 64 || fp->kind[fd] != FD_NODE)
        return fail(fp->kind[fd < 0 || fd >= 64 ? 0 : fd] == FD_NONE ? EBADF : ENOTTY);
    switch (req) {
    case REQ_GET_PARAM:
        return get_param(fp, arg);
    case REQ_PERFCNT_ENABLE:
        return perfcnt_enable(fp, fd, arg);
    case REQ_PERFCNT_DUMP:
        return perfcnt_dump(fp, fd, arg);
    default:
        fp->st.protocol_errors++;
        return fail(EINVAL);      /* drm_ioctl: an unknown driver command */
    }
}

static int fake_drm_devices(void *ctx, struct gt_drm_device *out, int max)
{
    (void)ctx;
    if (max < 1)
        return 0;
    memset(out, 0, sizeof(*out));
    snprintf(out->render, sizeof(out->render), "%s", NODE);
    snprintf(out->primary, sizeof(out->primary), "/dev/dri/card0");
    return 1;
}

struct fake_panfrost *fp_new(const struct fp_config *cfg)
{
    struct fake_panfrost *fp = calloc(1, sizeof(*fp));

    if (!fp)
        return NULL;
    fp->cfg = *cfg;
    if (!fp->cfg.shader_present)
        fp->cfg.shader_present = 0xF;
    if (!fp->cfg.prod_id)
        fp->cfg.prod_id = 0x0830;
    fp->st.owner_fd = -1;
    fp->sys.ctx = fp;
    fp->sys.open = fake_open;
    fp->sys.close = fake_close;
    fp->sys.ioctl = fake_ioctl;
    fp->sys.read = fake_read;
    fp->sys.root = "";
    fp->sys.drm_devices = fake_drm_devices;
    return fp;
}

void fp_free(struct fake_panfrost *fp)
{
    free(fp);
}

const struct gt_sys *fp_sys(struct fake_panfrost *fp)
{
    return &fp->sys;
}

void fp_set_counter(struct fake_panfrost *fp, unsigned block, unsigned index, uint32_t v)
{
    if (block < MAX_BLOCKS && index < 64)
        fp->counters[block][index] = v;
}

void fp_take_counters(struct fake_panfrost *fp)
{
    fp->st.owner_fd = OTHER_CLIENT;
}

void fp_unplug(struct fake_panfrost *fp)
{
    int fd;

    fp->unplugged = 1;
    for (fd = 0; fd < 64; fd++)
        if (fp->kind[fd] == FD_NODE)
            fp->kind[fd] = FD_DEAD;
    /* The device's teardown stops the counters (panfrost_perfcnt_fini). */
    if (fp->st.owner_fd != OTHER_CLIENT)
        fp->st.owner_fd = -1;
}

void fp_replug(struct fake_panfrost *fp)
{
    fp->unplugged = 0;
}

void fp_hang_next_dump(struct fake_panfrost *fp)
{
    fp->hang = 1;
}

const struct fp_stats *fp_stats(const struct fake_panfrost *fp)
{
    return &fp->st;
}
