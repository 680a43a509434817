/* Every DRM device on the machine with its driver and bus, for --probe,
 * --list-sources and the DRM sources' default node: libdrm's list
 * (through the seam) completed from sysfs, so no node is opened. */
#include "gputop/drm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

/* The value of "KEY=" in a uevent file's text, copied into buf. */
static int uevent_value(const char *text, const char *key, char *buf, size_t len)
{
    size_t klen = strlen(key);
    const char *p = text;

    while (p && *p) {
        if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
            size_t n = strcspn(p + klen + 1, "\n");
            snprintf(buf, len, "%.*s", (int)n, p + klen + 1);
            return 0;
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return -1;
}

static void fill_from_sysfs(const struct gt_sys *sys, struct gt_drm_node *n)
{
    const char *node = n->dev.render[0] ? n->dev.render : n->dev.primary;
    char path[160], text[2048], val[80];

    snprintf(path, sizeof(path), "/sys/class/drm/%s/device/uevent", base_name(node));
    if (gt_sys_read_file(sys, path, text, sizeof(text)) < 0)
        text[0] = '\0';
    uevent_value(text, "DRIVER", n->driver, sizeof(n->driver));
    if (n->dev.pci_slot[0])
        snprintf(n->bus, sizeof(n->bus), "pci %s", n->dev.pci_slot);
    else if (uevent_value(text, "OF_FULLNAME", val, sizeof(val)) == 0)
        snprintf(n->bus, sizeof(n->bus), "platform %s", val);
    else if (uevent_value(text, "PCI_SLOT_NAME", val, sizeof(val)) == 0)
        snprintf(n->bus, sizeof(n->bus), "pci %s", val);
}

int gt_drm_list(const struct gt_sys *sys, struct gt_drm_node *out, int max)
{
    struct gt_drm_device all[GT_DRM_MAX_DEVICES];
    int n, i;

    if (!sys->drm_devices)
        return 0;
    n = sys->drm_devices(sys->ctx, all, GT_DRM_MAX_DEVICES);
    if (n < 0)
        return -1;
    for (i = 0; i < n && i < max; i++) {
        memset(&out[i], 0, sizeof(out[i]));
        out[i].dev = all[i];
        fill_from_sysfs(sys, &out[i]);
    }
    return i;
}

int gt_drm_find_driver(const struct gt_sys *sys, const char *driver, char *path, size_t len)
{
    struct gt_drm_node list[GT_DRM_MAX_DEVICES];
    int n = gt_drm_list(sys, list, GT_DRM_MAX_DEVICES), i;

    for (i = 0; i < n; i++) {
        if (strcmp(list[i].driver, driver) != 0)
            continue;
        snprintf(path, len, "%s", list[i].dev.render[0] ? list[i].dev.render
                                                        : list[i].dev.primary);
        return 0;
    }
    return -1;
}

/* What gputop reads from a driver's devices. */
static const char *what_gputop_reads(const char *driver)
{
    static const struct { const char *driver, *what; } t[] = {
        { "panfrost", "counters: --source panfrost; per-process use: Processes view, key P" },
        { "amdgpu", "counters: --source amdgpu; per-process use: Processes view, key P" },
        { "panthor", "per-process use: Processes view, key P (no counter uAPI in released kernels)" },
        { "msm", "per-process use: Processes view, key P" },
        { "i915", "per-process use: Processes view, key P" },
        { "xe", "per-process use: Processes view, key P" },
        { "v3d", "per-process use: Processes view, key P" },
        /* etnaviv_drv.c's show_fdinfo prints memory stats only */
        { "etnaviv", "per-process memory: Processes view, key P (etnaviv prints no engine "
                     "time: no busy share per process or GPU-wide)" },
        { "lima", "per-process use: Processes view, key P" },
    };
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (strcmp(t[i].driver, driver) == 0)
            return t[i].what;
    return "nothing (no gputop source for this driver)";
}

void gt_drm_describe(const struct gt_sys *sys, FILE *out)
{
    struct gt_drm_node list[GT_DRM_MAX_DEVICES];
    int n = gt_drm_list(sys, list, GT_DRM_MAX_DEVICES), i;

    if (n < 0) {
        fprintf(out, "DRM devices: listing failed: %s\n", strerror(errno));
        return;
    }
    fprintf(out, "DRM devices: %d\n", n);
    for (i = 0; i < n; i++) {
        const struct gt_drm_node *d = &list[i];
        fprintf(out, "  %s  driver %s  render %s  bus %s\n    reads: %s\n",
                d->dev.primary[0] ? d->dev.primary : "-", d->driver[0] ? d->driver : "unknown",
                d->dev.render[0] ? d->dev.render : "-", d->bus[0] ? d->bus : "unknown",
                what_gputop_reads(d->driver));
    }
}
