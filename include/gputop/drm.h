/* Generic DRM pieces: which driver runs each DRM device (discovery.c),
 * the panfrost counter source (panfrost.c). */
#ifndef GPUTOP_DRM_H
#define GPUTOP_DRM_H

#include <stddef.h>
#include <stdio.h>
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
/* gputop --probe for DRM devices: the list above, then each panfrost
 * device opened as the panfrost source would (spec "panfrost[:NODE]" for
 * one, "" for all) and one sample taken. Returns 0 when a source opened
 * and sampled, 1 when none did, 2 when there is no DRM device (nothing
 * printed then). */
int gt_drm_probe(const char *spec, const struct gt_sys *sys, FILE *out);
/* gputop --probe --source drm-fdinfo[:ARGS]: the device and engines the
 * source finds, one sample, the profiling switch's state. 0 when it
 * sampled, else 1. */
int gt_drm_fdinfo_probe(const char *spec, const struct gt_sys *sys, FILE *out);

#endif
