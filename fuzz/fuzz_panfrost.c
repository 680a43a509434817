/* libFuzzer target: a hostile panfrost kernel. The fake panfrost device
 * answers, then the input rewrites its GET_PARAM values and each counter
 * dump; the dump is as long as the GET_PARAM answers make it (the kernel
 * sizes it from L2 and shader-core counts), so the source is held only to
 * what it was told. */
#include "hostile.h"
#include "fakes/fake_panfrost.h"
#include "gputop/panfrost_uapi.h"

struct pf_hostile {
    struct hostile h;
    uint64_t shader, mem;     /* as last answered */
};

static size_t claimed_dump(const struct pf_hostile *p)
{
    unsigned blocks = 0;

    while (blocks < 64 && (p->shader >> blocks) != 0)
        blocks++;
    return (((p->mem >> 8) & 0xF) + 1 + blocks + 2) * GT_PANFROST_BLOCK_BYTES;
}

static int pf_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
    struct pf_hostile *p = ctx;
    struct hostile *h = &p->h;

    if (req == GT_PANFROST_PERFCNT_DUMP) {
        static uint8_t full[64 * 64 * 4 * 2];
        struct gt_panfrost_perfcnt_dump *pd = arg, mine = { .buf_ptr = (uintptr_t)full };
        int rc = h->inner->ioctl(h->inner->ctx, fd, req, &mine);
        size_t n = claimed_dump(p);

        if (rc < 0 || !pd->buf_ptr)
            return rc;
        memcpy((void *)(uintptr_t)pd->buf_ptr, full, n);
        hostile_scribble(h, (void *)(uintptr_t)pd->buf_ptr, n);
        return rc;
    }
    if (h->inner->ioctl(h->inner->ctx, fd, req, arg) < 0)
        return -1;
    if (req == GT_PANFROST_GET_PARAM) {
        struct gt_panfrost_get_param *gp = arg;
        hostile_scribble(h, &gp->value, sizeof(gp->value));
        if (gp->param == GT_PANFROST_PARAM_SHADER_PRESENT)
            p->shader = gp->value;
        else if (gp->param == GT_PANFROST_PARAM_MEM_FEATURES)
            p->mem = gp->value;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fp_config c = { .unstable_ioctls = 1, .shader_present = 0, .prod_id = 0 };
    struct fake_panfrost *fp;
    struct pf_hostile p;

    if (size < 1)
        return 0;
    fp = fp_new(&c);
    if (!fp)
        abort();
    hostile_wrap(&p.h, fp_sys(fp), data + 1, size - 1);
    p.shader = 0;
    p.mem = 0;
    p.h.sys.ctx = &p;   /* p.h comes first: the wrappers see their hostile */
    p.h.sys.ioctl = pf_ioctl;
    hostile_run(&p.h.sys, "panfrost:/dev/dri/renderD129", 1u + (data[0] & 7), 4);
    fp_free(fp);
    return 0;
}
