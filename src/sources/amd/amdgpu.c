/* The amdgpu source: AMD GPUs through the kernel's amdgpu driver — GRBM
 * busy bits polled with READ_MMR_REG (render node, any user), gpu_metrics
 * (sysfs) or the sensors for power and clocks, and as root the performance
 * counters through debugfs amdgpu_regs2. A runtime-suspended GPU is left
 * asleep: its power state is read from sysfs before anything touches it. */
#include "amd.h"
#include "gputop/amd_gfx1151.h"
#include "gputop/amdgpu.h"
#include "gputop/amdgpu_uapi.h"
#include "gputop/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_POLL_HZ 200
#define MAX_POLL_HZ 100000
#define METRICS_MAX 4096
/* Polls are spread over this share of the previous interval, so sample()
 * returns before the sampler's next deadline. */
#define POLL_SHARE 0.8


/* ---- arguments ---- */

static int parse_uint(const char *v, uint32_t max, uint32_t *out)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);

    if (!v[0] || *end || n == 0 || n > max)
        return -1;
    *out = (uint32_t)n;
    return 0;
}

/* 1 when one comma-separated item of args is exactly word. */
static int has_word(const char *args, const char *word)
{
    size_t n = strlen(word);
    const char *s = args;

    for (; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
        if (strncmp(s, word, n) == 0 && (s[n] == ',' || s[n] == '\0'))
            return 1;
    return 0;
}

/* The positional item that is not "force" into path ("" none); 0 when
 * one is neither a node nor force. */
static int node_arg(const char *args, char *path, size_t len)
{
    const char *s = args, *end;
    size_t n;

    path[0] = '\0';
    for (; s && *s; s = *end ? end + 1 : NULL) {
        end = strchr(s, ',');
        end = end ? end : s + strlen(s);
        n = (size_t)(end - s);
        if (memchr(s, '=', n) || (n == 5 && strncmp(s, "force", 5) == 0) || n == 0)
            continue;
        snprintf(path, len, "%.*s", (int)n, s);
        if (path[0] != '/')
            return 0;
    }
    return 1;
}

/* parse_args's arguments; the type lists them too, for --help's test. */
static const char *const amd_keys[] = { "", "poll", "polls", "mode", "pmc", "keepon", NULL };

static int parse_args(struct amd_src *a, const char *args, char *path, size_t len,
                      struct gt_diag *d)
{
    char buf[64];

    if (gt_args_check(args, amd_keys, "amdgpu", d) < 0)
        return -1;
    /* Positional: the node, and the word force (take the counters from
     * another profiler). */
    a->opts.force = has_word(args, "force");
    if (!node_arg(args, path, len)) {
        gt_diag_set(d, "amdgpu: '%s' is neither a device node (/dev/dri/...) nor 'force'", path);
        return -1;
    }
    a->poll_hz = DEFAULT_POLL_HZ;
    if (gt_args_get(args, "poll", buf, sizeof(buf)) &&
        parse_uint(buf, MAX_POLL_HZ, &a->poll_hz) < 0) {
        gt_diag_set(d, "amdgpu: poll must be reads per second, 1..%u, not '%s'", MAX_POLL_HZ,
                    buf);
        return -1;
    }
    if (gt_args_get(args, "polls", buf, sizeof(buf)) &&
        parse_uint(buf, MAX_POLL_HZ, &a->polls_fixed) < 0) {
        gt_diag_set(d, "amdgpu: polls must be reads per sample, 1..%u, not '%s'", MAX_POLL_HZ,
                    buf);
        return -1;
    }
    if (gt_args_get(args, "mode", buf, sizeof(buf))) {
        if (strcmp(buf, "metrics") == 0)
            a->metrics_only = 1;
        else if (strcmp(buf, "full") != 0) {
            gt_diag_set(d, "amdgpu: mode must be full or metrics, not '%s'", buf);
            return -1;
        }
    }
    if (gt_args_get(args, "pmc", buf, sizeof(buf))) {
        a->pmc_want = strcmp(buf, "on") == 0 ? PMC_ON : strcmp(buf, "off") == 0 ? PMC_OFF
                      : strcmp(buf, "auto") == 0 ? PMC_AUTO : (enum pmc_want)-1;
        if ((int)a->pmc_want < 0) {
            gt_diag_set(d, "amdgpu: pmc must be auto, on or off, not '%s'", buf);
            return -1;
        }
    }
    if (gt_args_get(args, "keepon", buf, sizeof(buf))) {
        if (strcmp(buf, "gfxoff") == 0)
            a->opts.keepon = GT_KEEPON_GFXOFF;
        else if (strcmp(buf, "pstate") == 0)
            a->opts.keepon = GT_KEEPON_PSTATE;
        else if (strcmp(buf, "perfclk") != 0) {
            gt_diag_set(d, "amdgpu: keepon must be perfclk, pstate or gfxoff, not '%s'", buf);
            return -1;
        }
    }
    if (a->metrics_only && a->pmc_want == PMC_ON) {
        gt_diag_set(d, "amdgpu: mode=metrics never touches GFX, so it cannot read the "
                       "performance counters (pmc=on)");
        return -1;
    }
    return 0;
}

/* ---- gpu_metrics ---- */

static int read_metrics(struct amd_src *a, struct gt_amd_metrics *m, char *why, size_t len)
{
    const struct gt_sys *sys = a->dev.sys;
    unsigned char buf[METRICS_MAX];
    ssize_t n;

    n = sys->pread ? sys->pread(sys->ctx, a->metrics_fd, buf, sizeof(buf), 0) : -1;
    if (n < 0) {
        snprintf(why, len, "%s", strerror(errno));
        return -1;
    }
    return gt_amd_metrics_parse(buf, (size_t)n, m, why, len);
}

static void open_metrics(struct amd_src *a)
{
    char path[160], why[160];

    snprintf(path, sizeof(path), "%s/gpu_metrics", a->dev.sysfs);
    a->metrics_fd = gt_sys_open_below(a->dev.sys, path);
    if (a->metrics_fd < 0)
        return;
    if (read_metrics(a, &a->first, why, sizeof(why)) < 0) {
        a->dev.sys->close(a->dev.sys->ctx, a->metrics_fd);
        a->metrics_fd = -1;
        return;
    }
    a->have_metrics = 1;
}

/* The sensor standing in for a gpu_metrics row when the blob lacks it:
 * its index and the factor to the row's unit, or -1. */
static int sensor_for(int v3_offset, uint32_t *mul, uint32_t *div)
{
    *mul = *div = 1;
    switch (v3_offset) {
    case GT_GM30_AVERAGE_GFXCLK_FREQUENCY:
        return GT_AMD_SCLK;
    case GT_GM30_AVERAGE_UCLK_FREQUENCY:
        return GT_AMD_MCLK;
    case GT_GM30_TEMPERATURE_GFX:
        *div = 10;            /* milli-degC to centi-degC */
        return GT_AMD_TEMP;
    case GT_GM30_AVERAGE_SOCKET_POWER:
        *mul = 1000;          /* W to mW */
        return GT_AMD_POWER;
    case GT_GM30_AVERAGE_GFX_ACTIVITY:
        return GT_AMD_LOAD;
    default:
        return -1;
    }
}

/* ---- the catalogue ---- */

static int row_wanted(const struct amd_src *a, const struct gt_amd_counter_def *def, int pmc)
{
    uint64_t v;
    uint32_t mul, div;

    switch (def->kind) {
    case GT_AMD_PMC:
        return pmc;
    case GT_AMD_POLLS:
    case GT_AMD_BUSY:
        return !a->metrics_only;
    case GT_AMD_METRICS_READS:
        return 1;
    case GT_AMD_METRIC:
        if (a->have_metrics && gt_amd_metrics_at_v3(&a->first, def->event, &v))
            return 1;
        /* Without gpu_metrics the sensors answer some rows (not while
         * asleep, and never in metrics-only mode: they are ioctls). */
        return !a->metrics_only && !a->asleep_at_open && sensor_for(def->event, &mul, &div) >= 0;
    case GT_AMD_CONSTANT:
        return 1;
    }
    return 0;
}

static int add_rows(struct gt_source *s, struct amd_src *a, int pmc)
{
    size_t i;

    for (i = 0; i < gt_amd_gfx1151_ncounters; i++) {
        const struct gt_amd_counter_def *def = &gt_amd_gfx1151_counters[i];
        int k;
        if (!row_wanted(a, def, pmc))
            continue;
        if (def->kind == GT_AMD_CONSTANT)
            continue;
        if (gt_catalog_find(&s->catalog, def->name) >= 0)
            continue;
        k = gt_catalog_add(&s->catalog, def->name, def->block, GT_COUNTER_DELTA,
                           gt_amd_instances(&a->geom, def->domain), 1.0);
        if (k < 0)
            return -1;
        s->catalog.counters[k].hw_index = def->event;
    }
    return gt_amd_catalog_add(&s->catalog, &a->geom, 1u << GT_AMD_CONSTANT);
}

static int add_absent(struct gt_source *s, const char *reason)
{
    size_t i;

    for (i = 0; i < gt_amd_gfx1151_ncounters; i++)
        if (gt_amd_gfx1151_counters[i].kind == GT_AMD_PMC &&
            gt_catalog_add_absent(&s->catalog, gt_amd_gfx1151_counters[i].name, reason) < 0)
            return -1;
    return 0;
}

/* Counters through regs2 when they can be had; else the catalogue
 * without them and, for each, the reason the rows will show. */
static int setup_pmc(struct gt_source *s, struct amd_src *a, struct gt_diag *d)
{
    enum gt_amd_pmc_fail fail = GT_PMC_FAIL_OTHER;
    struct gt_diag why;

    gt_diag_clear(&why);
    if (a->metrics_only)
        snprintf(a->pmc_why, sizeof(a->pmc_why), "off in mode=metrics (it never touches GFX)");
    else if (a->pmc_want == PMC_OFF)
        snprintf(a->pmc_why, sizeof(a->pmc_why), "off (pmc=off)");
    else if (a->asleep_at_open)
        snprintf(a->pmc_why, sizeof(a->pmc_why), "not set up: the GPU was asleep when gputop "
                 "started (setting them up would wake it)");
    else if (!a->dev.pmc_regs)
        snprintf(a->pmc_why, sizeof(a->pmc_why), "not on this GPU: gputop knows the counter "
                 "registers of GC 11.5 (gfx1150-gfx1153) only");
    else {
        if (add_rows(s, a, 1) < 0)
            return -1;
        a->pmc = gt_amd_pmc_open(&a->dev, &a->geom, &s->catalog, &a->opts, &fail, &why);
        if (a->pmc) {
            gt_amd_pmc_select(a->pmc, NULL, &s->catalog);
            /* The PEAK profile's shader clock (smu_v14_0_0_ppt.c: the
             * maximum); the header shows it. */
            if (gt_amd_read_sensor(&a->dev, GT_AMDGPU_INFO_SENSOR_PEAK_PSTATE_GFX_SCLK,
                                   &a->peak_mhz) < 0)
                a->peak_mhz = 0;
            a->counting = 1;
            snprintf(a->pstate, sizeof(a->pstate), "%s", gt_amd_pmc_pstate(a->pmc));
            return 0;
        }
        gt_catalog_free(&s->catalog);
        gt_catalog_init(&s->catalog);
        if (fail == GT_PMC_FAIL_ROOT)
            snprintf(a->pmc_why, sizeof(a->pmc_why), "needs root: sudo gputop --source "
                     "amdgpu (counters are read through debugfs amdgpu_regs2)");
        else
            snprintf(a->pmc_why, sizeof(a->pmc_why), "%.*s", (int)sizeof(a->pmc_why) - 1, why.msg);
    }
    if (a->pmc_want == PMC_ON) {
        gt_diag_set(d, "amdgpu: performance counters (pmc=on): %s", why.msg[0] ? why.msg
                    : a->pmc_why);
        return -1;
    }
    if (add_rows(s, a, 0) < 0 || add_absent(s, a->pmc_why) < 0)
        return -1;
    return 0;
}

/* ---- describing ---- */

/* Wave slots per CU on GC 10/11: 16 waves per SIMD, 2 SIMDs (KFD
 * topology's max_waves_per_simd x simd_per_cu). */
#define RDNA_WAVES_PER_CU 32

static void geometry(struct amd_src *a)
{
    const struct gt_amd_dev *dev = &a->dev;

    a->geom = gt_amd_gfx1151_default();
    if (!dev->info_read)
        return;      /* asleep at open: gfx1151's published shape stands in */
    a->geom.se = dev->num_se ? dev->num_se : 1;
    a->geom.sa_per_se = dev->num_sa_per_se ? dev->num_sa_per_se : 1;
    a->geom.cu = dev->cu_active;
    a->geom.gl2c = dev->num_tcc ? dev->num_tcc : 1;
    a->geom.max_sclk_mhz = dev->max_sclk_mhz;
    a->geom.max_waves_per_cu = RDNA_WAVES_PER_CU;
}

static void describe(struct gt_source *s, const struct amd_src *a)
{
    const struct gt_amd_dev *dev = &a->dev;
    char pmc[160] = "", ps[96];

    snprintf(s->info.device, sizeof(s->info.device), "%s",
             dev->drm.render[0] ? dev->drm.render : dev->drm.primary);
    snprintf(s->info.gpu, sizeof(s->info.gpu), "%s%s%s%s", dev->name, dev->gfx[0] ? " (" : "",
             dev->gfx, dev->gfx[0] ? ")" : "");
    snprintf(s->info.layout, sizeof(s->info.layout), "amd-gfx1151");
    s->info.own_clocks = 1;     /* gpu_metrics; the driver has no devfreq */
    snprintf(s->info.family, sizeof(s->info.family), "%s", dev->gfx[0] ? dev->gfx : "amdgpu");
    s->info.gpu_id = dev->drm.device;
    s->info.shader_cores = a->geom.cu;
    snprintf(s->info.core_noun, sizeof(s->info.core_noun), "CUs");   /* not cores */
    s->info.l2_slices = a->geom.gl2c;
    /* The per-block plan is in --probe; the header line has room for a summary. */
    if (a->pmc)
        snprintf(pmc, sizeof(pmc), "%u counters rotated over %u pass%s%s",
                 gt_amd_pmc_ncounters(a->pmc), gt_amd_pmc_passes(a->pmc),
                 gt_amd_pmc_passes(a->pmc) == 1 ? "" : "es",
                 gt_amd_pmc_tcp_one_a_pass(a->pmc) ? " (TCP counts one event a pass)" : "");
    gt_amd_pstate_text(a, ps, sizeof(ps));
    snprintf(s->info.detail, sizeof(s->info.detail), "amdgpu %d.%d.%d, %u CUs @ %u MHz, "
             "%.48s%s%s, %s; counters: %.80s", dev->drv_major, dev->drv_minor, dev->drv_patch,
             a->geom.cu, (unsigned)a->geom.max_sclk_mhz, ps, ps[0] ? ", " : "",
             a->metrics_only ? "gpu_metrics only" : "GRBM polled",
             a->have_metrics ? "gpu_metrics" : "sensors", a->pmc ? pmc : a->pmc_why);
    /* The per-WGP SQ counters are 32-bit: the sampler keeps under this. */
    s->info.max_interval_ns = a->pmc ? gt_amd_pmc_max_interval(a->pmc) : 0;
}

/* ---- the source ---- */

static void amd_close(struct gt_source *s)
{
    struct amd_src *a = s->priv;

    if (!a)
        return;
    gt_amd_pmc_close(a->pmc);
    if (a->metrics_fd >= 0)
        a->dev.sys->close(a->dev.sys->ctx, a->metrics_fd);
    gt_amd_close(&a->dev);
    free(a->used);
    free(a);
    s->priv = NULL;
}

static int amd_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    struct amd_src *a = calloc(1, sizeof(*a));
    char path[64], state[32];

    if (!a) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return -1;
    }
    s->priv = a;
    a->metrics_fd = -1;
    a->dev.fd = -1;
    if (parse_args(a, args, path, sizeof(path), d) < 0 ||
        gt_amd_find(s->sys, path, &a->dev, d) < 0)
        goto fail;
    snprintf(a->node_arg, sizeof(a->node_arg), "%s", path);
    /* Opening the node or reading gpu_metrics (on kernels before 6.13)
     * would wake a sleeping GPU. */
    a->asleep_at_open = gt_amd_power_state(&a->dev, state, sizeof(state)) == GT_AMD_ASLEEP;
    if (!a->asleep_at_open) {
        if (gt_amd_open(&a->dev, d) < 0)
            goto fail;
        open_metrics(a);
    }
    geometry(a);
    if (setup_pmc(s, a, d) < 0)
        goto fail;
    describe(s, a);
    return 0;
fail:
    if (!d->msg[0])
        gt_diag_fail(d, GT_ERR_NOMEM, "amdgpu: out of memory");
    amd_close(s);
    return -1;
}

static int amd_select(struct gt_source *s, const unsigned char *used, struct gt_diag *d)
{
    struct amd_src *a = s->priv;

    if (a->pmc) {
        gt_amd_pmc_select(a->pmc, used, &s->catalog);
        describe(s, a);
    }
    free(a->used);
    a->used = NULL;
    if (used) {
        if (!(a->used = malloc(s->catalog.ncounters ? s->catalog.ncounters : 1))) {
            gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
            return -1;
        }
        memcpy(a->used, used, s->catalog.ncounters);
    }
    return 0;
}

static int amd_start(struct gt_source *s, struct gt_diag *d)
{
    struct amd_src *a = s->priv;

    int r = a->pmc ? gt_amd_pmc_start(a->pmc, d) : 0;

    /* The first interval starts when the counters' first pass does. */
    a->last_ns = a->last_call = gt_sys_now(a->dev.sys);
    return r;
}

static void put(struct gt_source *s, const char *name, uint64_t v, struct gt_snapshot *out)
{
    int k = gt_catalog_find(&s->catalog, name);

    if (k >= 0)
        out->deltas[s->catalog.counters[k].slot] += v;
}

/* Every READ_MMR_REG takes GFX out of GFXOFF, and the kernel lets it
 * power down again only 100 ms after the last one (amdgpu_kms.c wraps the
 * read in amdgpu_gfx_off_ctrl; amdgpu_gfx.c GFX_OFF_DELAY_ENABLE), so
 * polling an idle APU 200 times a second keeps it awake. Once the polls
 * read GFX idle, one poll a sample watches for work, and none while
 * gpu_metrics (which does not wake GFX) says GFX is idle; busy again, the
 * full rate resumes. While counting, gputop holds GFX on anyway. */
static uint64_t polls_wanted(const struct amd_src *a, uint64_t span_ns, uint64_t *spread)
{
    *spread = a->polls_fixed ? 0 : span_ns;
    if (a->idle && !a->pmc) {
        *spread = 0;
        return a->gm_idle ? 0 : 1;
    }
    if (a->polls_fixed)
        return a->polls_fixed;
    span_ns = (uint64_t)((double)a->poll_hz * (double)span_ns / 1e9);
    return span_ns ? span_ns : 1;
}

static int sample_activity(struct gt_source *s, struct amd_src *a, uint64_t span_ns,
                           struct gt_snapshot *out, struct gt_diag *d)
{
    struct gt_grbm_counts c;
    uint64_t spread, polls = polls_wanted(a, span_ns, &spread);
    size_t i;

    memset(&c, 0, sizeof(c));
    if (polls && gt_grbm_poll(&a->dev, (uint32_t)polls, spread, &c, d) < 0)
        return -1;
    a->polled = (uint32_t)c.polls;
    a->gui_busy = (uint32_t)c.busy[0][31];
    if (c.polls)
        a->idle = c.busy[0][31] == 0;
    put(s, "GRBM_POLLS", c.polls, out);
    for (i = 0; i < gt_amd_gfx1151_ncounters; i++) {
        const struct gt_amd_counter_def *def = &gt_amd_gfx1151_counters[i];
        if (def->kind == GT_AMD_BUSY && def->event >= 0 && def->event < 32)
            put(s, def->name, c.busy[strcmp(def->hw_block, "GRBM_STATUS2") == 0][def->event],
                out);
    }
    return 0;
}

/* average_gfx_activity in %: older PMFW reports it x100 (smu_v14_0_0_ppt.c
 * divides the GPU_LOAD sensor by 100 for firmware <= 0x5d4600, but not the
 * gpu_metrics field). A reading past 100 % shows this firmware's scale,
 * which holds from then on (readings of 1 % or less before it cannot be
 * told apart). */
static uint64_t gfx_activity(struct amd_src *a, uint64_t v)
{
    if (v > 100)
        a->centi_activity = 1;
    if (a->centi_activity)
        v /= 100;
    a->gm_idle = v == 0;
    return v;
}

/* The layout shows each row as its sum over GPU_METRICS_READS, so a
 * gpu_metrics read that failed is no reading at all (-1, d set), not a
 * reading of zeros for the rows no sensor stands in for. */
static int sample_power(struct gt_source *s, struct amd_src *a, struct gt_snapshot *out,
                        struct gt_diag *d)
{
    struct gt_amd_metrics m;
    uint32_t sv[GT_AMD_NSENSORS], mul, div;
    int ok[GT_AMD_NSENSORS], have_m = 0, sensors = 0;
    char why[160];
    size_t i;

    memset(ok, 0, sizeof(ok));
    a->gm_idle = 0;
    if (a->metrics_fd >= 0) {
        have_m = read_metrics(a, &m, why, sizeof(why)) == 0;
        if (!have_m) {
            gt_diag_set(d, "%s/gpu_metrics: %s; no power and clock readings this interval",
                        a->dev.sysfs, why);
            return -1;
        }
    }
    put(s, "GPU_METRICS_READS", 1, out);
    for (i = 0; i < gt_amd_gfx1151_ncounters; i++) {
        const struct gt_amd_counter_def *def = &gt_amd_gfx1151_counters[i];
        uint64_t v;
        int sn;
        if (def->kind != GT_AMD_METRIC)
            continue;
        if (have_m && gt_amd_metrics_at_v3(&m, def->event, &v)) {
            if (def->event == GT_GM30_AVERAGE_GFX_ACTIVITY)
                v = gfx_activity(a, v);
            put(s, def->name, v, out);
            continue;
        }
        sn = sensor_for(def->event, &mul, &div);
        if (sn < 0 || a->metrics_only)
            continue;
        if (!sensors++)
            gt_amd_read_sensors(&a->dev, sv, ok);
        if (ok[sn])
            put(s, def->name, (uint64_t)sv[sn] * mul / div, out);
    }
    return 0;
}

/* ENODEV: the device was unbound (hot unplug, driver reload) and its
 * files are dead for good, or the error will pass. Only our node's file
 * failing a call the sampling never makes, and a node that opens anew,
 * tell the first: then everything is closed and
 * set up again on the same catalogue (the counters on the reset GPU start
 * over, their saved values are the new power-on ones). Otherwise all is
 * kept, as for any failed sample, so registers are restored on close. */
static int rebound(struct gt_source *s, struct amd_src *a, uint64_t now, struct gt_diag *d)
{
    enum gt_amd_pmc_fail fail;
    struct gt_amd_dev dev;
    struct gt_diag why;
    int had_pmc = a->pmc != NULL;

    gt_diag_clear(&why);
    if (!gt_amd_dead(&a->dev))
        return -1;     /* our file still answers: the error passes */
    if (gt_amd_find(s->sys, a->node_arg, &dev, &why) < 0 || gt_amd_open(&dev, &why) < 0)
        return -1;     /* gone (or not yet back): d says what failed */
    gt_amd_pmc_close(a->pmc);
    a->pmc = NULL;
    if (a->metrics_fd >= 0)
        a->dev.sys->close(a->dev.sys->ctx, a->metrics_fd);
    a->metrics_fd = -1;
    gt_amd_close(&a->dev);
    a->dev = dev;
    a->last_ns = now;
    a->slept = 0;
    open_metrics(a);
    if (had_pmc) {
        a->pmc = gt_amd_pmc_open(&a->dev, &a->geom, &s->catalog, &a->opts, &fail, &why);
        if (a->pmc)
            gt_amd_pmc_select(a->pmc, a->used, &s->catalog);
        if (!a->pmc || gt_amd_pmc_start(a->pmc, &why) < 0) {
            gt_diag_set(d, "%s came back (rebound), but its counters cannot be set up "
                           "again: %.300s", s->info.device, why.msg);
            return -1;
        }
        a->last_ns = gt_sys_now(a->dev.sys);
    }
    gt_diag_set(d, "%s came back (rebound); set up again, counting resumes next interval",
                s->info.device);
    return -1;
}

/* Runtime suspend (D3) reset GC: the counter selects and
 * SQG_PERFCOUNTER_CTRL are back at their power-on values and nothing
 * counted. They are set up again; this interval has no counts. */
static int resume_pmc(struct gt_source *s, struct amd_src *a, uint64_t now, struct gt_diag *d)
{
    a->last_ns = now;
    if (gt_amd_pmc_start(a->pmc, d) < 0)
        return -1;
    a->last_ns = gt_sys_now(a->dev.sys);   /* the first pass starts counting */
    a->slept = 0;
    gt_diag_set(d, "awake again: %s lost its counter setup while runtime-suspended; set up "
                   "again, counting resumes next interval", s->info.device);
    return -1;
}

/* GC 11.5 gates the perfmon clock with GFX clock gating (soc21.c sets
 * AMD_CG_SUPPORT_GFX_PERF_CLK) unless a profile pstate is held: then no
 * counter moves. GRBM_GUI_ACTIVE staying 0 while GRBM_STATUS reads busy
 * tells it; the interval's counts are no data, not zeros. */
static int gated(const struct amd_src *a, struct gt_diag *d)
{
    uint64_t active;

    if (!a->gui_busy || !gt_amd_pmc_fresh(a->pmc, "GRBM_GUI_ACTIVE", &active) || active)
        return 0;
    gt_diag_set(d, "counters are clock-gated: GRBM_GUI_ACTIVE counted 0 while GRBM_STATUS read "
                   "the GPU busy in %u of %u polls. GC 11.5 gates the perfmon clock with GFX "
                   "clock gating unless it is ungated: run with keepon=perfclk (the default) or "
                   "keepon=pstate, not keepon=gfxoff; this interval's counts are not shown",
                a->gui_busy, a->polled);
    return 1;
}

static enum gt_sample_result amd_sample(struct gt_source *s, struct gt_snapshot *out,
                                        struct gt_diag *d)
{
    struct amd_src *a = s->priv;
    uint64_t start = gt_sys_now(a->dev.sys), span = start > a->last_call ? start - a->last_call : 0;
    struct gt_diag ignored;
    uint64_t end;
    unsigned est = 0;
    int power, pmc;
    char state[32];

    out->nsamples = 1;
    a->last_call = start;
    if (gt_amd_power_state(&a->dev, state, sizeof(state)) == GT_AMD_ASLEEP) {
        a->last_ns = start;
        a->slept = 1;
        gt_diag_fail(d, GT_ERR_AGAIN, "asleep: %s is runtime-suspended (%s); gputop leaves it "
                     "asleep and reads nothing until it wakes", s->info.device, state);
        return GT_SAMPLE_ERROR;
    }
    if (a->dev.fd < 0) {
        gt_diag_set(d, "asleep at start: %s woke up, but its counters were never set up; "
                       "restart gputop to read them", s->info.device);
        return GT_SAMPLE_ERROR;
    }
    if (a->slept && a->pmc)
        return resume_pmc(s, a, start, d);
    if (!a->metrics_only && sample_activity(s, a, (uint64_t)(span * POLL_SHARE), out, d) < 0)
        return d->code == GT_ERR_NODEV ? rebound(s, a, start, d) : GT_SAMPLE_ERROR;
    power = sample_power(s, a, out, d);
    /* The counters' pass ends here even then, so the next interval holds
     * its own counts only (this one's are dropped with the sample). */
    end = 0;
    pmc = a->pmc ? gt_amd_pmc_sample(a->pmc, out->deltas, &est, &end,
                                     power < 0 ? &ignored : d) : 0;
    if (pmc < 0 && power == 0)
        return d->code == GT_ERR_NODEV ? rebound(s, a, start, d) : GT_SAMPLE_ERROR;
    /* With counters the interval ends at their latch, as their estimates
     * are for the time between latches. */
    out->t_start_ns = a->last_ns;
    out->t_end_ns = a->last_ns = end ? end : gt_sys_now(a->dev.sys);
    if (power < 0)
        return GT_SAMPLE_ERROR;
    if (a->pmc && gated(a, d))
        return GT_SAMPLE_ERROR;
    if (pmc > 0)
        return GT_SAMPLE_WARN;     /* d says the 32-bit counters repeat their last pass */
    if (est) {
        gt_diag_set(d, "estimated: %u of %u counters were not counted this interval (the "
                       "blocks' counter limits rotate them over %u passes); each is its last "
                       "pass's rate over this interval", est, gt_amd_pmc_ncounters(a->pmc),
                    gt_amd_pmc_passes(a->pmc));
        return GT_SAMPLE_WARN;
    }
    return GT_SAMPLE_OK;
}

/* For the header: the power state gputop holds and its clock, or whether
 * the GRBM polls of the interval kept GFX out of GFXOFF. Reads only what
 * open() set (the sampler thread may set the counters up again) and snap. */
static void amd_activity(const struct gt_source *s, const struct gt_snapshot *snap, char *buf,
                         size_t len)
{
    const struct amd_src *a = s->priv;
    int k = gt_catalog_find(&s->catalog, "GRBM_POLLS");
    uint64_t polls;

    buf[0] = '\0';
    if (a->counting && a->opts.keepon == GT_KEEPON_PERFCLK) {
        snprintf(buf, len, "perfmon clock ungated, clocks free");
        return;
    }
    if (a->counting && a->pstate[0]) {
        if (a->peak_mhz)
            snprintf(buf, len, "%s pstate, GFX pinned at %u MHz", a->pstate, a->peak_mhz);
        else
            snprintf(buf, len, "%s pstate, clocks pinned", a->pstate);
        return;
    }
    if (a->counting)
        snprintf(buf, len, "GFX held on (GFXOFF off)");
    if (a->counting || k < 0 || !snap || !snap->deltas)
        return;
    polls = snap->deltas[s->catalog.counters[k].slot];
    snprintf(buf, len, "%s", polls > 1 ? "GRBM polls keep GFX on"
                             : "GFX idle, polls backed off");
}

static int amd_available(const struct gt_sys *sys, char *why, size_t len)
{
    struct gt_drm_device list[GT_AMD_MAX_DEVICES];
    struct gt_diag d;
    int n = gt_amd_discover(sys, list, GT_AMD_MAX_DEVICES, &d);

    if (n > 0)
        return 0;
    snprintf(why, len, "%s", n < 0 ? d.msg : "no AMD GPU (no DRM device with PCI vendor 0x1002)");
    return -1;
}

const struct gt_source_type gt_source_amdgpu = {
    .name = "amdgpu",
    .usage = "amdgpu[:/dev/dri/renderDN][,poll=HZ][,polls=N][,mode=full|metrics]"
             "[,pmc=auto|on|off][,keepon=perfclk|pstate|gfxoff][,force]",
    .help = "AMD GPU through the amdgpu driver (counters: root; force takes them "
            "from another profiler)",
    .keys = amd_keys,
    .kind = GT_SOURCE_HARDWARE,
    .available = amd_available,
    .probe = gt_amd_probe,
    .open = amd_open,
    .select = amd_select,
    .start = amd_start,
    .sample = amd_sample,
    .close = amd_close,
    .activity = amd_activity,
};
