/* Multiplexing the coherency manager's events over its two counters: the
 * events in use are paired and the pairs rotated, one per sample. Between
 * its turns an event's latest rate per counted cycle is held and applied
 * to each interval's cycles, so the estimate is as old as that window:
 * its age (samples since it was counted) goes out with it. */
#include "cm.h"

#include <math.h>
#include <string.h>

void cm_mux_init(struct cm_mux *m, const int *events, size_t n, const uint32_t *qual)
{
    memset(m, 0, sizeof(*m));
    if (n > CM_NEVENTS)
        n = CM_NEVENTS;
    memcpy(m->events, events, n * sizeof(*events));
    if (qual)
        memcpy(m->qual, qual, sizeof(m->qual));
    m->nevents = n;
    m->npairs = (n + 1) / 2;
}

int cm_mux_multiplexed(const struct cm_mux *m)
{
    return m->npairs > 1;
}

void cm_mux_pair(const struct cm_mux *m, size_t p, int *e0, int *e1)
{
    *e0 = 2 * p < m->nevents ? m->events[2 * p] : -1;
    *e1 = 2 * p + 1 < m->nevents ? m->events[2 * p + 1] : -1;
}

void cm_mux_record(struct cm_mux *m, uint64_t c0, uint64_t c1, uint64_t enabled)
{
    int e0, e1;

    if (m->npairs == 0)
        return;
    cm_mux_pair(m, m->cur, &e0, &e1);
    for (size_t i = 0; i < m->nevents; i++)
        m->age[m->events[i]]++;
    if (e0 >= 0) {
        m->age[e0] = 0;
        m->count[e0] = c0;
        m->enabled[e0] = enabled;
        m->have[e0] = 1;
    }
    if (e1 >= 0) {
        m->age[e1] = 0;
        m->count[e1] = c1;
        m->enabled[e1] = enabled;
        m->have[e1] = 1;
    }
}

int64_t cm_mux_estimate(const struct cm_mux *m, int e, uint64_t cycles)
{
    if (e < 0 || e >= CM_NEVENTS || !m->have[e])
        return -1;
    /* Counted all the time: the count itself, no scaling. */
    if (!cm_mux_multiplexed(m))
        return (int64_t)m->count[e];
    if (m->enabled[e] == 0)
        return -1;
    return (int64_t)llround((double)m->count[e] * (double)cycles / (double)m->enabled[e]);
}

void cm_mux_next(struct cm_mux *m)
{
    if (m->npairs)
        m->cur = (m->cur + 1) % m->npairs;
}
