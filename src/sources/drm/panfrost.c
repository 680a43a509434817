/* The panfrost counter source (mainline Linux, Mali Midgard/Bifrost):
 * GET_PARAM names the GPU and sizes the dump, PERFCNT_DUMP takes one each
 * sample, and the dump, laid out as kbase's legacy one, is mapped onto the
 * same catalogue as the kbase source, so the dashboards are the same. */
#include "gputop/drm.h"
#include "gputop/fdinfo.h"
#include "gputop/kbase.h"
#include "gputop/panfrost_uapi.h"
#include "gputop/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_NODE "/dev/dri/renderD128"

struct panfrost_src {
    const struct gt_sys *sys;
    int fd;
    char path[64];
    struct gt_kbase_gpu gpu;
    uint32_t shader_blocks;    /* fls64(SHADER_PRESENT): the dump counts holes */
    size_t dump_size;
    uint8_t *dump;
    struct gt_kbase_frame frame;
    struct gt_kbase_map map;
    int enabled;
    int defaulted;             /* no panfrost device listed: path is the default */
    uint64_t prev_ns;          /* end of the previous dump */
    uint64_t saturations;
};

static int pioctl(const struct panfrost_src *p, unsigned long req, void *arg)
{
    return p->sys->ioctl(p->sys->ctx, p->fd, req, arg);
}

static unsigned fls64(uint64_t m)
{
    unsigned n = 0;

    while (n < 64 && (m >> n) != 0)
        n++;
    return n;
}

static unsigned popcount64(uint64_t m)
{
    unsigned n = 0;

    for (; m; m &= m - 1)
        n++;
    return n;
}

static int get_param(struct panfrost_src *p, uint32_t param, const char *name, uint64_t *v,
                     struct gt_diag *d)
{
    struct gt_panfrost_get_param gp = { .param = param, .pad = 0, .value = 0 };

    if (pioctl(p, GT_PANFROST_GET_PARAM, &gp) < 0) {
        int e = errno;
        gt_diag_errno(d, e, "%s: panfrost GET_PARAM %s failed: %s%s", p->path, name, strerror(e),
                      e == ENOTTY || e == EINVAL ? " (is this a panfrost device? see gputop "
                                                   "--probe)" : "");
        return -1;
    }
    *v = gp.value;
    return 0;
}

/* L2_FEATURES bits 31:24 are log2 of the bus width in bits. */
static uint32_t bus_width(uint64_t l2_features)
{
    unsigned e = (unsigned)((l2_features >> 24) & 0xFF);

    return e >= 3 && e <= 12 ? 1u << e : 0;
}

/* The GPU as GET_PARAM describes it, in the kbase source's terms:
 * panfrost's product id is GPU_ID's top half and the revision its bottom
 * half; the L2 slice count is MEM_FEATURES bits 11:8 plus one, as the
 * kernel sizes the dump. */
static int identify(struct panfrost_src *p, struct gt_diag *d)
{
    uint64_t prod, rev, shader, mem, l2f;
    struct gt_kbase_gpu *g = &p->gpu;

    if (get_param(p, GT_PANFROST_PARAM_GPU_PROD_ID, "GPU_PROD_ID", &prod, d) < 0 ||
        get_param(p, GT_PANFROST_PARAM_GPU_REVISION, "GPU_REVISION", &rev, d) < 0 ||
        get_param(p, GT_PANFROST_PARAM_SHADER_PRESENT, "SHADER_PRESENT", &shader, d) < 0 ||
        get_param(p, GT_PANFROST_PARAM_MEM_FEATURES, "MEM_FEATURES", &mem, d) < 0 ||
        get_param(p, GT_PANFROST_PARAM_L2_FEATURES, "L2_FEATURES", &l2f, d) < 0)
        return -1;
    memset(g, 0, sizeof(*g));
    g->gpu_id = ((prod & 0xFFFF) << 16) | (rev & 0xFFFF);
    g->core_mask = shader;
    g->shader_cores = popcount64(shader);
    g->l2_slices = (uint32_t)((mem >> 8) & 0xF) + 1;
    g->bus_width_bits = bus_width(l2f);
    g->major_rev = (uint32_t)(rev >> 12) & 0xF;
    g->minor_rev = (uint32_t)(rev >> 4) & 0xFF;
    p->shader_blocks = fls64(shader);
    p->dump_size = (size_t)(g->l2_slices + p->shader_blocks + 2) * GT_PANFROST_BLOCK_BYTES;
    if (!g->shader_cores) {
        gt_diag_set(d, "%s: panfrost reports no shader cores (SHADER_PRESENT 0)", p->path);
        return -1;
    }
    return 0;
}

static int enable(struct panfrost_src *p, uint32_t on, struct gt_diag *d)
{
    struct gt_panfrost_perfcnt_enable en = { .enable = on, .counterset = 0 };
    int e;

    if (pioctl(p, GT_PANFROST_PERFCNT_ENABLE, &en) == 0) {
        p->enabled = (int)on;
        return 0;
    }
    e = errno;
    if (e == ENOSYS)
        gt_diag_errno(d, e, "%s: panfrost's counter ioctls are off (ENOSYS): the kernel "
                      "hides them behind the module parameter unstable_ioctls; as root run "
                      "'echo Y > /sys/module/panfrost/parameters/unstable_ioctls' (or load "
                      "panfrost with unstable_ioctls=1; it taints the kernel)", p->path);
    else if (e == EBUSY)
        gt_diag_errno(d, e, "%s: another program owns panfrost's counters (EBUSY: "
                      "PERFCNT_ENABLE allows one client at a time); stop it (a Perfetto "
                      "pps-producer, panquick, another gputop) and retry", p->path);
    else
        gt_diag_errno(d, e, "%s: panfrost PERFCNT_ENABLE failed: %s", p->path, strerror(e));
    return -1;
}

static int dump(struct panfrost_src *p, struct gt_diag *d)
{
    struct gt_panfrost_perfcnt_dump pd = { .buf_ptr = (uint64_t)(uintptr_t)p->dump };
    int e;

    if (pioctl(p, GT_PANFROST_PERFCNT_DUMP, &pd) == 0)
        return 0;
    e = errno;
    if (e == ETIMEDOUT)
        gt_diag_errno(d, e, "%s: the GPU did not finish the counter dump in time (ETIMEDOUT, "
                      "the kernel waits 1 s); no data for this interval", p->path);
    else if (e == EINVAL)
        gt_diag_errno(d, e, "%s: panfrost refused the counter dump (EINVAL): this client no "
                      "longer owns the counters", p->path);
    else
        gt_diag_errno(d, e, "%s: panfrost PERFCNT_DUMP failed: %s", p->path, strerror(e));
    return -1;
}

static void panfrost_close(struct gt_source *s)
{
    struct panfrost_src *p = s->priv;

    if (!p)
        return;
    if (p->fd >= 0) {
        if (p->enabled) {
            struct gt_diag ignored;
            enable(p, 0, &ignored);
        }
        p->sys->close(p->sys->ctx, p->fd);
    }
    gt_kbase_frame_free(&p->frame);
    gt_kbase_map_free(&p->map);
    free(p->dump);
    free(p);
    s->priv = NULL;
}

static int open_node(struct panfrost_src *p, struct gt_diag *d)
{
    p->fd = p->sys->open(p->sys->ctx, p->path, O_RDWR | O_CLOEXEC);
    if (p->fd >= 0)
        return 0;
    if (errno == EACCES)
        gt_diag_errno(d, errno, "%s: permission denied; render nodes are usually group "
                      "'render': add yourself to it (sudo usermod -aG render $USER, then log "
                      "in again)", p->path);
    else
        gt_diag_errno(d, errno, "%s: cannot open: %s%s", p->path, strerror(errno), p->defaulted
                      ? " (no DRM device driven by panfrost was found, so gputop tried the "
                        "default node; name yours: panfrost:/dev/dri/renderDN)" : "");
    return -1;
}

/* parse_args's arguments; the type lists them too, for --help's test. */
static const char *const panfrost_keys[] = { "", NULL };

static int parse_args(struct panfrost_src *p, const char *args, struct gt_diag *d)
{

    if (gt_args_check(args, panfrost_keys, "panfrost", d) < 0)
        return -1;
    if (gt_args_get(args, "", p->path, sizeof(p->path)) && p->path[0])
        return 0;
    if (gt_drm_find_driver(p->sys, "panfrost", p->path, sizeof(p->path)) < 0) {
        snprintf(p->path, sizeof(p->path), "%s", DEFAULT_NODE);
        p->defaulted = 1;
    }
    return 0;
}

/* The GPU's top clock, which panfrost prints in every client's fdinfo
 * from kernel 6.6 (drm-maxfreq-*, its devfreq's fastest rate): our own
 * node's tells it without a sysfs walk. 0 when the kernel prints none. */
static double max_clock_hz(const struct panfrost_src *p)
{
    struct gt_fdinfo_client c;
    char path[64], text[2048];
    uint64_t hz = 0;
    int i;

    snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", p->fd);
    if (gt_sys_read_file(p->sys, path, text, sizeof(text)) < 0 || gt_fdinfo_parse(text, &c) < 0)
        return 0;
    for (i = 0; i < c.nengines; i++)
        if (c.engine[i].maxfreq_hz > hz)
            hz = c.engine[i].maxfreq_hz;
    return (double)hz;
}

static int build_catalog(struct gt_source *s, struct panfrost_src *p, struct gt_diag *d)
{
    const struct gt_kbase_gpu *g = &p->gpu;
    struct gt_device_desc desc = { g->table, g->shader_cores, g->l2_slices, g->bus_width_bits,
                                   0 };
    double hz = max_clock_hz(p);

    if (gt_catalog_add_device(&s->catalog, &desc) < 0 ||
        (hz > 0 && gt_catalog_add_constant(&s->catalog, GT_MALI_MAX_CLOCK_HZ, hz) < 0) ||
        gt_kbase_map_build(&p->map, &s->catalog) < 0 ||
        gt_kbase_frame_init(&p->frame, g) < 0 || gt_kbase_map_plan(&p->map, &p->frame) < 0 ||
        !(p->dump = calloc(1, p->dump_size))) {
        gt_diag_set(d, "%s: cannot build the %s counter catalogue", p->path, g->table);
        return -1;
    }
    return 0;
}

static void describe(struct gt_source *s, const struct panfrost_src *p)
{
    const struct gt_kbase_gpu *g = &p->gpu;

    snprintf(s->info.device, sizeof(s->info.device), "%s", p->path);
    gt_mali_name_cores(s->info.gpu, sizeof(s->info.gpu), g->name, g->shader_cores);
    snprintf(s->info.layout, sizeof(s->info.layout), "%s", g->layout ? g->layout : "");
    snprintf(s->info.family, sizeof(s->info.family), "%s", g->layout ? g->layout : "");
    s->info.gpu_id = g->gpu_id;
    s->info.shader_cores = g->shader_cores;
    s->info.core_mask = g->core_mask;
    s->info.l2_slices = g->l2_slices;
    s->info.bus_width_bits = g->bus_width_bits;
    snprintf(s->info.detail, sizeof(s->info.detail), "panfrost perfcnt, %zu-byte dumps, r%up%u",
             p->dump_size, g->major_rev, g->minor_rev);
}

static int panfrost_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    struct panfrost_src *p = calloc(1, sizeof(*p));

    if (!p) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return -1;
    }
    p->sys = s->sys;
    p->fd = -1;
    s->priv = p;
    if (parse_args(p, args, d) < 0 || open_node(p, d) < 0 || identify(p, d) < 0)
        goto fail;
    if (!gt_kbase_identify(&p->gpu)) {
        gt_diag_set(d, "%s: %s (GPU id 0x%08llx, %u cores) has no gputop counter table; through "
                       "panfrost gputop reads the Midgard and Bifrost GPUs it has tables for "
                       "(T760, T8x0, G52, G76; the mali source reads any Mali)", p->path, p->gpu.name,
                    (unsigned long long)p->gpu.gpu_id, p->gpu.shader_cores);
        goto fail;
    }
    if (p->gpu.values_per_block != GT_PANFROST_BLOCK_VALUES) {
        gt_diag_set(d, "%s: %s counts %u values a block; panfrost dumps 64", p->path,
                    p->gpu.name, p->gpu.values_per_block);
        goto fail;
    }
    /* Enabled now, so a locked or busy counter unit shows before the
     * dashboard does. */
    if (build_catalog(s, p, d) < 0 || enable(p, 1, d) < 0)
        goto fail;
    describe(s, p);
    return 0;
fail:
    panfrost_close(s);
    return -1;
}

/* The first dump clears what piled up since ENABLE: each dump after it
 * holds the counts since the one before (the hardware clears on sample,
 * as Mesa's pps driver and kbase's Job Manager backend read it). */
static int panfrost_start(struct gt_source *s, struct gt_diag *d)
{
    struct panfrost_src *p = s->priv;

    if (dump(p, d) < 0)
        return -1;
    p->prev_ns = gt_now_ns();
    return 0;
}

/* "DUMP failed: ENODEV; reopening: cannot open: ..." in d. */
static void note_reopen(struct gt_diag *d, const struct gt_diag *why)
{
    char gone[GT_DIAG_MSG];

    snprintf(gone, sizeof(gone), "%s", d->msg);
    gt_diag_set(d, "%.200s; reopening: %.250s", gone, why->msg);
}

/* After an unbind (hot unplug, driver reload) the file answers ENODEV for
 * good: it is closed, and each sample tries a new one, enables the
 * counters and takes the dump that clears them. That interval has no
 * counts; the next one has. */
static int reopen(struct panfrost_src *p, struct gt_diag *d)
{
    struct gt_diag ignored;

    if (p->fd >= 0) {
        if (p->enabled)
            enable(p, 0, &ignored);
        p->sys->close(p->sys->ctx, p->fd);
        p->fd = -1;
        p->enabled = 0;
    }
    if (open_node(p, d) < 0)
        return -1;
    if (enable(p, 1, d) < 0 || dump(p, d) < 0) {
        if (p->enabled)
            enable(p, 0, &ignored);
        p->enabled = 0;
        p->sys->close(p->sys->ctx, p->fd);
        p->fd = -1;
        return -1;
    }
    p->prev_ns = gt_now_ns();
    gt_diag_set(d, "%s: reopened after the device went away; counting resumes next interval",
                p->path);
    return -1;
}

static enum gt_sample_result panfrost_sample(struct gt_source *s, struct gt_snapshot *out,
                                             struct gt_diag *d)
{
    static const uint32_t all[GT_KB_NBLOCKS] = { 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF };
    struct panfrost_src *p = s->priv;
    uint64_t now;

    if (p->fd < 0)
        return reopen(p, d);
    if (dump(p, d) < 0) {
        struct gt_diag why;
        if (d->code != GT_ERR_NODEV)
            return GT_SAMPLE_ERROR;
        gt_diag_clear(&why);
        if (reopen(p, &why) < 0 && p->fd < 0)
            note_reopen(d, &why);
        else
            gt_diag_set(d, "%s", why.msg);
        return GT_SAMPLE_ERROR;
    }
    now = gt_now_ns();
    gt_kbase_frame_clear(&p->frame);
    gt_kbase_decode_legacy(&p->frame, &p->gpu, p->dump, p->shader_blocks, all);
    gt_kbase_map_copy(&p->map, &p->frame, out);
    out->t_start_ns = p->prev_ns;
    out->t_end_ns = now;
    out->nsamples = 1;
    p->prev_ns = now;
    if (p->frame.flags & GT_KB_FRAME_SATURATED) {
        p->saturations++;
        gt_diag_set(d, "%s: a 32-bit counter saturated in panfrost's dump (%llu so far); its "
                       "values are too low — use a shorter --interval", p->path,
                    (unsigned long long)p->saturations);
        return GT_SAMPLE_WARN;
    }
    return GT_SAMPLE_OK;
}

static int panfrost_available(const struct gt_sys *sys, char *why, size_t len)
{
    char path[64];

    if (gt_drm_find_driver(sys, "panfrost", path, sizeof(path)) == 0)
        return 0;
    snprintf(why, len, "no DRM device driven by panfrost");
    return -1;
}

const struct gt_source_type gt_source_panfrost = {
    .name = "panfrost",
    .usage = "panfrost[:/dev/dri/renderDN]",
    .help = "Mali Midgard/Bifrost through mainline Linux's panfrost driver (needs "
            "its unstable_ioctls)",
    .keys = panfrost_keys,
    .kind = GT_SOURCE_HARDWARE,
    .available = panfrost_available,
    .probe = gt_drm_probe,
    .open = panfrost_open,
    .start = panfrost_start,
    .sample = panfrost_sample,
    .close = panfrost_close,
};
