/* --source drm-fdinfo on a fake /proc (and /sys): engine time summed over
 * a device's clients, busy shares through the drm-fdinfo layout worked out
 * by hand for panfrost, amdgpu, xe and msm, clients coming and going, the
 * profiling switch's message, and profiling=on writing and restoring it. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakes/fake_proc.h"
#include "fakes/tmux.h"
#include "gputop/engine.h"
#include "gputop/fdinfo.h"
#include "gputop/layout.h"
#include "gputop/source.h"

#define SEC 1000000000ull
#define PANFROST_SWITCH "/sys/bus/platform/drivers/panfrost/ff9a0000.gpu/profiling"

struct rig {
    struct fake_proc *p;
    struct gt_source *s;
    struct gt_snapshot snap;
    struct gt_diag d;
};

static void rig_open(struct rig *r, const char *args)
{
    char spec[256];

    snprintf(spec, sizeof(spec), "drm-fdinfo:walk=0,%s", args);
    r->s = gt_source_open(spec, fproc_sys(r->p), &r->d);
    cr_assert_not_null(r->s, "%s", r->d.msg);
    cr_assert_eq(gt_snapshot_init(&r->snap, r->s->catalog.nslots), 0);
    cr_assert_eq(r->s->type->start(r->s, &r->d), 0);
}

static int rig_sample(struct rig *r)
{
    int rc;

    gt_snapshot_zero(&r->snap);
    gt_diag_clear(&r->d);
    rc = r->s->type->sample(r->s, &r->snap, &r->d);
    cr_assert(rc == 0 || rc == 2, "sample: %d %s", rc, r->d.msg);
    return rc;
}

static void rig_end(struct rig *r)
{
    gt_snapshot_free(&r->snap);
    gt_source_close(r->s);
    fproc_free(r->p);
}

static uint64_t val(const struct rig *r, const char *name)
{
    int k = gt_catalog_find(&r->s->catalog, name);

    cr_assert_geq(k, 0, "no counter %s", name);
    return r->snap.deltas[r->s->catalog.counters[k].slot];
}

static uint64_t val_after_sample(struct rig *r, const char *name)
{
    rig_sample(r);
    return val(r, name);
}

/* The layout's metric titled title over the last sample, its interval
 * taken as secs (so that shares are worked out by hand; 0: as sampled). */
static double metric(struct rig *r, double secs, const char *title)
{
    struct gt_diag d;
    struct gt_layout *l = gt_layout_load("drm-fdinfo", &d);
    struct gt_engine *e;
    double out[64];
    int m;

    cr_assert_not_null(l, "%s", d.msg);
    cr_assert_eq(gt_layout_bind_names(l, &r->s->catalog), 0);
    m = gt_layout_find_metric(l, title);
    cr_assert_geq(m, 0, "no metric '%s'", title);
    e = gt_engine_new(l, &r->s->catalog);
    cr_assert_not_null(e);
    cr_assert_leq(l->nmetrics, 64);
    if (secs > 0) {   /* else the interval the source measured */
        r->snap.t_start_ns = 0;
        r->snap.t_end_ns = (uint64_t)(secs * 1e9);
    }
    r->snap.nsamples = 1;
    gt_engine_eval(e, &r->snap, out);
    gt_engine_free(e);
    gt_layout_free(l);
    return out[m];
}

static int has_metric(const struct rig *r, const char *title)
{
    struct gt_diag d;
    struct gt_layout *l = gt_layout_load("drm-fdinfo", &d);
    int m;

    cr_assert_not_null(l);
    cr_assert_eq(gt_layout_bind_names(l, &r->s->catalog), 0);
    m = gt_layout_find_metric(l, title);
    gt_layout_free(l);
    return m >= 0;
}

static void panfrost(char *buf, size_t len, unsigned id, unsigned long long frag,
                     unsigned long long vt, unsigned kib)
{
    snprintf(buf, len,
             "pos:\t0\nflags:\t02100002\nmnt_id:\t23\nino:\t512\n"
             "drm-driver:\tpanfrost\ndrm-client-id:\t%u\n"
             "drm-engine-fragment:\t%llu ns\ndrm-cycles-fragment:\t0\n"
             "drm-maxfreq-fragment:\t800000000 Hz\ndrm-curfreq-fragment:\t400000000 Hz\n"
             "drm-engine-vertex-tiler:\t%llu ns\ndrm-cycles-vertex-tiler:\t0\n"
             "drm-maxfreq-vertex-tiler:\t800000000 Hz\ndrm-curfreq-vertex-tiler:\t400000000 Hz\n"
             "drm-total-memory:\t%u KiB\ndrm-resident-memory:\t%u KiB\n",
             id, frag, vt, kib, kib);
}

/* Two clients; the second's fd is shared by a parent and its child (one
 * client, counted once). Over 2 s: fragment 600 + 200 ms = 800 ms, 40 %;
 * vertex-tiler 100 + 300 ms = 400 ms, 20 %. */
Test(fdinfo_source, panfrost_two_engines_two_clients_shared_fd)
{
    struct rig r = { .p = fproc_new() };
    char a[1024], b[1024];

    fproc_add_process(r.p, 100, "glmark2");
    panfrost(a, sizeof(a), 1, 1000000000, 200000000, 2048);
    fproc_add_fd(r.p, 100, 5, "/dev/dri/renderD128", a);
    fproc_add_process(r.p, 200, "game");
    fproc_add_process(r.p, 201, "game-child");
    panfrost(b, sizeof(b), 2, 0, 0, 1024);
    fproc_add_fd(r.p, 200, 3, "/dev/dri/renderD128", b);
    fproc_add_fd(r.p, 201, 4, "/dev/dri/renderD128", b);
    rig_open(&r, "driver=panfrost");
    cr_assert_str_eq(r.s->info.layout, "drm-fdinfo");
    panfrost(a, sizeof(a), 1, 1600000000, 300000000, 2048);
    fproc_add_fd(r.p, 100, 5, "/dev/dri/renderD128", a);
    panfrost(b, sizeof(b), 2, 200000000, 300000000, 1024);
    fproc_add_fd(r.p, 200, 3, "/dev/dri/renderD128", b);
    fproc_add_fd(r.p, 201, 4, "/dev/dri/renderD128", b);
    rig_sample(&r);
    cr_assert_eq(val(&r, "DrmEngine0Ns"), 800000000ull);
    cr_assert_eq(val(&r, "DrmEngine1Ns"), 400000000ull);
    cr_assert_eq(val(&r, "DrmClients"), 2);
    cr_assert_eq(val(&r, "DrmActiveClients"), 2);
    cr_assert_eq(val(&r, "DrmMemoryBytes"), 3072ull * 1024, "the shared client once");
    cr_assert_eq(val(&r, "DrmEngine0CurFreqHz"), 400000000ull);
    cr_assert_str_eq(r.s->catalog.counters[gt_catalog_find(&r.s->catalog, "DrmEngine1Ns")].hw_name,
                     "vertex-tiler");
    cr_assert_float_eq(metric(&r, 2.0, "fragment busy"), 40.0, 1e-9);
    cr_assert_float_eq(metric(&r, 2.0, "vertex-tiler busy"), 20.0, 1e-9);
    cr_assert_float_eq(metric(&r, 2.0, "Busiest engine"), 40.0, 1e-9);
    cr_assert_float_eq(metric(&r, 2.0, "fragment clock"), 400.0, 1e-9);
    cr_assert_float_eq(metric(&r, 2.0, "GPU memory"), 3072.0 * 1024, 1e-9);
    cr_assert(!has_metric(&r, "fragment busy (clock)"), "panfrost prints no total-cycles");
    rig_end(&r);
}

/* --proc-root reaches the source through the seam (gt_sys.proc_root):
 * the clients below it are read though the seam's root is elsewhere. */
Test(fdinfo_source, proc_root_of_the_seam_is_the_proc_read)
{
    struct fake_proc *p = fproc_new();
    struct gt_sys sys = *fproc_sys(p);
    struct gt_snapshot snap;
    struct gt_source *s;
    struct gt_diag d;
    char a[1024];
    int k;

    fproc_add_process(p, 100, "glmark2");
    panfrost(a, sizeof(a), 1, 1000000000, 0, 2048);
    fproc_add_fd(p, 100, 5, "/dev/dri/renderD128", a);
    sys.proc_root = sys.root;
    sys.root = "/nonexistent-gputop-root";
    s = gt_source_open("drm-fdinfo:walk=0,driver=panfrost", &sys, &d);
    cr_assert_not_null(s, "%s", d.msg);
    cr_assert_eq(gt_snapshot_init(&snap, s->catalog.nslots), 0);
    cr_assert_eq(s->type->start(s, &d), 0, "%s", d.msg);
    cr_assert_geq(s->type->sample(s, &snap, &d), GT_SAMPLE_OK, "%s", d.msg);
    k = gt_catalog_find(&s->catalog, "DrmClients");
    cr_assert_geq(k, 0);
    cr_assert_eq(snap.deltas[s->catalog.counters[k].slot], 1);
    gt_snapshot_free(&snap);
    gt_source_close(s);
    fproc_free(p);
}

/* amdgpu, compute with 4 instances: +3 s of engine time over 2 s is
 * 3 / (2 x 4) = 37.5 %; gfx +500 ms over 2 s is 25 %. */
Test(fdinfo_source, amdgpu_capacity_divides_the_engine_time)
{
    struct rig r = { .p = fproc_new() };
    static const char t0[] =
        "drm-driver:\tamdgpu\ndrm-client-id:\t55\ndrm-pdev:\t0000:c3:00.0\n"
        "drm-memory-vram:\t1024 KiB\ndrm-memory-gtt:\t1024 KiB\n"
        "drm-engine-gfx:\t1000000000 ns\ndrm-engine-compute:\t0 ns\n"
        "drm-engine-capacity-compute:\t4\n";
    static const char t1[] =
        "drm-driver:\tamdgpu\ndrm-client-id:\t55\ndrm-pdev:\t0000:c3:00.0\n"
        "drm-memory-vram:\t1024 KiB\ndrm-memory-gtt:\t1024 KiB\n"
        "drm-engine-gfx:\t1500000000 ns\ndrm-engine-compute:\t3000000000 ns\n"
        "drm-engine-capacity-compute:\t4\n";

    fproc_add_process(r.p, 777, "blender");
    fproc_add_fd(r.p, 777, 9, "/dev/dri/renderD128", t0);
    rig_open(&r, "driver=amdgpu,pdev=0000:c3:00.0");
    fproc_add_fd(r.p, 777, 9, "/dev/dri/renderD128", t1);
    rig_sample(&r);
    cr_assert_float_eq(metric(&r, 2.0, "gfx busy"), 25.0, 1e-9);
    cr_assert_float_eq(metric(&r, 2.0, "compute busy"), 37.5, 1e-9);
    cr_assert_float_eq(metric(&r, 2.0, "Busiest engine"), 37.5, 1e-9);
    rig_end(&r);
}

/* xe: two clients, cycles +300 and +600 while the GPU clock counted 1200
 * (each client sees the same clock): 900 / 1200 = 75 %. */
Test(fdinfo_source, xe_busy_from_total_cycles)
{
    struct rig r = { .p = fproc_new() };
    char t[512];

#define XE(id, cyc, tot)                                                                     \
    (snprintf(t, sizeof(t), "drm-driver:\txe\ndrm-client-id:\t%d\ndrm-pdev:\t0000:00:02.0\n" \
              "drm-cycles-rcs:\t%d\ndrm-total-cycles-rcs:\t%d\n", id, cyc, tot), t)
    fproc_add_process(r.p, 10, "a");
    fproc_add_fd(r.p, 10, 3, "/dev/dri/renderD128", XE(1, 1000, 50000));
    fproc_add_process(r.p, 11, "b");
    fproc_add_fd(r.p, 11, 3, "/dev/dri/renderD128", XE(2, 0, 50000));
    rig_open(&r, "driver=xe");
    fproc_add_fd(r.p, 10, 3, "/dev/dri/renderD128", XE(1, 1300, 51200));
    fproc_add_fd(r.p, 11, 3, "/dev/dri/renderD128", XE(2, 600, 51200));
    rig_sample(&r);
    cr_assert_eq(val(&r, "DrmEngine0Cycles"), 900);
    cr_assert_eq(val(&r, "DrmEngine0TotalCycles"), 1200);
    /* over the interval the source measured: the clock's share holds */
    cr_assert_float_eq(metric(&r, 0, "Busiest engine"), 75.0, 1e-3);
    cr_assert_float_eq(metric(&r, 1.0, "rcs busy (clock)"), 75.0, 1e-9);
    cr_assert(!has_metric(&r, "rcs busy"), "xe prints no engine time");
    rig_end(&r);
#undef XE
}

/* msm: gpu +250 ms of engine time over 1 s is 25 %; +293,500,000 cycles at
 * a 587 MHz max clock over 1 s is 50 % of what the top clock gives. */
Test(fdinfo_source, msm_cycles_over_max_clock)
{
    struct rig r = { .p = fproc_new() };

    fproc_add_process(r.p, 50, "surfaceflinger");
    fproc_add_fd(r.p, 50, 8, "/dev/dri/renderD128",
                 "drm-driver:\tmsm\ndrm-client-id:\t3\ndrm-engine-gpu:\t0 ns\n"
                 "drm-cycles-gpu:\t0\ndrm-maxfreq-gpu:\t587 MHz\n");
    rig_open(&r, "driver=msm");
    fproc_add_fd(r.p, 50, 8, "/dev/dri/renderD128",
                 "drm-driver:\tmsm\ndrm-client-id:\t3\ndrm-engine-gpu:\t250000000 ns\n"
                 "drm-cycles-gpu:\t293500000\ndrm-maxfreq-gpu:\t587 MHz\n");
    rig_sample(&r);
    cr_assert_float_eq(metric(&r, 1.0, "gpu busy"), 25.0, 1e-9);
    cr_assert_float_eq(metric(&r, 1.0, "gpu cycles at max clock"), 50.0, 1e-9);
    rig_end(&r);
}

/* Issue 43 item 16: where only cycles and the max clock are printed, the
 * busy share is over the engine's capacity too (drm-usage-stats.rst:
 * drm-engine-capacity, identical engines under one name): 587,000,000
 * cycles at 587 MHz over 1 s on an engine of capacity 2 is 50 %. */
Test(fdinfo_source, cycles_over_max_clock_over_capacity)
{
    struct rig r = { .p = fproc_new() };

    fproc_add_process(r.p, 50, "app");
    fproc_add_fd(r.p, 50, 8, "/dev/dri/renderD128",
                 "drm-driver:\tmsm\ndrm-client-id:\t3\ndrm-engine-capacity-gpu:\t2\n"
                 "drm-cycles-gpu:\t0\ndrm-maxfreq-gpu:\t587 MHz\n");
    rig_open(&r, "driver=msm");
    fproc_add_fd(r.p, 50, 8, "/dev/dri/renderD128",
                 "drm-driver:\tmsm\ndrm-client-id:\t3\ndrm-engine-capacity-gpu:\t2\n"
                 "drm-cycles-gpu:\t587000000\ndrm-maxfreq-gpu:\t587 MHz\n");
    rig_sample(&r);
    cr_assert_float_eq(metric(&r, 1.0, "gpu cycles at max clock"), 50.0, 1e-9);
    cr_assert_float_eq(metric(&r, 1.0, "Busiest engine"), 50.0, 1e-6);
    rig_end(&r);
}

/* A new client's first reading is its baseline (its 5 s from before do not
 * count); one that exits loses its last partial interval; nothing goes
 * negative or counts twice. */
Test(fdinfo_source, clients_appearing_and_exiting)
{
    struct rig r = { .p = fproc_new() };
    char a[1024], b[1024], c[1024];

    fproc_add_process(r.p, 100, "a");
    panfrost(a, sizeof(a), 1, 0, 0, 64);
    fproc_add_fd(r.p, 100, 5, "/dev/dri/renderD128", a);
    fproc_add_process(r.p, 200, "b");
    panfrost(b, sizeof(b), 2, 0, 0, 64);
    fproc_add_fd(r.p, 200, 5, "/dev/dri/renderD128", b);
    rig_open(&r, "driver=panfrost");
    rig_sample(&r);
    cr_assert_eq(val(&r, "DrmEngine0Ns"), 0);
    fproc_exit(r.p, 100);
    panfrost(b, sizeof(b), 2, 100000000, 0, 64);
    fproc_add_fd(r.p, 200, 5, "/dev/dri/renderD128", b);
    fproc_add_process(r.p, 300, "c");
    panfrost(c, sizeof(c), 3, 5000000000ull, 0, 64);
    fproc_add_fd(r.p, 300, 5, "/dev/dri/renderD128", c);
    rig_sample(&r);
    cr_assert_eq(val(&r, "DrmEngine0Ns"), 100000000ull, "b only: c is a baseline");
    cr_assert_eq(val(&r, "DrmClients"), 2);
    cr_assert_eq(val(&r, "DrmActiveClients"), 1);
    panfrost(c, sizeof(c), 3, 5050000000ull, 0, 64);
    fproc_add_fd(r.p, 300, 5, "/dev/dri/renderD128", c);
    rig_sample(&r);
    cr_assert_eq(val(&r, "DrmEngine0Ns"), 50000000ull);
    fproc_exit(r.p, 300);
    fproc_exit(r.p, 200);
    rig_sample(&r);
    cr_assert_eq(val(&r, "DrmEngine0Ns"), 0);
    cr_assert_eq(val(&r, "DrmClients"), 0);
    rig_end(&r);
}

/* With a walk period the /proc walk for new clients runs on a thread of
 * the source's own, never inside sample(): a sample only re-reads known
 * fds and adopts what the last walk found. A client started after start()
 * is found within a few walk periods (polled, not timed), its first
 * reading a baseline; and the reader itself walked only once, at open. */
Test(fdinfo_source, new_clients_are_found_by_a_walk_off_the_sampling_path, .timeout = 60)
{
    struct rig r = { .p = fproc_new() };
    char a[1024], b[1024];
    uint64_t walks_in_samples;
    int i;

    fproc_add_process(r.p, 100, "a");
    panfrost(a, sizeof(a), 1, 0, 0, 64);
    fproc_add_fd(r.p, 100, 5, "/dev/dri/renderD128", a);
    r.s = gt_source_open("drm-fdinfo:walk=20,driver=panfrost", fproc_sys(r.p), &r.d);
    cr_assert_not_null(r.s, "%s", r.d.msg);
    cr_assert_eq(gt_snapshot_init(&r.snap, r.s->catalog.nslots), 0);
    cr_assert_eq(r.s->type->start(r.s, &r.d), 0);
    fproc_add_process(r.p, 200, "b");
    panfrost(b, sizeof(b), 2, 1000000000ull, 0, 64);
    fproc_add_fd(r.p, 200, 7, "/dev/dri/renderD128", b);
    for (i = 0; i < 1000 && val_after_sample(&r, "DrmClients") < 2; i++)
        usleep(10000);
    cr_assert_eq(val(&r, "DrmClients"), 2, "the new client was never found");
    cr_assert_eq(val(&r, "DrmEngine0Ns"), 0, "its first reading is a baseline");
    panfrost(b, sizeof(b), 2, 1300000000ull, 0, 64);
    fproc_add_fd(r.p, 200, 7, "/dev/dri/renderD128", b);
    rig_sample(&r);
    cr_assert_eq(val(&r, "DrmEngine0Ns"), 300000000ull);
    walks_in_samples = gt_fdinfo_source_walks(r.s);
    cr_assert_eq(walks_in_samples, 1, "sample() walked /proc %llu times (only open should)",
                 (unsigned long long)walks_in_samples);
    rig_end(&r);
}

static const char no_engine_time[] =
    "drm-driver:\tpanfrost\ndrm-client-id:\t4\n"
    "drm-maxfreq-fragment:\t800000000 Hz\ndrm-curfreq-fragment:\t800000000 Hz\n"
    "drm-maxfreq-vertex-tiler:\t800000000 Hz\ndrm-curfreq-vertex-tiler:\t800000000 Hz\n"
    "drm-total-memory:\t64 KiB\n";

Test(fdinfo_source, profiling_off_says_how_to_turn_it_on)
{
    struct rig r = { .p = fproc_new() };
    char act[512];

    fproc_write(r.p, PANFROST_SWITCH, "0\n");
    fproc_add_process(r.p, 100, "app");
    fproc_add_fd(r.p, 100, 5, "/dev/dri/renderD128", no_engine_time);
    rig_open(&r, "driver=panfrost");
    cr_assert_eq(rig_sample(&r), 2, "a warning");
    cr_assert(strstr(r.d.msg, "profiling off: echo 1 | sudo tee " PANFROST_SWITCH), "%s",
              r.d.msg);
    cr_assert(strstr(r.d.msg, "profiling=on"), "%s", r.d.msg);
    r.s->type->activity(r.s, &r.snap, act, sizeof(act));
    cr_assert(strstr(act, "profiling off"), "%s", act);
    cr_assert_eq(rig_sample(&r), 0, "said once");
    rig_end(&r);
}

Test(fdinfo_source, profiling_on_writes_the_switch_and_restores_it)
{
    struct rig r = { .p = fproc_new() };
    char v[16];

    fproc_write(r.p, PANFROST_SWITCH, "0\n");
    fproc_write(r.p, "/sys/bus/platform/drivers/panthor/fb000000.gpu/profiling", "0\n");
    rig_open(&r, "driver=panfrost,profiling=on");
    cr_assert_eq(fproc_read(r.p, PANFROST_SWITCH, v, sizeof(v)), 0);
    cr_assert_str_eq(v, "1");
    gt_source_close(r.s);
    cr_assert_eq(fproc_read(r.p, PANFROST_SWITCH, v, sizeof(v)), 0);
    cr_assert_str_eq(v, "0", "restored");
    /* panthor: a mask, 1 cycles + 2 timestamps */
    r.s = gt_source_open("drm-fdinfo:driver=panthor,profiling=on", fproc_sys(r.p), &r.d);
    cr_assert_not_null(r.s, "%s", r.d.msg);
    cr_assert_eq(fproc_read(r.p, "/sys/bus/platform/drivers/panthor/fb000000.gpu/profiling", v,
                            sizeof(v)), 0);
    cr_assert_str_eq(v, "3");
    rig_end(&r);
}

Test(fdinfo_source, profiling_on_without_a_switch_is_an_error)
{
    struct fake_proc *p = fproc_new();
    struct gt_diag d;

    cr_assert_null(gt_source_open("drm-fdinfo:driver=panfrost,profiling=on", fproc_sys(p), &d));
    cr_assert(strstr(d.msg, "no profiling switch found"), "%s", d.msg);
    cr_assert_null(gt_source_open("drm-fdinfo", fproc_sys(p), &d), "no device, no driver=");
    cr_assert(strstr(d.msg, "driver=NAME"), "%s", d.msg);
    fproc_free(p);
}

/* The real binary, stopped by a signal, puts the switch back. */
static void stop_restores(int sig)
{
    struct fake_proc *p = fproc_new();
    char spec[512], v[16];
    pid_t pid;
    int i, status;

    fproc_write(p, PANFROST_SWITCH, "0\n");
    snprintf(spec, sizeof(spec), "drm-fdinfo:driver=panfrost,profiling=on,root=%s",
             fproc_root(p));
    pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        execl(gputop_bin(), "gputop", "--source", spec, "--no-cpu", "-i", "50", (char *)NULL);
        _exit(127);
    }
    for (i = 0; i < 3000; i++) {
        if (fproc_read(p, PANFROST_SWITCH, v, sizeof(v)) == 0 && strcmp(v, "1") == 0)
            break;
        usleep(10000);
    }
    cr_assert_str_eq(v, "1", "switched on");
    kill(pid, sig);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert_eq(fproc_read(p, PANFROST_SWITCH, v, sizeof(v)), 0);
    cr_assert_str_eq(v, "0", "restored after signal %d", sig);
    fproc_free(p);
}

Test(fdinfo_source, binary_restores_the_switch_on_sigint_and_sigterm, .timeout = 120)
{
    stop_restores(SIGINT);
    stop_restores(SIGTERM);
}

/* Engine slots are fixed at start (the driver's list, then those seen):
 * an engine a client prints later is not summed, and the header says so. */
Test(fdinfo_source, an_engine_first_seen_later_is_ignored_and_said)
{
    struct rig r = { .p = fproc_new() };
    char act[256];

    fproc_add_process(r.p, 10, "app");
    fproc_add_fd(r.p, 10, 3, "/dev/dri/renderD128",
                 "drm-driver:\tv3d\ndrm-client-id:\t1\ndrm-engine-render:\t0 ns\n");
    rig_open(&r, "driver=v3d");
    r.s->type->activity(r.s, &r.snap, act, sizeof(act));
    cr_assert_null(strstr(act, "not shown"), "%s", act);
    fproc_add_fd(r.p, 10, 3, "/dev/dri/renderD128",
                 "drm-driver:\tv3d\ndrm-client-id:\t1\ndrm-engine-render:\t10 ns\n"
                 "drm-engine-newthing:\t99 ns\n");
    rig_sample(&r);
    cr_assert_eq(val(&r, "DrmEngine1Ns"), 10, "render, the second of v3d's engines");
    cr_assert_eq(gt_catalog_find(&r.s->catalog, "DrmEngine6Ns"), -1, "v3d has six");
    r.s->type->activity(r.s, &r.snap, act, sizeof(act));
    cr_assert(strstr(act, "engines first seen after start not shown"), "%s", act);
    rig_end(&r);
}

/* panthor with 'profiling' at 1 prints drm-cycles-panthor and the clocks
 * but no engine time (panthor_drv.c). With no client at open the top
 * clock must still come from one started later: +500,000,000 cycles in
 * 1 s at drm-maxfreq-panthor 1 GHz is 50 % of what the top clock gives
 * (was 0: the clock was a constant taken at open). The message gives
 * panthor's own value, 3. */
Test(fdinfo_source, panthor_top_clock_from_a_client_started_after_open)
{
    struct rig r = { .p = fproc_new() };
    static const char fmt[] =
        "drm-driver:\tpanthor\ndrm-client-id:\t6\ndrm-cycles-panthor:\t%llu\n"
        "drm-maxfreq-panthor:\t1000000000 Hz\ndrm-curfreq-panthor:\t500000000 Hz\n"
        "drm-total-memory:\t128 KiB\ndrm-shared-memory:\t0\ndrm-resident-memory:\t128 KiB\n";
    char t[512];

    fproc_add_process(r.p, 1, "init");
    rig_open(&r, "driver=panthor");
    fproc_add_process(r.p, 90, "vkmark");
    snprintf(t, sizeof(t), fmt, 1000000ull);
    fproc_add_fd(r.p, 90, 4, "/dev/dri/renderD128", t);
    cr_assert_eq(rig_sample(&r), 2, "found (its baseline), and the mask said once");
    cr_assert(strstr(r.d.msg, "panthor's profiling mask is 1 (cycles only): echo 3 | sudo tee "
                     "/sys/bus/platform/drivers/panthor/"), "%s", r.d.msg);
    snprintf(t, sizeof(t), fmt, 501000000ull);
    fproc_add_fd(r.p, 90, 4, "/dev/dri/renderD128", t);
    rig_sample(&r);
    cr_assert_eq(val(&r, "DrmEngine0Cycles"), 500000000ull);
    cr_assert_eq(val(&r, "DrmEngine0MaxFreqHz"), 1000000000ull);
    cr_assert_float_eq(metric(&r, 1.0, "panthor cycles at max clock"), 50.0, 1e-9);
    cr_assert_float_eq(metric(&r, 1.0, "Busiest engine"), 50.0, 1e-6);
    cr_assert_eq(val(&r, "DrmProfilingOff"), 1);
    rig_end(&r);
}

/* amdgpu prints no drm-engine-capacity and sums each ring's and context's
 * time (amdgpu_fdinfo.c, amdgpu_ctx_mgr_usage): +2.52 s of compute in 1 s
 * is 252 %, shown as it is (the layout no longer clamps) and said in the
 * state line, not a silent 100 %. */
Test(fdinfo_source, engine_time_past_capacity_is_not_clamped_silently)
{
    struct rig r = { .p = fproc_new() };
    static const char fmt[] =
        "pasid:\t32771\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:c3:00.0\ndrm-client-id:\t8\n"
        "drm-memory-vram:\t0 KiB\ndrm-memory-gtt: \t0 KiB\ndrm-memory-cpu: \t0 KiB\n"
        "drm-engine-compute:\t%llu ns\n";
    char t[512], act[512];

    fproc_add_process(r.p, 100, "rocm-job");
    snprintf(t, sizeof(t), fmt, 1000000000ull);
    fproc_add_fd(r.p, 100, 5, "/dev/dri/renderD128", t);
    rig_open(&r, "driver=amdgpu,pdev=0000:c3:00.0");
    rig_sample(&r);
    snprintf(t, sizeof(t), fmt, 3520000000ull);
    fproc_add_fd(r.p, 100, 5, "/dev/dri/renderD128", t);
    rig_sample(&r);
    cr_assert_eq(val(&r, "DrmEngine1Ns"), 2520000000ull, "compute is amdgpu's 2nd engine");
    cr_assert_float_eq(metric(&r, 1.0, "compute busy"), 252.0, 1e-9);
    cr_assert_eq(val(&r, "DrmOverCapacity"), 1, "the sample is past capacity (real interval "
                 "under 2.52 s)");
    r.s->type->activity(r.s, &r.snap, act, sizeof(act));
    cr_assert(strstr(act, "engine time past 100 %"), "%s", act);
    rig_end(&r);
}

/* drm-total = shared + private (drm-usage-stats.rst): two clients each
 * holding 3 MiB of which 1 MiB is shared (with the compositor, say): the
 * GPU-wide figure adds 2 + 2 MiB, never the shared MiB once per client. */
Test(fdinfo_source, memory_sum_counts_no_shared_buffer_twice)
{
    struct rig r = { .p = fproc_new() };
    static const char fmt[] =
        "drm-driver:\tpanfrost\ndrm-client-id:\t%d\ndrm-engine-fragment:\t0 ns\n"
        "drm-total-memory:\t3072 KiB\ndrm-shared-memory:\t1024 KiB\n"
        "drm-active-memory:\t0\ndrm-resident-memory:\t3072 KiB\ndrm-purgeable-memory:\t0\n";
    char t[512];

    fproc_add_process(r.p, 100, "a");
    snprintf(t, sizeof(t), fmt, 1);
    fproc_add_fd(r.p, 100, 5, "/dev/dri/renderD128", t);
    fproc_add_process(r.p, 200, "b");
    snprintf(t, sizeof(t), fmt, 2);
    fproc_add_fd(r.p, 200, 5, "/dev/dri/renderD128", t);
    rig_open(&r, "driver=panfrost");
    rig_sample(&r);
    cr_assert_eq(val(&r, "DrmMemoryBytes"), 4096ull * 1024);
    rig_end(&r);
}

extern const struct gt_source_type gt_source_drm_fdinfo;

/* ---- item 5: etnaviv prints memory only (etnaviv_drv.c:
 * etnaviv_show_fdinfo calls drm_show_memory_stats and nothing else) ---- */

static int one_etnaviv_gpu(void *ctx, struct gt_drm_device *out, int max)
{
    (void)ctx;
    if (max < 1)
        return 0;
    memset(out, 0, sizeof(*out));
    snprintf(out->render, sizeof(out->render), "/dev/dri/renderD128");
    snprintf(out->primary, sizeof(out->primary), "/dev/dri/card0");
    return 1;
}

Test(fdinfo_source, etnaviv_is_no_engine_source)
{
    struct fake_proc *p = fproc_new();
    struct gt_sys sys = *fproc_sys(p);
    struct gt_source *s;
    struct gt_diag d;
    char why[256];

    sys.drm_devices = one_etnaviv_gpu;
    fproc_write(p, "/sys/class/drm/renderD128/device/uevent",
                "DRIVER=etnaviv\nOF_NAME=gpu\nOF_FULLNAME=/soc/gpu@130000\n");
    /* not picked by itself, nor offered as available */
    s = gt_source_open("drm-fdinfo", &sys, &d);
    cr_assert_null(s);
    cr_assert(strstr(d.msg, "no DRM device driven by a driver known to print fdinfo engine"),
              "%s", d.msg);
    cr_assert_neq(gt_source_drm_fdinfo.available(&sys, why, sizeof(why)), 0);
    /* named: refused, saying where its memory is */
    s = gt_source_open("drm-fdinfo:driver=etnaviv", &sys, &d);
    cr_assert_null(s);
    cr_assert(strstr(d.msg, "etnaviv prints no engine time in fdinfo"), "%s", d.msg);
    cr_assert(strstr(d.msg, "Processes view"), "%s", d.msg);
    fproc_free(p);
}

/* Its clients' memory is read all the same (the Processes view's rows). */
Test(fdinfo, etnaviv_memory_without_engines)
{
    struct gt_fdinfo_client c;

    cr_assert_eq(gt_fdinfo_parse("drm-driver:\tetnaviv\ndrm-client-id:\t5\n"
                                 "drm-total-memory:\t8 MiB\ndrm-shared-memory:\t2 MiB\n"
                                 "drm-active-memory:\t0\ndrm-resident-memory:\t8 MiB\n"
                                 "drm-purgeable-memory:\t0\n", &c), 0);
    cr_assert_eq(c.nengines, 0);
    cr_assert_eq(c.mem_resident, 8ull << 20);
    cr_assert_eq(c.mem_private, 6ull << 20);
}
