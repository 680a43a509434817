/* The GPU's clock, governor, temperature and power as sysfs shows them
 * (devfreq, thermal, kbase's platform attributes, power_supply, ODPM),
 * read only, never written, without opening a device node (which could
 * wake a suspended GPU). Every read goes through the seam (gt_sys). */
#ifndef GPUTOP_GPU_CLOCKS_H
#define GPUTOP_GPU_CLOCKS_H

#include <stddef.h>
#include <stdint.h>
#include "gputop/catalog.h"
#include "gputop/sys.h"

#define GT_CLK_MAX_OPPS    16   /* operating points given a time-per-frequency row */
#define GT_CLK_MAX_COOLING 8    /* cooling devices bound to the zone, looked at */
#define GT_CLK_MAX_TRIPS   12
#define GT_CLK_MAX_RAILS   4    /* ODPM energy meters looked at */
#define GT_CLK_PATH        192
/* The layout of these counters, which a source names beside its own. */
#define GT_CLK_LAYOUT      "gpu-clocks"

/* What discovery found, paths below sys->root; "" where nothing was. */
struct gt_clk_paths {
    char devfreq[GT_CLK_PATH];     /* ".../devfreq/1c500000.mali" */
    char devfreq_name[64];         /* "1c500000.mali" */
    char zone[GT_CLK_PATH];        /* "/sys/class/thermal/thermal_zone3" */
    char zone_type[64];            /* its 'type': "G3D" */
    char zone_how[96];             /* why it was chosen: "type G3D", "named by --thermal-zone" */
    int ntrips;                    /* its trip_point_N files, N < ntrips */
    char cooling[GT_CLK_MAX_COOLING][GT_CLK_PATH];  /* zone's cdevN links */
    size_t ncooling;
    char kbase[GT_CLK_PATH];       /* the kbase device directory (power_policy, core_mask) */
    char battery[GT_CLK_PATH];     /* a power_supply of type Battery */
    char rails[GT_CLK_MAX_RAILS][GT_CLK_PATH];     /* iio devices with energy_value */
    size_t nrails;
    /* Why a part was not found, for the catalogue's absent reasons. */
    char no_devfreq[160], no_zone[160], no_power[160];
};

/* Which fields of a reading hold a value (GT_CLK_HAVE_* bits). */
enum {
    GT_CLK_HAVE_CUR = 1 << 0, GT_CLK_HAVE_MIN = 1 << 1, GT_CLK_HAVE_MAX = 1 << 2,
    GT_CLK_HAVE_TOP = 1 << 3, GT_CLK_HAVE_GOVERNOR = 1 << 4, GT_CLK_HAVE_TRANS = 1 << 5,
    GT_CLK_HAVE_TEMP = 1 << 6, GT_CLK_HAVE_PASSIVE = 1 << 7, GT_CLK_HAVE_COOLING = 1 << 8,
    GT_CLK_HAVE_POLICY = 1 << 9, GT_CLK_HAVE_CORES = 1 << 10, GT_CLK_HAVE_BATTERY = 1 << 11,
    GT_CLK_HAVE_RAIL = 1 << 12,
};

/* One reading of everything found. */
struct gt_clk_reading {
    unsigned have;
    uint64_t cur_hz, min_hz, max_hz, top_hz;
    char governor[32];
    size_t nopps;                          /* trans_stat's frequency table */
    uint64_t opp_hz[GT_CLK_MAX_OPPS], time_ms[GT_CLK_MAX_OPPS];
    int64_t temp_mc;                       /* millidegrees Celsius */
    int64_t passive_mc;                    /* the lowest passive trip point */
    unsigned cool_cur, cool_max;           /* the bound device furthest into its range */
    int cooling_active;                    /* any bound device above state 0 */
    char power_policy[32];
    uint64_t core_mask;
    uint64_t battery_uw;                   /* |current_now x voltage_now| */
    uint64_t rail_uws, rail_ms;            /* ODPM GPU rails: energy and its clock */
};

/* Finds the GPU's devfreq node, thermal zone and the rest. device is the
 * GPU source's node ("/dev/mali0", "/dev/dri/renderD128"; "" or NULL:
 * kbase, then DRM render nodes, then a /sys/class/devfreq entry whose
 * name says gpu or mali); zone, when not NULL or "", names the zone by
 * type or directory ("G3D", "thermal_zone3"). Returns 0, or -1 with why
 * set when the zone named is not there; finding nothing is not an error
 * (the no_* fields say why). */
int gt_clk_find(const struct gt_sys *sys, const char *device, const char *zone,
                struct gt_clk_paths *p, char *why, size_t len);

/* Files kept open between readings and read again from their start with
 * pread: sysfs gives an attribute's current value on each read from 0, so
 * a reading costs one call a file instead of open, read, read, close. */
#define GT_CLK_MAX_FILES 48
struct gt_clk_files {
    int fd[GT_CLK_MAX_FILES];
    char path[GT_CLK_MAX_FILES][GT_CLK_PATH + 64];   /* "" a free entry */
};
void gt_clk_files_init(struct gt_clk_files *f);
void gt_clk_files_close(const struct gt_sys *sys, struct gt_clk_files *f);

/* Reads everything p names into r (have says what was read); files NULL:
 * each file opened and closed again (the seam without pread too). */
void gt_clk_read(const struct gt_sys *sys, const struct gt_clk_paths *p,
                 struct gt_clk_files *files, struct gt_clk_reading *r);

/* Parsers, each refusing what sysfs would not hold (empty, a sign where
 * none can be, a value past any part's range): 0, or -1 "not available". */
int gt_clk_parse_hz(const char *text, uint64_t *hz);
int gt_clk_parse_mc(const char *text, int64_t *mc);
int gt_clk_parse_state(const char *text, unsigned *state);
int gt_clk_parse_word(const char *text, char *out, size_t len);
/* "simple_ondemand performance" style lists: the top frequency. */
int gt_clk_parse_top(const char *text, uint64_t *top);
/* devfreq trans_stat: the frequency table and the time at each (ms). */
int gt_clk_parse_trans_stat(const char *text, uint64_t *hz, uint64_t *ms, size_t max,
                            size_t *n);
/* kbase power_policy "[coarse_demand] always_on": the bracketed one. */
int gt_clk_parse_policy(const char *text, char *out, size_t len);
/* kbase core_mask: the first hexadecimal mask ("Current core mask : 0xF"). */
int gt_clk_parse_core_mask(const char *text, uint64_t *mask);
/* ODPM energy_value: the energy (uWs) of the channels whose rail name
 * says GPU or G3D, and the meter's time stamp (ms); -1 when none. */
int gt_clk_parse_odpm(const char *text, uint64_t *uws, uint64_t *ms);

/* The counters every source with GPU clocks gives (this companion, the
 * simulator), by name. Gauges are summed over the interval's reads with
 * a count of the reads that had a value, so a layout divides one by the
 * other and an interval without a value is "no data", never 0. */
#define GT_CLK_TIME_COUNTER "GpuFreqTimeMs"   /* + OPP index: GpuFreqTimeMs0 ... */

/* Adds the clock counters to c; nopps time-per-frequency counters with
 * hardware names "N MHz" from opp_hz. Returns 0 or -1 (no memory). */
int gt_clk_catalog_add(struct gt_catalog *c, size_t nopps, const uint64_t *opp_hz);
/* The same with every operating point a device can have (100 MHz
 * apart), for checking and benchmarking layouts. */
int gt_clk_catalog_full(struct gt_catalog *c);
/* Slots of those counters in a catalogue (after gt_clk_catalog_add). */
struct gt_clk_slots {
    int cur, cur_n, cap, cap_n, min, min_n, top, top_n;
    int temp, temp_n, trip, trip_n, crossed, limited, thermal_n;
    int cool_cur, cool_max, cool_n, cores, cores_n, batt, batt_n, rail_uws, rail_ms;
    int time0, time_n, time_total;
};
void gt_clk_slots(const struct gt_catalog *c, struct gt_clk_slots *s);
/* Adds reading r into the snapshot deltas d (one read): gauges and their
 * counts, times since start (r's minus base's, base may be NULL), and the
 * rail energy since prev (NULL: none yet). */
void gt_clk_accumulate(const struct gt_clk_slots *s, const struct gt_clk_reading *r,
                       const struct gt_clk_reading *base, const struct gt_clk_reading *prev,
                       uint64_t *d);

#endif
