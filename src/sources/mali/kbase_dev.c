/* The kbase device: opens /dev/mali*, probes the interface version, reads
 * the GPU's properties, and says which counter reader the kernel offers. */
#include "gputop/kbase.h"
#include "gputop/kbase_uapi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPUPROPS_MAX (1u << 16)

/* ---- interface versions ---- */


int gt_kbase_since(const struct gt_kbase_dev *dev, unsigned jm_minor, unsigned csf_minor)
{
    unsigned major, minor;

    if (dev->api == GT_KBASE_API_JM) {
        major = 11;
        minor = jm_minor;
    } else if (dev->api == GT_KBASE_API_CSF) {
        major = 1;
        minor = csf_minor;
    } else {
        return 0;
    }
    return dev->major > major || (dev->major == major && dev->minor >= minor);
}

int gt_kbase_kinstr_buggy(const struct gt_kbase_dev *dev)
{
    return gt_kbase_since(dev, 34, 10) && !gt_kbase_since(dev, 37, 17);
}

int gt_kbase_block_state_trusted(const struct gt_kbase_dev *dev)
{
    return gt_kbase_since(dev, 41, 23);
}

/* ---- opening the device ---- */

static int kioctl(const struct gt_kbase_dev *dev, unsigned long req, void *arg)
{
    return dev->sys->ioctl(dev->sys->ctx, dev->fd, req, arg);
}

static const char *open_hint(int err)
{
    switch (err) {
    case ENOENT:
    case ENXIO:
    case ENODEV:
        return " — no Mali kbase driver here (the simulated GPU runs anywhere: --source sim)";
    case EACCES:
    case EPERM:
        return " — the GPU device is not open to this user; on Android, SELinux or the "
               "vendor's policy may forbid it: check `ls -lZ /dev/mali0`, or try `adb root` "
               "on a userdebug build";
    default:
        return "";
    }
}

static int open_node(struct gt_kbase_dev *dev, struct gt_diag *d)
{
    dev->fd = dev->sys->open(dev->sys->ctx, dev->path, O_RDONLY | O_CLOEXEC);
    if (dev->fd < 0) {
        int err = errno;
        gt_diag_errno(d, err, "%s: %s%s", dev->path, strerror(err), open_hint(err));
        return -1;
    }
    return 0;
}

/* Pre-r21 kernels speak only the UK encoding; newer ones reject it as an
 * unknown ioctl. A {0, 0} request makes the kernel reply with its own
 * version. */
static int probe_pre_r21(struct gt_kbase_dev *dev)
{
    struct gt_uk_version_check v;

    memset(&v, 0, sizeof(v));
    v.header.id = GT_UK_FUNC_VERSION_CHECK;
    if (kioctl(dev, GT_UK_IOCTL_VERSION_CHECK, &v) < 0 || v.header.ret != 0)
        return 0;
    if (!v.major && !v.minor)
        return 0;
    dev->api = GT_KBASE_API_PRE_R21;
    dev->major = v.major;
    dev->minor = v.minor;
    return 1;
}

/* Number 0 on a CSF kernel and 52 on a Job Manager kernel are reserved
 * and fail without recording a version, so both can be tried in turn. */
static int probe_post_r21(struct gt_kbase_dev *dev, unsigned long req, enum gt_kbase_api api)
{
    struct gt_kbase_version_check v = { 0, 0 };

    if (kioctl(dev, req, &v) < 0 || (!v.major && !v.minor))
        return 0;
    dev->api = api;
    dev->major = v.major;
    dev->minor = v.minor;
    return 1;
}

static int check_version(struct gt_kbase_dev *dev, struct gt_diag *d)
{
    int err;

    if (probe_pre_r21(dev) || probe_post_r21(dev, GT_KBASE_IOCTL_VERSION_CHECK_JM,
                                             GT_KBASE_API_JM) ||
        probe_post_r21(dev, GT_KBASE_IOCTL_VERSION_CHECK_CSF, GT_KBASE_API_CSF)) {
        if (dev->api == GT_KBASE_API_PRE_R21 && (dev->major < 10 ||
                                                 (dev->major == 10 && dev->minor < 2))) {
            gt_diag_set(d, "%s: kbase interface %u.%u is too old: the counter reader needs "
                           "10.2 or newer", dev->path, dev->major, dev->minor);
            return -1;
        }
        return 0;
    }
    err = errno;
    gt_diag_errno(d, err, "%s: not a Mali kbase device, or an interface gputop does not know "
                          "(every version check failed; last: %s)", dev->path, strerror(err));
    return -1;
}

/* Clients that only read counters say so; a kernel that has already set
 * up the context (EPERM) or predates the flag (EINVAL) is fine as it is. */
static int set_flags(struct gt_kbase_dev *dev, struct gt_diag *d)
{
    int r, err;

    if (dev->api == GT_KBASE_API_PRE_R21) {
        struct gt_uk_set_flags f;
        memset(&f, 0, sizeof(f));
        f.header.id = GT_UK_FUNC_SET_FLAGS;
        f.create_flags = GT_KBASE_CONTEXT_SYSTEM_MONITOR_SUBMIT_DISABLED;
        r = kioctl(dev, GT_UK_IOCTL_SET_FLAGS, &f);
        if (r == 0 && f.header.ret != 0) {
            errno = EINVAL;
            r = -1;
        }
    } else {
        struct gt_kbase_set_flags f = { GT_KBASE_CONTEXT_SYSTEM_MONITOR_SUBMIT_DISABLED };
        r = kioctl(dev, GT_KBASE_IOCTL_SET_FLAGS, &f);
    }
    err = errno;
    if (r == 0 || err == EPERM || err == EINVAL ||
        (err == EFAULT && dev->api == GT_KBASE_API_PRE_R21))
        return 0;
    gt_diag_errno(d, err, "%s: SET_FLAGS failed: %s%s", dev->path, strerror(err), open_hint(err));
    return -1;
}

static int read_props(struct gt_kbase_dev *dev, struct gt_diag *d)
{
    struct gt_kbase_get_gpuprops q = { 0, 0, 0 };
    uint8_t *buf;
    int n, r;

    if (dev->api == GT_KBASE_API_PRE_R21) {
        struct gt_uk_gpuprops p;
        memset(&p, 0, sizeof(p));
        p.header.id = GT_UK_FUNC_GPU_PROPS;
        if (kioctl(dev, GT_UK_IOCTL_GPU_PROPS, &p) < 0 || p.header.ret != 0) {
            gt_diag_errno(d, errno, "%s: GPU_PROPS failed: %s", dev->path, strerror(errno));
            return -1;
        }
        return gt_kbase_props_parse_pre_r21(&p, sizeof(p), &dev->gpu, d);
    }
    n = kioctl(dev, GT_KBASE_IOCTL_GET_GPUPROPS, &q);
    if (n <= 0 || (unsigned)n > GPUPROPS_MAX) {
        if (n < 0)
            gt_diag_errno(d, errno, "%s: GET_GPUPROPS failed: %s", dev->path, strerror(errno));
        else
            gt_diag_set(d, "%s: GET_GPUPROPS wants %d bytes, outside 1..%u", dev->path, n,
                        GPUPROPS_MAX);
        return -1;
    }
    buf = calloc(1, (size_t)n);
    if (!buf) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return -1;
    }
    q.buffer = (uint64_t)(uintptr_t)buf;
    q.size = (uint32_t)n;
    r = kioctl(dev, GT_KBASE_IOCTL_GET_GPUPROPS, &q);
    if (r < 0 || r > n) {
        gt_diag_errno(d, errno, "%s: GET_GPUPROPS failed: %s", dev->path,
                      r < 0 ? strerror(errno) : "the kernel wrote more than it asked for");
        free(buf);
        return -1;
    }
    r = gt_kbase_props_parse(buf, (size_t)r, &dev->gpu, d);
    free(buf);
    return r;
}

void gt_kbase_dev_close(struct gt_kbase_dev *dev)
{
    if (dev->fd >= 0)
        dev->sys->close(dev->sys->ctx, dev->fd);
    dev->fd = -1;
}

int gt_kbase_dev_open(struct gt_kbase_dev *dev, const struct gt_sys *sys, const char *path,
                      struct gt_diag *d)
{
    memset(dev, 0, sizeof(*dev));
    dev->sys = sys;
    dev->fd = -1;
    snprintf(dev->path, sizeof(dev->path), "%s", path);
    if (open_node(dev, d) < 0)
        return -1;
    if (check_version(dev, d) < 0 || set_flags(dev, d) < 0 || read_props(dev, d) < 0) {
        gt_kbase_dev_close(dev);
        return -1;
    }
    gt_kbase_identify(&dev->gpu);
    return 0;
}

/* ---- which reader ---- */

/* Removed in JM 11.40 and CSF 1.21; pre-r21 kernels always have it. */
static int has_legacy(const struct gt_kbase_dev *dev)
{
    return !gt_kbase_since(dev, 40, 21);
}

static int has_kinstr(const struct gt_kbase_dev *dev)
{
    return gt_kbase_since(dev, 34, 10);
}

/* The legacy reader carries 64 counters a block, so GPUs with 128 use
 * kinstr_prfcnt where the kernel has it; older GPUs keep the reader that
 * has served them longest. */
int gt_kbase_choose(const struct gt_kbase_dev *dev, int forced, char *why, size_t len)
{
    int legacy = has_legacy(dev), kinstr = has_kinstr(dev);
    const char *api = dev->api == GT_KBASE_API_CSF ? "CSF" : dev->api == GT_KBASE_API_JM
                      ? "JM" : "pre-r21";

    if (forced == 1 && !legacy) {
        snprintf(why, len, "the %s %u.%u kernel has no legacy counter reader", api,
                 dev->major, dev->minor);
        return -1;
    }
    if (forced == 2 && !kinstr) {
        snprintf(why, len, "the %s %u.%u kernel has no kinstr_prfcnt interface", api,
                 dev->major, dev->minor);
        return -1;
    }
    if (forced)
        return forced;
    if (kinstr && (dev->gpu.values_per_block > 64 || !legacy))
        return 2;
    if (legacy)
        return 1;
    snprintf(why, len, "the %s %u.%u kernel offers no counter interface", api, dev->major,
             dev->minor);
    return -1;
}

/* ---- what --probe shows ---- */

void gt_kbase_describe_dev(const struct gt_kbase_dev *dev, FILE *out)
{
    char why[200];
    const char *api = dev->api == GT_KBASE_API_CSF ? "CSF (command-stream front end)"
                      : dev->api == GT_KBASE_API_JM ? "JM (job manager)" : "pre-r21 (UK)";

    fprintf(out, "device:           %s\n", dev->path);
    fprintf(out, "driver interface: kbase %s, version %u.%u\n", api, dev->major, dev->minor);
    fprintf(out, "GPU:              %s, id 0x%08llx, r%up%u\n", dev->gpu.name,
            (unsigned long long)dev->gpu.gpu_id, dev->gpu.major_rev, dev->gpu.minor_rev);
    fprintf(out, "shader cores:     %u (core mask 0x%llx)\n", dev->gpu.shader_cores,
            (unsigned long long)dev->gpu.core_mask);
    fprintf(out, "L2 slices:        %u\n", dev->gpu.l2_slices);
    if (dev->gpu.bus_width_bits)
        fprintf(out, "bus width:        %u bits\n", dev->gpu.bus_width_bits);
    else
        fprintf(out, "bus width:        unknown (byte metrics unavailable)\n");
    if (dev->gpu.freq_khz_max)
        fprintf(out, "max frequency:    %u MHz\n", dev->gpu.freq_khz_max / 1000);
    fprintf(out, "layout:           %s\n", gt_kbase_layout_name(&dev->gpu));
    gt_kbase_layout_why(&dev->gpu, why, sizeof(why));
    fprintf(out, "                  (%s)\n", why);
}
