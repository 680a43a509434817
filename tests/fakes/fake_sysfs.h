/* Fake sysfs trees for the gpu-clocks reader, written from the kernel's
 * ABI documents into a temporary directory (a fake_proc tree): a phone
 * (kbase device, devfreq 1c500000.mali, thermal zone G3D, battery, ODPM)
 * and a board (panfrost render node, devfreq fb000000.gpu, zone
 * gpu-thermal), each cool or throttled. */
#ifndef GPUTOP_TEST_FAKE_SYSFS_H
#define GPUTOP_TEST_FAKE_SYSFS_H

#include "fakes/fake_proc.h"

enum fsys_kind { FSYS_PHONE, FSYS_BOARD };
enum fsys_heat { FSYS_COOL, FSYS_THROTTLED };

/* The devfreq node's and the GPU zone's directories in each tree. */
#define FSYS_PHONE_DEVFREQ "/sys/devices/platform/1c500000.mali/devfreq/1c500000.mali"
#define FSYS_PHONE_ZONE    "/sys/class/thermal/thermal_zone3"
#define FSYS_PHONE_COOLING "/sys/class/thermal/cooling_device2"
#define FSYS_BOARD_DEVFREQ "/sys/devices/platform/fb000000.gpu/devfreq/fb000000.gpu"
#define FSYS_BOARD_ZONE    "/sys/class/thermal/thermal_zone1"
#define FSYS_BOARD_COOLING "/sys/class/thermal/cooling_device4"

struct fake_proc *fsys_new(enum fsys_kind kind, enum fsys_heat heat);
/* A symbolic link below the root, as sysfs makes them. */
void fsys_link(struct fake_proc *p, const char *path, const char *target);
/* Removes one file below the root. */
void fsys_remove(struct fake_proc *p, const char *path);

#endif
