/* libFuzzer target: a hostile Mali kernel. The fake kbase kernel answers
 * every call, then the fuzz input overwrites what the kernel hands back:
 * the GPU-properties buffer, the kinstr_prfcnt enumeration items, and the
 * mapped dump (legacy reader buffers, kinstr sample metadata and values)
 * after each GET_BUFFER / GET_SAMPLE. The Mali source must reject or
 * survive anything, and never read outside what it was given. */
#include "fuzz_common.h"
#include "fakes/fake_kbase.h"
#include "gputop/kbase_uapi.h"
#include "gputop/snapshot.h"
#include "gputop/source.h"

#include <sys/mman.h>

#define MAX_MAPS 8

struct hostile {
    const struct gt_sys *inner;
    struct gt_sys sys;
    const uint8_t *data;
    size_t size, pos;
    struct { void *addr; size_t len; } maps[MAX_MAPS];
};

/* Overwrites n bytes at p with the next fuzz bytes (cycling). */
static void scribble(struct hostile *h, void *p, size_t n)
{
    uint8_t *b = p;

    if (!h->size)
        return;
    for (size_t i = 0; i < n; i++) {
        b[i] = h->data[h->pos];
        h->pos = (h->pos + 1) % h->size;
    }
}

static int h_open(void *ctx, const char *path, int flags)
{
    struct hostile *h = ctx;
    return h->inner->open(h->inner->ctx, path, flags);
}

static int h_close(void *ctx, int fd)
{
    struct hostile *h = ctx;
    return h->inner->close(h->inner->ctx, fd);
}

static void scribble_maps(struct hostile *h)
{
    for (int i = 0; i < MAX_MAPS; i++)
        if (h->maps[i].addr)
            scribble(h, h->maps[i].addr, h->maps[i].len);
}

static int h_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
    struct hostile *h = ctx;
    int rc = h->inner->ioctl(h->inner->ctx, fd, req, arg);

    if (rc < 0)
        return rc;
    if (req == GT_KBASE_IOCTL_GET_GPUPROPS) {
        struct gt_kbase_get_gpuprops *g = arg;
        if (g->buffer)
            scribble(h, (void *)(uintptr_t)g->buffer, g->size);
    } else if (req == GT_UK_IOCTL_GPU_PROPS) {
        /* The pre-r21 struct, past its call header. */
        scribble(h, (uint8_t *)arg + sizeof(union gt_uk_header),
                 _IOC_SIZE(req) - sizeof(union gt_uk_header));
    } else if (req == GT_KBASE_IOCTL_KINSTR_PRFCNT_ENUM_INFO) {
        struct gt_kbase_kinstr_prfcnt_enum_info *e = arg;
        if (e->info_list_ptr)
            scribble(h, (void *)(uintptr_t)e->info_list_ptr,
                     (size_t)e->info_item_size * e->info_item_count);
    } else if (req == GT_KINSTR_PRFCNT_GET_SAMPLE) {
        scribble_maps(h);
        scribble(h, arg, sizeof(struct gt_prfcnt_sample_access));
    } else if (req == GT_KBASE_HWCNT_READER_GET_BUFFER ||
               req == GT_KBASE_HWCNT_READER_GET_BUFFER_WITH_CYCLES) {
        scribble_maps(h);
        scribble(h, arg, _IOC_SIZE(req));
    }
    return rc;
}

static void *h_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    struct hostile *h = ctx;
    void *p = h->inner->mmap(h->inner->ctx, addr, len, prot, flags, fd, off);

    if (p == MAP_FAILED)
        return p;
    for (int i = 0; i < MAX_MAPS; i++)
        if (!h->maps[i].addr) {
            h->maps[i].addr = p;
            h->maps[i].len = len;
            break;
        }
    return p;
}

static int h_munmap(void *ctx, void *addr, size_t len)
{
    struct hostile *h = ctx;

    for (int i = 0; i < MAX_MAPS; i++)
        if (h->maps[i].addr == addr)
            h->maps[i].addr = NULL;
    return h->inner->munmap(h->inner->ctx, addr, len);
}

static ssize_t h_read(void *ctx, int fd, void *buf, size_t len)
{
    struct hostile *h = ctx;
    return h->inner->read(h->inner->ctx, fd, buf, len);
}

static int h_poll(void *ctx, struct pollfd *fds, nfds_t n, int timeout_ms)
{
    struct hostile *h = ctx;
    return h->inner->poll(h->inner->ctx, fds, n, timeout_ms);
}

static void wrap(struct hostile *h, const struct gt_sys *inner)
{
    h->inner = inner;
    h->sys = *inner;
    h->sys.ctx = h;
    h->sys.open = h_open;
    h->sys.close = h_close;
    h->sys.ioctl = h_ioctl;
    h->sys.mmap = h_mmap;
    h->sys.munmap = h_munmap;
    h->sys.read = h_read;
    h->sys.poll = h_poll;
    h->sys.pread = NULL;            /* the fake kbase kernel has neither */
    h->sys.perf_event_open = NULL;
}

static void run(const struct gt_sys *sys, const char *spec)
{
    struct gt_diag d;
    struct gt_source *s;
    struct gt_snapshot snap;
    unsigned char used[4096];

    gt_diag_clear(&d);
    s = gt_source_open(spec, sys, &d);
    if (!s)
        return;
    memset(used, 1, sizeof(used));
    if (s->type->select && s->type->select(s, used, &d) < 0)
        goto out;
    if (s->type->start(s, &d) < 0 || gt_snapshot_init(&snap, s->catalog.nslots) < 0)
        goto out;
    for (int i = 0; i < 4; i++) {
        gt_snapshot_zero(&snap);
        if (s->type->sample(s, &snap, &d) < 0)
            break;
    }
    gt_snapshot_free(&snap);
out:
    gt_source_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct { enum fk_gpu gpu; enum fk_api api; unsigned major, minor; } kernels[] = {
        { FK_T830, FK_PRE_R21, 10, 6 }, { FK_T830, FK_JM, 11, 20 },
        { FK_G715, FK_CSF, 1, 21 }, { FK_G720, FK_CSF, 1, 24 },
    };
    static const char *const specs[] = { "mali:interface=legacy", "mali:interface=kinstr" };
    struct fk_config c;
    struct fake_kbase *fk;
    struct hostile h;

    if (size < 1)
        return 0;
    memset(&c, 0, sizeof(c));
    c.gpu = kernels[data[0] & 3].gpu;
    c.api = kernels[data[0] & 3].api;
    c.major = kernels[data[0] & 3].major;
    c.minor = kernels[data[0] & 3].minor;
    c.new_gate = 1;
    fk = fk_new(&c);
    if (!fk)
        return 0;
    memset(&h, 0, sizeof(h));
    wrap(&h, fk_sys(fk));
    h.data = data + 1;
    h.size = size - 1;
    run(&h.sys, specs[(data[0] >> 2) & 1]);
    fk_free(fk);
    return 0;
}
