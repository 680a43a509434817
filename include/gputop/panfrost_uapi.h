/* The panfrost DRM driver's user interface as gputop uses it: GET_PARAM
 * and the perfcnt ioctls. Debian ships no panfrost_drm.h, so the facts
 * (numbers, field order and sizes from the kernel's uapi header) are
 * written out here and checked by the asserts below. */
#ifndef GPUTOP_PANFROST_UAPI_H
#define GPUTOP_PANFROST_UAPI_H

#include <stddef.h>
#include <stdint.h>
#include <drm.h>

struct gt_panfrost_get_param {
    uint32_t param;          /* GT_PANFROST_PARAM_* */
    uint32_t pad;            /* must be 0, else EINVAL */
    uint64_t value;          /* out */
};

struct gt_panfrost_perfcnt_enable {
    uint32_t enable;         /* 1 on, 0 off */
    uint32_t counterset;     /* 0; Bifrost also 1 */
};

struct gt_panfrost_perfcnt_dump {
    uint64_t buf_ptr;        /* user buffer the kernel copies the dump into */
};

_Static_assert(sizeof(struct gt_panfrost_get_param) == 16, "get_param is 16 bytes");
_Static_assert(offsetof(struct gt_panfrost_get_param, value) == 8, "value at byte 8");
_Static_assert(sizeof(struct gt_panfrost_perfcnt_enable) == 8, "perfcnt_enable is 8 bytes");
_Static_assert(sizeof(struct gt_panfrost_perfcnt_dump) == 8, "perfcnt_dump is 8 bytes");

/* Command numbers below DRM_COMMAND_BASE. */
#define GT_PANFROST_NR_GET_PARAM        0x04
#define GT_PANFROST_NR_PERFCNT_ENABLE   0x06
#define GT_PANFROST_NR_PERFCNT_DUMP     0x07

#define GT_PANFROST_GET_PARAM \
    DRM_IOWR(DRM_COMMAND_BASE + GT_PANFROST_NR_GET_PARAM, struct gt_panfrost_get_param)
#define GT_PANFROST_PERFCNT_ENABLE \
    DRM_IOW(DRM_COMMAND_BASE + GT_PANFROST_NR_PERFCNT_ENABLE, struct gt_panfrost_perfcnt_enable)
#define GT_PANFROST_PERFCNT_DUMP \
    DRM_IOW(DRM_COMMAND_BASE + GT_PANFROST_NR_PERFCNT_DUMP, struct gt_panfrost_perfcnt_dump)

/* The values the kernel's own header gives these requests (the same on
 * x86_64 and aarch64). */
_Static_assert(GT_PANFROST_GET_PARAM == 0xc0106444ul, "GET_PARAM request");
_Static_assert(GT_PANFROST_PERFCNT_ENABLE == 0x40086446ul, "PERFCNT_ENABLE request");
_Static_assert(GT_PANFROST_PERFCNT_DUMP == 0x40086447ul, "PERFCNT_DUMP request");

/* enum drm_panfrost_param, in the kernel's order. */
enum {
    GT_PANFROST_PARAM_GPU_PROD_ID = 0,
    GT_PANFROST_PARAM_GPU_REVISION = 1,
    GT_PANFROST_PARAM_SHADER_PRESENT = 2,
    GT_PANFROST_PARAM_TILER_PRESENT = 3,
    GT_PANFROST_PARAM_L2_PRESENT = 4,
    GT_PANFROST_PARAM_L2_FEATURES = 8,
    GT_PANFROST_PARAM_MEM_FEATURES = 11,
};

/* Each perfcnt block is 64 32-bit values; four header words first. */
#define GT_PANFROST_BLOCK_VALUES 64
#define GT_PANFROST_BLOCK_BYTES  (GT_PANFROST_BLOCK_VALUES * 4)

#endif
