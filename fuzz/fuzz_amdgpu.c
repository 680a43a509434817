/* libFuzzer target: a hostile amdgpu kernel. The fake amdgpu answers
 * every call, then the input rewrites what comes back: DRM_IOCTL_VERSION's
 * name and numbers, every AMDGPU_INFO reply (DEV_INFO, HW_IP_INFO,
 * SENSOR, READ_MMR_REG, ...), the debugfs amdgpu_regs2 reads, and the
 * sysfs files (power/runtime_status, gpu_metrics). Open, start, a few
 * samples, close; the first input byte picks the GPU, its state and the
 * source's options. */
#include "hostile.h"
#include "fakes/fake_amdgpu.h"
#include "gputop/amdgpu_uapi.h"

static void amd_ioctl(struct hostile *h, unsigned long req, void *arg)
{
    if (req == DRM_IOCTL_AMDGPU_INFO) {
        struct drm_amdgpu_info *q = arg;
        if (q->return_pointer && q->return_size)
            hostile_scribble(h, (void *)(uintptr_t)q->return_pointer, q->return_size);
    } else if (req == DRM_IOCTL_VERSION) {
        struct drm_version *v = arg;
        hostile_scribble(h, &v->version_major, 3 * sizeof(int));
        /* The kernel copies min(name_len, its own) bytes, no NUL, and
         * writes back its own length, which may be the larger. */
        if (v->name && v->name_len)
            hostile_scribble(h, v->name, v->name_len);
        hostile_scribble(h, &v->name_len, sizeof(v->name_len));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const specs[] = {
        "amdgpu:polls=1", "amdgpu:polls=2,pmc=on", "amdgpu:keepon=pstate,polls=1",
        "amdgpu:mode=metrics",
    };
    static const enum fa_metrics metrics[] = {
        FA_METRICS_V3_0, FA_METRICS_V2_1, FA_METRICS_NONE, FA_METRICS_V9_9,
    };
    struct fa_config c;
    struct fake_amdgpu *fa;
    struct hostile h;

    if (size < 1)
        return 0;
    memset(&c, 0, sizeof(c));
    c.gpu = data[0] & 1 ? FA_NAVI10 : FA_GFX1151;
    c.power = data[0] & 2 ? NULL : "active\n";
    c.root = !(data[0] & 4);
    c.metrics = metrics[(data[0] >> 3) & 3];
    fa = fa_new(&c);
    if (!fa)
        abort();
    hostile_wrap(&h, fa_sys(fa), data + 1, size - 1);
    h.on_ioctl = amd_ioctl;
    hostile_run(&h.sys, specs[(data[0] >> 5) & 3], 1u + (data[0] >> 7) * 7, 3);
    fa_free(fa);
    return 0;
}
