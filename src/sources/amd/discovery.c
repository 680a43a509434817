/* Finding AMD GPUs: every DRM device libdrm lists (through the seam), kept
 * when its PCI vendor is AMD, and naming what DEV_INFO and the PCI id say. */
#include "amd.h"
#include "gputop/amdgpu_uapi.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int gt_amd_discover(const struct gt_sys *sys, struct gt_drm_device *out, int max,
                    struct gt_diag *d)
{
    struct gt_drm_device all[32];
    int n, i, k = 0;

    if (!sys->drm_devices)
        return 0;
    n = sys->drm_devices(sys->ctx, all, (int)(sizeof(all) / sizeof(all[0])));
    if (n < 0) {
        gt_diag_errno(d, errno, "amdgpu: listing DRM devices failed: %s", strerror(errno));
        return -1;
    }
    for (i = 0; i < n && k < max; i++)
        if (all[i].vendor == GT_AMD_PCI_VENDOR && (all[i].render[0] || all[i].primary[0]))
            out[k++] = all[i];
    return k;
}

/* "/dev/dri/card1" -> 1; -1 when the name has no number. */
static int node_number(const char *path)
{
    const char *p = path + strlen(path);
    int n = 0, mul = 1;

    while (p > path && p[-1] >= '0' && p[-1] <= '9') {
        p--;
        n += (*p - '0') * mul;
        mul *= 10;
    }
    return mul == 1 ? -1 : n;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

static void fill_paths(struct gt_amd_dev *dev)
{
    const char *node = dev->drm.render[0] ? dev->drm.render : dev->drm.primary;

    snprintf(dev->sysfs, sizeof(dev->sysfs), "/sys/class/drm/%s/device", base_name(node));
    /* debugfs directories are named by the primary node's minor. */
    snprintf(dev->debugfs, sizeof(dev->debugfs), "/sys/kernel/debug/dri/%d",
             dev->drm.primary[0] ? node_number(dev->drm.primary) : 0);
}

static int same_node(const struct gt_drm_device *g, const char *path)
{
    return strcmp(g->render, path) == 0 || strcmp(g->primary, path) == 0;
}

int gt_amd_find(const struct gt_sys *sys, const char *path, struct gt_amd_dev *dev,
                struct gt_diag *d)
{
    struct gt_drm_device list[GT_AMD_MAX_DEVICES];
    int n = gt_amd_discover(sys, list, GT_AMD_MAX_DEVICES, d), i;

    memset(dev, 0, sizeof(*dev));
    dev->sys = sys;
    dev->fd = -1;
    if (n < 0)
        return -1;
    for (i = 0; i < n; i++)
        if (!path[0] || same_node(&list[i], path))
            break;
    if (i == n) {
        if (path[0])
            gt_diag_set(d, "amdgpu: %s is not an AMD GPU's DRM node (%d AMD GPU%s found; "
                           "gputop --probe lists them)", path, n, n == 1 ? "" : "s");
        else
            gt_diag_set(d, "amdgpu: no AMD GPU found (no DRM device with PCI vendor 0x1002; "
                           "the simulated GPU runs anywhere: --source sim:amd-gfx1151)");
        return -1;
    }
    dev->drm = list[i];
    fill_paths(dev);
    gt_amd_identify(dev);
    return 0;
}

/* gfx targets of RDNA 3 and 3.5, by GC IP version. */
static const struct {
    uint32_t gc;
    const char *gfx, *name;
    int pmc;
} gc_names[] = {
    { 0x0b0000, "gfx1100", "Navi 31", 0 },
    { 0x0b0001, "gfx1101", "Navi 32", 0 },
    { 0x0b0002, "gfx1102", "Navi 33", 0 },
    { 0x0b0100, "gfx1103", "Phoenix", 0 },
    { 0x0b0500, "gfx1150", "Strix Point", 1 },
    { 0x0b0501, "gfx1151", "Strix Halo", 1 },
    { 0x0b0502, "gfx1152", "Krackan Point", 1 },
    { 0x0b0503, "gfx1153", "GC 11.5.3", 1 },
};

/* PCI ids, for a GPU asleep at open (no DEV_INFO without waking it). */
static const struct {
    unsigned device;
    uint32_t gc;
} pci_ids[] = {
    { 0x1586, 0x0b0501 },   /* Strix Halo: Radeon 8050S/8060S */
    { 0x150e, 0x0b0500 },   /* Strix Point: Radeon 880M/890M */
    { 0x1114, 0x0b0502 },   /* Krackan Point */
    { 0x15bf, 0x0b0100 },   /* Phoenix */
    { 0x744c, 0x0b0000 },   /* Navi 31 */
    { 0x7480, 0x0b0002 },   /* Navi 33 */
};

static uint32_t gc_from_pci(unsigned device)
{
    size_t i;

    for (i = 0; i < sizeof(pci_ids) / sizeof(pci_ids[0]); i++)
        if (pci_ids[i].device == device)
            return pci_ids[i].gc;
    return 0;
}

static int family_is_rdna3(uint32_t family)
{
    return family == GT_AMDGPU_FAMILY_GC_11_0_0 || family == GT_AMDGPU_FAMILY_GC_11_0_1 ||
           family == GT_AMDGPU_FAMILY_GC_11_5_0;
}

void gt_amd_identify(struct gt_amd_dev *dev)
{
    uint32_t gc = dev->gc_version ? dev->gc_version : gc_from_pci(dev->drm.device);
    size_t i;

    dev->gfx = "";
    dev->name = "AMD GPU";
    dev->rdna3 = family_is_rdna3(dev->family);
    dev->pmc_regs = 0;
    for (i = 0; i < sizeof(gc_names) / sizeof(gc_names[0]); i++)
        if (gc_names[i].gc == gc) {
            dev->gfx = gc_names[i].gfx;
            dev->name = gc_names[i].name;
            dev->rdna3 = 1;
            /* The register table is GC 11.5's: only its family gets counters. */
            dev->pmc_regs = gc_names[i].pmc &&
                            (!dev->family || dev->family == GT_AMDGPU_FAMILY_GC_11_5_0);
            return;
        }
    if (dev->rdna3)
        dev->name = dev->family == GT_AMDGPU_FAMILY_GC_11_5_0 ? "RDNA 3.5 GPU" : "RDNA 3 GPU";
}
