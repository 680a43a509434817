/* Fake sysfs trees for gpu-clocks (see fake_sysfs.h). Each file is named
 * beside the kernel document that defines it. */
#include "fakes/fake_sysfs.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct tree {
    const char *device, *devfreq, *zone, *cooling;
    const uint64_t *mhz; size_t nopps;
    uint64_t cool_cur, hot_cur;      /* MHz */
};

static const uint64_t phone_mhz[] = { 100, 200, 400, 600, 800 };
static const uint64_t board_mhz[] = { 300, 400, 600, 700, 800, 900, 1000 };

void fsys_link(struct fake_proc *p, const char *path, const char *target)
{
    char full[1024], dir[1024], *slash;

    snprintf(full, sizeof(full), "%s%s", fproc_root(p), path);
    /* the link's directory, made the way fproc_write makes a file's */
    snprintf(dir, sizeof(dir), "%s", path);
    slash = strrchr(dir, '/');
    snprintf(slash, sizeof(dir) - (size_t)(slash - dir), "/.fsys");
    fproc_write(p, dir, "");
    unlink(full);
    if (symlink(target, full) != 0)
        perror(full);
}

void fsys_remove(struct fake_proc *p, const char *path)
{
    char full[1024];

    snprintf(full, sizeof(full), "%s%s", fproc_root(p), path);
    unlink(full);
}

static void put(struct fake_proc *p, const char *dir, const char *file, const char *text)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/%s", dir, file);
    fproc_write(p, path, text);
}

static void put_u64(struct fake_proc *p, const char *dir, const char *file, uint64_t v)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)v);
    put(p, dir, file, buf);
}

/* drivers/devfreq/devfreq.c trans_stat_show: header, "%10lu" per
 * frequency, "   time(ms)"; rows marked '*' at the current frequency,
 * "%10lu:" then "%10u" counts and "%10llu" ms; the total. Time at OPP k
 * is 1000 * (k + 1) ms (plus extra at the current one). */
static void put_trans_stat(struct fake_proc *p, const struct tree *t, uint64_t cur_mhz,
                           uint64_t extra_ms)
{
    char buf[4096];
    size_t n = 0, i, j;

    n += (size_t)snprintf(buf + n, sizeof(buf) - n, "     From  :   To\n           :");
    for (i = 0; i < t->nopps; i++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%10llu",
                              (unsigned long long)(t->mhz[i] * 1000000));
    n += (size_t)snprintf(buf + n, sizeof(buf) - n, "   time(ms)\n");
    for (i = 0; i < t->nopps; i++) {
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%10llu:",
                              t->mhz[i] == cur_mhz ? "*" : " ",
                              (unsigned long long)(t->mhz[i] * 1000000));
        for (j = 0; j < t->nopps; j++)
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%10u", i == j ? 0u : 1u);
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%10llu\n",
                              (unsigned long long)(1000 * (i + 1) +
                                                   (t->mhz[i] == cur_mhz ? extra_ms : 0)));
    }
    snprintf(buf + n, sizeof(buf) - n, "Total transition : %zu\n", t->nopps * (t->nopps - 1));
    put(p, t->devfreq, "trans_stat", buf);
}

/* Documentation/ABI/testing/sysfs-class-devfreq: frequencies in Hz;
 * available_frequencies blank-separated; governor a name. */
static void put_devfreq(struct fake_proc *p, const struct tree *t, enum fsys_heat heat)
{
    char list[256] = "";
    uint64_t cur = heat == FSYS_COOL ? t->cool_cur : t->hot_cur;
    uint64_t cap = heat == FSYS_COOL ? t->mhz[t->nopps - 1] : 400;
    size_t i;

    for (i = 0; i < t->nopps; i++)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%llu", i ? " " : "",
                 (unsigned long long)(t->mhz[i] * 1000000));
    strcat(list, "\n");
    put_u64(p, t->devfreq, "cur_freq", cur * 1000000);
    put_u64(p, t->devfreq, "target_freq", cur * 1000000);
    put_u64(p, t->devfreq, "min_freq", t->mhz[0] * 1000000);
    put_u64(p, t->devfreq, "max_freq", cap * 1000000);
    put(p, t->devfreq, "available_frequencies", list);
    put(p, t->devfreq, "governor", "simple_ondemand\n");
    put(p, t->devfreq, "available_governors", "simple_ondemand performance powersave\n");
    put_trans_stat(p, t, cur, 0);
}

/* Documentation/driver-api/thermal/sysfs-api.rst: type, temp (m degC),
 * trip_point_N_type / _temp, cdevN linking to the bound cooling device
 * (cur_state / max_state) and cdevN_trip_point. */
static void put_zone(struct fake_proc *p, const struct tree *t, const char *type,
                     enum fsys_heat heat)
{
    char link[64];
    const char *dev = strrchr(t->cooling, '/') + 1;

    put(p, t->zone, "type", type);
    put(p, t->zone, "temp", heat == FSYS_COOL ? "45000\n" : "95000\n");
    put(p, t->zone, "mode", "enabled\n");
    put(p, t->zone, "policy", "step_wise\n");
    put(p, t->zone, "trip_point_0_type", "passive\n");
    put(p, t->zone, "trip_point_0_temp", "90000\n");
    put(p, t->zone, "trip_point_0_hyst", "2000\n");
    put(p, t->zone, "trip_point_1_type", "critical\n");
    put(p, t->zone, "trip_point_1_temp", "115000\n");
    snprintf(link, sizeof(link), "../%s", dev);
    {
        char path[256];
        snprintf(path, sizeof(path), "%s/cdev0", t->zone);
        fsys_link(p, path, link);
    }
    put(p, t->zone, "cdev0_trip_point", "0\n");
    put(p, t->zone, "cdev0_weight", "0\n");
    put(p, t->cooling, "type", "thermal-devfreq-0\n");
    put(p, t->cooling, "cur_state", heat == FSYS_COOL ? "0\n" : "4\n");
    put(p, t->cooling, "max_state", "10\n");
}

static void phone(struct fake_proc *p, enum fsys_heat heat)
{
    static const struct tree t = {
        "/sys/devices/platform/1c500000.mali", FSYS_PHONE_DEVFREQ, FSYS_PHONE_ZONE,
        FSYS_PHONE_COOLING, phone_mhz, 5, 600, 400,
    };

    put_devfreq(p, &t, heat);
    fsys_link(p, "/sys/class/misc/mali0/device", "../../../devices/platform/1c500000.mali");
    fsys_link(p, "/sys/class/devfreq/1c500000.mali",
              "../../devices/platform/1c500000.mali/devfreq/1c500000.mali");
    /* a memory-bus devfreq the GPU search must pass over */
    put_u64(p, "/sys/devices/platform/17000010.devfreq_mif/devfreq/17000010.devfreq_mif",
            "cur_freq", 1539000000);
    fsys_link(p, "/sys/class/devfreq/17000010.devfreq_mif",
              "../../devices/platform/17000010.devfreq_mif/devfreq/17000010.devfreq_mif");
    /* kbase's platform device attributes (mali_kbase_core_linux.c) */
    put(p, t.device, "power_policy", "[coarse_demand] always_on\n");
    put(p, t.device, "core_mask", "Current core mask : 0xF\nAvailable core mask : 0xF\n");
    put(p, "/sys/class/thermal/thermal_zone0", "type", "BIG\n");
    put(p, "/sys/class/thermal/thermal_zone0", "temp", "52000\n");
    put(p, "/sys/class/thermal/thermal_zone1", "type", "LITTLE\n");
    put(p, "/sys/class/thermal/thermal_zone1", "temp", "48000\n");
    put_zone(p, &t, "G3D\n", heat);
    /* Documentation/ABI/testing/sysfs-class-power: type, current_now (uA,
     * negative while discharging on this driver), voltage_now (uV) */
    put(p, "/sys/class/power_supply/battery", "type", "Battery\n");
    put(p, "/sys/class/power_supply/battery", "current_now", "-512000\n");
    put(p, "/sys/class/power_supply/battery", "voltage_now", "3850000\n");
    put(p, "/sys/class/power_supply/usb", "type", "USB\n");
    /* Android's ODPM energy meter: "t=<ms>", "CH<n>(T=<ms>)[<rail>], <uWs>" */
    put(p, "/sys/bus/iio/devices/iio:device0", "energy_value",
        "t=120000\nCH0(T=120000)[S2M_VDD_CPUCL2], 5000000\n"
        "CH1(T=120000)[S4M_VDD_G3D], 3000000\nCH2(T=120000)[VSYS_PWR_DISPLAY], 1000000\n");
}

static void board(struct fake_proc *p, enum fsys_heat heat)
{
    static const struct tree t = {
        "/sys/devices/platform/fb000000.gpu", FSYS_BOARD_DEVFREQ, FSYS_BOARD_ZONE,
        FSYS_BOARD_COOLING, board_mhz, 7, 300, 400,
    };

    put_devfreq(p, &t, heat);
    fsys_link(p, "/sys/class/drm/renderD128/device", "../../../devices/platform/fb000000.gpu");
    fsys_link(p, "/sys/class/drm/card0/device", "../../../devices/platform/fb000000.gpu");
    fsys_link(p, "/sys/class/devfreq/fb000000.gpu",
              "../../devices/platform/fb000000.gpu/devfreq/fb000000.gpu");
    put_u64(p, "/sys/devices/platform/dmc/devfreq/dmc", "cur_freq", 2112000000);
    fsys_link(p, "/sys/class/devfreq/dmc", "../../devices/platform/dmc/devfreq/dmc");
    put(p, "/sys/class/thermal/thermal_zone0", "type", "soc-thermal\n");
    put(p, "/sys/class/thermal/thermal_zone0", "temp", "41000\n");
    put_zone(p, &t, "gpu-thermal\n", heat);
}

struct fake_proc *fsys_new(enum fsys_kind kind, enum fsys_heat heat)
{
    struct fake_proc *p = fproc_new();

    if (!p)
        return NULL;
    if (kind == FSYS_PHONE)
        phone(p, heat);
    else
        board(p, heat);
    return p;
}
