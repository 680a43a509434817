/* A fake panfrost DRM device behind the system-call seam: one render node
 * (/dev/dri/renderD129, platform bus /gpu@ff9a0000) with GET_PARAM and
 * the perfcnt ioctls as the mainline kernel answers them (request numbers
 * and struct fields decoded by raw byte offset, errno as the kernel
 * returns it), the sysfs uevent file discovery reads, and the node's own
 * /proc/self/fdinfo/FD.
 *
 * The GPU is a 4-core Mali-T830 (GPU_ID 0x08301000: r1p0), SHADER_PRESENT
 * 0xF unless told otherwise, one L2 slice (MEM_FEATURES 0x1), a 128-bit
 * bus (L2_FEATURES 0x07120206). */
#ifndef GPUTOP_TEST_FAKE_PANFROST_H
#define GPUTOP_TEST_FAKE_PANFROST_H

#include <stdint.h>
#include "gputop/sys.h"

struct fp_config {
    int unstable_ioctls;      /* 0: both perfcnt ioctls fail with ENOSYS */
    uint64_t shader_present;  /* 0: 0xF */
    uint64_t prod_id;         /* 0: 0x0830 */
    uint64_t maxfreq_hz;      /* the node's fdinfo prints drm-maxfreq-* (kernel
                                 6.6 on) with this top clock; 0: a kernel that
                                 prints none */
};

struct fake_panfrost;

struct fake_panfrost *fp_new(const struct fp_config *cfg);
void fp_free(struct fake_panfrost *fp);
const struct gt_sys *fp_sys(struct fake_panfrost *fp);
/* The value every following dump carries at (block position in the dump:
 * 0 job manager, 1 tiler, 2 the L2, 3.. shader core positions, holes
 * included; index 0..63). */
void fp_set_counter(struct fake_panfrost *fp, unsigned block, unsigned index, uint32_t v);
/* Another client (a second open file) takes the counters: ENABLE fails
 * with EBUSY for everyone else. */
void fp_take_counters(struct fake_panfrost *fp);
/* The device is unbound (hot unplug, driver unbind): the node is gone,
 * every ioctl on a file opened before fails with ENODEV, for good. */
void fp_unplug(struct fake_panfrost *fp);
/* Bound again: the node is back; files opened before stay dead. */
void fp_replug(struct fake_panfrost *fp);
/* The next dump times out (ETIMEDOUT), as when the GPU hangs. */
void fp_hang_next_dump(struct fake_panfrost *fp);

struct fp_stats {
    int get_params, enables, disables, dumps, open_fds;
    int good_dumps;           /* dumps that delivered counts */
    int owner_fd;             /* fd owning the counters, -1 none */
    int closed_enabled;       /* owner fds closed with the counters still enabled
                                 (the kernel disables them then; a client that
                                 ends cleanly disables them itself first) */
    int protocol_errors;      /* calls a real kernel would have rejected */
};
const struct fp_stats *fp_stats(const struct fake_panfrost *fp);

#endif
