/* gpu-clocks: the GPU's devfreq node, thermal zone, kbase attributes and
 * power meters read from fake sysfs trees written from the ABI documents
 * (tests/fakes/fake_sysfs.c); what cannot be read, and what the kernel
 * would never write, is "not available", never a crash or a zero.
 * Expected values are worked out from the trees' files by hand. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakes/fake_sysfs.h"
#include "fakes/fault_sys.h"
#include "fakes/tmux.h"
#include "gputop/gpu_clocks.h"
#include "gputop/source.h"

static struct gt_clk_paths find(struct fake_proc *p, const char *device, const char *zone)
{
    struct gt_clk_paths paths;
    char why[256] = "";

    cr_assert_eq(gt_clk_find(fproc_sys(p), device, zone, &paths, why, sizeof(why)), 0, "%s", why);
    return paths;
}

static struct gt_clk_reading read_all(struct fake_proc *p, const char *device)
{
    struct gt_clk_paths paths = find(p, device, NULL);
    struct gt_clk_reading r;

    gt_clk_read(fproc_sys(p), &paths, NULL, &r);
    return r;
}

/* ---- discovery ---- */

Test(gpu_clocks, phone_finds_kbase_devfreq_zone_and_meters)
{
    struct fake_proc *p = fsys_new(FSYS_PHONE, FSYS_COOL);
    struct gt_clk_paths f = find(p, "/dev/mali0", NULL);

    cr_assert_str_eq(f.devfreq, "/sys/class/misc/mali0/device/devfreq/1c500000.mali");
    cr_assert_str_eq(f.devfreq_name, "1c500000.mali");
    /* zones BIG, LITTLE and G3D: G3D is the GPU's */
    cr_assert_str_eq(f.zone, FSYS_PHONE_ZONE);
    cr_assert_str_eq(f.zone_type, "G3D");
    cr_assert_str_eq(f.zone_how, "type G3D (thermal_zone3)");
    cr_assert_eq(f.ncooling, 1);
    cr_assert_str_eq(f.cooling[0], FSYS_PHONE_ZONE "/cdev0");
    cr_assert_str_eq(f.kbase, "/sys/class/misc/mali0/device");
    cr_assert_str_eq(f.battery, "/sys/class/power_supply/battery");
    cr_assert_eq(f.nrails, 1);
    fproc_free(p);
}

Test(gpu_clocks, board_finds_the_render_nodes_devfreq)
{
    struct fake_proc *p = fsys_new(FSYS_BOARD, FSYS_COOL);
    struct gt_clk_paths f = find(p, "/dev/dri/renderD128", NULL);

    cr_assert_str_eq(f.devfreq, "/sys/class/drm/renderD128/device/devfreq/fb000000.gpu");
    cr_assert_str_eq(f.zone_how, "type gpu-thermal (thermal_zone1)");
    cr_assert_str_eq(f.kbase, "");
    cr_assert_str_eq(f.battery, "");
    cr_assert_eq(f.nrails, 0);
    cr_assert(strstr(f.no_power, "no battery"), "%s", f.no_power);
    /* no device named: kbase's is not there, the render nodes are looked at */
    f = find(p, "", NULL);
    cr_assert_str_eq(f.devfreq, "/sys/class/drm/renderD128/device/devfreq/fb000000.gpu");
    /* a node without one: the class entry whose name says gpu, not dmc */
    f = find(p, "/dev/dri/renderD129", NULL);
    cr_assert_str_eq(f.devfreq, "/sys/class/devfreq/fb000000.gpu");
    fproc_free(p);
}

Test(gpu_clocks, the_user_names_the_zone)
{
    struct fake_proc *p = fsys_new(FSYS_PHONE, FSYS_COOL);
    struct gt_clk_paths f;
    char why[256] = "";

    f = find(p, NULL, "thermal_zone0");
    cr_assert_str_eq(f.zone_how, "named BIG (thermal_zone0)");
    f = find(p, NULL, "g3d");
    cr_assert_str_eq(f.zone, FSYS_PHONE_ZONE);
    cr_assert_eq(gt_clk_find(fproc_sys(p), NULL, "nosuch", &f, why, sizeof(why)), -1);
    cr_assert(strstr(why, "--thermal-zone nosuch: no thermal zone"), "%s", why);
    fproc_free(p);
}

Test(gpu_clocks, nothing_there_says_why)
{
    struct fake_proc *p = fproc_new();
    struct gt_clk_paths f = find(p, "/dev/mali0", NULL);

    cr_assert_str_eq(f.devfreq, "");
    cr_assert(strstr(f.no_devfreq, "no devfreq node for the GPU"), "%s", f.no_devfreq);
    cr_assert(strstr(f.no_zone, "no thermal zone whose type says GPU"), "%s", f.no_zone);
    fproc_free(p);
}

/* ---- readings: cool and throttled ---- */

Test(gpu_clocks, phone_throttled)
{
    struct fake_proc *p = fsys_new(FSYS_PHONE, FSYS_THROTTLED);
    struct gt_clk_reading r = read_all(p, "/dev/mali0");
    size_t i;

    cr_assert_eq(r.cur_hz, 400000000ull);
    cr_assert_eq(r.max_hz, 400000000ull);     /* the cap */
    cr_assert_eq(r.min_hz, 100000000ull);
    cr_assert_eq(r.top_hz, 800000000ull);     /* top of 100 200 400 600 800 MHz */
    cr_assert_str_eq(r.governor, "simple_ondemand");
    cr_assert_eq(r.nopps, 5);
    for (i = 0; i < 5; i++)                    /* 1000 * (k + 1) ms each */
        cr_assert_eq(r.time_ms[i], 1000 * (i + 1));
    cr_assert_eq(r.opp_hz[4], 800000000ull);
    cr_assert_eq(r.temp_mc, 95000);
    cr_assert_eq(r.passive_mc, 90000);       /* trip 0; trip 1 is critical */
    cr_assert_eq(r.cool_cur, 4);
    cr_assert_eq(r.cool_max, 10);
    cr_assert_eq(r.cooling_active, 1);
    cr_assert_str_eq(r.power_policy, "coarse_demand");
    cr_assert_eq(r.core_mask, 0xF);
    cr_assert_eq(r.battery_uw, 1971200);     /* 512000 uA x 3.85 V */
    cr_assert_eq(r.rail_uws, 3000000);       /* the G3D channel only */
    cr_assert_eq(r.rail_ms, 120000);
    fproc_free(p);
}

Test(gpu_clocks, phone_cool)
{
    struct fake_proc *p = fsys_new(FSYS_PHONE, FSYS_COOL);
    struct gt_clk_reading r = read_all(p, "/dev/mali0");

    cr_assert_eq(r.cur_hz, 600000000ull);
    cr_assert_eq(r.max_hz, 800000000ull);
    cr_assert_eq(r.temp_mc, 45000);
    cr_assert_eq(r.cool_cur, 0);
    cr_assert_eq(r.cooling_active, 0);
    fproc_free(p);
}

Test(gpu_clocks, board_throttled_and_cool)
{
    struct fake_proc *p = fsys_new(FSYS_BOARD, FSYS_THROTTLED);
    struct gt_clk_reading r = read_all(p, "/dev/dri/renderD128");

    cr_assert_eq(r.cur_hz, 400000000ull);
    cr_assert_eq(r.max_hz, 400000000ull);
    cr_assert_eq(r.top_hz, 1000000000ull);
    cr_assert_eq(r.nopps, 7);
    cr_assert_eq(r.temp_mc, 95000);
    cr_assert_eq(r.cool_cur, 4);
    cr_assert_eq(r.have & (GT_CLK_HAVE_BATTERY | GT_CLK_HAVE_RAIL | GT_CLK_HAVE_POLICY), 0);
    fproc_free(p);
    p = fsys_new(FSYS_BOARD, FSYS_COOL);
    r = read_all(p, "/dev/dri/renderD128");
    cr_assert_eq(r.cur_hz, 300000000ull);
    cr_assert_eq(r.max_hz, 1000000000ull);
    cr_assert_eq(r.cooling_active, 0);
    fproc_free(p);
}

/* ---- what cannot be read ---- */

Test(gpu_clocks, a_missing_file_leaves_its_figure_out)
{
    struct fake_proc *p = fsys_new(FSYS_PHONE, FSYS_THROTTLED);
    struct gt_clk_paths f = find(p, "/dev/mali0", NULL);
    struct gt_clk_reading r;

    fsys_remove(p, FSYS_PHONE_DEVFREQ "/cur_freq");
    fsys_remove(p, FSYS_PHONE_ZONE "/temp");
    fsys_remove(p, FSYS_PHONE_COOLING "/max_state");
    gt_clk_read(fproc_sys(p), &f, NULL, &r);
    cr_assert_eq(r.have & (GT_CLK_HAVE_CUR | GT_CLK_HAVE_TEMP | GT_CLK_HAVE_COOLING), 0);
    cr_assert(r.have & GT_CLK_HAVE_MAX);
    cr_assert(r.have & GT_CLK_HAVE_PASSIVE);
    fproc_free(p);
}

/* Root reads anything on a disk, so EACCES comes from the seam. */
Test(gpu_clocks, an_unreadable_file_is_not_available)
{
    static const char *const keys[] = {
        "/sys/class/misc/maliN/device/devfreq/NcN.mali/cur_freq",
        "/sys/class/thermal/thermal_zoneN/temp",
        "/sys/class/thermal/thermal_zoneN/cdevN/cur_state",
        "/sys/class/power_supply/battery/current_now",
        "/sys/bus/iio/devices/iio:deviceN/energy_value",
    };
    static const unsigned lost[] = {
        GT_CLK_HAVE_CUR, GT_CLK_HAVE_TEMP, GT_CLK_HAVE_COOLING, GT_CLK_HAVE_BATTERY,
        GT_CLK_HAVE_RAIL,
    };
    struct fake_proc *p = fsys_new(FSYS_PHONE, FSYS_THROTTLED);
    struct gt_clk_paths f = find(p, "/dev/mali0", NULL);
    struct gt_clk_reading r;
    struct fault_sys fs;
    size_t i;

    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        struct fs_site site = { .call = FS_OPEN };
        fs_init(&fs, fproc_sys(p));
        fs.by_file = 1;
        snprintf(site.file, sizeof(site.file), "%s", keys[i]);
        fs_arm(&fs, site, EACCES, 100);
        gt_clk_read(&fs.sys, &f, NULL, &r);
        cr_assert_gt(fs.injected, 0, "%s was never opened", keys[i]);
        cr_assert_eq(r.have & lost[i], 0, "%s", keys[i]);
        cr_assert(r.have & GT_CLK_HAVE_MAX, "%s took the rest with it", keys[i]);
    }
    fproc_free(p);
}

/* Empty, negative and huge values: what no kernel would print. */
Test(gpu_clocks, odd_values_are_not_available)
{
    static const struct { const char *file, *text; unsigned lost; } odd[] = {
        { FSYS_PHONE_DEVFREQ "/cur_freq", "", GT_CLK_HAVE_CUR },
        { FSYS_PHONE_DEVFREQ "/cur_freq", "-1\n", GT_CLK_HAVE_CUR },
        { FSYS_PHONE_DEVFREQ "/cur_freq", "18446744073709551615\n", GT_CLK_HAVE_CUR },
        { FSYS_PHONE_DEVFREQ "/cur_freq", "99999999999999999999999\n", GT_CLK_HAVE_CUR },
        { FSYS_PHONE_DEVFREQ "/cur_freq", "0\n", GT_CLK_HAVE_CUR },
        { FSYS_PHONE_DEVFREQ "/max_freq", "-1\n", GT_CLK_HAVE_MAX },
        { FSYS_PHONE_DEVFREQ "/available_frequencies", "\n", GT_CLK_HAVE_TOP },
        { FSYS_PHONE_DEVFREQ "/available_frequencies", "100000000 -1\n", GT_CLK_HAVE_TOP },
        { FSYS_PHONE_DEVFREQ "/governor", "", GT_CLK_HAVE_GOVERNOR },
        { FSYS_PHONE_DEVFREQ "/trans_stat", "Not Supported.\n", GT_CLK_HAVE_TRANS },
        { FSYS_PHONE_DEVFREQ "/trans_stat", "", GT_CLK_HAVE_TRANS },
        { FSYS_PHONE_ZONE "/temp", "", GT_CLK_HAVE_TEMP },
        { FSYS_PHONE_ZONE "/temp", "2147483647\n", GT_CLK_HAVE_TEMP },
        { FSYS_PHONE_ZONE "/temp", "-274000\n", GT_CLK_HAVE_TEMP },
        { FSYS_PHONE_ZONE "/trip_point_0_temp", "\n", GT_CLK_HAVE_PASSIVE },
        { FSYS_PHONE_COOLING "/cur_state", "-1\n", GT_CLK_HAVE_COOLING },
        { FSYS_PHONE_COOLING "/cur_state", "11\n", GT_CLK_HAVE_COOLING },   /* over max 10 */
        { FSYS_PHONE_COOLING "/max_state", "4294967296\n", GT_CLK_HAVE_COOLING },
        { "/sys/devices/platform/1c500000.mali/core_mask", "\n", GT_CLK_HAVE_CORES },
        { "/sys/devices/platform/1c500000.mali/power_policy", "coarse_demand\n", GT_CLK_HAVE_POLICY },
        { "/sys/class/power_supply/battery/voltage_now", "-1\n", GT_CLK_HAVE_BATTERY },
        { "/sys/class/power_supply/battery/current_now", "\n", GT_CLK_HAVE_BATTERY },
    };
    size_t i;

    for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        struct fake_proc *p = fsys_new(FSYS_PHONE, FSYS_THROTTLED);
        struct gt_clk_paths f = find(p, "/dev/mali0", NULL);
        struct gt_clk_reading r;
        fproc_write(p, odd[i].file, odd[i].text);
        gt_clk_read(fproc_sys(p), &f, NULL, &r);
        cr_assert_eq(r.have & odd[i].lost, 0, "%s '%s'", odd[i].file, odd[i].text);
        cr_assert(r.have & (odd[i].lost == GT_CLK_HAVE_CUR ? GT_CLK_HAVE_MAX : GT_CLK_HAVE_CUR),
                  "%s '%s' took the rest with it", odd[i].file, odd[i].text);
        fproc_free(p);
    }
}

/* Kept open between readings: the second reading opens nothing and sees
 * the file's new value (sysfs, like this tree, answers a read from 0 with
 * the current one). */
Test(gpu_clocks, kept_files_are_read_again_not_reopened)
{
    struct fake_proc *p = fsys_new(FSYS_PHONE, FSYS_THROTTLED);
    struct gt_clk_paths f = find(p, "/dev/mali0", NULL);
    struct gt_clk_files files;
    struct gt_clk_reading r;
    struct fault_sys fs;
    unsigned opens = 0;
    size_t i;

    gt_clk_files_init(&files);
    fs_init(&fs, fproc_sys(p));
    gt_clk_read(&fs.sys, &f, &files, &r);
    cr_assert_eq(r.cur_hz, 400000000ull);
    fproc_write(p, FSYS_PHONE_DEVFREQ "/cur_freq", "200000000\n");
    fs.logging = 1;
    gt_clk_read(&fs.sys, &f, &files, &r);
    for (i = 0; i < fs.nsites; i++)
        if (fs.sites[i].call == FS_OPEN)
            opens += fs.calls[i];
    cr_assert_eq(opens, 0, "%u files opened again", opens);
    cr_assert_eq(r.cur_hz, 200000000ull);
    cr_assert_eq(r.temp_mc, 95000);
    gt_clk_files_close(&fs.sys, &files);
    fproc_free(p);
}

/* ---- parsers, from the documents' formats ---- */

Test(gpu_clocks, trans_stat_as_devfreq_prints_it)
{
    /* devfreq.c: "%10lu" columns, '*' on the current row, time(ms) last */
    const char *text = "     From  :   To\n"
                       "           : 100000000 200000000   time(ms)\n"
                       "* 100000000:         0         3       250\n"
                       "  200000000:         2         0      1750\n"
                       "Total transition : 5\n";
    uint64_t hz[4], ms[4];
    size_t n;

    cr_assert_eq(gt_clk_parse_trans_stat(text, hz, ms, 4, &n), 0);
    cr_assert_eq(n, 2);
    cr_assert_eq(hz[1], 200000000ull);
    cr_assert_eq(ms[0], 250);
    cr_assert_eq(ms[1], 1750);
    cr_assert_eq(gt_clk_parse_trans_stat("Not Supported.\n", hz, ms, 4, &n), -1);
    /* more frequencies than room: refused, not cut */
    cr_assert_eq(gt_clk_parse_trans_stat(text, hz, ms, 1, &n), -1);
}

Test(gpu_clocks, kbase_and_odpm_formats)
{
    char word[32];
    uint64_t v, ms;

    cr_assert_eq(gt_clk_parse_policy("coarse_demand [always_on]\n", word, sizeof(word)), 0);
    cr_assert_str_eq(word, "always_on");
    /* job-manager kbase prints one mask per job slot after the current one */
    cr_assert_eq(gt_clk_parse_core_mask("Current core mask : 0x7\nCurrent core mask (JS0) : "
                                        "0x7\nAvailable core mask : 0xF\n", &v), 0);
    cr_assert_eq(v, 7);
    cr_assert_eq(gt_clk_parse_odpm("t=5000\nCH0(T=5000)[VDD_GPU], 12\nCH1(T=5000)[L2S_VDD_G3D], 30\n",
                                   &v, &ms), 0);
    cr_assert_eq(v, 42);
    cr_assert_eq(ms, 5000);
    cr_assert_eq(gt_clk_parse_odpm("t=5000\nCH0(T=5000)[VDD_MIF], 12\n", &v, &ms), -1);
    cr_assert_eq(gt_clk_parse_mc(" -5000\n", &(int64_t){ 0 }), 0);   /* a cold phone */
}

/* ---- the counters ---- */

Test(gpu_clocks, counters_of_a_throttled_phone)
{
    struct fake_proc *p = fsys_new(FSYS_PHONE, FSYS_THROTTLED);
    struct gt_clk_reading base = read_all(p, "/dev/mali0"), r;
    struct gt_catalog c;
    struct gt_clk_slots s;
    uint64_t d[64] = { 0 };

    /* 1 s more at 400 MHz and 1 J more on the G3D rail over 500 ms */
    fproc_write(p, FSYS_PHONE_DEVFREQ "/trans_stat",
                "     From  :   To\n           : 100000000 200000000 400000000 600000000 800000000   time(ms)\n"
                "  100000000: 0 1 1 1 1 1000\n  200000000: 1 0 1 1 1 2000\n* 400000000: 1 1 0 1 1 4000\n"
                "  600000000: 1 1 1 0 1 4000\n  800000000: 1 1 1 1 0 5000\nTotal transition : 20\n");
    fproc_write(p, "/sys/bus/iio/devices/iio:device0/energy_value",
                "t=120500\nCH1(T=120500)[S4M_VDD_G3D], 4000000\n");
    r = read_all(p, "/dev/mali0");
    gt_catalog_init(&c);
    cr_assert_eq(gt_clk_catalog_add(&c, base.nopps, base.opp_hz), 0);
    cr_assert_leq(c.nslots, 64);
    gt_clk_slots(&c, &s);
    gt_clk_accumulate(&s, &r, &base, &base, d);
    cr_assert_eq(d[s.cur], 400000000ull);
    cr_assert_eq(d[s.cur_n], 1);
    cr_assert_eq(d[s.temp], 95000 + 273150);   /* millikelvin */
    cr_assert_eq(d[s.trip], 90000 + 273150);
    cr_assert_eq(d[s.crossed], 1);
    cr_assert_eq(d[s.limited], 1);
    cr_assert_eq(d[s.cool_cur], 4);
    cr_assert_eq(d[s.cool_max], 10);
    cr_assert_eq(d[s.cores], 4);
    cr_assert_eq(d[s.time0 + 2], 1000);        /* 3000 -> 4000 ms at 400 MHz */
    cr_assert_eq(d[s.time0 + 3], 0);
    cr_assert_eq(d[s.time_total], 1000);
    cr_assert_eq(d[s.rail_uws], 1000000);
    cr_assert_eq(d[s.rail_ms], 500);
    cr_assert_str_eq(c.counters[gt_catalog_find(&c, GT_CLK_TIME_COUNTER "4")].hw_name, "800 MHz");
    gt_catalog_free(&c);
    fproc_free(p);
}

Test(gpu_clocks, a_cool_device_is_never_thermally_limited)
{
    struct fake_proc *p = fsys_new(FSYS_BOARD, FSYS_COOL);
    struct gt_clk_reading r = read_all(p, "/dev/dri/renderD128");
    struct gt_catalog c;
    struct gt_clk_slots s;
    uint64_t d[64] = { 0 };

    gt_catalog_init(&c);
    cr_assert_eq(gt_clk_catalog_add(&c, r.nopps, r.opp_hz), 0);
    gt_clk_slots(&c, &s);
    gt_clk_accumulate(&s, &r, NULL, NULL, d);
    cr_assert_eq(d[s.thermal_n], 1);
    cr_assert_eq(d[s.limited], 0);
    cr_assert_eq(d[s.crossed], 0);
    gt_catalog_free(&c);
    fproc_free(p);
}

/* ---- the source ---- */

Test(gpu_clocks, the_source_marks_what_it_did_not_find)
{
    struct fake_proc *p = fsys_new(FSYS_BOARD, FSYS_THROTTLED);
    struct gt_diag d;
    char spec[600];
    struct gt_source *s;

    snprintf(spec, sizeof(spec), "gpu-clocks:device=/dev/dri/renderD128");
    s = gt_source_open(spec, fproc_sys(p), &d);
    cr_assert_not_null(s, "%s", d.msg);
    cr_assert_geq(gt_catalog_find(&s->catalog, "GpuFreqCurHz"), 0);
    cr_assert_geq(gt_catalog_find(&s->catalog, GT_CLK_TIME_COUNTER "6"), 0);
    cr_assert_lt(gt_catalog_find(&s->catalog, GT_CLK_TIME_COUNTER "7"), 0);
    cr_assert_lt(gt_catalog_find(&s->catalog, "GpuBatteryUw"), 0);
    cr_assert(strstr(gt_catalog_absent_reason(&s->catalog, "GpuBatteryUw"), "no battery"));
    cr_assert(strstr(gt_catalog_absent_reason(&s->catalog, "GpuCoresEnabled"), "no kbase"));
    cr_assert(strstr(s->info.detail, "devfreq fb000000.gpu governor simple_ondemand; zone type "
                                     "gpu-thermal (thermal_zone1), 1 cooling"), "%s",
              s->info.detail);
    gt_source_close(s);
    fproc_free(p);
}

/* --sys-root reaches the source through the seam (gt_sys.sys_root), as
 * --proc-root reaches drm-fdinfo: no root= in the spec. */
Test(gpu_clocks, the_seams_sys_root_is_the_tree_read)
{
    struct fake_proc *p = fsys_new(FSYS_BOARD, FSYS_COOL);
    struct gt_sys sys = *gt_sys_real();
    struct gt_diag d;
    struct gt_source *s;

    sys.sys_root = fproc_root(p);
    s = gt_source_open("gpu-clocks", &sys, &d);
    cr_assert_not_null(s, "%s", d.msg);
    cr_assert_geq(gt_catalog_find(&s->catalog, "GpuFreqCurHz"), 0);
    cr_assert(strstr(s->info.detail, "devfreq fb000000.gpu"), "%s", s->info.detail);
    gt_source_close(s);
    fproc_free(p);
}

/* The first line of a command's output (its CSV head), "" when none. */
static void first_line(const char *cmd, char *out, size_t len)
{
    char rest[4096];
    FILE *f = popen(cmd, "r");

    cr_assert_not_null(f);
    out[0] = '\0';
    if (!fgets(out, (int)len, f))
        out[0] = '\0';
    while (fgets(rest, sizeof(rest), f))
        ;
    pclose(f);
}

/* Added on its own beside a GPU source, unless that source says its GPU
 * keeps its clocks elsewhere: amdgpu, or drm-fdinfo of the amdgpu driver
 * (the phone tree's /proc holds no clients, which drm-fdinfo allows). */
Test(gpu_clocks, added_beside_a_gpu_but_not_beside_amdgpu, .timeout = 60)
{
    struct fake_proc *p = fsys_new(FSYS_PHONE, FSYS_COOL);
    const char *amd = getenv("GPUTOP_AMDFAKE_BIN");
    char cmd[1024], head[8192];

    snprintf(cmd, sizeof(cmd), "%s --source drm-fdinfo:driver=panfrost --proc-root %s "
             "--sys-root %s --no-cpu -b -f csv -n 1 -i 50ms", gputop_bin(), fproc_root(p),
             fproc_root(p));
    first_line(cmd, head, sizeof(head));
    cr_assert(strstr(head, "GPU clock (devfreq) [MHz]"), "%s", head);
    snprintf(cmd, sizeof(cmd), "%s --source drm-fdinfo:driver=amdgpu --proc-root %s "
             "--sys-root %s --no-cpu -b -f csv -n 1 -i 50ms", gputop_bin(), fproc_root(p),
             fproc_root(p));
    first_line(cmd, head, sizeof(head));
    cr_assert(strstr(head, "time_s,"), "%s", head);
    cr_assert_null(strstr(head, "devfreq"), "%s", head);
    snprintf(cmd, sizeof(cmd), "%s -- --no-cpu --source amdgpu:polls=4 --sys-root %s -b -f csv "
             "-n 1 -i 50ms", amd && *amd ? amd : "build/native/tests/gputop-amdfake",
             fproc_root(p));
    first_line(cmd, head, sizeof(head));
    cr_assert(strstr(head, "time_s,"), "%s", head);
    cr_assert_null(strstr(head, "devfreq"), "%s", head);
    fproc_free(p);
}

/* --thermal-zone is the source's zone, unless its spec names one. */
Test(gpu_clocks, thermal_zone_option_unless_the_spec_names_one, .timeout = 60)
{
    struct fake_proc *p = fsys_new(FSYS_PHONE, FSYS_COOL);
    char cmd[1024], out[8192];

    snprintf(cmd, sizeof(cmd), "%s --source gpu-clocks --sys-root %s --thermal-zone nosuch "
             "--no-cpu -b -f csv -n 1 -i 50ms 2>&1", gputop_bin(), fproc_root(p));
    first_line(cmd, out, sizeof(out));
    cr_assert(strstr(out, "--thermal-zone nosuch: no thermal zone"), "%s", out);
    snprintf(cmd, sizeof(cmd), "%s --source gpu-clocks:zone=G3D --sys-root %s "
             "--thermal-zone nosuch --no-cpu -b -f csv -n 1 -i 50ms 2>&1", gputop_bin(),
             fproc_root(p));
    first_line(cmd, out, sizeof(out));
    cr_assert(strstr(out, "GPU temperature [degC]"), "%s", out);
    fproc_free(p);
}

/* The cell of CSV row under the column titled name ("" when empty). */
static const char *cell(const char *head, const char *row, const char *name, char *out, size_t len)
{
    const char *at = strstr(head, name);
    size_t col = 0, n;

    cr_assert_not_null(at, "no column %s in %s", name, head);
    for (; at > head; at--)
        col += at[-1] == ',';
    for (; col; row++)
        col -= *row == ',';
    n = strcspn(row, ",\n");
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), row);
    return out;
}

/* The real binary on a tree: the figures as CSV columns with units; a
 * meter the board lacks is an empty cell, never 0. */
Test(gpu_clocks, batch_columns_from_a_board, .timeout = 60)
{
    struct fake_proc *p = fsys_new(FSYS_BOARD, FSYS_THROTTLED);
    const char *bin = getenv("GPUTOP_BIN");
    char cmd[1024], head[4096] = "", row[4096] = "", v[64];
    FILE *f;

    snprintf(cmd, sizeof(cmd), "%s --source gpu-clocks --sys-root %s --no-cpu -b -f csv -n 1 "
             "-i 50ms", bin && *bin ? bin : "./gputop", fproc_root(p));
    f = popen(cmd, "r");
    cr_assert_not_null(f);
    cr_assert_not_null(fgets(head, sizeof(head), f));
    cr_assert_not_null(fgets(row, sizeof(row), f));
    pclose(f);
    /* 400 MHz of a 1000 MHz part, 95 degC, cooling state 4 of 10 */
    cr_assert_str_eq(cell(head, row, "GPU clock (devfreq) [MHz]", v, sizeof(v)), "400");
    cr_assert_str_eq(cell(head, row, "Clock cap [MHz]", v, sizeof(v)), "400");
    cr_assert_str_eq(cell(head, row, "Top frequency [MHz]", v, sizeof(v)), "1000");
    cr_assert_str_eq(cell(head, row, "Clock cap of top [%]", v, sizeof(v)), "40");
    cr_assert_str_eq(cell(head, row, "GPU temperature [degC]", v, sizeof(v)), "95");
    cr_assert_str_eq(cell(head, row, "Cooling state [states]", v, sizeof(v)), "4");
    /* no time has passed at any frequency in the tree: no share, not 0 */
    cr_assert_str_eq(cell(head, row, "1000 MHz [%]", v, sizeof(v)), "");
    /* no battery, no ODPM on the board: empty, not 0 */
    cr_assert_str_eq(cell(head, row, "Battery power [W]", v, sizeof(v)), "");
    cr_assert_str_eq(cell(head, row, "GPU rail power (ODPM) [W]", v, sizeof(v)), "");
    fproc_free(p);
}

/* ---- the simulated GPUs and the clock-capped findings ---- */

/* The side findings of a --triage report on a simulated scene. */
static char *findings(const char *scene)
{
    const char *bin = getenv("GPUTOP_BIN");
    char cmd[512], *buf = NULL, chunk[4096];
    size_t len = 0, n;
    FILE *p, *m = open_memstream(&buf, &len);

    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-g720,scene=%s,step=500000000 --no-cpu "
             "--triage -n 30", bin && *bin ? bin : "./gputop", scene);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        fwrite(chunk, 1, n, m);
    pclose(p);
    fclose(m);
    return buf;
}

/* thermal: the zone passes 90 degC and the cooling device lowers the cap:
 * a thermal cap, never the governor (it runs at the cap). */
Test(gpu_clocks, thermal_scene_is_a_thermal_cap, .timeout = 60)
{
    char *out = findings("thermal");

    cr_assert(strstr(out, "clock-capped: thermal"), "%s", out);
    cr_assert_null(strstr(out, "governor not ramped"), "%s", out);
    cr_assert_null(strstr(out, "device cool"), "%s", out);
    free(out);
}

/* clock-capped: busy at 60 % of the top clock with the cap at the top and
 * the device cool: the governor has not ramped; no thermal verdict. */
Test(gpu_clocks, clock_capped_scene_is_the_governor, .timeout = 60)
{
    char *out = findings("clock-capped");

    cr_assert(strstr(out, "clock-capped: governor not ramped"), "%s", out);
    cr_assert_null(strstr(out, "clock-capped: thermal"), "%s", out);
    free(out);
}

Test(gpu_clocks, a_cool_busy_game_is_not_clock_capped, .timeout = 60)
{
    char *out = findings("game");

    cr_assert_null(strstr(out, "clock-capped"), "%s", out);
    free(out);
}

/* ---- the dashboard ---- */

/* The simulated G720 in scene under tmux, once text is on screen. */
static void dashboard(struct tmux *t, const char *scene, const char *text, int ms)
{
    char cmd[512], *s;
    int found;

    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-g720,scene=%s,step=500000000 "
             "--no-cpu -i 100ms", gputop_bin(), scene);
    cr_assert_eq(tmux_start(t, 160, 40, "", cmd), 0);
    s = tmux_wait_for(t, text, ms, &found);
    cr_assert(found, "no '%s':\n%s", text, s);
    free(s);
}

/* The thermal scene: the header says the clock over its cap and the
 * temperature, with the cap in the alert colour once the cooling device
 * lowers it; the k tab is the Power & clocks page. */
Test(gpu_clocks, dashboard_header_and_page, .timeout = 90)
{
    struct tmux t;
    char *s;
    int found;

    /* the zone settles past 93.75 degC: three cooling states take three of
     * the six operating points off the 1000 MHz top */
    dashboard(&t, "thermal", "/550 MHz", 20000);
    s = tmux_capture(&t);
    cr_assert(strstr(s, " degC"), "no temperature:\n%s", s);
    cr_assert(strstr(s, "k Clocks"), "no clocks tab:\n%s", s);
    free(s);
    /* the style changes right after the slash: the cap stands apart */
    s = tmux_capture_styled(&t);
    cr_assert(strstr(s, "/\033["), "the cap is not set apart:\n%s", s);
    free(s);
    tmux_literal(&t, "k");
    s = tmux_wait_for(&t, "Passive trip crossed", 8000, &found);
    cr_assert(found, "no Power & clocks page:\n%s", s);
    free(s);
    tmux_stop(&t);
}

/* A cool device at its top clock: the cap is drawn like the rest. */
Test(gpu_clocks, dashboard_cap_at_the_top_is_plain, .timeout = 90)
{
    struct tmux t;
    char *s;

    dashboard(&t, "game", "/1000 MHz", 8000);
    s = tmux_capture_styled(&t);
    cr_assert(strstr(s, "/1000 MHz"), "the cap is set apart at the top:\n%s", s);
    free(s);
    tmux_stop(&t);
}

/* ---- captures ---- */

/* A capture holds the clock counters and names the gpu-clocks layout, so
 * a replay shows the Power & clocks page as the run did; recorded with
 * --no-clocks it names no such layout and the replay has no such page. */
Test(gpu_clocks, a_replay_shows_the_clocks, .timeout = 60)
{
    const char *bin = getenv("GPUTOP_BIN");
    char file[] = "/tmp/gputop-clocks-XXXXXX", cmd[1024], head[8192] = "", row[8192] = "", v[64];
    FILE *p;
    int fd = mkstemp(file);

    cr_assert_geq(fd, 0);
    close(fd);
    bin = bin && *bin ? bin : "./gputop";
    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-g720,scene=thermal,step=500000000 --no-cpu "
             "-b -f none -n 30 --record %s && %s --source replay:%s -b -f csv --section k "
             "| tail -n 1", bin, file, bin, file);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(row, sizeof(row), p));
    pclose(p);
    snprintf(cmd, sizeof(cmd), "%s --source replay:%s -b -f csv --section k | head -n 1", bin,
             file);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(head, sizeof(head), p));
    pclose(p);
    /* after 15 s of heat the zone is past 90 degC and the cap is down */
    cr_assert_str_eq(cell(head, row, "Passive trip crossed [%]", v, sizeof(v)), "100");
    cr_assert_str_eq(cell(head, row, "Clock cap of top [%]", v, sizeof(v)), "55");
    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-g720 --no-clocks --no-cpu -b -f none -n 2 "
             "--force --record %s && %s --source replay:%s -b -f csv --section k 2>&1", bin,
             file, bin, file);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(head, sizeof(head), p));
    pclose(p);
    cr_assert(strstr(head, "--section k"), "%s", head);
    unlink(file);
}
