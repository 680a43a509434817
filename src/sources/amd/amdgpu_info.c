/* The amdgpu render node: opening it, checking the driver, DEV_INFO and the
 * GC version, the sensors, READ_MMR_REG, and the runtime-PM state read from
 * sysfs so that a sleeping GPU is never woken just to be polled. */
#include "amd.h"
#include "gputop/amdgpu_uapi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int info_ioctl(const struct gt_amd_dev *dev, struct drm_amdgpu_info *q)
{
    return dev->sys->ioctl(dev->sys->ctx, dev->fd, DRM_IOCTL_AMDGPU_INFO, q);
}

enum gt_amd_power gt_amd_power_state(const struct gt_amd_dev *dev, char *why, size_t len)
{
    char path[160], buf[64];
    ssize_t n;

    snprintf(path, sizeof(path), "%s/power/runtime_status", dev->sysfs);
    n = gt_sys_read_file(dev->sys, path, buf, sizeof(buf));
    if (n < 0) {
        /* No runtime PM on this device: it never sleeps (amdgpu_top does
         * the same). */
        snprintf(why, len, "no runtime PM");
        return GT_AMD_POWER_UNKNOWN;
    }
    buf[strcspn(buf, "\n")] = '\0';
    snprintf(why, len, "%s", buf);
    /* "suspending" and "resuming" are on their way; only "active" is safe
     * to touch without changing what the GPU does. */
    return strcmp(buf, "active") == 0 ? GT_AMD_AWAKE : GT_AMD_ASLEEP;
}

static int check_driver(struct gt_amd_dev *dev, const char *node, struct gt_diag *d)
{
    struct drm_version v;

    memset(&v, 0, sizeof(v));
    v.name = dev->driver;
    v.name_len = sizeof(dev->driver) - 1;
    if (dev->sys->ioctl(dev->sys->ctx, dev->fd, DRM_IOCTL_VERSION, &v) < 0) {
        gt_diag_errno(d, errno, "%s: DRM_IOCTL_VERSION failed: %s", node, strerror(errno));
        return -1;
    }
    dev->driver[v.name_len < sizeof(dev->driver) ? v.name_len : sizeof(dev->driver) - 1] = '\0';
    dev->drv_major = v.version_major;
    dev->drv_minor = v.version_minor;
    dev->drv_patch = v.version_patchlevel;
    if (strcmp(dev->driver, "amdgpu") != 0) {
        gt_diag_set(d, "%s: driven by '%s', not amdgpu (the older radeon driver has none of "
                       "the queries gputop uses)", node, dev->driver);
        return -1;
    }
    return 0;
}

/* The counters are laid out per engine, array, CU and L2 channel, so a
 * shape no GPU has (a broken or hostile kernel) would size them in the
 * billions. Generous bounds: the kernel keeps a 32-bit CU mask per array. */
#define MAX_SE        32
#define MAX_SA_PER_SE 8
#define MAX_CU_PER_SA 32
#define MAX_TCC       256

static int check_shape(const struct gt_amd_dev *dev, const char *node, struct gt_diag *d)
{
    uint32_t se = dev->num_se ? dev->num_se : 1, sa = dev->num_sa_per_se ? dev->num_sa_per_se : 1;

    if (se <= MAX_SE && sa <= MAX_SA_PER_SE && dev->num_tcc <= MAX_TCC &&
        dev->cu_active <= se * sa * MAX_CU_PER_SA)
        return 0;
    gt_diag_set(d, "%s: AMDGPU_INFO_DEV_INFO reports %u shader engines, %u arrays each, %u CUs "
                   "and %u L2 channels: no GPU has that shape (at most %d, %d, %d per array, %d)",
                node, dev->num_se, dev->num_sa_per_se, dev->cu_active, dev->num_tcc, MAX_SE,
                MAX_SA_PER_SE, MAX_CU_PER_SA, MAX_TCC);
    return -1;
}

static int read_dev_info(struct gt_amd_dev *dev, const char *node, struct gt_diag *d)
{
    struct drm_amdgpu_info_device di;
    struct drm_amdgpu_info q;

    memset(&di, 0, sizeof(di));
    memset(&q, 0, sizeof(q));
    q.return_pointer = (uint64_t)(uintptr_t)&di;
    q.return_size = sizeof(di);   /* the kernel copies min(this, its own size) */
    q.query = AMDGPU_INFO_DEV_INFO;
    if (info_ioctl(dev, &q) < 0) {
        gt_diag_errno(d, errno, "%s: AMDGPU_INFO_DEV_INFO failed: %s", node, strerror(errno));
        return -1;
    }
    dev->family = di.family;
    dev->num_se = di.num_shader_engines;
    dev->num_sa_per_se = di.num_shader_arrays_per_engine;
    dev->cu_active = di.cu_active_number;
    dev->cu_per_sa = di.num_cu_per_sh;
    dev->num_tcc = di.num_tcc_blocks;
    dev->wave_size = di.wave_front_size;
    dev->max_sclk_mhz = (uint32_t)(di.max_engine_clock / 1000);
    dev->max_mclk_mhz = (uint32_t)(di.max_memory_clock / 1000);
    memcpy(dev->cu_bitmap, di.cu_bitmap, sizeof(dev->cu_bitmap));
    dev->info_read = 1;
    return check_shape(dev, node, d);
}

/* The GC IP version; kernels before IP discovery leave it 0. */
static void read_gc_version(struct gt_amd_dev *dev)
{
    unsigned char hw[sizeof(struct drm_amdgpu_info_hw_ip)];
    struct drm_amdgpu_info q;
    uint32_t v;

    memset(hw, 0, sizeof(hw));
    memset(&q, 0, sizeof(q));
    q.return_pointer = (uint64_t)(uintptr_t)hw;
    q.return_size = sizeof(hw);
    q.query = AMDGPU_INFO_HW_IP_INFO;
    q.query_hw_ip.type = AMDGPU_HW_IP_GFX;
    if (info_ioctl(dev, &q) < 0)
        return;
    memcpy(&v, hw + GT_HW_IP_DISCOVERY_VERSION_OFFSET, sizeof(v));
    dev->gc_version = v & 0xffffffu;
}

static const char *open_hint(int err)
{
    switch (err) {
    case EACCES:
    case EPERM:
        return " — add yourself to the 'render' group (sudo usermod -aG render $USER, then "
               "log in again)";
    case ENOENT:
    case ENODEV:
    case ENXIO:
        return " — the node is gone (driver unloaded?)";
    default:
        return "";
    }
}

int gt_amd_open(struct gt_amd_dev *dev, struct gt_diag *d)
{
    const char *node = dev->drm.render[0] ? dev->drm.render : dev->drm.primary;

    dev->fd = dev->sys->open(dev->sys->ctx, node, O_RDWR | O_CLOEXEC);
    if (dev->fd < 0) {
        int err = errno;
        gt_diag_errno(d, err, "%s: %s%s", node, strerror(err), open_hint(err));
        return -1;
    }
    if (check_driver(dev, node, d) < 0 || read_dev_info(dev, node, d) < 0) {
        gt_amd_close(dev);
        return -1;
    }
    read_gc_version(dev);
    gt_amd_identify(dev);
    return 0;
}

int gt_amd_dead(const struct gt_amd_dev *dev)
{
    struct drm_version v;

    /* DRM_IOCTL_VERSION with no buffers: the cheapest call, and one the
     * sampling never makes, so it fails only with the file itself. */
    memset(&v, 0, sizeof(v));
    if (dev->fd < 0)
        return 1;
    return dev->sys->ioctl(dev->sys->ctx, dev->fd, DRM_IOCTL_VERSION, &v) < 0 && errno == ENODEV;
}

void gt_amd_close(struct gt_amd_dev *dev)
{
    if (dev->fd >= 0)
        dev->sys->close(dev->sys->ctx, dev->fd);
    dev->fd = -1;
}

static const uint32_t sensor_ids[GT_AMD_NSENSORS] = {
    AMDGPU_INFO_SENSOR_GFX_SCLK, AMDGPU_INFO_SENSOR_GFX_MCLK, AMDGPU_INFO_SENSOR_GPU_TEMP,
    AMDGPU_INFO_SENSOR_GPU_LOAD, AMDGPU_INFO_SENSOR_GPU_AVG_POWER,
};

int gt_amd_read_sensors(const struct gt_amd_dev *dev, uint32_t v[GT_AMD_NSENSORS],
                        int ok[GT_AMD_NSENSORS])
{
    struct drm_amdgpu_info q;
    int i, any = 0;

    for (i = 0; i < GT_AMD_NSENSORS; i++) {
        memset(&q, 0, sizeof(q));
        v[i] = 0;
        q.return_pointer = (uint64_t)(uintptr_t)&v[i];
        q.return_size = sizeof(v[i]);
        q.query = AMDGPU_INFO_SENSOR;
        q.sensor_info.type = sensor_ids[i];
        /* -ENOENT: DPM off, or a sensor this SMU does not report. */
        ok[i] = info_ioctl(dev, &q) == 0;
        any |= ok[i];
    }
    return any ? 0 : -1;
}

int gt_amd_read_sensor(const struct gt_amd_dev *dev, uint32_t type, uint32_t *out)
{
    struct drm_amdgpu_info q;

    memset(&q, 0, sizeof(q));
    *out = 0;
    q.return_pointer = (uint64_t)(uintptr_t)out;
    q.return_size = sizeof(*out);
    q.query = AMDGPU_INFO_SENSOR;
    q.sensor_info.type = type;
    return info_ioctl(dev, &q);
}

/* amdgpu_discovery.c prints one "0x%08X" line per segment; GC is hw_id 11
 * (soc15_hw_ip.h), die 0, instance 0. */
int gt_amd_gc_bases(const struct gt_amd_dev *dev, uint32_t base[2], char *path, size_t len)
{
    char buf[256], *end;
    unsigned long v;
    ssize_t n;
    int i;

    snprintf(path, len, "%s/ip_discovery/die/0/11/0/base_addr", dev->sysfs);
    n = gt_sys_read_file(dev->sys, path, buf, sizeof(buf));
    if (n < 0)
        return errno == ENOENT ? 0 : -1;
    end = buf;
    for (i = 0; i < 2; i++) {
        char *at = end;
        v = strtoul(at, &end, 16);
        if (end == at || v > 0xffffffffu)
            return -1;
        base[i] = (uint32_t)v;
    }
    return 1;
}

int gt_amd_read_mmr(const struct gt_amd_dev *dev, uint32_t dword, uint32_t count, uint32_t *out)
{
    struct drm_amdgpu_info q;

    memset(&q, 0, sizeof(q));
    q.return_pointer = (uint64_t)(uintptr_t)out;
    q.return_size = count * sizeof(uint32_t);
    q.query = AMDGPU_INFO_READ_MMR_REG;
    q.read_mmr_reg.dword_offset = dword;
    q.read_mmr_reg.count = count;
    q.read_mmr_reg.instance = 0xffffffffu;   /* broadcast: soc21 ignores SE/SH anyway */
    q.read_mmr_reg.flags = 0;
    return info_ioctl(dev, &q);
}
