/* Running gputop: open the sources, merge their catalogues, compile the
 * layout, start the sampler and hand the snapshots to a view. */
#include "beside.h"
#include "quit_key.h"
#include "gputop/batch.h"
#include "gputop/capture.h"
#include "gputop/cli.h"
#include "gputop/fdinfo.h"
#include "gputop/engine.h"
#include "gputop/export.h"
#include "gputop/gpu_clocks.h"
#include "gputop/layout.h"
#include "gputop/sampler.h"
#include "gputop/source.h"
#include "gputop/tui.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct run {
    struct gt_source *src[GT_MAX_SOURCES + 2];   /* and cpu, gpu-clocks */
    size_t nsrc;
    uint32_t offset[GT_MAX_SOURCES + 2];
    struct gt_catalog merged;
    struct gt_layout *layout;
    struct gt_engine *engine;
    struct gt_sampler *sampler;
    struct gt_capture_writer *recorder;
    unsigned long long record_t0;   /* when the recording began, gt_now_ns */
    struct gt_exports *exports;   /* --serve, --trace */
    struct gt_fdinfo_watch *procs;  /* the Processes watcher (dashboard, --processes) */
    struct gt_sys procs_sys;
    struct gt_sys hw_sys, host_sys; /* the sources' seams, with --proc-root, --sys-root */
    const char *thermal_zone;       /* --thermal-zone, for the clocks source */
};

/* Hardware sources reach the kernel through o->sys (a fake one in the
 * end-to-end tests); the others always use the real system. Both carry
 * --proc-root, the /proc whose processes drm-fdinfo reads, and --sys-root,
 * the /sys whose clock files the clocks source reads. */
static void make_seams(const struct gt_options *o, struct run *r)
{
    r->hw_sys = *(o->sys ? o->sys : gt_sys_real());
    r->host_sys = *gt_sys_real();
    r->hw_sys.proc_root = r->host_sys.proc_root = o->proc_root;
    r->hw_sys.sys_root = r->host_sys.sys_root = o->sys_root;
    r->thermal_zone = o->thermal_zone;
}

static int reaches_hardware(enum gt_source_kind k)
{
    return k == GT_SOURCE_HARDWARE || k == GT_SOURCE_COMPANION || k == GT_SOURCE_CLOCKS;
}

static const struct gt_source_type *type_of(const char *spec)
{
    char name[32];

    snprintf(name, sizeof(name), "%.*s", (int)gt_source_name_len(spec), spec);
    return gt_source_type_find(name);
}

static const struct gt_sys *sys_for(const struct run *r, const char *spec)
{
    const struct gt_source_type *t = type_of(spec);

    if (!t || !reaches_hardware(t->kind))
        return &r->host_sys;
    /* a /sys tree on disk is read with real calls even beside a fake kernel */
    return t->kind == GT_SOURCE_CLOCKS && r->host_sys.sys_root ? &r->host_sys : &r->hw_sys;
}

/* The clocks source's spec with --thermal-zone as its zone, unless the
 * spec names one; any other spec as it is. */
static const char *with_zone(const struct run *r, const char *spec, char *buf, size_t len)
{
    const struct gt_source_type *t = type_of(spec);
    const char *args = spec + gt_source_name_len(spec);
    char zone[8];

    if (!r->thermal_zone || !t || t->kind != GT_SOURCE_CLOCKS)
        return spec;
    args += *args != '\0';
    if (gt_args_get(args, "zone", zone, sizeof(zone)))
        return spec;
    if (snprintf(buf, len, "%s:%s%szone=%s", t->name, args, *args ? "," : "", r->thermal_zone) >=
        (int)len)
        return spec;
    return buf;
}

static int open_one(struct run *r, const char *spec)
{
    struct gt_diag d;
    char buf[1024];
    const char *zoned = with_zone(r, spec, buf, sizeof(buf));
    struct gt_source *s = gt_source_open(zoned, sys_for(r, spec), &d);

    if (!s) {
        fprintf(stderr, "gputop: --source %s: %s\n", spec, d.msg);
        return -1;
    }
    r->src[r->nsrc++] = s;
    return 0;
}

/* The simulated device to try instead: the one --layout names when the
 * simulator models it (sim:mips-cm for --layout mips-cm), else the default. */
static void suggest_sim(const struct gt_options *o)
{
    struct gt_source *s = NULL;
    struct gt_diag d;
    char spec[128] = "sim";

    if (o->layout && !strchr(o->layout, '/') && !strchr(o->layout, ',') &&
        strlen(o->layout) < sizeof(spec) - 4) {
        snprintf(spec, sizeof(spec), "sim:%s", o->layout);
        s = gt_source_open(spec, NULL, &d);
        if (s)
            gt_source_close(s);
        else
            snprintf(spec, sizeof(spec), "sim");
    }
    fprintf(stderr, "  try the simulated GPU: gputop --source %s\n", spec);
}

/* No --source: the first hardware source that opens; the probe results
 * are listed when none does. */
static int open_default(const struct gt_options *o, struct run *r)
{
    char why[256], probed[1024] = "";
    size_t i;

    for (i = 0; gt_source_types[i]; i++) {
        const struct gt_source_type *t = gt_source_types[i];
        if (t->kind != GT_SOURCE_HARDWARE)
            continue;
        if (t->available && t->available(sys_for(r, t->name), why, sizeof(why)) < 0) {
            snprintf(probed + strlen(probed), sizeof(probed) - strlen(probed), "\n  %s: %s",
                     t->name, why);
            continue;
        }
        return open_one(r, t->name);
    }
    fprintf(stderr, "gputop: no supported GPU found; probed:%s\n",
            probed[0] ? probed : " (no hardware sources built in)");
    suggest_sim(o);
    return -1;
}

/* The CPU counters come with the run: a CPU source is open, or the run
 * is a recording (which holds its CPU counters, if any). */
static int has_cpu_counters(const struct run *r)
{
    size_t i;

    for (i = 0; i < r->nsrc; i++)
        if (r->src[i]->type->kind == GT_SOURCE_CPU || r->src[i]->type->recorded)
            return 1;
    return 0;
}

/* The CPU source to add beside the others, or NULL. A source that counts
 * CPUs itself (the simulated phone) is judged by its own counters, not by
 * this machine's /proc/stat. */
static const struct gt_source_type *cpu_to_add(const struct gt_options *o, const struct run *r)
{
    size_t i;

    if (o->no_cpu || has_cpu_counters(r))
        return NULL;
    for (i = 0; i < r->nsrc; i++)
        if (gt_catalog_find(&r->src[i]->catalog, "CPUTicksTotal") >= 0)
            return NULL;
    for (i = 0; gt_source_types[i]; i++)
        if (gt_source_types[i]->kind == GT_SOURCE_CPU)
            return gt_source_types[i];
    return NULL;
}

/* The GPU device whose clocks the clocks source reads; NULL when there is
 * no hardware GPU source, one is open already, or the GPU's source says it
 * keeps its own (amdgpu: its gpu_metrics page, and no devfreq). */
static const char *clocks_device(const struct gt_options *o, const struct run *r)
{
    const char *dev = NULL;
    size_t i;

    if (o->no_clocks)
        return NULL;
    for (i = 0; i < r->nsrc; i++) {
        const struct gt_source *s = r->src[i];
        if (s->type->kind == GT_SOURCE_CLOCKS || s->info.own_clocks)
            return NULL;
        if (s->type->kind == GT_SOURCE_HARDWARE && !dev)
            dev = s->info.device;
    }
    return dev;
}

/* gpu-clocks beside a GPU device: its node tells where its devfreq is
 * (a render node's own; else kbase's, then any GPU-named one). Left out
 * when it finds neither a devfreq node nor a thermal zone (a desktop, a
 * container, a phone whose /sys the shell cannot read): --source
 * gpu-clocks shows why. */
static int open_clocks(const struct gt_options *o, struct run *r)
{
    const char *dev = clocks_device(o, r);
    const struct gt_source_type *t = NULL;
    const struct gt_catalog *c;
    char spec[256];
    size_t i;
    int node;

    for (i = 0; dev && !t && gt_source_types[i]; i++)
        if (gt_source_types[i]->kind == GT_SOURCE_CLOCKS)
            t = gt_source_types[i];
    if (!t)
        return 0;
    node = strncmp(dev, "/dev/", 5) == 0 && !strchr(dev, ',');
    snprintf(spec, sizeof(spec), "%s%s%.200s", t->name, node ? ":device=" : "", node ? dev : "");
    if (open_one(r, spec) < 0)
        return -1;
    c = &r->src[r->nsrc - 1]->catalog;
    if (gt_catalog_find(c, "GpuFreqCurHz") < 0 && gt_catalog_find(c, "GpuTempMilliK") < 0)
        gt_source_close(r->src[--r->nsrc]);
    return 0;
}

/* --no-clocks: the clock layout a source lists beside its own (the
 * simulator's, a capture's) is not appended either. */
static void drop_clocks_layout(struct run *r)
{
    const size_t n = sizeof(" " GT_CLK_LAYOUT) - 1;
    size_t i;

    for (i = 0; i < r->nsrc; i++) {
        char *l = r->src[i]->info.layout, *at = strstr(l, " " GT_CLK_LAYOUT);
        if (at && (at[n] == ' ' || at[n] == '\0'))
            memmove(at, at + n, strlen(at + n) + 1);
    }
}

static int open_sources(const struct gt_options *o, struct run *r)
{
    const struct gt_source_type *cpu;
    char why[256];
    int i;

    for (i = 0; i < o->nsources; i++)
        if (open_one(r, o->sources[i]) < 0)
            return -1;
    if (o->nsources == 0 && open_default(o, r) < 0)
        return -1;
    if (open_clocks(o, r) < 0)
        return -1;
    if (o->no_clocks)
        drop_clocks_layout(r);
    cpu = cpu_to_add(o, r);
    if (cpu && (!cpu->available || cpu->available(&r->host_sys, why, sizeof(why)) == 0))
        return open_one(r, cpu->name);
    return 0;
}

static int merge_catalogs(struct run *r)
{
    size_t i;

    gt_catalog_init(&r->merged);
    for (i = 0; i < r->nsrc; i++) {
        r->offset[i] = r->merged.nslots;
        if (gt_catalog_merge(&r->merged, &r->src[i]->catalog) < 0) {
            fprintf(stderr, "gputop: sources '%s' and an earlier one name the same counter\n",
                    r->src[i]->type->name);
            return -1;
        }
    }
    return 0;
}

/* Without the cpu source the layouts' CPU rows say why ("CPU counters
 * off") rather than which counter the GPU source lacks. A recorded run
 * (replay, CSV) holds its CPU counters or not: nothing is said. */
static int mark_cpu_off(const struct gt_options *o, struct run *r)
{
    struct gt_catalog cpu;
    size_t i;
    int res = 0;

    if (has_cpu_counters(r))
        return 0;
    gt_catalog_init(&cpu);
    if (gt_catalog_add_cpu(&cpu, 1) < 0)
        res = -1;
    for (i = 0; res == 0 && i < cpu.ncounters; i++)
        if (gt_catalog_find(&r->merged, cpu.counters[i].name) < 0 &&
            gt_catalog_add_absent(&r->merged, cpu.counters[i].name,
                                  o->no_cpu ? "CPU counters off: --no-cpu"
                                            : "CPU counters off: the cpu source cannot run here") < 0)
            res = -1;
    gt_catalog_free(&cpu);
    return res;
}

/* --section, looked up once for the dashboard and batch output alike; a
 * wrong one ends the run with the valid ones listed. */
static int find_section(const struct gt_options *o, const struct run *r)
{
    struct gt_diag d;

    if (!o->out.section)
        return 0;
    gt_diag_clear(&d);
    if (gt_layout_find_section(r->layout, o->out.section, &d) < 0) {
        fprintf(stderr, "gputop: --section %s: %s\n", o->out.section, d.msg);
        return -1;
    }
    return 0;
}

static int load_layout(const struct gt_options *o, struct run *r)
{
    const char *name = o->layout;
    struct gt_diag d;
    char first[64];
    size_t i;

    /* a capture's layout field may list the layouts beside its own */
    for (i = 0; !name && i < r->nsrc; i++)
        if (sscanf(r->src[i]->info.layout, "%63s", first) == 1)
            name = first;
    if (!name) {
        fprintf(stderr, "gputop: the source names no layout; choose one with --layout "
                        "(see --list-layouts)\n");
        return -1;
    }
    r->layout = o->layout ? gt_layout_load_for(name, &r->merged, &d)
                          : gt_layout_load_named(name, &r->merged, &d);
    if (!r->layout || gt_beside_append_layouts(r->layout, r->src, r->nsrc, o->layout != NULL) < 0) {
        if (!r->layout)
            gt_report_diag(stderr, &d);
        return -1;
    }
    /* {hw:COUNTER} titles take the source's names (engines of drm-fdinfo) */
    r->engine = gt_layout_bind_names(r->layout, &r->merged) == 0
                ? gt_engine_new(r->layout, &r->merged) : NULL;
    if (!r->engine) {
        fprintf(stderr, "gputop: out of memory\n");
        return -1;
    }
    /* Shader cores go by their physical numbers in per-core rows. */
    for (i = 0; i < r->nsrc; i++)
        if (r->src[i]->info.core_mask) {
            gt_engine_set_core_mask(r->engine, r->src[i]->info.core_mask);
            break;
        }
    return find_section(o, r);
}

/* Hardware sources count only what the layout reads: fewer enabled
 * counter groups, less for the kernel to copy. */
static int select_counters(const struct gt_options *o, struct run *r)
{
    size_t i, base = 0;
    struct gt_diag d;
    unsigned char *used = calloc(r->merged.ncounters + 1, 1);

    if (!used) {
        fprintf(stderr, "gputop: out of memory\n");
        return -1;
    }
    if (gt_beside_configure(r->layout, r->src, r->nsrc) < 0) {
        free(used);
        return -1;
    }
    gt_engine_used(r->engine, used);
    for (i = 0; i < r->nsrc; i++) {
        struct gt_source *s = r->src[i];
        s->capturing = o->record != NULL;
        /* A capture keeps everything a simulated GPU counts, so that it
         * replays under any layout; hardware is limited either way. */
        if (s->type->select && !(o->record && !reaches_hardware(s->type->kind))) {
            gt_diag_clear(&d);
            if (s->type->select(s, used + base, &d) < 0) {
                gt_report_diag(stderr, &d);
                free(used);
                return -1;
            }
        }
        base += s->catalog.ncounters;
    }
    free(used);
    /* Which counters a source rotates is known only after select. */
    gt_beside_copy_estimated(&r->merged, r->src, r->nsrc);
    return 0;
}

/* Runs on the sampler thread, so the capture holds every raw round. */
static int record_sample(void *arg, const struct gt_snapshot *s, struct gt_diag *d)
{
    return gt_capture_write(arg, s, d);
}

/* "1.38 MB": bytes in SI units, three digits. */
static void size_text(char *buf, size_t len, double bytes)
{
    static const char *const unit[] = { "bytes", "kB", "MB", "GB", "TB" };
    int u = 0;

    while (bytes >= 999.5 && u < 4) {
        bytes /= 1000;
        u++;
    }
    snprintf(buf, len, u ? "%.3g %s" : "%.0f %s", bytes, unit[u]);
}

/* A capture that holds data is kept unless --force: --record with the
 * name of yesterday's capture would otherwise truncate it silently. An
 * empty file (mktemp's) and a device (/dev/null) are written to. */
static int refuse_to_replace(const char *path)
{
    struct stat st;
    char size[32];

    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return 0;
    size_text(size, sizeof(size), (double)st.st_size);
    fprintf(stderr, "gputop: --record %s: the file exists and holds %s; give --force to "
                    "replace it, or another name\n", path, size);
    return -1;
}

/* The capture's header describes the GPU source; the catalogue is the
 * merged one, so CPU counters recorded beside it replay too. */
static int open_recorder(const struct gt_options *o, struct run *r)
{
    struct gt_source_info info;
    struct gt_diag d;

    if (!o->record)
        return 0;
    if (!o->force && refuse_to_replace(o->record) < 0)
        return -1;
    gt_beside_capture_info(&info, r->src, r->nsrc);
    gt_diag_clear(&d);
    r->recorder = gt_capture_create(o->record, &info, &r->merged, &d);
    if (!r->recorder) {
        gt_report_diag(stderr, &d);
        return -1;
    }
    r->record_t0 = gt_now_ns();
    return 0;
}

/* How big the capture got and how fast, on stderr once it is closed: at
 * -i 1ms a recording grows by about a megabyte a second, which the user
 * should not learn from a full disk. */
static void report_growth(const char *path, unsigned long long t0)
{
    struct stat st;
    double s = (double)(gt_now_ns() - t0) / 1e9;
    char size[32], rate[32], minute[32];

    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || s <= 0)
        return;
    size_text(size, sizeof(size), (double)st.st_size);
    size_text(rate, sizeof(rate), (double)st.st_size / s);
    size_text(minute, sizeof(minute), (double)st.st_size / s * 60);
    fprintf(stderr, "gputop: recorded %s: %s in %.1f s, %s/s (%s a minute)\n", path, size, s,
            rate, minute);
}

static int close_recorder(struct run *r, const char *path)
{
    struct gt_diag d;

    if (!r->recorder)
        return 0;
    gt_diag_clear(&d);
    if (gt_capture_finish(r->recorder, &d) < 0) {
        r->recorder = NULL;
        gt_report_diag(stderr, &d);
        return -1;
    }
    r->recorder = NULL;
    if (path)
        report_growth(path, r->record_t0);
    return 0;
}

static void cleanup(struct run *r)
{
    size_t i;

    gt_sampler_free(r->sampler);
    close_recorder(r, NULL);
    gt_engine_free(r->engine);
    gt_layout_free(r->layout);
    gt_catalog_free(&r->merged);
    for (i = 0; i < r->nsrc; i++)
        gt_source_close(r->src[i]);
}

static int any_self_paced(const struct run *r)
{
    size_t i;

    for (i = 0; i < r->nsrc; i++)
        if (r->src[i]->info.self_paced)
            return 1;
    return 0;
}

/* With start unset the sampler is made but not started: batch output
 * starts it once its header is written, so the header never reads a
 * source's info while the sampler thread could be writing it. */
static int start_sampler(const struct gt_options *o, struct run *r, int lossless, int start,
                         int rows)
{
    struct gt_sampler_config cfg;
    struct gt_diag d;
    struct gt_span *spans = NULL;
    size_t nspans = 0;

    memset(&cfg, 0, sizeof(cfg));
    /* The sampler moves only what the layout reads, unless every slot
     * goes into a capture. */
    if (!r->recorder && gt_engine_spans(r->engine, &spans, &nspans) < 0) {
        fprintf(stderr, "gputop: out of memory\n");
        return -1;
    }
    cfg.spans = spans;
    cfg.nspans = nspans;
    cfg.sources = r->src;
    cfg.nsources = r->nsrc;
    cfg.slot_offset = r->offset;
    cfg.nslots = r->merged.nslots;
    cfg.interval_ns = gt_beside_interval(o->interval_ns, r->src, r->nsrc);
    cfg.lossless = lossless;
    cfg.each_drained = rows;
    cfg.timer_only = o->timer_sampling;
    cfg.on_sample = r->recorder ? record_sample : NULL;
    cfg.arg = r->recorder;
    r->sampler = gt_sampler_new(&cfg);
    free(spans);
    if (!r->sampler) {
        fprintf(stderr, "gputop: out of memory\n");
        return -1;
    }
    gt_diag_clear(&d);
    if (start && gt_sampler_start(r->sampler, &d) < 0) {
        fprintf(stderr, "gputop: cannot start sampling: %s\n", d.msg);
        return -1;
    }
    return 0;
}

/* The Processes view's reader (and --processes' on the endpoint): its own
 * thread, updated every second, new pids probed at each update and all of
 * /proc walked over five (the walk is the costly part; bench/fdinfo_walk.c).
 * Started once, for whichever asks first. */
static struct gt_fdinfo_watch *start_processes(const struct gt_options *o, struct run *r)
{
    if (o->no_processes)
        return NULL;
    if (r->procs)
        return r->procs;
    r->procs_sys = *gt_sys_real();
    if (o->proc_root)
        r->procs_sys.root = o->proc_root;
    r->procs = gt_fdinfo_watch_start(&r->procs_sys, 1000000000ull, 5);
    return r->procs;
}

/* In the dashboard a replay is indexed, so that it can step and seek
 * (a pipe cannot be: it just plays), and one that reaches its end (or
 * damage) waits there for the keys, showing why, instead of ending. */
static void make_replays_interactive(const struct run *r)
{
    size_t i;

    for (i = 0; i < r->nsrc; i++)
        if (r->src[i]->type->playback) {
            r->src[i]->type->playback->control(r->src[i], GT_PLAYBACK_INDEX, 0);
            r->src[i]->type->playback->control(r->src[i], GT_PLAYBACK_HOLD, 1);
        }
}

/* Returns 0 after a normal quit, 1 when no terminal could be opened (the
 * caller then prints text records), -1 on error. */
static int run_dashboard(const struct gt_options *o, struct run *r, volatile sig_atomic_t *stop)
{
    struct gt_tui_config cfg;
    struct gt_diag d;
    int res;
    size_t i;

    /* Batch output says the same through gt_batch_columns. */
    for (i = 0; i < r->layout->nmetrics; i++)
        if (gt_layout_metric_matches(&r->layout->metrics[i], o->out.pattern))
            break;
    if (i == r->layout->nmetrics) {
        fprintf(stderr, "gputop: --metrics %s: no metric of layout %s matches\n",
                o->out.pattern, r->layout->name);
        return -1;
    }

    memset(&cfg, 0, sizeof(cfg));
    cfg.layout = r->layout;
    cfg.engine = r->engine;
    cfg.sampler = r->sampler;
    cfg.sources = r->src;
    cfg.nsources = r->nsrc;
    cfg.refresh_ns = o->refresh_ns;
    /* Rates by default, as nvtop and amdgpu_top show them: a count per
     * interval changes with -i. Batch output keeps its columns. */
    cfg.per_second = o->out.per_second || !o->per_interval;
    cfg.no_color = o->no_color;
    cfg.no_mouse = o->no_mouse;
    cfg.section = o->out.section;
    cfg.metrics = o->out.pattern;
    cfg.procs = start_processes(o, r);
    cfg.tap = gt_exports_tap(r->exports);
    cfg.serve_url = o->serve ? gt_exports_url(r->exports) : NULL;
    cfg.record_file = o->record;
    cfg.trace_file = o->trace;
    gt_diag_clear(&d);
    res = gt_tui_run(&cfg, stop, &d);
    if (res == 1)
        fprintf(stderr, "gputop: %s; printing text records instead (on Android use "
                        "'adb shell -t' for a terminal)\n", d.msg);
    else if (res < 0)
        fprintf(stderr, "gputop: %s\n", d.msg);
    return res;
}

/* After the sampler: the server reads its counters. The address goes to
 * stderr, so that a port chosen by the system (":0") can be found. */
static int start_exports(const struct gt_options *o, struct run *r)
{
    struct gt_diag d;

    gt_diag_clear(&d);
    r->exports = gt_exports_start(o->serve, o->trace, r->layout, r->engine, r->src, r->nsrc,
                                  r->sampler, o->out.per_core, &d);
    if (!r->exports) {
        fprintf(stderr, "gputop: %s\n", d.msg);
        return -1;
    }
    if (o->serve_processes) {
        if (!start_processes(o, r)) {
            fprintf(stderr, "gputop: --processes: cannot start the /proc reader's thread\n");
            return -1;
        }
        /* The endpoint reads the rows whether or not the view shows them. */
        gt_fdinfo_watch_keep(r->procs);
        gt_exports_set_processes(r->exports, r->procs, o->serve_processes);
    }
    if (o->serve)
        fprintf(stderr, "gputop: serving Prometheus metrics at %s\n", gt_exports_url(r->exports));
    return 0;
}

static int finish_exports(struct run *r)
{
    struct gt_diag d;
    int res;

    gt_diag_clear(&d);
    res = gt_exports_finish(r->exports, &d);
    r->exports = NULL;
    if (res < 0)
        fprintf(stderr, "gputop: %s\n", d.msg);
    return res;
}

/* A damaged capture still shows what it held; the user is told, after
 * the output, where and why it stopped, and the exit status says it.
 * The sampler thread has been joined, so the sources' info is ours to
 * read. Returns how many sources stopped early. */
static int report_early_ends(const struct run *r)
{
    size_t i;
    int n = 0;

    for (i = 0; i < r->nsrc; i++)
        if (r->src[i]->info.ended[0]) {
            fprintf(stderr, "gputop: %s\n", r->src[i]->info.ended);
            n++;
        }
    return n;
}

int gt_cmd_run(const struct gt_options *o, volatile sig_atomic_t *stop)
{
    struct run r;
    struct gt_diag d;
    struct gt_batch_opts out = o->out;
    struct gt_quit_key *quit = NULL;
    int status = 1, batch = o->batch || o->batch_asked || !isatty(STDOUT_FILENO);

    memset(&r, 0, sizeof(r));
    make_seams(o, &r);
    if (open_sources(o, &r) < 0 || merge_catalogs(&r) < 0 || mark_cpu_off(o, &r) < 0 ||
        load_layout(o, &r) < 0 ||
        select_counters(o, &r) < 0 || open_recorder(o, &r) < 0)
        goto out;
    if (o->triage && !r.layout->nsteps) {
        fprintf(stderr, "gputop: layout %s (%s) has no triage steps ('triage step' lines, "
                "see gputop-layout(5))\n", r.layout->name, r.layout->file);
        goto out;
    }
    /* Recorded sources keep every sample apart: one record, one line or
     * one refresh. */
    if (!batch && !o->triage)
        make_replays_interactive(&r);
    if (start_sampler(o, &r, any_self_paced(&r), !batch || o->triage,
                      batch && !o->triage) < 0 ||
        start_exports(o, &r) < 0)
        goto out;
    if (o->triage) {
        gt_diag_clear(&d);
        status = gt_triage_report(stdout, r.sampler, r.engine, r.layout, r.src, r.nsrc,
                                  &o->out, stop, &d);
        if (status)
            fprintf(stderr, "gputop: %s\n", d.msg);
        status = status != 0;
        goto out;
    }
    if (!batch) {
        int res = run_dashboard(o, &r, stop);
        if (res <= 0) {
            status = res < 0;
            goto out;
        }
        /* text records stand in for the dashboard, and q still quits */
        quit = gt_quit_key_start();
    }
    gt_diag_clear(&d);
    out.tap = gt_exports_tap(r.exports);
    if (gt_batch_run(stdout, r.sampler, r.engine, r.layout, r.src, r.nsrc, &out, stop, &d) != 0) {
        fprintf(stderr, "gputop: %s\n", d.msg);
        goto out;
    }
    status = 0;
out:
    gt_quit_key_stop(quit);
    gt_sampler_stop(r.sampler);
    if (finish_exports(&r) < 0)
        status = 1;
    gt_fdinfo_watch_stop(r.procs);
    if (close_recorder(&r, o->record) < 0)
        status = 1;
    if (report_early_ends(&r) > 0)
        status = 1;
    cleanup(&r);
    return status;
}
