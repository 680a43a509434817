/* Finding and reading the GPU's devfreq node, thermal zone, kbase
 * attributes and power meters in sysfs. Files are read through the seam;
 * directories are listed with opendir below sys->root (the seam has no
 * directory calls, as in fdinfo.c). Nothing is written and no device node
 * is opened: a sysfs attribute read does not resume a suspended GPU. */
#include "gputop/gpu_clocks.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define DEVFREQ_CLASS "/sys/class/devfreq"
#define THERMAL_CLASS "/sys/class/thermal"
#define SUPPLY_CLASS  "/sys/class/power_supply"
#define IIO_DEVICES   "/sys/bus/iio/devices"
#define KBASE_DEVICE  "/sys/class/misc/mali0/device"

typedef int entry_fn(const struct gt_sys *sys, const char *dir, const char *name, void *arg);

/* Calls fn for each entry of dir (below the root) but . and .., in the
 * order the names sort in, until fn returns non-zero; returns that, or 0. */
static int each_entry(const struct gt_sys *sys, const char *dir, entry_fn *fn, void *arg)
{
    char full[GT_CLK_PATH + 256];
    struct dirent **names = NULL;
    int n, i, r = 0;

    snprintf(full, sizeof(full), "%s%s", sys->root ? sys->root : "", dir);
    n = scandir(full, &names, NULL, alphasort);
    for (i = 0; i < n; i++) {
        if (!r && names[i]->d_name[0] != '.')
            r = fn(sys, dir, names[i]->d_name, arg);
        free(names[i]);
    }
    free(names);
    return r;
}

static int read_small(const struct gt_sys *sys, const char *dir, const char *file, char *buf,
                      size_t len)
{
    char path[GT_CLK_PATH + 64];

    if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
        return -1;
    return gt_sys_read_file(sys, path, buf, len) < 0 ? -1 : 0;
}

/* ---- devfreq (Documentation/ABI/testing/sysfs-class-devfreq) ---- */

static int first_node(const struct gt_sys *sys, const char *dir, const char *name, void *arg)
{
    struct gt_clk_paths *p = arg;

    (void)sys;
    snprintf(p->devfreq, sizeof(p->devfreq), "%s/%.64s", dir, name);
    snprintf(p->devfreq_name, sizeof(p->devfreq_name), "%s", name);
    return 1;
}

static int gpu_named(const struct gt_sys *sys, const char *dir, const char *name, void *arg)
{
    char low[64];
    size_t i;

    for (i = 0; name[i] && i + 1 < sizeof(low); i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    low[i] = '\0';
    return strstr(low, "gpu") || strstr(low, "mali") ? first_node(sys, dir, name, arg) : 0;
}

/* The devfreq directory under a device, e.g. kbase's or a render node's. */
static int under_device(const struct gt_sys *sys, const char *device_dir, struct gt_clk_paths *p)
{
    char dir[GT_CLK_PATH];

    snprintf(dir, sizeof(dir), "%.150s/devfreq", device_dir);
    return each_entry(sys, dir, first_node, p);
}

static int render_node(const struct gt_sys *sys, const char *dir, const char *name, void *arg)
{
    char dev[GT_CLK_PATH];

    if (strncmp(name, "renderD", 7) != 0)
        return 0;
    snprintf(dev, sizeof(dev), "%s/%.32s/device", dir, name);
    return under_device(sys, dev, arg);
}

static void find_devfreq(const struct gt_sys *sys, const char *device, struct gt_clk_paths *p)
{
    char dev[GT_CLK_PATH];
    const char *base = device ? strrchr(device, '/') : NULL;

    if (base && strncmp(base + 1, "renderD", 7) == 0) {
        snprintf(dev, sizeof(dev), "/sys/class/drm/%.32s/device", base + 1);
        if (under_device(sys, dev, p))
            return;
    } else if (!device || !device[0] || strstr(device, "mali")) {
        if (under_device(sys, KBASE_DEVICE, p))
            return;
        if (!device || !device[0]) {
            if (each_entry(sys, "/sys/class/drm", render_node, p))
                return;
        }
    }
    /* a vendor kernel may register the GPU's devfreq on another device */
    if (each_entry(sys, DEVFREQ_CLASS, gpu_named, p))
        return;
    snprintf(p->no_devfreq, sizeof(p->no_devfreq),
             "no devfreq node for the GPU (under its device, or in " DEVFREQ_CLASS
             " named gpu or mali)");
}

/* ---- thermal (Documentation/driver-api/thermal/sysfs-api.rst) ---- */

struct zone_pick {
    const char *want;       /* the user's zone, or NULL */
    int rank;               /* best so far, lower is better; 99 none */
    char dir[GT_CLK_PATH], type[64];
};

/* Names seen on devices, in order of preference: an exact type first,
 * then one that merely contains gpu, g3d or mali. */
static int zone_rank(const char *type)
{
    static const char *const exact[] = { "G3D", "gpu-thermal", "gpu", "mali" };
    static const char *const part[] = { "gpu", "g3d", "mali" };
    char low[64];
    size_t i;

    for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
        if (strcasecmp(type, exact[i]) == 0)
            return (int)i;
    for (i = 0; type[i] && i + 1 < sizeof(low); i++)
        low[i] = (char)tolower((unsigned char)type[i]);
    low[i] = '\0';
    for (i = 0; i < sizeof(part) / sizeof(part[0]); i++)
        if (strstr(low, part[i]))
            return 10 + (int)i;
    return 99;
}

static int zone_entry(const struct gt_sys *sys, const char *dir, const char *name, void *arg)
{
    struct zone_pick *z = arg;
    char path[GT_CLK_PATH], buf[80], type[64];
    int rank;

    if (strncmp(name, "thermal_zone", 12) != 0)
        return 0;
    snprintf(path, sizeof(path), "%s/%.40s", dir, name);
    if (read_small(sys, path, "type", buf, sizeof(buf)) < 0 ||
        gt_clk_parse_word(buf, type, sizeof(type)) < 0)
        return 0;
    if (z->want)
        rank = strcasecmp(z->want, type) == 0 || strcmp(z->want, name) == 0 ? 0 : 99;
    else
        rank = zone_rank(type);
    if (rank < z->rank) {
        z->rank = rank;
        snprintf(z->dir, sizeof(z->dir), "%s", path);
        snprintf(z->type, sizeof(z->type), "%s", type);
    }
    return 0;
}

static int cooling_entry(const struct gt_sys *sys, const char *dir, const char *name, void *arg)
{
    struct gt_clk_paths *p = arg;
    const char *s = name + 4;

    (void)sys;
    /* cdevN links to the bound cooling device; cdevN_trip_point and
     * cdevN_weight are attributes beside it */
    if (strncmp(name, "cdev", 4) != 0 || !isdigit((unsigned char)*s))
        return 0;
    while (isdigit((unsigned char)*s))
        s++;
    if (*s || p->ncooling >= GT_CLK_MAX_COOLING)
        return 0;
    snprintf(p->cooling[p->ncooling++], GT_CLK_PATH, "%.150s/%.30s", dir, name);
    return 0;
}

static int find_zone(const struct gt_sys *sys, const char *want, struct gt_clk_paths *p,
                     char *why, size_t len)
{
    struct zone_pick z = { .want = want && want[0] ? want : NULL, .rank = 99 };
    const char *slash;

    each_entry(sys, THERMAL_CLASS, zone_entry, &z);
    if (z.rank == 99 && z.want) {
        snprintf(why, len, "--thermal-zone %s: no thermal zone of that type or name in %s%s",
                 z.want, sys->root ? sys->root : "", THERMAL_CLASS);
        return -1;
    }
    if (z.rank == 99) {
        snprintf(p->no_zone, sizeof(p->no_zone), "no thermal zone whose type says GPU "
                 "(G3D, gpu-thermal, gpu, mali) in " THERMAL_CLASS "; name one with --thermal-zone");
        return 0;
    }
    slash = strrchr(z.dir, '/');
    snprintf(p->zone, sizeof(p->zone), "%s", z.dir);
    snprintf(p->zone_type, sizeof(p->zone_type), "%s", z.type);
    snprintf(p->zone_how, sizeof(p->zone_how), "%s %.40s (%.40s)", z.want ? "named" : "type",
             z.type, slash ? slash + 1 : z.dir);
    each_entry(sys, p->zone, cooling_entry, p);
    /* trip points are numbered from 0 without gaps (sysfs-api.rst) */
    while (p->ntrips < GT_CLK_MAX_TRIPS) {
        char file[40], buf[32];
        snprintf(file, sizeof(file), "trip_point_%d_type", p->ntrips);
        if (read_small(sys, p->zone, file, buf, sizeof(buf)) < 0)
            break;
        p->ntrips++;
    }
    return 0;
}

/* ---- power ---- */

static int battery_entry(const struct gt_sys *sys, const char *dir, const char *name, void *arg)
{
    struct gt_clk_paths *p = arg;
    char path[GT_CLK_PATH], buf[32];

    /* sysfs-class-power: type "Battery"; current_now uA, voltage_now uV */
    snprintf(path, sizeof(path), "%s/%.60s", dir, name);
    if (read_small(sys, path, "type", buf, sizeof(buf)) < 0 || strncmp(buf, "Battery", 7) != 0)
        return 0;
    snprintf(p->battery, sizeof(p->battery), "%s", path);
    return 1;
}

static int rail_entry(const struct gt_sys *sys, const char *dir, const char *name, void *arg)
{
    struct gt_clk_paths *p = arg;
    char path[GT_CLK_PATH], buf[2048];
    uint64_t uws, ms;

    if (p->nrails >= GT_CLK_MAX_RAILS)
        return 1;
    snprintf(path, sizeof(path), "%s/%.60s", dir, name);
    /* only meters that have a GPU rail; reading needs root on most phones */
    if (read_small(sys, path, "energy_value", buf, sizeof(buf)) < 0 ||
        gt_clk_parse_odpm(buf, &uws, &ms) < 0)
        return 0;
    snprintf(p->rails[p->nrails++], GT_CLK_PATH, "%s", path);
    return 0;
}

static void find_kbase(const struct gt_sys *sys, const char *device, struct gt_clk_paths *p)
{
    char buf[64];

    if (device && device[0] && !strstr(device, "mali"))
        return;
    /* kbase's platform device attributes (mali_kbase_core_linux.c) */
    if (read_small(sys, KBASE_DEVICE, "power_policy", buf, sizeof(buf)) == 0 ||
        read_small(sys, KBASE_DEVICE, "core_mask", buf, sizeof(buf)) == 0)
        snprintf(p->kbase, sizeof(p->kbase), "%s", KBASE_DEVICE);
}

int gt_clk_find(const struct gt_sys *sys, const char *device, const char *zone,
                struct gt_clk_paths *p, char *why, size_t len)
{
    memset(p, 0, sizeof(*p));
    find_devfreq(sys, device, p);
    if (find_zone(sys, zone, p, why, len) < 0)
        return -1;
    find_kbase(sys, device, p);
    each_entry(sys, SUPPLY_CLASS, battery_entry, p);
    each_entry(sys, IIO_DEVICES, rail_entry, p);
    if (!p->battery[0] && !p->nrails)
        snprintf(p->no_power, sizeof(p->no_power), "no battery in " SUPPLY_CLASS
                 " and no readable ODPM meter with a GPU rail in " IIO_DEVICES);
    return 0;
}

/* ---- reading ---- */

/* Where the readings come from: the seam, and the files kept open. */
struct rd {
    const struct gt_sys *sys;
    struct gt_clk_files *files;
};

void gt_clk_files_init(struct gt_clk_files *f)
{
    size_t i;

    for (i = 0; i < GT_CLK_MAX_FILES; i++) {
        f->fd[i] = -1;
        f->path[i][0] = '\0';
    }
}

void gt_clk_files_close(const struct gt_sys *sys, struct gt_clk_files *f)
{
    size_t i;

    for (i = 0; i < GT_CLK_MAX_FILES; i++) {
        if (f->fd[i] >= 0)
            sys->close(sys->ctx, f->fd[i]);
        f->fd[i] = -1;
        f->path[i][0] = '\0';
    }
}

/* The entry holding path's open file, opened now if need be; -1 when it
 * cannot be opened (tried again next time: a file may come, a permission
 * change) or the table is full (*fd then an fd the caller closes). */
static int kept_entry(const struct rd *rd, const char *path, int *fd)
{
    struct gt_clk_files *f = rd->files;
    int i, free_at = -1;

    for (i = 0; i < GT_CLK_MAX_FILES; i++) {
        if (f->path[i][0] && strcmp(f->path[i], path) == 0) {
            *fd = f->fd[i];
            return i;
        }
        if (!f->path[i][0] && free_at < 0)
            free_at = i;
    }
    *fd = gt_sys_open_below(rd->sys, path);
    if (*fd < 0 || free_at < 0)
        return -1;
    f->fd[free_at] = *fd;
    snprintf(f->path[free_at], sizeof(f->path[free_at]), "%s", path);
    return free_at;
}

static int read_attr(const struct rd *rd, const char *dir, const char *file, char *buf,
                     size_t len)
{
    char path[GT_CLK_PATH + 64];
    int fd, at, ok;

    if (!rd->files || !rd->sys->pread)
        return read_small(rd->sys, dir, file, buf, len);
    if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
        return -1;
    at = kept_entry(rd, path, &fd);
    if (fd < 0)
        return -1;
    ok = gt_sys_reread(rd->sys, fd, buf, len) >= 0;
    /* a file that failed is opened afresh next time */
    if (at < 0 || !ok)
        rd->sys->close(rd->sys->ctx, fd);
    if (at >= 0 && !ok) {
        rd->files->path[at][0] = '\0';
        rd->files->fd[at] = -1;
    }
    return ok ? 0 : -1;
}

static void read_devfreq(const struct rd *rd, const char *dir, struct gt_clk_reading *r)
{
    char buf[4096];

    if (!dir[0])
        return;
    if (read_attr(rd, dir, "cur_freq", buf, sizeof(buf)) == 0 && gt_clk_parse_hz(buf, &r->cur_hz) == 0)
        r->have |= GT_CLK_HAVE_CUR;
    if (read_attr(rd, dir, "min_freq", buf, sizeof(buf)) == 0 && gt_clk_parse_hz(buf, &r->min_hz) == 0)
        r->have |= GT_CLK_HAVE_MIN;
    if (read_attr(rd, dir, "max_freq", buf, sizeof(buf)) == 0 && gt_clk_parse_hz(buf, &r->max_hz) == 0)
        r->have |= GT_CLK_HAVE_MAX;
    if (read_attr(rd, dir, "available_frequencies", buf, sizeof(buf)) == 0 &&
        gt_clk_parse_top(buf, &r->top_hz) == 0)
        r->have |= GT_CLK_HAVE_TOP;
    if (read_attr(rd, dir, "governor", buf, sizeof(buf)) == 0 &&
        gt_clk_parse_word(buf, r->governor, sizeof(r->governor)) == 0)
        r->have |= GT_CLK_HAVE_GOVERNOR;
    if (read_attr(rd, dir, "trans_stat", buf, sizeof(buf)) == 0 &&
        gt_clk_parse_trans_stat(buf, r->opp_hz, r->time_ms, GT_CLK_MAX_OPPS, &r->nopps) == 0)
        r->have |= GT_CLK_HAVE_TRANS;
}

/* The lowest passive trip point of the zone, if it has one. */
static void read_trips(const struct rd *rd, const struct gt_clk_paths *p,
                       struct gt_clk_reading *r)
{
    char file[40], buf[64];
    int64_t mc;
    int k;

    for (k = 0; k < p->ntrips; k++) {
        snprintf(file, sizeof(file), "trip_point_%d_type", k);
        if (read_attr(rd, p->zone, file, buf, sizeof(buf)) < 0)
            continue;
        if (strncmp(buf, "passive", 7) != 0)
            continue;
        snprintf(file, sizeof(file), "trip_point_%d_temp", k);
        if (read_attr(rd, p->zone, file, buf, sizeof(buf)) < 0 || gt_clk_parse_mc(buf, &mc) < 0)
            continue;
        if (!(r->have & GT_CLK_HAVE_PASSIVE) || mc < r->passive_mc)
            r->passive_mc = mc;
        r->have |= GT_CLK_HAVE_PASSIVE;
    }
}

static void read_cooling(const struct rd *rd, const struct gt_clk_paths *p,
                         struct gt_clk_reading *r)
{
    char buf[32];
    unsigned cur, max;
    size_t i;

    for (i = 0; i < p->ncooling; i++) {
        if (read_attr(rd, p->cooling[i], "cur_state", buf, sizeof(buf)) < 0 ||
            gt_clk_parse_state(buf, &cur) < 0 ||
            read_attr(rd, p->cooling[i], "max_state", buf, sizeof(buf)) < 0 ||
            gt_clk_parse_state(buf, &max) < 0 || max == 0 || cur > max)
            continue;
        if (cur)
            r->cooling_active = 1;
        /* the one furthest into its range: cur/max compared without division */
        if (!(r->have & GT_CLK_HAVE_COOLING) ||
            (uint64_t)cur * r->cool_max > (uint64_t)r->cool_cur * max) {
            r->cool_cur = cur;
            r->cool_max = max;
        }
        r->have |= GT_CLK_HAVE_COOLING;
    }
}

/* A signed decimal with blanks around it, |v| <= limit; 0 or -1. */
static int parse_signed(const char *text, int64_t limit, int64_t *v)
{
    const char *s = text;
    char *end;

    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)s[*s == '-']))
        return -1;
    errno = 0;
    *v = strtoll(s, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    return errno || *end || *v < -limit || *v > limit ? -1 : 0;
}

static void read_battery(const struct rd *rd, const char *dir, struct gt_clk_reading *r)
{
    char buf[48];
    int64_t ua;
    uint64_t uv;

    /* sysfs-class-power: current_now in uA (signed: its sign is the
     * driver's convention for charging), voltage_now in uV */
    if (!dir[0] || read_attr(rd, dir, "current_now", buf, sizeof(buf)) < 0 ||
        parse_signed(buf, 50000000, &ua) < 0 ||
        read_attr(rd, dir, "voltage_now", buf, sizeof(buf)) < 0 ||
        gt_clk_parse_hz(buf, &uv) < 0 || uv > 100000000)
        return;
    r->battery_uw = (uint64_t)(ua < 0 ? -ua : ua) * uv / 1000000;
    r->have |= GT_CLK_HAVE_BATTERY;
}

static void read_rails(const struct rd *rd, const struct gt_clk_paths *p,
                       struct gt_clk_reading *r)
{
    char buf[2048];
    uint64_t uws, ms;
    size_t i;

    for (i = 0; i < p->nrails; i++) {
        if (read_attr(rd, p->rails[i], "energy_value", buf, sizeof(buf)) < 0 ||
            gt_clk_parse_odpm(buf, &uws, &ms) < 0) {
            r->have &= ~(unsigned)GT_CLK_HAVE_RAIL;   /* all meters or none */
            return;
        }
        r->rail_uws += uws;
        if (ms > r->rail_ms)
            r->rail_ms = ms;
        r->have |= GT_CLK_HAVE_RAIL;
    }
}

void gt_clk_read(const struct gt_sys *sys, const struct gt_clk_paths *p,
                 struct gt_clk_files *files, struct gt_clk_reading *r)
{
    const struct rd rdv = { sys, files }, *rd = &rdv;
    char buf[256];

    memset(r, 0, sizeof(*r));
    read_devfreq(rd, p->devfreq, r);
    if (p->zone[0]) {
        if (read_attr(rd, p->zone, "temp", buf, sizeof(buf)) == 0 &&
            gt_clk_parse_mc(buf, &r->temp_mc) == 0)
            r->have |= GT_CLK_HAVE_TEMP;
        read_trips(rd, p, r);
        read_cooling(rd, p, r);
    }
    if (p->kbase[0]) {
        if (read_attr(rd, p->kbase, "power_policy", buf, sizeof(buf)) == 0 &&
            gt_clk_parse_policy(buf, r->power_policy, sizeof(r->power_policy)) == 0)
            r->have |= GT_CLK_HAVE_POLICY;
        if (read_attr(rd, p->kbase, "core_mask", buf, sizeof(buf)) == 0 &&
            gt_clk_parse_core_mask(buf, &r->core_mask) == 0)
            r->have |= GT_CLK_HAVE_CORES;
    }
    read_battery(rd, p->battery, r);
    read_rails(rd, p, r);
}
