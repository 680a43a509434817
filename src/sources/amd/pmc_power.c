/* Keeping GFX powered while the counters run: one request against GFXOFF
 * in debugfs amdgpu_gfxoff (keepon=perfclk, the default, where regs2_pmc.c
 * ungates the perfmon clock itself, and keepon=gfxoff), or the PEAK
 * profile pstate through an AMDGPU context (it also ungates the perfmon
 * clock, and pins the shader clock). */
#include "amd.h"
#include "gputop/amdgpu_uapi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

static int gfxoff_hold(const struct gt_amd_dev *dev, struct gt_amd_hold *h, struct gt_diag *d)
{
    const struct gt_sys *sys = dev->sys;
    char path[96];
    uint32_t zero = 0;

    snprintf(path, sizeof(path), "%s/amdgpu_gfxoff", dev->debugfs);
    h->gfxoff_fd = sys->open(sys->ctx, path, O_RDWR | O_CLOEXEC);
    /* Each 0 written is one reference against GFXOFF; close() does not
     * drop it, so gt_amd_power_release writes the matching 1. */
    if (h->gfxoff_fd < 0 || sys->pwrite(sys->ctx, h->gfxoff_fd, &zero, 4, 0) != 4) {
        gt_diag_errno(d, errno, "%s: cannot keep GFX powered: %s (try keepon=pstate)", path,
                      strerror(errno));
        if (h->gfxoff_fd >= 0)
            sys->close(sys->ctx, h->gfxoff_fd);
        h->gfxoff_fd = -1;
        return -1;
    }
    return 0;
}

static int ctx_op(const struct gt_amd_dev *dev, union drm_amdgpu_ctx *a)
{
    return dev->sys->ioctl(dev->sys->ctx, dev->fd, DRM_IOCTL_AMDGPU_CTX, a);
}

/* A context holding a profile level ungates GFX power and clock gating,
 * the perfmon clock included (amdgpu_ctx.c -> amdgpu_dpm.c ->
 * soc21_update_umd_stable_pstate -> update_perfmon_mgcg(false)). PEAK,
 * not STANDARD: on Strix Halo STANDARD pins GFX at 700 MHz
 * (smu_v14_0_0_ppt.c SMU_14_0_0_UMD_PSTATE_GFXCLK), which would slow the
 * watched work about 4x; PEAK runs it at the maximum shader clock. Only
 * one context on the device may hold a stable pstate (-EBUSY otherwise). */
static int pstate_hold(const struct gt_amd_dev *dev, struct gt_amd_hold *h, struct gt_diag *d)
{
    union drm_amdgpu_ctx a;
    int e;

    memset(&a, 0, sizeof(a));
    a.in.op = AMDGPU_CTX_OP_ALLOC_CTX;
    if (ctx_op(dev, &a) < 0) {
        gt_diag_errno(d, errno, "%s: AMDGPU_CTX alloc failed: %s", dev->drm.render,
                      strerror(errno));
        return -1;
    }
    h->ctx_id = a.out.alloc.ctx_id;
    memset(&a, 0, sizeof(a));
    a.in.op = AMDGPU_CTX_OP_SET_STABLE_PSTATE;
    a.in.ctx_id = h->ctx_id;
    a.in.flags = AMDGPU_CTX_STABLE_PSTATE_PEAK;
    if (ctx_op(dev, &a) == 0) {
        h->pstate = AMDGPU_CTX_STABLE_PSTATE_PEAK;
        return 0;
    }
    e = errno;
    if (e == EBUSY)
        gt_diag_set(d, "%s: another program holds the stable power state (a profiler: RGP, "
                       "rocprof, another gputop): EBUSY; gputop leaves it alone", dev->drm.render);
    else
        gt_diag_errno(d, e, "%s: SET_STABLE_PSTATE PEAK failed: %s", dev->drm.render, strerror(e));
    errno = e;
    return -1;
}

int gt_amd_power_hold(const struct gt_amd_dev *dev, enum gt_amd_keepon keepon,
                      struct gt_amd_hold *h, struct gt_diag *d)
{
    return keepon == GT_KEEPON_PSTATE ? pstate_hold(dev, h, d) : gfxoff_hold(dev, h, d);
}

void gt_amd_power_release(const struct gt_amd_dev *dev, struct gt_amd_hold *h)
{
    const struct gt_sys *sys = dev->sys;
    union drm_amdgpu_ctx a;
    uint32_t one = 1;

    if (h->gfxoff_fd >= 0) {
        sys->pwrite(sys->ctx, h->gfxoff_fd, &one, 4, 0);
        sys->close(sys->ctx, h->gfxoff_fd);
        h->gfxoff_fd = -1;
    }
    if (h->ctx_id) {
        /* Freeing the context restores the level it found. */
        memset(&a, 0, sizeof(a));
        a.in.op = AMDGPU_CTX_OP_FREE_CTX;
        a.in.ctx_id = h->ctx_id;
        ctx_op(dev, &a);
        h->ctx_id = 0;
        h->pstate = 0;
    }
}
