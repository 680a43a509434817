/* Generic DRM pieces: which driver runs each DRM device (discovery.c),
 * the panfrost counter source (panfrost.c). */
#ifndef GPUTOP_DRM_H
#define GPUTOP_DRM_H

#include <stddef.h>
#include <stdio.h>
#include "gputop/source.h"
#include "gputop/sys.h"

#define GT_DRM_MAX_DEVICES 16

struct gt_drm_node {
    struct gt_drm_device dev;
    char driver[32];          /* "panfrost", "amdgpu", ...; "" when sysfs does not say */
    char bus[96];             /* "pci 0000:c3:00.0", "platform /gpu@ff9a0000", "" */
};

/* Every DRM device the seam lists, with its driver and bus from sysfs
 * (/sys/class/drm/NODE/device/uevent), without opening a node. Returns
 * how many (0 when the seam lists none), or -1 with errno set. */
int gt_drm_list(const struct gt_sys *sys, struct gt_drm_node *out, int max);
/* The render node (else primary) of the first device driver drives into
 * path; 0, or -1 when there is none. */
int gt_drm_find_driver(const struct gt_sys *sys, const char *driver, char *path, size_t len);
/* The lines --probe and --list-sources print: one per DRM device. */
void gt_drm_describe(const struct gt_sys *sys, FILE *out);
/* The panfrost source's probe op: the list above, then each panfrost
 * device opened as the source would (the node ARGS name, else all) and
 * one sample taken. */
enum gt_probe_result gt_drm_probe(const struct gt_probe *p, const char *args);
/* The drm-fdinfo source's probe op, when named: the device and engines
 * the source finds, one sample, the profiling switch's state. */
enum gt_probe_result gt_drm_fdinfo_probe(const struct gt_probe *p, const char *args);

#endif
