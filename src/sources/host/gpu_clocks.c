/* The gpu-clocks companion: the GPU's devfreq clock, thermal zone, kbase
 * attributes and power meters as counters beside the GPU source's, so
 * that every view (dashboard, batch, Prometheus, captures, triage) gets
 * them through the layout like any other counter. */
#include "gputop/gpu_clocks.h"
#include "gputop/source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK "gpu-clocks"
#define ZERO_C_MK 273150       /* 0 degC in millikelvin: temperatures go in unsigned */

enum { G_DEVFREQ = 1, G_THERMAL = 2, G_COOLING = 4, G_KBASE = 8, G_BATTERY = 16, G_RAIL = 32 };

struct name_group { const char *name; int group; };

/* Gauges come in pairs, the sum of the readings and the count of them. */
static const struct name_group names[] = {
    { "GpuFreqCurHz", G_DEVFREQ }, { "GpuFreqCurReads", G_DEVFREQ },
    { "GpuFreqCapHz", G_DEVFREQ }, { "GpuFreqCapReads", G_DEVFREQ },
    { "GpuFreqMinHz", G_DEVFREQ }, { "GpuFreqMinReads", G_DEVFREQ },
    { "GpuFreqTopHz", G_DEVFREQ }, { "GpuFreqTopReads", G_DEVFREQ },
    { "GpuFreqTimeReads", G_DEVFREQ }, { "GpuFreqTimeTotalMs", G_DEVFREQ },
    { "GpuTempMilliK", G_THERMAL }, { "GpuTempReads", G_THERMAL },
    { "GpuTripPassiveMilliK", G_THERMAL }, { "GpuTripReads", G_THERMAL },
    { "GpuTripCrossed", G_THERMAL },
    { "GpuThermalLimited", G_THERMAL }, { "GpuThermalReads", G_THERMAL },
    { "GpuCoolingCur", G_COOLING }, { "GpuCoolingMax", G_COOLING },
    { "GpuCoolingReads", G_COOLING },
    { "GpuCoresEnabled", G_KBASE }, { "GpuCoresReads", G_KBASE },
    { "GpuBatteryUw", G_BATTERY }, { "GpuBatteryReads", G_BATTERY },
    { "GpuRailEnergyUws", G_RAIL }, { "GpuRailMs", G_RAIL },
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static int add_groups(struct gt_catalog *c, int groups, size_t nopps, const uint64_t *opp_hz)
{
    char name[32], hw[32];
    size_t i;
    int k;

    for (i = 0; i < NNAMES; i++)
        if ((names[i].group & groups) &&
            gt_catalog_add(c, names[i].name, BLOCK, GT_COUNTER_DELTA, 1, 1.0) < 0)
            return -1;
    for (i = 0; (groups & G_DEVFREQ) && i < nopps && i < GT_CLK_MAX_OPPS; i++) {
        snprintf(name, sizeof(name), GT_CLK_TIME_COUNTER "%zu", i);
        /* the hardware name is the frequency, for the layout's {hw:} titles */
        snprintf(hw, sizeof(hw), "%llu MHz", (unsigned long long)(opp_hz[i] / 1000000));
        if ((k = gt_catalog_add(c, name, BLOCK, GT_COUNTER_DELTA, 1, 1.0)) < 0 ||
            !(c->counters[k].hw_name = strdup(hw)))
            return -1;
    }
    return 0;
}

int gt_clk_catalog_add(struct gt_catalog *c, size_t nopps, const uint64_t *opp_hz)
{
    return add_groups(c, G_DEVFREQ | G_THERMAL | G_COOLING | G_KBASE | G_BATTERY | G_RAIL,
                      nopps, opp_hz);
}

int gt_clk_catalog_full(struct gt_catalog *c)
{
    uint64_t opp[GT_CLK_MAX_OPPS];
    size_t i;

    for (i = 0; i < GT_CLK_MAX_OPPS; i++)
        opp[i] = (i + 1) * 100000000ull;
    return gt_clk_catalog_add(c, GT_CLK_MAX_OPPS, opp);
}

static int slot(const struct gt_catalog *c, const char *name)
{
    int k = gt_catalog_find(c, name);
    return k < 0 ? -1 : (int)c->counters[k].slot;
}

void gt_clk_slots(const struct gt_catalog *c, struct gt_clk_slots *s)
{
    s->cur = slot(c, "GpuFreqCurHz");
    s->cur_n = slot(c, "GpuFreqCurReads");
    s->cap = slot(c, "GpuFreqCapHz");
    s->cap_n = slot(c, "GpuFreqCapReads");
    s->min = slot(c, "GpuFreqMinHz");
    s->min_n = slot(c, "GpuFreqMinReads");
    s->top = slot(c, "GpuFreqTopHz");
    s->top_n = slot(c, "GpuFreqTopReads");
    s->temp = slot(c, "GpuTempMilliK");
    s->temp_n = slot(c, "GpuTempReads");
    s->trip = slot(c, "GpuTripPassiveMilliK");
    s->trip_n = slot(c, "GpuTripReads");
    s->crossed = slot(c, "GpuTripCrossed");
    s->limited = slot(c, "GpuThermalLimited");
    s->thermal_n = slot(c, "GpuThermalReads");
    s->cool_cur = slot(c, "GpuCoolingCur");
    s->cool_max = slot(c, "GpuCoolingMax");
    s->cool_n = slot(c, "GpuCoolingReads");
    s->cores = slot(c, "GpuCoresEnabled");
    s->cores_n = slot(c, "GpuCoresReads");
    s->batt = slot(c, "GpuBatteryUw");
    s->batt_n = slot(c, "GpuBatteryReads");
    s->rail_uws = slot(c, "GpuRailEnergyUws");
    s->rail_ms = slot(c, "GpuRailMs");
    s->time0 = slot(c, GT_CLK_TIME_COUNTER "0");
    s->time_n = slot(c, "GpuFreqTimeReads");
    s->time_total = slot(c, "GpuFreqTimeTotalMs");
}

/* One gauge reading: its value and one more read, where both slots exist. */
static void gauge(uint64_t *d, int sum, int count, uint64_t v)
{
    if (sum < 0 || count < 0)
        return;
    d[sum] += v;
    d[count] += 1;
}

static void add_times(const struct gt_clk_slots *s, const struct gt_clk_reading *r,
                      const struct gt_clk_reading *base, uint64_t *d)
{
    size_t i;

    if (s->time0 < 0 || s->time_n < 0 || !base || !(r->have & base->have & GT_CLK_HAVE_TRANS) ||
        r->nopps != base->nopps)
        return;
    /* time at each frequency since the start, as trans_stat's deltas; a
     * table that went backwards (a reset) gives no reading */
    for (i = 0; i < r->nopps; i++)
        if (r->time_ms[i] < base->time_ms[i])
            return;
    for (i = 0; i < r->nopps; i++) {
        d[s->time0 + (int)i] += r->time_ms[i] - base->time_ms[i];
        if (s->time_total >= 0)
            d[s->time_total] += r->time_ms[i] - base->time_ms[i];
    }
    d[s->time_n] += 1;
}

static void add_thermal(const struct gt_clk_slots *s, const struct gt_clk_reading *r, uint64_t *d)
{
    int temp = (r->have & GT_CLK_HAVE_TEMP) != 0, trip = temp && (r->have & GT_CLK_HAVE_PASSIVE);
    int crossed = trip && r->temp_mc >= r->passive_mc;

    if (temp)
        gauge(d, s->temp, s->temp_n, (uint64_t)(r->temp_mc + ZERO_C_MK));
    if (trip) {
        gauge(d, s->trip, s->trip_n, (uint64_t)(r->passive_mc + ZERO_C_MK));
        if (s->crossed >= 0)
            d[s->crossed] += (uint64_t)crossed;
    }
    /* limited: a passive trip crossed or a bound cooling device engaged;
     * judged when either can be told */
    if (trip || (r->have & GT_CLK_HAVE_COOLING))
        gauge(d, s->limited, s->thermal_n, (uint64_t)(crossed || r->cooling_active));
    if (r->have & GT_CLK_HAVE_COOLING) {
        gauge(d, s->cool_cur, s->cool_n, r->cool_cur);
        if (s->cool_max >= 0)
            d[s->cool_max] += r->cool_max;
    }
}

void gt_clk_accumulate(const struct gt_clk_slots *s, const struct gt_clk_reading *r,
                       const struct gt_clk_reading *base, const struct gt_clk_reading *prev,
                       uint64_t *d)
{
    if (r->have & GT_CLK_HAVE_CUR)
        gauge(d, s->cur, s->cur_n, r->cur_hz);
    if (r->have & GT_CLK_HAVE_MAX)
        gauge(d, s->cap, s->cap_n, r->max_hz);
    if (r->have & GT_CLK_HAVE_MIN)
        gauge(d, s->min, s->min_n, r->min_hz);
    if (r->have & GT_CLK_HAVE_TOP)
        gauge(d, s->top, s->top_n, r->top_hz);
    add_times(s, r, base, d);
    add_thermal(s, r, d);
    if (r->have & GT_CLK_HAVE_CORES)
        gauge(d, s->cores, s->cores_n, (uint64_t)__builtin_popcountll(r->core_mask));
    if (r->have & GT_CLK_HAVE_BATTERY)
        gauge(d, s->batt, s->batt_n, r->battery_uw);
    /* energy is a running total: its growth since the previous reading */
    if (prev && (r->have & prev->have & GT_CLK_HAVE_RAIL) && s->rail_uws >= 0 && s->rail_ms >= 0 &&
        r->rail_uws >= prev->rail_uws && r->rail_ms >= prev->rail_ms) {
        d[s->rail_uws] += r->rail_uws - prev->rail_uws;
        d[s->rail_ms] += r->rail_ms - prev->rail_ms;
    }
}

/* ---- the source ---- */

struct clk_src {
    struct gt_sys sys;
    char root[1024];
    struct gt_clk_paths paths;
    struct gt_clk_files files;     /* kept open between samples */
    struct gt_clk_slots slots;
    struct gt_clk_reading base, prev;
    int have_prev;
    uint64_t last_ns;      /* the previous sample's end */
    char activity[64];     /* governor and power policy at open */
};

static int fail(struct gt_diag *d, enum gt_err code, const char *msg)
{
    gt_diag_fail(d, code, "gpu-clocks: %s", msg);
    return -1;
}

/* Names the counters of the parts not found as absent, with why. */
static int mark_absent(struct gt_catalog *c, int found, const struct gt_clk_paths *p)
{
    char name[32];
    size_t i;

    for (i = 0; i < NNAMES; i++) {
        const char *why = names[i].group == G_DEVFREQ ? p->no_devfreq
                        : names[i].group & (G_THERMAL | G_COOLING)
                          ? (p->zone[0] ? "the GPU's thermal zone has no cooling device bound"
                                        : p->no_zone)
                        : names[i].group == G_KBASE ? "no kbase device (power_policy, core_mask)"
                        : p->no_power;
        if (!(names[i].group & found) && gt_catalog_add_absent(c, names[i].name, why) < 0)
            return -1;
    }
    for (i = 0; !(found & G_DEVFREQ) && i < GT_CLK_MAX_OPPS; i++) {
        snprintf(name, sizeof(name), GT_CLK_TIME_COUNTER "%zu", i);
        if (gt_catalog_add_absent(c, name, p->no_devfreq) < 0)
            return -1;
    }
    return 0;
}

static void describe(struct gt_source *s, struct clk_src *p)
{
    const struct gt_clk_paths *f = &p->paths;
    const struct gt_clk_reading *r = &p->base;
    size_t n;

    snprintf(s->info.device, sizeof(s->info.device), "%.120s",
             f->devfreq[0] ? f->devfreq : f->zone[0] ? f->zone : "/sys");
    snprintf(s->info.layout, sizeof(s->info.layout), GT_CLK_LAYOUT);
    snprintf(s->info.family, sizeof(s->info.family), "gpu-clocks");
    snprintf(s->info.detail, sizeof(s->info.detail), "devfreq %.40s%s%.31s; zone %.60s, %zu cooling; "
             "%s%s%s", f->devfreq_name[0] ? f->devfreq_name : "none",
             r->have & GT_CLK_HAVE_GOVERNOR ? " governor " : "", r->governor,
             f->zone_how[0] ? f->zone_how : "none", f->ncooling,
             f->battery[0] ? "battery" : "no battery", f->nrails ? ", ODPM" : "",
             r->have & GT_CLK_HAVE_POLICY ? ", kbase policy" : "");
    n = 0;
    if (r->have & GT_CLK_HAVE_GOVERNOR)
        n = (size_t)snprintf(p->activity, sizeof(p->activity), "%s", r->governor);
    if ((r->have & GT_CLK_HAVE_POLICY) && n < sizeof(p->activity))
        snprintf(p->activity + n, sizeof(p->activity) - n, "%s%s", n ? " " : "", r->power_policy);
}

/* parse_args's arguments; the type lists them too, for --help's test. */
static const char *const clk_keys[] = { "device", "zone", "root", NULL };

static int parse_args(struct clk_src *p, const char *args, char *device, char *zone,
                      struct gt_diag *d)
{
    if (gt_args_check(args, clk_keys, "gpu-clocks", d) < 0)
        return -1;
    if (!gt_args_get(args, "device", device, GT_CLK_PATH))
        device[0] = '\0';
    if (!gt_args_get(args, "zone", zone, 64))
        zone[0] = '\0';
    /* root= names the tree; else the seam's /sys tree (--sys-root) */
    if (gt_args_get(args, "root", p->root, sizeof(p->root)))
        p->sys.root = p->root;
    else if (p->sys.sys_root)
        p->sys.root = p->sys.sys_root;
    return 0;
}

static int clk_open_priv(struct gt_source *s, struct clk_src *p, const char *args,
                         struct gt_diag *d)
{
    char device[GT_CLK_PATH], zone[64], why[256];
    int found;

    p->sys = *s->sys;
    if (parse_args(p, args, device, zone, d) < 0)
        return -1;
    if (gt_clk_find(&p->sys, device, zone, &p->paths, why, sizeof(why)) < 0)
        return fail(d, GT_ERR_NODEV, why);
    gt_clk_read(&p->sys, &p->paths, NULL, &p->base);
    found = (p->paths.devfreq[0] ? G_DEVFREQ : 0) | (p->paths.zone[0] ? G_THERMAL : 0) |
            (p->paths.ncooling ? G_COOLING : 0) | (p->paths.kbase[0] ? G_KBASE : 0) |
            (p->paths.battery[0] ? G_BATTERY : 0) | (p->paths.nrails ? G_RAIL : 0);
    if (add_groups(&s->catalog, found, p->base.nopps, p->base.opp_hz) < 0 ||
        mark_absent(&s->catalog, found, &p->paths) < 0)
        return fail(d, GT_ERR_NOMEM, "out of memory");
    gt_clk_slots(&s->catalog, &p->slots);
    describe(s, p);
    return 0;
}

static int clk_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    struct clk_src *p = calloc(1, sizeof(*p));

    if (!p)
        return fail(d, GT_ERR_NOMEM, "out of memory");
    gt_clk_files_init(&p->files);
    if (clk_open_priv(s, p, args, d) < 0) {
        free(p);
        return -1;
    }
    s->priv = p;
    return 0;
}

static int clk_start(struct gt_source *s, struct gt_diag *d)
{
    struct clk_src *p = s->priv;

    (void)d;
    /* times per frequency count from here */
    gt_clk_read(&p->sys, &p->paths, &p->files, &p->base);
    p->prev = p->base;
    p->have_prev = 1;
    p->last_ns = gt_now_ns();
    return 0;
}

/* A file that cannot be read is "no data" for its figure, never an error:
 * the GPU's counters go on. */
static enum gt_sample_result clk_sample(struct gt_source *s, struct gt_snapshot *out,
                                        struct gt_diag *d)
{
    struct clk_src *p = s->priv;
    struct gt_clk_reading r;
    uint64_t now = gt_now_ns();

    if (out->nslots != s->catalog.nslots) {
        gt_diag_fail(d, GT_ERR_INVAL, "snapshot has %u slots, the catalogue %u", out->nslots,
                     s->catalog.nslots);
        return GT_SAMPLE_ERROR;
    }
    memset(out->deltas, 0, out->nslots * sizeof(out->deltas[0]));
    gt_clk_read(&p->sys, &p->paths, &p->files, &r);
    gt_clk_accumulate(&p->slots, &r, &p->base, p->have_prev ? &p->prev : NULL, out->deltas);
    if (r.have & GT_CLK_HAVE_RAIL)
        p->prev = r;
    out->t_start_ns = p->last_ns ? p->last_ns : now;
    out->t_end_ns = now;
    p->last_ns = now;
    out->nsamples = 1;
    return GT_SAMPLE_OK;
}

static void clk_close(struct gt_source *s)
{
    struct clk_src *p = s->priv;

    if (p)
        gt_clk_files_close(&p->sys, &p->files);
    free(s->priv);
    s->priv = NULL;
}

static void clk_activity(const struct gt_source *s, const struct gt_snapshot *snap, char *buf,
                         size_t len)
{
    const struct clk_src *p = s->priv;

    (void)snap;
    snprintf(buf, len, "%s", p ? p->activity : "");
}

const struct gt_source_type gt_source_gpu_clocks = {
    .name = "gpu-clocks",
    .usage = "gpu-clocks[:device=/dev/mali0][,zone=TYPE][,root=DIR]",
    .help = "GPU clock (devfreq), temperature (thermal zone), kbase policy and power from "
            "/sys, read only; added beside a GPU device on its own",
    .keys = clk_keys,
    .kind = GT_SOURCE_CLOCKS,
    .open = clk_open,
    .start = clk_start,
    .sample = clk_sample,
    .close = clk_close,
    .activity = clk_activity,
};
