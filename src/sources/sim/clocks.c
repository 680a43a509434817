/* The simulated GPU's devfreq clock, thermal zone and power meters (see
 * clocks.h): the same counters gpu-clocks gives on a device, from a small
 * heat model of our own (none of its numbers come from a document). */
#include "clocks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PASSIVE_C   90.0     /* the zone's passive trip point */
#define HOT_C       95.0     /* where the thermal scene settles */
#define COOL_MAX    10u      /* the cooling device's max_state */
#define TAU_S       2.0      /* how fast the zone follows its load */

/* Operating points as shares of the top clock (six, as small parts have). */
static const double opp_share[SIM_CLK_OPPS] = { 0.25, 0.40, 0.55, 0.70, 0.85, 1.00 };

int sim_clocks_catalog(struct sim_clocks *sc, struct gt_catalog *c, double top_mhz,
                       unsigned cores)
{
    size_t i;

    memset(sc, 0, sizeof(*sc));
    sc->first = c->nslots;
    sc->top_mhz = top_mhz;
    sc->cores = cores;
    sc->temp_c = 40.0;
    for (i = 0; i < SIM_CLK_OPPS; i++)
        sc->opp_hz[i] = (uint64_t)llround(top_mhz * opp_share[i]) * 1000000ull;
    if (gt_clk_catalog_add(c, SIM_CLK_OPPS, sc->opp_hz) < 0)
        return -1;
    sc->n = c->nslots - sc->first;
    sc->scratch = calloc(c->nslots, sizeof(*sc->scratch));
    sc->chosen = malloc(sc->n ? sc->n : 1);
    if (!sc->scratch || !sc->chosen)
        return -1;
    memset(sc->chosen, 1, sc->n);
    gt_clk_slots(c, &sc->slots);
    sc->prev.have = GT_CLK_HAVE_RAIL;   /* the meter reads 0 at the start */
    return 0;
}

void sim_clocks_select(struct sim_clocks *sc, const struct gt_catalog *c,
                       const unsigned char *used)
{
    size_t k;

    for (k = 0; k < c->ncounters; k++) {
        uint32_t slot = c->counters[k].slot;
        if (c->counters[k].kind == GT_COUNTER_DELTA && slot >= sc->first &&
            slot < sc->first + sc->n)
            sc->chosen[slot - sc->first] = used[k] != 0;
    }
}

void sim_clocks_free(struct sim_clocks *sc)
{
    free(sc->scratch);
    free(sc->chosen);
    sc->scratch = NULL;
    sc->chosen = NULL;
}

/* Each cooling state takes one operating point off the top. */
double sim_clocks_cap(const struct sim_clocks *sc)
{
    unsigned top = SIM_CLK_OPPS - 1, k = sc->cool < top ? top - sc->cool : 0;

    return (double)(sc->opp_hz[k] / 1000000ull);
}

/* The operating point an interval at mhz is counted under: the lowest
 * at or above it. */
static size_t opp_of(const struct sim_clocks *sc, double mhz)
{
    size_t i;

    for (i = 0; i + 1 < SIM_CLK_OPPS; i++)
        if ((double)sc->opp_hz[i] >= mhz * 1e6 - 0.5e6)
            break;
    return i;
}

static void heat(struct sim_clocks *sc, double load, int hot, double dt_s)
{
    /* a busy GPU at its top clock settles near 75 degC; the thermal
     * scene's device (a hot phone: CPU, sun, case) near 95 degC */
    double target = hot ? HOT_C : 35.0 + 40.0 * load;
    double over;

    sc->temp_c += (target - sc->temp_c) * (1.0 - exp(-dt_s / TAU_S));
    /* step_wise-like: a state per 1.25 degC over the passive trip */
    over = sc->temp_c - PASSIVE_C;
    sc->cool = over <= 0 ? 0 : over >= 1.25 * COOL_MAX ? COOL_MAX : (unsigned)(over / 1.25);
}

void sim_clocks_interval(struct sim_clocks *sc, double mhz, double busy, int hot,
                         uint64_t dt_ns, uint64_t *deltas)
{
    struct gt_clk_reading r, base;
    double dt_s = (double)dt_ns / 1e9, share = sc->top_mhz > 0 ? mhz / sc->top_mhz : 0;
    double load = busy * share * share, cap = sim_clocks_cap(sc);
    size_t i;

    memset(&r, 0, sizeof(r));
    memset(&base, 0, sizeof(base));
    sc->ms[opp_of(sc, mhz)] += dt_s * 1000.0;
    /* the rail: 0.2 W idle, 2.5 W more busy at the top clock; the battery
     * the whole phone's, 1.5 W more */
    sc->rail_uws += (0.2 + 2.5 * load) * dt_s * 1e6;
    sc->rail_ms += dt_s * 1000.0;
    r.have = GT_CLK_HAVE_CUR | GT_CLK_HAVE_MIN | GT_CLK_HAVE_MAX | GT_CLK_HAVE_TOP |
             GT_CLK_HAVE_TRANS | GT_CLK_HAVE_TEMP | GT_CLK_HAVE_PASSIVE | GT_CLK_HAVE_COOLING |
             GT_CLK_HAVE_CORES | GT_CLK_HAVE_BATTERY | GT_CLK_HAVE_RAIL;
    r.cur_hz = (uint64_t)llround(mhz * 1e6);
    r.min_hz = sc->opp_hz[0];
    r.max_hz = (uint64_t)llround(cap * 1e6);
    r.top_hz = sc->opp_hz[SIM_CLK_OPPS - 1];
    r.nopps = base.nopps = SIM_CLK_OPPS;
    base.have = GT_CLK_HAVE_TRANS;
    for (i = 0; i < SIM_CLK_OPPS; i++)
        r.time_ms[i] = (uint64_t)sc->ms[i];
    r.temp_mc = (int64_t)llround(sc->temp_c * 1000.0);
    r.passive_mc = (int64_t)(PASSIVE_C * 1000.0);
    r.cool_cur = sc->cool;
    r.cool_max = COOL_MAX;
    r.cooling_active = sc->cool > 0;
    r.core_mask = (sc->cores >= 64 ? ~0ull : (1ull << sc->cores) - 1);
    r.battery_uw = (uint64_t)llround((1.7 + 2.5 * load) * 1e6);
    r.rail_uws = (uint64_t)sc->rail_uws;
    r.rail_ms = (uint64_t)sc->rail_ms;
    memset(sc->scratch + sc->first, 0, sc->n * sizeof(*sc->scratch));
    gt_clk_accumulate(&sc->slots, &r, &base, sc->prev.have ? &sc->prev : NULL, sc->scratch);
    for (i = 0; i < sc->n; i++)
        if (sc->chosen[i])
            deltas[sc->first + i] = sc->scratch[sc->first + i];
    sc->prev = r;
    heat(sc, load, hot, dt_s);
}
