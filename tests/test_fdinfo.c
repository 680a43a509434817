/* The fdinfo reader on a fake /proc: each driver's documented keys parsed,
 * clients de-duplicated across dup'd fds and forked processes, busy shares
 * worked out from the engine times, processes coming and going, and the
 * full walk kept to its own slower period. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "fakes/fake_proc.h"
#include "gputop/fdinfo.h"

#define SEC 1000000000ull

static void panfrost_text(char *buf, size_t len, unsigned id, unsigned long long frag_ns,
                          unsigned long long vt_ns)
{
    snprintf(buf, len,
             "pos:\t0\nflags:\t02100002\nmnt_id:\t23\nino:\t512\n"
             "drm-driver:\tpanfrost\ndrm-client-id:\t%u\n"
             "drm-engine-fragment:\t%llu ns\ndrm-cycles-fragment:\t1000\n"
             "drm-maxfreq-fragment:\t800000000 Hz\ndrm-curfreq-fragment:\t800000000 Hz\n"
             "drm-engine-vertex-tiler:\t%llu ns\ndrm-cycles-vertex-tiler:\t100\n"
             "drm-maxfreq-vertex-tiler:\t800000000 Hz\ndrm-curfreq-vertex-tiler:\t800000000 Hz\n"
             "drm-total-memory:\t2048 KiB\ndrm-shared-memory:\t0\ndrm-active-memory:\t0\n"
             "drm-resident-memory:\t2048 KiB\ndrm-purgeable-memory:\t0\n",
             id, frag_ns, vt_ns);
}

static const char amdgpu_text[] =
    "pos:\t0\nflags:\t02100002\nmnt_id:\t23\nino:\t7\n"
    "drm-driver:\tamdgpu\ndrm-client-id:\t55\ndrm-pdev:\t0000:c3:00.0\npasid:\t32771\n"
    "drm-memory-vram:\t1024 KiB\ndrm-memory-gtt:\t2048 KiB\ndrm-memory-cpu:\t0 KiB\n"
    "drm-engine-gfx:\t250000000 ns\ndrm-engine-compute:\t0 ns\n";

static const char i915_text[] =
    "drm-driver:\ti915\ndrm-client-id:\t7\ndrm-pdev:\t0000:00:02.0\n"
    "drm-engine-render:\t900000000 ns\ndrm-engine-copy:\t0 ns\n"
    "drm-engine-video:\t0 ns\ndrm-engine-capacity-video:\t2\n";

static const char msm_text[] =
    "drm-driver:\tmsm\ndrm-client-id:\t3\n"
    "drm-engine-gpu:\t0 ns\ndrm-cycles-gpu:\t0\ndrm-maxfreq-gpu:\t587 MHz\n";

static const struct gt_fdinfo_engine *eng(const struct gt_fdinfo_client *c, const char *name)
{
    int i;

    for (i = 0; i < c->nengines; i++)
        if (strcmp(c->engine[i].name, name) == 0)
            return &c->engine[i];
    cr_assert_fail("no engine %s", name);
    return NULL;
}

Test(fdinfo, parses_each_drivers_documented_keys)
{
    struct gt_fdinfo_client c;
    char buf[1024];

    panfrost_text(buf, sizeof(buf), 12, 500000000, 100000000);
    cr_assert_eq(gt_fdinfo_parse(buf, &c), 0);
    cr_assert_str_eq(c.driver, "panfrost");
    cr_assert_eq(c.client_id, 12);
    cr_assert_eq(c.nengines, 2);
    cr_assert_eq(eng(&c, "fragment")->ns, 500000000ull);
    cr_assert_eq(eng(&c, "vertex-tiler")->ns, 100000000ull);
    cr_assert_eq(eng(&c, "fragment")->maxfreq_hz, 800000000ull);
    cr_assert_eq(c.mem_bytes, 2048ull * 1024, "drm-total-memory, not total + resident");

    cr_assert_eq(gt_fdinfo_parse(amdgpu_text, &c), 0);
    cr_assert_str_eq(c.pdev, "0000:c3:00.0");
    cr_assert_eq(c.mem_bytes, 3072ull * 1024, "the deprecated drm-memory-* keys summed");
    cr_assert_eq(eng(&c, "gfx")->ns, 250000000ull);

    cr_assert_eq(gt_fdinfo_parse(i915_text, &c), 0);
    cr_assert_eq(eng(&c, "video")->capacity, 2);
    cr_assert_eq(eng(&c, "render")->capacity, 1);

    cr_assert_eq(gt_fdinfo_parse(msm_text, &c), 0);
    cr_assert_eq(eng(&c, "gpu")->maxfreq_hz, 587000000ull);

    cr_assert_eq(gt_fdinfo_parse("pos:\t0\nflags:\t0100002\n", &c), -1, "not a DRM client");
}

struct world {
    struct fake_proc *p;
    struct gt_fdinfo *f;
};

static void world(struct world *w, unsigned walk_every)
{
    w->p = fproc_new();
    cr_assert_not_null(w->p);
    w->f = gt_fdinfo_new(fproc_sys(w->p), walk_every);
    cr_assert_not_null(w->f);
}

static void world_end(struct world *w)
{
    gt_fdinfo_free(w->f);
    fproc_free(w->p);
}

static size_t clients(struct world *w, const struct gt_fdinfo_client *const **c)
{
    return gt_fdinfo_clients(w->f, c);
}

Test(fdinfo, dup_fds_and_forked_children_are_one_client)
{
    struct world w;
    const struct gt_fdinfo_client *const *c;
    char buf[1024];

    world(&w, 1);
    panfrost_text(buf, sizeof(buf), 12, 0, 0);
    fproc_add_process(w.p, 100, "glmark2");
    fproc_add_fd(w.p, 100, 0, "/dev/null", "pos:\t0\nflags:\t02\n");
    fproc_add_fd(w.p, 100, 3, "socket:[4242]", "pos:\t0\nflags:\t02\n");
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128", buf);
    fproc_add_fd(w.p, 100, 6, "/dev/dri/renderD128", buf);     /* dup(5) */
    fproc_add_process(w.p, 101, "glmark2-child");
    fproc_add_fd(w.p, 101, 5, "/dev/dri/renderD128", buf);     /* inherited */
    fproc_add_process(w.p, 200, "game");
    fproc_add_fd(w.p, 200, 9, "/dev/dri/renderD129", amdgpu_text);
    cr_assert_eq(gt_fdinfo_update(w.f, 1 * SEC, 0), 0);
    cr_assert_eq(clients(&w, &c), 2);
    cr_assert_eq(gt_fdinfo_update(w.f, 2 * SEC, 0), 0);
    cr_assert_eq(clients(&w, &c), 2, "a second walk adds no copies");
    cr_assert(c[0]->pid == 100 || c[1]->pid == 100);
    cr_assert(strcmp(c[0]->comm, "glmark2") == 0 || strcmp(c[1]->comm, "glmark2") == 0);
    world_end(&w);
}

Test(fdinfo, busy_share_is_engine_time_over_wall_time)
{
    struct world w;
    const struct gt_fdinfo_client *const *c;
    char buf[1024];

    world(&w, 1);
    fproc_add_process(w.p, 100, "glmark2");
    panfrost_text(buf, sizeof(buf), 12, 1000000000, 0);
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128", buf);
    fproc_add_process(w.p, 300, "ffmpeg");
    fproc_add_fd(w.p, 300, 4, "/dev/dri/renderD130", i915_text);
    cr_assert_eq(gt_fdinfo_update(w.f, 10 * SEC, 0), 0);
    /* 2 s later: fragment +500 ms (25 %), vertex-tiler +100 ms (5 %). */
    panfrost_text(buf, sizeof(buf), 12, 1500000000, 100000000);
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128", buf);
    /* video +2 s of engine time over 2 s on 2 engines: 50 %. */
    fproc_add_fd(w.p, 300, 4, "/dev/dri/renderD130",
                 "drm-driver:\ti915\ndrm-client-id:\t7\ndrm-pdev:\t0000:00:02.0\n"
                 "drm-engine-render:\t900000000 ns\ndrm-engine-video:\t2000000000 ns\n"
                 "drm-engine-capacity-video:\t2\n");
    cr_assert_eq(gt_fdinfo_update(w.f, 12 * SEC, 0), 0);
    cr_assert_eq(clients(&w, &c), 2);
    cr_assert_eq(c[0]->pid, 300, "busiest first");
    cr_assert_float_eq(eng(c[0], "video")->busy_pct, 50.0, 1e-9);
    cr_assert_float_eq(eng(c[0], "render")->busy_pct, 0.0, 1e-9);
    cr_assert_float_eq(eng(c[1], "fragment")->busy_pct, 25.0, 1e-9);
    cr_assert_float_eq(eng(c[1], "vertex-tiler")->busy_pct, 5.0, 1e-9);
    cr_assert_float_eq(c[1]->busy_pct, 25.0, 1e-9);
    world_end(&w);
}

Test(fdinfo, a_count_going_back_keeps_the_larger_one)
{
    struct world w;
    const struct gt_fdinfo_client *const *c;
    char buf[1024];

    world(&w, 1);
    fproc_add_process(w.p, 100, "app");
    panfrost_text(buf, sizeof(buf), 12, 1000000000, 0);
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128", buf);
    gt_fdinfo_update(w.f, 1 * SEC, 0);
    panfrost_text(buf, sizeof(buf), 12, 900000000, 0);
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128", buf);
    gt_fdinfo_update(w.f, 2 * SEC, 0);
    cr_assert_eq(clients(&w, &c), 1);
    cr_assert_float_eq(eng(c[0], "fragment")->busy_pct, 0.0, 1e-9);
    cr_assert_eq(eng(c[0], "fragment")->ns, 1000000000ull);
    world_end(&w);
}

/* A process started since the last update has the pid /proc/loadavg names
 * last (fs/proc/loadavg.c): it is probed at the next update, without
 * waiting for the rotation to reach it; known clients are re-read. */
Test(fdinfo, a_new_process_is_found_at_the_next_update)
{
    struct world w;
    const struct gt_fdinfo_client *const *c;
    char buf[1024];

    world(&w, 1000);  /* a rotation over 1000 updates: 1 process each */
    fproc_add_process(w.p, 100, "app");
    panfrost_text(buf, sizeof(buf), 12, 0, 0);
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128", buf);
    for (int pid = 1000; pid < 1040; pid++)
        fproc_add_process(w.p, pid, "idle");
    gt_fdinfo_update(w.f, 1 * SEC, 0);
    cr_assert_eq(gt_fdinfo_stats(w.f)->walks, 1, "the first update walks everything");
    cr_assert_eq(gt_fdinfo_find_stats(w.f)->probes, 0);
    fproc_add_process(w.p, 1040, "late");
    fproc_add_fd(w.p, 1040, 7, "/dev/dri/renderD128", amdgpu_text);
    panfrost_text(buf, sizeof(buf), 12, 100000000, 0);
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128", buf);
    gt_fdinfo_update(w.f, 2 * SEC, 0);
    cr_assert_eq(clients(&w, &c), 2, "the new pid was probed");
    cr_assert_eq(gt_fdinfo_find_stats(w.f)->probes, 1, "only 1040 was handed out");
    cr_assert_eq(gt_fdinfo_find_stats(w.f)->scanned, 1, "and one process of the rotation");
    /* The new one was not there at 1 s: its 250 ms of gfx are all of this
     * second (25 %), not a baseline; the known one re-read: 100 ms, 10 %. */
    cr_assert_eq(c[0]->pid, 1040);
    cr_assert_float_eq(c[0]->busy_pct, 25.0, 1e-9);
    cr_assert_eq(c[1]->pid, 100);
    cr_assert_float_eq(c[1]->busy_pct, 10.0, 1e-9);
    /* A fork storm: 1000 pids handed out in a second; the newest 256 are
     * probed (1785..2040), the rest left to the rotation. */
    fproc_set_last_pid(w.p, 2040);
    gt_fdinfo_update(w.f, 3 * SEC, 0);
    cr_assert_eq(gt_fdinfo_find_stats(w.f)->probes, 1 + 1 + 256, "1040 again as young, 256 new");
    world_end(&w);
}

/* A new process opens the GPU after loading (not at fork): it stays
 * young for 10 s and is probed at each update meanwhile. */
Test(fdinfo, a_young_process_opening_the_gpu_later_is_found_at_once)
{
    struct world w;
    const struct gt_fdinfo_client *const *c;

    world(&w, 1000);
    for (int pid = 1000; pid < 1040; pid++)
        fproc_add_process(w.p, pid, "idle");
    gt_fdinfo_update(w.f, 1 * SEC, 0);
    fproc_add_process(w.p, 1040, "vkcube");
    fproc_add_fd(w.p, 1040, 0, "/dev/null", "pos:\t0\nflags:\t02\n");
    gt_fdinfo_update(w.f, 2 * SEC, 0);
    cr_assert_eq(clients(&w, &c), 0);
    cr_assert_eq(gt_fdinfo_find_stats(w.f)->probes, 1, "1040 probed as new");
    fproc_add_fd(w.p, 1040, 4, "/dev/dri/renderD128", amdgpu_text);
    gt_fdinfo_update(w.f, 3 * SEC, 0);
    cr_assert_eq(gt_fdinfo_find_stats(w.f)->probes, 2, "1040 probed again as young");
    cr_assert_eq(clients(&w, &c), 1);
    cr_assert_str_eq(c[0]->comm, "vkcube");
    /* 10 s after it appeared it is no longer probed */
    gt_fdinfo_update(w.f, 12 * SEC + 1, 0);
    cr_assert_eq(gt_fdinfo_find_stats(w.f)->probes, 2);
    world_end(&w);
}

/* A process that was there before opens the GPU: no new pid tells, the
 * rotation finds it; with 3 processes and walk_every 3, one a update, so
 * within 3 updates whatever the listing's order. */
Test(fdinfo, an_old_process_opening_the_gpu_is_found_by_the_rotation)
{
    struct world w;
    const struct gt_fdinfo_client *const *c;
    int i;

    world(&w, 3);
    fproc_add_process(w.p, 100, "a");
    fproc_add_process(w.p, 150, "b");
    fproc_add_process(w.p, 160, "c");
    gt_fdinfo_update(w.f, 1 * SEC, 0);
    fproc_add_fd(w.p, 150, 6, "/dev/dri/renderD128", amdgpu_text);
    for (i = 0; i < 3 && clients(&w, &c) == 0; i++)
        gt_fdinfo_update(w.f, (2 + (uint64_t)i) * SEC, 0);
    cr_assert_eq(clients(&w, &c), 1, "not found in 3 updates");
    cr_assert_eq(gt_fdinfo_find_stats(w.f)->probes, 0, "by the rotation, not a probe");
    cr_assert_leq(gt_fdinfo_find_stats(w.f)->scanned, 3);
    world_end(&w);
}

/* Each update's slice stops once it used its CPU budget, checked every 8
 * processes: a budget of 1 ns stops it at 8 of 40. */
Test(fdinfo, a_slice_stops_at_its_cpu_budget)
{
    struct world w;

    world(&w, 1);
    for (int pid = 1000; pid < 1040; pid++)
        fproc_add_process(w.p, pid, "idle");
    gt_fdinfo_update(w.f, 1 * SEC, 0);
    gt_fdinfo_set_find_budget(w.f, 1);
    gt_fdinfo_update(w.f, 2 * SEC, 0);
    cr_assert_eq(gt_fdinfo_find_stats(w.f)->scanned, 8);
    cr_assert_eq(gt_fdinfo_find_stats(w.f)->over_budget, 1);
    gt_fdinfo_set_find_budget(w.f, 0);
    gt_fdinfo_update(w.f, 3 * SEC, 0);
    cr_assert_eq(gt_fdinfo_find_stats(w.f)->scanned, 8 + 32 + 8,
                 "uncapped, a slice of 40: the rotation's other 32, then 8 of the next");
    cr_assert_eq(gt_fdinfo_find_stats(w.f)->rotations, 1);
    world_end(&w);
}

Test(fdinfo, exited_processes_and_closed_fds_drop_out)
{
    struct world w;
    const struct gt_fdinfo_client *const *c;
    char buf[1024];

    world(&w, 100);
    panfrost_text(buf, sizeof(buf), 12, 0, 0);
    fproc_add_process(w.p, 100, "app");
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128", buf);
    fproc_add_process(w.p, 200, "game");
    fproc_add_fd(w.p, 200, 9, "/dev/dri/renderD129", amdgpu_text);
    gt_fdinfo_update(w.f, 1 * SEC, 0);
    cr_assert_eq(clients(&w, &c), 2);
    fproc_exit(w.p, 100);
    fproc_close_fd(w.p, 200, 9);
    gt_fdinfo_update(w.f, 2 * SEC, 0);
    cr_assert_eq(clients(&w, &c), 0, "gone without waiting for a walk");
    world_end(&w);
}

Test(fdinfo, panfrost_without_engine_keys_means_profiling_is_off)
{
    struct world w;

    world(&w, 1);
    fproc_add_process(w.p, 100, "app");
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128",
                 "drm-driver:\tpanfrost\ndrm-client-id:\t4\n"
                 "drm-maxfreq-fragment:\t800000000 Hz\ndrm-curfreq-fragment:\t800000000 Hz\n"
                 "drm-total-memory:\t64 KiB\n");
    gt_fdinfo_update(w.f, 1 * SEC, 0);
    cr_assert_eq(gt_fdinfo_profiling_off(w.f), 1);
    world_end(&w);
}

/* xe prints no engine time: busy = Δdrm-cycles / Δdrm-total-cycles
 * (drm-usage-stats.rst). Over the interval: cycles +300, total +1200: 25 %. */
Test(fdinfo, xe_busy_is_cycles_over_total_cycles)
{
    struct world w;
    const struct gt_fdinfo_client *const *c;
    const struct gt_fdinfo_engine *e;

    world(&w, 1);
    fproc_add_process(w.p, 100, "xe-app");
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128",
                 "drm-driver:\txe\ndrm-client-id:\t9\ndrm-pdev:\t0000:00:02.0\n"
                 "drm-cycles-rcs:\t1000\ndrm-total-cycles-rcs:\t50000\n");
    gt_fdinfo_update(w.f, 1 * SEC, 0);
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128",
                 "drm-driver:\txe\ndrm-client-id:\t9\ndrm-pdev:\t0000:00:02.0\n"
                 "drm-cycles-rcs:\t1300\ndrm-total-cycles-rcs:\t51200\n");
    gt_fdinfo_update(w.f, 2 * SEC, 0);
    cr_assert_eq(clients(&w, &c), 1);
    e = eng(c[0], "rcs");
    cr_assert_eq(e->total_cycles, 51200ull);
    cr_assert_eq(e->d_cycles, 300ull);
    cr_assert_eq(e->d_total_cycles, 1200ull);
    cr_assert_float_eq(e->busy_pct, 25.0, 1e-9);
    world_end(&w);
}

/* The last update's deltas per engine; a new client's first reading is
 * its baseline (no delta), and so is an engine it prints for the first time. */
Test(fdinfo, deltas_of_the_last_update_and_baselines)
{
    struct world w;
    const struct gt_fdinfo_client *const *c;
    char buf[1024];

    world(&w, 1);
    fproc_add_process(w.p, 100, "app");
    panfrost_text(buf, sizeof(buf), 12, 700000000, 0);
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128", buf);
    gt_fdinfo_update(w.f, 1 * SEC, 0);
    cr_assert_eq(clients(&w, &c), 1);
    cr_assert_eq(eng(c[0], "fragment")->d_ns, 0, "first reading: baseline");
    cr_assert_eq(eng(c[0], "fragment")->curfreq_hz, 800000000ull);
    panfrost_text(buf, sizeof(buf), 12, 900000000, 40000000);
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128", buf);
    gt_fdinfo_update(w.f, 2 * SEC, 0);
    cr_assert_eq(clients(&w, &c), 1, "the list of this update");
    cr_assert_eq(eng(c[0], "fragment")->d_ns, 200000000ull);
    cr_assert_eq(eng(c[0], "vertex-tiler")->d_ns, 40000000ull);
    cr_assert_eq(eng(c[0], "fragment")->d_cycles, 0ull);
    world_end(&w);
}

/* A walk period in ns instead of a count of updates: the walk runs when
 * that long has passed since the last one, whatever the update rate. */
Test(fdinfo, walk_period_in_ns)
{
    struct world w;

    world(&w, 1);
    gt_fdinfo_set_walk_period(w.f, 5 * SEC);
    gt_fdinfo_update(w.f, 10 * SEC, 0);
    cr_assert_eq(gt_fdinfo_stats(w.f)->walks, 1, "the first update walks");
    gt_fdinfo_update(w.f, 11 * SEC, 0);
    gt_fdinfo_update(w.f, 14 * SEC, 0);
    cr_assert_eq(gt_fdinfo_stats(w.f)->walks, 1);
    gt_fdinfo_update(w.f, 15 * SEC, 0);
    cr_assert_eq(gt_fdinfo_stats(w.f)->walks, 2, "5 s after the first");
    gt_fdinfo_update(w.f, 15 * SEC + 1, 0);
    cr_assert_eq(gt_fdinfo_stats(w.f)->walks, 2);
    world_end(&w);
}

/* ---- memory (drm-usage-stats.rst; amdgpu_fdinfo.c, drm_file.c) ---- */

/* amdgpu since 6.10 prints drm_print_memory_stats() for each placement
 * (total, shared, resident, purgeable; sizes in the largest of KiB/MiB
 * that divides them), then its legacy drm-memory-* aliases of resident
 * ("drm-memory-gtt: \t..." with a space before the tab). An APU whose
 * job holds 512 MiB of VRAM and 6 GiB of GTT, 1 GiB of that GTT shared
 * with the compositor: resident 512 + 6144 = 6656 MiB (the aliases not
 * added again), private 512 + (6144 - 1024) = 5632 MiB. */
static const char amdgpu_apu_text[] =
    "pasid:\t32771\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:c3:00.0\ndrm-client-id:\t90\n"
    "drm-total-vram:\t512 MiB\ndrm-shared-vram:\t0\ndrm-resident-vram:\t512 MiB\n"
    "drm-purgeable-vram:\t0\n"
    "drm-total-gtt:\t6144 MiB\ndrm-shared-gtt:\t1024 MiB\ndrm-resident-gtt:\t6144 MiB\n"
    "drm-purgeable-gtt:\t0\n"
    "drm-total-cpu:\t0\ndrm-shared-cpu:\t0\ndrm-resident-cpu:\t0\ndrm-purgeable-cpu:\t0\n"
    "drm-memory-vram:\t524288 KiB\ndrm-memory-gtt: \t6291456 KiB\ndrm-memory-cpu: \t0 KiB\n"
    "amd-evicted-vram:\t0 KiB\namd-requested-vram:\t524288 KiB\n"
    "amd-requested-gtt:\t6291456 KiB\ndrm-engine-compute:\t1000 ns\n";

Test(fdinfo, memory_resident_private_vram_and_gtt_without_double_counting)
{
    struct gt_fdinfo_client c;

    cr_assert_eq(gt_fdinfo_parse(amdgpu_apu_text, &c), 0);
    cr_assert_eq(c.mem_resident, 6656ull << 20);
    cr_assert_eq(c.mem_private, 5632ull << 20);
    cr_assert(c.has_private);
    cr_assert(c.has_vram_gtt);
    cr_assert_eq(c.mem_vram, 512ull << 20);
    cr_assert_eq(c.mem_gtt, 6144ull << 20);
    cr_assert_eq(c.mem_bytes, 5632ull << 20, "a sum over clients adds the private part");
    /* panfrost (panfrost_drv.c: drm_show_memory_stats, region "memory") */
    cr_assert_eq(gt_fdinfo_parse("drm-driver:\tpanfrost\ndrm-client-id:\t3\n"
                                 "drm-total-memory:\t3072 KiB\ndrm-shared-memory:\t1024 KiB\n"
                                 "drm-active-memory:\t0\ndrm-resident-memory:\t2048 KiB\n"
                                 "drm-purgeable-memory:\t0\n", &c), 0);
    cr_assert_eq(c.mem_resident, 2048ull << 10);
    cr_assert_eq(c.mem_private, 2048ull << 10);
    cr_assert(!c.has_vram_gtt);
    /* amdgpu before 6.10: the drm-memory-* keys alone, resident only */
    cr_assert_eq(gt_fdinfo_parse(amdgpu_text, &c), 0);
    cr_assert_eq(c.mem_resident, 3072ull << 10);
    cr_assert_eq(c.mem_vram, 1024ull << 10);
    cr_assert_eq(c.mem_gtt, 2048ull << 10);
    cr_assert(!c.has_private, "no drm-total-*: private unknown");
}

/* ---- item 3: no impossible percentages ---- */

/* amdgpu sums each ring's and context's time (amdgpu_ctx_mgr_usage): 2.52 s
 * of compute in 1 s is 252 %, kept as it is and flagged, not clamped. */
Test(fdinfo, engine_time_past_capacity_is_flagged_not_clamped)
{
    struct world w;
    const struct gt_fdinfo_client *const *c;

    world(&w, 1);
    fproc_add_process(w.p, 100, "rocm-job");
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128",
                 "drm-driver:\tamdgpu\ndrm-pdev:\t0000:c3:00.0\ndrm-client-id:\t8\n"
                 "drm-engine-compute:\t1000000000 ns\n");
    gt_fdinfo_update(w.f, 1 * SEC, 0);
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128",
                 "drm-driver:\tamdgpu\ndrm-pdev:\t0000:c3:00.0\ndrm-client-id:\t8\n"
                 "drm-engine-compute:\t3520000000 ns\n");
    gt_fdinfo_update(w.f, 2 * SEC, 0);
    cr_assert_eq(clients(&w, &c), 1);
    cr_assert_float_eq(c[0]->busy_pct, 252.0, 1e-9);
    cr_assert_eq(c[0]->over, 1);
    /* 100.4 %: a wobble between our clock and the driver's, not flagged */
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128",
                 "drm-driver:\tamdgpu\ndrm-pdev:\t0000:c3:00.0\ndrm-client-id:\t8\n"
                 "drm-engine-compute:\t4524000000 ns\n");
    gt_fdinfo_update(w.f, 3 * SEC, 0);
    cr_assert_eq(clients(&w, &c), 1);
    cr_assert_float_eq(c[0]->busy_pct, 100.4, 1e-9);
    cr_assert_eq(c[0]->over, 0);
    world_end(&w);
}

/* ---- item 4: names follow the process ---- */

/* A launcher opens the GPU and forks the game, which inherits the fd; the
 * launcher exits: the client is the game's now, under its pid and name. */
Test(fdinfo, a_shared_client_takes_the_name_of_the_process_holding_it)
{
    struct world w;
    const struct gt_fdinfo_client *const *c;
    char buf[1024];

    world(&w, 1);
    panfrost_text(buf, sizeof(buf), 12, 0, 0);
    fproc_add_process(w.p, 100, "launcher");
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128", buf);
    fproc_add_process(w.p, 101, "game");
    fproc_add_fd(w.p, 101, 5, "/dev/dri/renderD128", buf);
    gt_fdinfo_update(w.f, 1 * SEC, 0);
    cr_assert_eq(clients(&w, &c), 1);
    cr_assert_eq(c[0]->pid, 100);
    cr_assert_str_eq(c[0]->comm, "launcher");
    fproc_exit(w.p, 100);
    gt_fdinfo_update(w.f, 2 * SEC, 0);
    cr_assert_eq(clients(&w, &c), 1);
    cr_assert_eq(c[0]->pid, 101);
    cr_assert_str_eq(c[0]->comm, "game", "was the exited launcher's name");
    world_end(&w);
}

/* ---- item 1: each driver's profiling switch ---- */

/* panthor_drv.c (panthor_gpu_show_fdinfo): drm-engine-panthor only with
 * bit 1 (timestamps) of 'profiling', drm-cycles-panthor with bit 0;
 * drm-maxfreq/curfreq always. panfrost_drv.c: no drm-engine-* at 0. */
Test(fdinfo, profiling_switches_per_driver)
{
    struct world w;

    world(&w, 1);
    fproc_add_process(w.p, 100, "a");
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128",
                 "drm-driver:\tpanthor\ndrm-client-id:\t4\ndrm-cycles-panthor:\t5000\n"
                 "drm-maxfreq-panthor:\t1000000000 Hz\ndrm-curfreq-panthor:\t500000000 Hz\n");
    gt_fdinfo_update(w.f, 1 * SEC, 0);
    cr_assert_eq(gt_fdinfo_profiling_off(w.f), GT_FDINFO_PROF_PANTHOR_CYCLES, "mask 1");
    world_end(&w);
    world(&w, 1);
    fproc_add_process(w.p, 100, "a");
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128",
                 "drm-driver:\tpanthor\ndrm-client-id:\t4\n"
                 "drm-maxfreq-panthor:\t1000000000 Hz\ndrm-curfreq-panthor:\t500000000 Hz\n");
    fproc_add_process(w.p, 200, "b");
    fproc_add_fd(w.p, 200, 5, "/dev/dri/renderD129",
                 "drm-driver:\tpanfrost\ndrm-client-id:\t4\n"
                 "drm-maxfreq-fragment:\t800000000 Hz\ndrm-curfreq-fragment:\t800000000 Hz\n");
    gt_fdinfo_update(w.f, 1 * SEC, 0);
    cr_assert_eq(gt_fdinfo_profiling_off(w.f),
                 GT_FDINFO_PROF_PANTHOR_OFF | GT_FDINFO_PROF_PANFROST_OFF, "mask 0, and 0");
    world_end(&w);
}

/* ---- item 7: containers and services from /proc/PID/cgroup ---- */

/* The paths come from the runtimes' cgroup naming: docker with the
 * systemd driver (docker-ID.scope) and cgroupfs (/docker/ID), podman
 * (libpod-ID.scope), Kubernetes (kubepods-CLASS-podUID.slice, dashes as
 * underscores), LXC (lxc.payload.NAME), a systemd service, cgroup v1. */
Test(fdinfo, container_or_service_from_cgroup)
{
    static const struct { const char *cgroup, *want; } cases[] = {
        { "0::/system.slice/docker-3f1c0a2b9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a.scope\n",
          "docker:3f1c0a2b9d8e" },
        { "0::/docker/3f1c0a2b9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a\n",
          "docker:3f1c0a2b9d8e" },
        { "0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-"
          "aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44.scope/container\n",
          "podman:aa11bb22cc33" },
        { "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
          "0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0.slice/cri-containerd-"
          "1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef.scope\n",
          "k8s-pod:0f1e2d3c" },
        { "0::/lxc.payload.buildbox/init.scope\n", "lxc:buildbox" },
        { "0::/system.slice/ollama.service\n", "ollama.service" },
        { "12:pids:/user.slice\n1:name=systemd:/system.slice/sddm.service\n0::/\n",
          "sddm.service" },
        { "0::/\n", "" },
        { "", "" },
    };
    char out[48];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gt_fdinfo_container(cases[i].cgroup, out, sizeof(out));
        cr_assert_str_eq(out, cases[i].want, "%s", cases[i].cgroup);
    }
}

/* amdgpu_fdinfo.c's names: UVD and VCN_DEC are both "dec", VCE and
 * VCN_ENC both "enc", each printed when its time is not 0: two lines of
 * one name in one file add up (100 + 250 ns), not the last one kept. */
Test(fdinfo, an_engine_name_printed_twice_is_summed)
{
    struct gt_fdinfo_client c;

    cr_assert_eq(gt_fdinfo_parse("drm-driver:\tamdgpu\ndrm-client-id:\t9\n"
                                 "drm-engine-gfx:\t7 ns\ndrm-engine-dec:\t100 ns\n"
                                 "drm-engine-dec:\t250 ns\ndrm-engine-jpeg:\t3 ns\n", &c), 0);
    cr_assert_eq(c.nengines, 3);
    cr_assert_eq(eng(&c, "dec")->ns, 350ull);
    cr_assert_eq(eng(&c, "gfx")->ns, 7ull);
}

/* ---- item 9: GPU time per Android app uid (power/gpu_work_period) ---- */

/* TP_printk of the tracepoint (mali_power_gpu_work_period_trace.h):
 * "gpu_id=%u uid=%u start_time_ns=%llu end_time_ns=%llu
 * total_active_duration_ns=%llu", after ftrace's task-pid [cpu] flags
 * timestamp: prefix. */
#define GWP(uid, active)                                                                     \
    "   android.hwui-4321  [003] ..... 81234.567890: gpu_work_period: gpu_id=0 uid=" uid    \
    " start_time_ns=81233567890000 end_time_ns=81234567890000 total_active_duration_ns="    \
    active "\n"

Test(fdinfo, gpu_work_period_lines_and_uid_names)
{
    unsigned uid;
    uint64_t ns;
    char name[32];

    cr_assert_eq(gt_gpu_work_parse(GWP("10123", "250000000"), &uid, &ns), 0);
    cr_assert_eq(uid, 10123);
    cr_assert_eq(ns, 250000000ull);
    cr_assert_eq(gt_gpu_work_parse("  <idle>-0 [000] 1.0: sched_switch: prev_comm=x\n", &uid,
                                   &ns), -1);
    /* libcutils multiuser.h: AID_APP_START 10000, AID_USER_OFFSET 100000 */
    gt_gpu_work_uid_name(10123, name, sizeof(name));
    cr_assert_str_eq(name, "u0_a123");
    gt_gpu_work_uid_name(1010123, name, sizeof(name));
    cr_assert_str_eq(name, "u10_a123");
    gt_gpu_work_uid_name(1000, name, sizeof(name));
    cr_assert_str_eq(name, "uid 1000");
}

/* An ftrace instance of gputop's own (mkdir below tracefs' instances/),
 * the event enabled there and its trace_pipe read: two periods of uid
 * 10123 add up (250 + 100 ms); at close the event is off again. */
Test(fdinfo, gpu_work_period_from_a_trace_instance)
{
    struct fake_proc *p = fproc_new();
    struct gt_gpu_work *g;
    unsigned uid[4];
    uint64_t ns[4];
    char buf[16];
    size_t n;

    fproc_write(p, "/sys/kernel/tracing/events/power/gpu_work_period/format", "name: x\n");
    fproc_write(p, "/sys/kernel/tracing/instances/gputop/events/power/gpu_work_period/enable",
                "0\n");
    fproc_write(p, "/sys/kernel/tracing/instances/gputop/trace_pipe",
                GWP("10123", "250000000") GWP("10200", "50000000") GWP("10123", "100000000"));
    g = gt_gpu_work_open(fproc_sys(p));
    cr_assert_str_eq(gt_gpu_work_why(g), "");
    cr_assert_eq(fproc_read(p, "/sys/kernel/tracing/instances/gputop/events/power/"
                               "gpu_work_period/enable", buf, sizeof(buf)), 0);
    cr_assert_str_eq(buf, "1");
    n = gt_gpu_work_take(g, uid, ns, 4);
    cr_assert_eq(n, 2);
    cr_assert_eq(uid[0], 10123);
    cr_assert_eq(ns[0], 350000000ull);
    cr_assert_eq(uid[1], 10200);
    cr_assert_eq(ns[1], 50000000ull);
    cr_assert_eq(gt_gpu_work_take(g, uid, ns, 4), 0, "read once");
    gt_gpu_work_close(g);
    cr_assert_eq(fproc_read(p, "/sys/kernel/tracing/instances/gputop/events/power/"
                               "gpu_work_period/enable", buf, sizeof(buf)), 0);
    cr_assert_str_eq(buf, "0", "the event off again at close");
    fproc_free(p);
}

Test(fdinfo, gpu_work_period_missing_says_why)
{
    struct fake_proc *p = fproc_new();
    struct gt_gpu_work *g = gt_gpu_work_open(fproc_sys(p));

    cr_assert(strstr(gt_gpu_work_why(g), "no tracefs"), "%s", gt_gpu_work_why(g));
    gt_gpu_work_close(g);
    /* tracefs, its instances/ directory, but a kernel without the event */
    fproc_write(p, "/sys/kernel/tracing/events/sched/sched_switch/format", "name: x\n");
    fproc_write(p, "/sys/kernel/tracing/instances/.fake", "");
    g = gt_gpu_work_open(fproc_sys(p));
    cr_assert(strstr(gt_gpu_work_why(g), "no power/gpu_work_period event (Android 14+"),
              "%s", gt_gpu_work_why(g));
    gt_gpu_work_close(g);
    fproc_free(p);
}

/* A client on a new pid prints counts it made since its open, after the
 * last update: they count from 0 (engine 600 ms in the 2 s since: 30 %).
 * One that prints more than the interval holds inherited them (a child of
 * an unseen parent): that reading is only its baseline. */
Test(fdinfo, a_new_pids_client_counts_from_zero_unless_it_cannot)
{
    struct world w;
    const struct gt_fdinfo_client *const *c;
    char buf[1024];

    world(&w, 1000);
    fproc_add_process(w.p, 500, "idle");
    gt_fdinfo_update(w.f, 10 * SEC, 0);
    fproc_add_process(w.p, 501, "vkcube");
    panfrost_text(buf, sizeof(buf), 21, 600000000, 0);
    fproc_add_fd(w.p, 501, 4, "/dev/dri/renderD128", buf);
    fproc_add_process(w.p, 502, "child");
    panfrost_text(buf, sizeof(buf), 22, 9000000000ull, 0);
    fproc_add_fd(w.p, 502, 4, "/dev/dri/renderD128", buf);
    gt_fdinfo_update(w.f, 12 * SEC, 0);
    cr_assert_eq(clients(&w, &c), 2);
    cr_assert_eq(c[0]->pid, 501);
    cr_assert_float_eq(eng(c[0], "fragment")->busy_pct, 30.0, 1e-9);
    cr_assert_eq(c[1]->pid, 502);
    cr_assert_float_eq(c[1]->busy_pct, 0.0, 1e-9, "9 s in 2 s: inherited, a baseline");
    cr_assert_eq(c[1]->over, 0);
    world_end(&w);
}

/* ---- issue 43 item 16: texts that were read wrong ---- */

/* xe names its memory regions per instance (drm-usage-stats.rst: each
 * region a stable unique name; xe_drm_client.c prints system, gtt, vram0,
 * vram1, stolen): VRAM is the sum of vram0, vram1, ... */
Test(fdinfo, xe_vram_regions_are_summed)
{
    struct gt_fdinfo_client c;

    cr_assert_eq(gt_fdinfo_parse("drm-driver:\txe\ndrm-client-id:\t4\n"
                                 "drm-total-system:\t256 KiB\ndrm-resident-system:\t256 KiB\n"
                                 "drm-total-gtt:\t64 KiB\ndrm-resident-gtt:\t64 KiB\n"
                                 "drm-total-vram0:\t2048 KiB\ndrm-resident-vram0:\t1024 KiB\n"
                                 "drm-total-vram1:\t512 KiB\ndrm-resident-vram1:\t512 KiB\n"
                                 "drm-total-stolen:\t0\ndrm-resident-stolen:\t0\n", &c), 0);
    cr_expect_eq(c.mem_vram, (1024ull + 512) * 1024);
    cr_expect_eq(c.mem_gtt, 64ull * 1024);
    cr_expect(c.has_vram_gtt);
    cr_expect_eq(c.mem_resident, (256ull + 64 + 1024 + 512) * 1024);
    /* "vramfoo" is not a VRAM instance */
    cr_assert_eq(gt_fdinfo_parse("drm-driver:\tx\ndrm-resident-vramfoo:\t4 KiB\n", &c), 0);
    cr_expect_eq(c.mem_vram, 0);
}

/* The driver's name as drm_show_fdinfo (drm_file.c) prints it: amdxdna's
 * is "amdxdna_accel_driver", 20 characters, kept whole. */
Test(fdinfo, a_long_driver_name_is_kept_whole)
{
    struct gt_fdinfo_client c;

    const char *want = "amdxdna_accel_driver";

    cr_assert_eq(gt_fdinfo_parse("drm-driver:\tamdxdna_accel_driver\ndrm-client-id:\t3\n", &c), 0);
    cr_expect_eq(strlen(c.driver), strlen(want), "'%s'", c.driver);
    cr_expect_eq(strncmp(c.driver, want, strlen(want)), 0, "'%s'", c.driver);
}

/* Compute accelerators (drivers/accel: amdxdna, ivpu) are DRM devices
 * under /dev/accel/accelN (drm_accel.c) whose fdinfo has the same keys:
 * their clients are found like a GPU's. */
Test(fdinfo, accel_clients_under_dev_accel_are_found)
{
    struct world w;
    const struct gt_fdinfo_client *const *c;

    world(&w, 1);
    fproc_add_process(w.p, 300, "npu-infer");
    fproc_add_fd(w.p, 300, 7, "/dev/accel/accel0",
                 "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdxdna_accel_driver\n"
                 "drm-client-id:\t3\ndrm-pdev:\t0000:c6:00.1\ndrm-engine-npu:\t1000 ns\n"
                 "drm-total-memory:\t4096 KiB\ndrm-resident-memory:\t4096 KiB\n");
    cr_assert_eq(gt_fdinfo_update(w.f, 1 * SEC, 0), 0);
    cr_assert_eq(clients(&w, &c), 1, "the accel client was not found");
    cr_expect_eq(c[0]->pid, 300);
    cr_expect_eq(strncmp(c[0]->driver, "amdxdna", 7), 0, "'%s'", c[0]->driver);
    world_end(&w);
}

/* drm-usage-stats.rst: drm-maxfreq with drm-cycles gives utilisation
 * against the maximum frequency, and drm-engine-capacity says how many
 * identical engines the name stands for: two engines at full clock for
 * the whole second are 100 %, one of them 50 %. */
Test(fdinfo, maxfreq_busy_is_divided_by_capacity)
{
    struct world w;
    const struct gt_fdinfo_client *const *c;
    const struct gt_fdinfo_engine *e;

    world(&w, 1);
    fproc_add_process(w.p, 100, "app");
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128",
                 "drm-driver:\tx\ndrm-client-id:\t9\ndrm-engine-capacity-cs:\t2\n"
                 "drm-cycles-cs:\t0\ndrm-maxfreq-cs:\t1000 MHz\n");
    gt_fdinfo_update(w.f, 1 * SEC, 0);
    /* one engine busy at 1 GHz for the whole second: 1e9 cycles */
    fproc_add_fd(w.p, 100, 5, "/dev/dri/renderD128",
                 "drm-driver:\tx\ndrm-client-id:\t9\ndrm-engine-capacity-cs:\t2\n"
                 "drm-cycles-cs:\t1000000000\ndrm-maxfreq-cs:\t1000 MHz\n");
    gt_fdinfo_update(w.f, 2 * SEC, 0);
    cr_assert_eq(clients(&w, &c), 1);
    e = eng(c[0], "cs");
    cr_assert_not_null(e);
    cr_expect_float_eq(e->busy_pct, 50.0, 1e-9);
    world_end(&w);
}
