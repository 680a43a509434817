/* The Mali hardware source: opens the kbase device (kbase_dev.c), starts the
 * counter reader the kernel supports and maps each dump onto the catalogue. */
#include "gputop/kbase.h"
#include "gputop/kbase_uapi.h"
#include "gputop/source.h"
#include "kbase_src.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ---- the catalogue and the counter map ---- */

/* Enables the mapped counters marked in used (all when NULL), which is
 * indexed by catalogue counter. */
static void masks_for(const struct kbase_src *k, const unsigned char *used,
                      struct gt_kbase_enable *en)
{
    size_t i;

    memset(en, 0, sizeof(*en));
    for (i = 0; i < k->map.n; i++) {
        const struct gt_kbase_hw_map *m = &k->map.map[i];
        if (used && !used[m->counter])
            continue;
        en->mask[m->block][m->index / 64] |= 1ull << (m->index % 64);
    }
}

static void drop_live(struct kbase_src *k)
{
    if (k->live.map != k->map.map) {
        free(k->live.map);
        free(k->live.copy);
    }
    k->live = k->map;
}

/* At 1 kHz the copy is a good part of a sample's own cost: only the
 * counters select() asked for are copied (aliases and the rest of their
 * groups of four are counted but read by nothing), or, for a capture, all
 * those in an enabled group. Without memory for it, live stays the whole
 * map. */
static void live_map(struct kbase_src *k)
{
    struct gt_kbase_hw_map *l;
    size_t i, n = 0;

    drop_live(k);
    l = calloc(k->map.n ? k->map.n : 1, sizeof(*l));
    if (!l)
        return;
    for (i = 0; i < k->map.n; i++) {
        const struct gt_kbase_hw_map *h = &k->map.map[i];
        /* the kernel enables counters in groups of four */
        if (k->want ? k->want[h->counter] != 0
                    : (k->enabled.mask[h->block][h->index / 64] >> (h->index / 4 * 4 % 64)) & 0xF)
            l[n++] = *h;
    }
    k->live.map = l;
    k->live.n = n;
    k->live.copy = NULL;
    if (gt_kbase_map_plan(&k->live, &k->frame) < 0) {
        free(l);
        k->live = k->map;
    }
}

static int open_reader(struct kbase_src *k, const struct gt_kbase_enable *en, struct gt_diag *d)
{
    int r = k->iface == IFACE_LEGACY
          ? gt_kbase_vinstr_open(&k->reader, &k->dev, en, d)
          : gt_kbase_kinstr_open_periodic(&k->reader, &k->dev, en, k->period, d);
    if (r < 0)
        return -1;
    k->reader.period_ns = k->period;
    k->reader_open = 1;
    k->enabled = *en;
    live_map(k);
    return 0;
}

static void close_reader(struct kbase_src *k)
{
    if (k->reader_open)
        k->reader.ops->close(&k->reader);
    k->reader_open = 0;
}

/* GPU clock cycles from the kernel's own clock items, when it sends them. */
static int add_clock_counters(struct gt_source *s, struct kbase_src *k)
{
    static const char *const names[2] = { "MaliGPUClockCycles", "MaliShaderCoreClockCycles" };
    uint32_t i;

    k->clock_counter[0] = k->clock_counter[1] = -1;
    for (i = 0; i < k->reader.ncycles && i < 2; i++) {
        k->clock_counter[i] = gt_catalog_add(&s->catalog, names[i], "front-end",
                                             GT_COUNTER_DELTA, 1, 1.0);
        if (k->clock_counter[i] < 0)
            return -1;
    }
    return 0;
}

/* The max clock the kernel reports (GPU_FREQ_KHZ_MAX), when it does: the
 * busy share's base when the kernel sends no clock cycles. */
static int add_max_clock(struct gt_source *s, const struct kbase_src *k)
{
    if (!k->dev.gpu.freq_khz_max)
        return 0;
    return gt_catalog_add_constant(&s->catalog, GT_MALI_MAX_CLOCK_HZ,
                                   k->dev.gpu.freq_khz_max * 1000.0) < 0 ? -1 : 0;
}

/* The fewest values per block the open reader delivers (the legacy
 * reader 64; kinstr_prfcnt what ENUM_INFO said, 64 on a CSF kernel that
 * found the GPU's PRFCNT_FEATURES not valid), and how many of the table's
 * counters lie past it. */
static void find_cut(struct kbase_src *k)
{
    const struct gt_counter_table *t = gt_counter_table_find(k->dev.gpu.table);
    uint32_t v = GT_KB_MAX_VALUES;
    size_t i;
    int b;

    for (b = 0; b < GT_KB_NBLOCKS; b++)
        if (k->reader.values[b] < v)
            v = k->reader.values[b];
    k->cut = 0;
    k->ncut = 0;
    for (i = 0; t && i < t->ndefs; i++)
        k->ncut += gt_counter_table_def(t, i).index >= (int)v;
    if (k->ncut)
        k->cut = v;
}

/* Why each counter past the cut is out of reach, so the metrics that need
 * them say so in the dashboard's rows and footer, not only in --probe. */
static int add_cut_reasons(struct gt_source *s, const struct kbase_src *k)
{
    const struct gt_counter_table *t = gt_counter_table_find(k->dev.gpu.table);
    char why[160];
    size_t i;

    if (!k->cut || !t)
        return 0;
    snprintf(why, sizeof(why), "not delivered: %s gives %u values per block (counters %u..%u)",
             k->iface == IFACE_LEGACY ? "the legacy reader" : "this kernel's kinstr_prfcnt",
             k->cut, k->cut, GT_KB_MAX_VALUES - 1);
    for (i = 0; i < t->ndefs; i++) {
        struct gt_counter_def def = gt_counter_table_def(t, i);
        if (def.index >= (int)k->cut && gt_catalog_add_absent(&s->catalog, def.name, why) < 0)
            return -1;
    }
    return 0;
}

/* A GPU with no counter table (a newer Mali, or an old one gputop has no
 * names for): every value the reader delivers past each block's 4-value
 * header becomes a counter named by block and index ("MaliRawShaderCore26"),
 * shown by the raw layout. */
static int add_raw_counters(struct gt_catalog *c, const struct kbase_src *k)
{
    static const char *const block[GT_KB_NBLOCKS] = { "front-end", "tiler", "memsys",
                                                      "shadercore" };
    static const char *const tag[GT_KB_NBLOCKS] = { "FrontEnd", "Tiler", "Memsys",
                                                    "ShaderCore" };
    const struct gt_kbase_gpu *g = &k->dev.gpu;
    const uint32_t inst[GT_KB_NBLOCKS] = { 1, 1, g->l2_slices, g->shader_cores };
    char name[48];
    uint32_t i, n;
    int b, at;

    for (b = 0; b < GT_KB_NBLOCKS; b++) {
        n = k->reader.values[b] < GT_KB_MAX_VALUES ? k->reader.values[b] : GT_KB_MAX_VALUES;
        for (i = 4; i < n; i++) {
            snprintf(name, sizeof(name), "MaliRaw%s%u", tag[b], i);
            at = gt_catalog_add(c, name, block[b], GT_COUNTER_DELTA, inst[b], 1.0);
            if (at < 0)
                return -1;
            c->counters[at].hw_index = (int)i;
        }
    }
    if (gt_catalog_add_constant(c, "MaliConstantsShaderCoreCount", g->shader_cores) < 0 ||
        gt_catalog_add_constant(c, "MaliConstantsL2SliceCount", g->l2_slices) < 0)
        return -1;
    return g->bus_width_bits &&
           gt_catalog_add_constant(c, "MaliConstantsBusWidthBits", g->bus_width_bits) < 0 ? -1 : 0;
}

static int add_counters(struct gt_catalog *c, const struct kbase_src *k)
{
    const struct gt_kbase_gpu *g = &k->dev.gpu;
    struct gt_device_desc desc = { g->table, g->shader_cores, g->l2_slices, g->bus_width_bits,
                                   (int)k->cut };

    return g->table ? gt_catalog_add_device(c, &desc) : add_raw_counters(c, k);
}

/* Counters the reader cannot deliver are left out, so the metrics that
 * need them say they are unavailable instead of reading zero. */
static int build_catalog(struct gt_source *s, struct kbase_src *k, struct gt_diag *d)
{
    const struct gt_kbase_gpu *g = &k->dev.gpu;

    if (add_counters(&s->catalog, k) < 0 ||
        gt_kbase_map_build(&k->map, &s->catalog) < 0 || add_max_clock(s, k) < 0 ||
        add_cut_reasons(s, k) < 0) {
        gt_diag_set(d, "%s: cannot build the %s counter catalogue", k->dev.path,
                    g->table ? g->table : "raw");
        return -1;
    }
    return 0;
}

/* ---- the source ---- */

/* parse_args's arguments; the type lists them too, for --help's test. */
static const char *const kbase_keys[] = { "", "interface", NULL };

static int parse_args(struct kbase_src *k, const char *args, char *path, size_t len,
                      struct gt_diag *d)
{
    char buf[64];

    if (gt_args_check(args, kbase_keys, "mali", d) < 0)
        return -1;
    if (!gt_args_get(args, "", path, len) || !path[0])
        snprintf(path, len, "/dev/mali0");
    k->forced = IFACE_AUTO;
    if (gt_args_get(args, "interface", buf, sizeof(buf))) {
        if (strcmp(buf, "legacy") == 0)
            k->forced = IFACE_LEGACY;
        else if (strcmp(buf, "kinstr") == 0)
            k->forced = IFACE_KINSTR;
        else if (strcmp(buf, "auto") != 0) {
            gt_diag_set(d, "mali: interface must be auto, legacy or kinstr, not '%s'", buf);
            return -1;
        }
    }
    return 0;
}

static const char *cut_note(const struct kbase_src *k)
{
    return k->cut == 64 ? "64 values per block: counters 64..127 out of reach"
                        : "fewer values per block than the GPU counts: counters out of reach";
}

/* Why the kernel does not time the samples, or NULL when it can. */
static const char *timer_why(const struct kbase_src *k)
{
    /* 11.34..11.36 / 1.10..1.16: stopping periodic sampling races the
     * periodic dump (fixed in 11.37 / 1.17, kbase.md): such a sample is
     * empty, so these kernels are sampled on the timer */
    if (k->iface == IFACE_KINSTR && gt_kbase_kinstr_buggy(&k->dev))
        return "this kinstr_prfcnt's periodic STOP races (fixed in JM 11.37 / CSF 1.17)";
    return NULL;
}

static void describe_timing(struct gt_source *s, const struct kbase_src *k)
{
    if (timer_why(k))
        return;
    s->info.periodic_min_ns = GT_KB_PERIOD_MIN_NS;
    /* kinstr keeps one of its 32 buffers for the STOP sample */
    s->info.periodic_ring = k->iface == IFACE_KINSTR ? GT_PRFCNT_RING_SAMPLES - 1
                                                     : k->reader.buffers;
    s->info.periodic_clock = CLOCK_MONOTONIC_RAW;
}

static void describe(struct gt_source *s, const struct kbase_src *k)
{
    const struct gt_kbase_dev *dev = &k->dev;
    const char *api = dev->api == GT_KBASE_API_CSF ? "CSF" : dev->api == GT_KBASE_API_JM
                      ? "JM" : "pre-r21";

    snprintf(s->info.device, sizeof(s->info.device), "%s", dev->path);
    gt_mali_name_cores(s->info.gpu, sizeof(s->info.gpu), dev->gpu.name, dev->gpu.shader_cores);
    snprintf(s->info.layout, sizeof(s->info.layout), "%s", gt_kbase_layout_name(&dev->gpu));
    snprintf(s->info.family, sizeof(s->info.family), "%s", gt_kbase_layout_name(&dev->gpu));
    s->info.gpu_id = dev->gpu.gpu_id;
    s->info.shader_cores = dev->gpu.shader_cores;
    s->info.core_mask = dev->gpu.core_mask;
    s->info.l2_slices = dev->gpu.l2_slices;
    s->info.bus_width_bits = dev->gpu.bus_width_bits;
    snprintf(s->info.detail, sizeof(s->info.detail), "kbase %s %u.%u, %s%s%s%s, r%up%u", api,
             dev->major, dev->minor, k->reader.ops ? k->reader.ops->name : "no reader",
             k->cut ? " (" : "", k->cut ? cut_note(k) : "", k->cut ? ")" : "",
             dev->gpu.major_rev, dev->gpu.minor_rev);
    if (timer_why(k)) {
        size_t n = strlen(s->info.detail);
        snprintf(s->info.detail + n, sizeof(s->info.detail) - n, "; timer-sampled: %s",
                 timer_why(k));
    }
    describe_timing(s, k);
}

static void kbase_close(struct gt_source *s)
{
    struct kbase_src *k = s->priv;

    if (!k)
        return;
    close_reader(k);
    gt_kbase_dev_close(&k->dev);
    gt_kbase_frame_free(&k->frame);
    drop_live(k);
    gt_kbase_map_free(&k->map);
    free(k->want);
    free(k);
    s->priv = NULL;
}

static int kbase_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    struct kbase_src *k = calloc(1, sizeof(*k));
    struct gt_kbase_enable all;
    int b;
    char path[64], why[128];
    int iface;

    if (!k) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return -1;
    }
    k->dev.fd = -1;
    s->priv = k;
    if (parse_args(k, args, path, sizeof(path), d) < 0 ||
        gt_kbase_dev_open(&k->dev, s->sys, path, d) < 0)
        goto fail;
    iface = gt_kbase_choose(&k->dev, (int)k->forced, why, sizeof(why));
    if (iface < 0) {
        gt_diag_set(d, "%s: %s", path, why);
        goto fail;
    }
    k->iface = iface == 1 ? IFACE_LEGACY : IFACE_KINSTR;
    /* Set up now with every counter, so access problems show before the
     * dashboard does and the catalogue holds only what the kernel says it
     * delivers; select() narrows it to what the layout reads. */
    for (b = 0; b < GT_KB_NBLOCKS; b++)
        all.mask[b][0] = all.mask[b][1] = ~0ull;
    if (open_reader(k, &all, d) < 0)
        goto fail;
    find_cut(k);
    if (build_catalog(s, k, d) < 0 || gt_kbase_frame_init(&k->frame, &k->dev.gpu) < 0 ||
        add_clock_counters(s, k) < 0 || gt_kbase_map_plan(&k->map, &k->frame) < 0)
        goto fail;
    live_map(k);
    describe(s, k);
    return 0;
fail:
    if (!d->msg[0])
        gt_diag_fail(d, GT_ERR_NOMEM, "%s: out of memory", path);
    kbase_close(s);
    return -1;
}

static int kbase_select(struct gt_source *s, const unsigned char *used, struct gt_diag *d)
{
    struct kbase_src *k = s->priv;
    struct gt_kbase_enable en;

    free(k->want);
    k->want = NULL;
    if (used && !s->capturing) {
        k->want = malloc(s->catalog.ncounters ? s->catalog.ncounters : 1);
        if (k->want)
            memcpy(k->want, used, s->catalog.ncounters);
    }
    masks_for(k, used, &en);
    if (memcmp(&en, &k->enabled, sizeof(en)) == 0) {
        live_map(k);
        return 0;
    }
    close_reader(k);
    return open_reader(k, &en, d);
}

static int kbase_start(struct gt_source *s, struct gt_diag *d)
{
    struct kbase_src *k = s->priv;

    if (k->reader.ops->start(&k->reader, d) < 0)
        return -1;
    k->started = 1;
    return 0;
}

/* A running reader stops; what its ring held is kept for the next
 * sample(). kinstr_prfcnt's mode is fixed at set-up, so it is set up
 * again; the legacy reader takes a new SET_INTERVAL. */
static int restart_reader(struct kbase_src *k, uint64_t period, struct gt_diag *d)
{
    int n;

    if (!k->started) {
        k->period = period;
        if (k->iface == IFACE_LEGACY) {
            k->reader.period_ns = period;
            return 0;
        }
        close_reader(k);
        return open_reader(k, &k->enabled, d);
    }
    if (period && k->reader.ops->set_period) {
        if (k->reader.ops->set_period(&k->reader, period, d) < 0)
            return -1;
        k->period = period;
        return 0;
    }
    if (!k->stashed)
        gt_kbase_frame_clear(&k->frame);
    n = k->reader.ops->finish(&k->reader, &k->frame, d);
    if (n < 0)
        return -1;
    k->stashed |= n > 0;
    k->period = period;
    close_reader(k);
    if (open_reader(k, &k->enabled, d) < 0 || k->reader.ops->start(&k->reader, d) < 0) {
        k->broken = 1;
        return -1;
    }
    return 0;
}

static int kbase_periodic(struct gt_source *s, uint64_t *period_ns, struct gt_diag *d)
{
    struct kbase_src *k = s->priv;
    uint64_t p = *period_ns;

    if (p && timer_why(k)) {
        gt_diag_set(d, "%s: %s", k->dev.path, timer_why(k));
        return -1;
    }
    if (p && p < GT_KB_PERIOD_MIN_NS)
        p = GT_KB_PERIOD_MIN_NS;
    if (k->iface == IFACE_LEGACY && p > UINT32_MAX) {
        gt_diag_set(d, "%s: a period of %llu ns does not fit the legacy reader's 32-bit "
                       "SET_INTERVAL", k->dev.path, (unsigned long long)p);
        return -1;
    }
    *period_ns = p;
    if (p == k->period)
        return 0;
    return restart_reader(k, p, d);
}

static void copy_frame(struct gt_source *s, struct kbase_src *k, struct gt_snapshot *out)
{
    struct gt_kbase_frame *f = &k->frame;
    size_t i;

    gt_kbase_map_copy(&k->live, f, out);
    for (i = 0; i < 2; i++)
        if (k->clock_counter[i] >= 0 && i < f->ncycles)
            out->deltas[s->catalog.counters[k->clock_counter[i]].slot] = f->cycles[i];
}

/* Powered-off blocks count nothing and add zeros, as the vendor's tools
 * treat them; protected-mode blocks hide work, which the user is told. */
static unsigned protected_blocks(const struct gt_kbase_frame *f)
{
    unsigned n = 0;
    uint32_t i;

    for (i = 0; i < f->nrows; i++)
        n += (f->state[i] & GT_KB_STATE_PROTECTED) != 0;
    return n;
}

static int same_gpu(const struct gt_kbase_gpu *a, const struct gt_kbase_gpu *b)
{
    return a->gpu_id == b->gpu_id && a->core_mask == b->core_mask &&
           a->l2_slices == b->l2_slices;
}

/* A failed sample may mean the device is gone for good (a driver reset, a
 * GPU power domain lost): the sampler's next attempt reopens it from
 * scratch, and only the same GPU is taken back, so the catalogue holds. */
static int reconnect(struct kbase_src *k, struct gt_diag *d)
{
    struct gt_kbase_dev dev;
    struct gt_kbase_enable en = k->enabled;
    struct gt_diag why;

    close_reader(k);
    gt_diag_clear(&why);
    if (gt_kbase_dev_open(&dev, k->dev.sys, k->dev.path, &why) < 0) {
        gt_diag_set(d, "GPU device lost; reopening failed: %s", why.msg);
        return -1;
    }
    if (!same_gpu(&dev.gpu, &k->dev.gpu)) {
        gt_diag_set(d, "%s: a different GPU (%s) answered after the device was lost",
                    dev.path, dev.gpu.name);
        gt_kbase_dev_close(&dev);
        return -1;
    }
    gt_kbase_dev_close(&k->dev);
    k->dev = dev;
    if (open_reader(k, &en, d) < 0)
        return -1;
    if (k->reader.ops->start(&k->reader, d) < 0) {
        close_reader(k);
        return -1;
    }
    k->broken = 0;
    return 0;
}

/* kinstr says OVERFLOW; the legacy reader skips the dumps a full ring has
 * no room for, so its next dump spans more than one period. */
static int ring_was_full(const struct kbase_src *k, const struct gt_kbase_frame *f)
{
    if (f->flags & GT_KB_FRAME_OVERFLOW)
        return 1;
    return k->iface == IFACE_LEGACY && f->ts_start_ns &&
           f->ts_end_ns - f->ts_start_ns > k->period + k->period / 2;
}

static enum gt_sample_result kbase_sample(struct gt_source *s, struct gt_snapshot *out,
                                          struct gt_diag *d)
{
    struct kbase_src *k = s->priv;
    struct gt_kbase_frame *f = &k->frame;
    int r;

    if (k->broken) {
        if (reconnect(k, d) < 0)
            return GT_SAMPLE_ERROR;
        /* Counting restarted just now: what follows the loss was not
         * measured, so this interval has no data rather than a short one. */
        gt_diag_set(d, "%s: the GPU device was reopened; counting restarts now, no data for "
                       "this interval", k->dev.path);
        return GT_SAMPLE_ERROR;
    }
    if (k->stashed)
        r = 0;          /* what the ring held at a change of period */
    else if (k->period)
        r = k->reader.ops->next(&k->reader, f, d);
    else
        r = k->reader.ops->sample(&k->reader, f, d);
    k->stashed = 0;
    if (r == GT_KB_EMPTY)
        return GT_SAMPLE_EMPTY;
    if (r == GT_KB_AGAIN)
        return GT_SAMPLE_ERROR;      /* the reader is sound (a suspended GPU): no reopening */
    if (r < 0) {
        k->broken = 1;
        return GT_SAMPLE_ERROR;
    }
    copy_frame(s, k, out);
    out->t_start_ns = f->ts_start_ns;
    out->t_end_ns = f->ts_end_ns;
    out->nsamples = 1;
    if (f->ts_end_ns <= f->ts_start_ns) {
        /* A kernel clock that did not move gives no interval; our own does. */
        out->t_end_ns = gt_now_ns();
        out->t_start_ns = out->t_end_ns;
    }
    if (f->flags & GT_KB_FRAME_SATURATED) {
        k->saturations++;
        gt_diag_set(d, "%s: a 32-bit counter saturated in the legacy reader's dump (%llu so "
                       "far); its values are too low — use a shorter --interval",
                    k->dev.path, (unsigned long long)k->saturations);
        return GT_SAMPLE_WARN;
    }
    if (protected_blocks(f)) {
        gt_diag_set(d, "%s: the GPU was in protected mode (secure content) during this "
                       "interval; %u counter blocks have no data for it", k->dev.path,
                    protected_blocks(f));
        return GT_SAMPLE_WARN;
    }
    if (f->flags & GT_KB_FRAME_ERROR) {
        gt_diag_set(d, "%s: the kernel marked this sample as erroneous", k->dev.path);
        return GT_SAMPLE_WARN;
    }
    if (k->period && ring_was_full(k, f)) {
        k->overflows++;
        gt_diag_set(d, "%s: the kernel's counter ring was full: this sample holds %llu "
                       "periods (OVERFLOW %llu so far), no counts lost", k->dev.path,
                    (unsigned long long)((f->ts_end_ns - f->ts_start_ns + k->period / 2) /
                                         k->period),
                    (unsigned long long)k->overflows);
        return GT_SAMPLE_WARN;
    }
    if (f->merged) {
        k->overflows += f->merged;
        gt_diag_set(d, "%s: the kernel's counter ring was full; %u dumps were drained into "
                       "this sample (%llu so far), no counts lost", k->dev.path, f->merged,
                    (unsigned long long)k->overflows);
        return GT_SAMPLE_WARN;
    }
    return GT_SAMPLE_OK;
}

static int kbase_available(const struct gt_sys *sys, char *why, size_t len)
{
    int fd = sys->open(sys->ctx, "/dev/mali0", O_RDONLY | O_CLOEXEC);
    int err = errno;

    if (fd >= 0) {
        sys->close(sys->ctx, fd);
        return 0;
    }
    /* A node that exists but refuses us is worth opening for the full
     * diagnosis (permissions, SELinux). */
    if (err != ENOENT && err != ENODEV && err != ENXIO)
        return 0;
    snprintf(why, len, "/dev/mali0: %s", strerror(err));
    return -1;
}

const struct gt_source_type gt_source_mali = {
    .name = "mali",
    .usage = "mali[:/dev/maliN][,interface=auto|legacy|kinstr]",
    .help = "Arm Mali GPU through the kbase driver",
    .keys = kbase_keys,
    .kind = GT_SOURCE_HARDWARE,
    .available = kbase_available,
    .probe = gt_kbase_probe,
    .open = kbase_open,
    .select = kbase_select,
    .start = kbase_start,
    .sample = kbase_sample,
    .periodic = kbase_periodic,
    .close = kbase_close,
};
