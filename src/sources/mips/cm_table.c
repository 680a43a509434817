/* The coherency manager's counters: the catalogue the mips-cm and
 * sim:mips-cm sources offer, and the same names as a static table, so a
 * CSV of recorded counts (csv:FILE,gpu=mips-cm) names them as the sources
 * do: CMCycles and one column per event of the document's list. */
#include "gputop/mips_cm.h"
#include "cm.h"

#include <stdio.h>

static const struct gt_counter_def defs[] = {
    { "CMCycles",            "cm", -1, "Cycl_Cnt",                     1.0, 1 },
    { "CMRequests",          "cm", 0,  "Request Count",                1.0, 1 },
    { "CMCoherentReqResp",   "cm", 1,  "Coherent Request or Response", 1.0, 1 },
    { "CMWriteDataUsage",    "cm", 2,  "CM Write Data Usage",          1.0, 1 },
    { "CMCommandBusUsage",   "cm", 3,  "CM Command Bus Usage",         1.0, 1 },
    { "CMReadDataUsage",     "cm", 4,  "CM Read Data Usage",           1.0, 1 },
    { "CMSharingMiss",       "cm", 5,  "Sharing Miss",                 1.0, 1 },
    { "CMResponseUnitUsage", "cm", 6,  "Response Unit Usage",          1.0, 1 },
    { "CML2Pipeline",        "cm", 8,  "L2 Pipeline Utilization",      1.0, 1 },
    { "CML2HitsMisses",      "cm", 9,  "L2 Hits/Misses",               1.0, 1 },
    { "CMIOCU0Requests",     "cm", 16, "1st IOCU Requests",            1.0, 1 },
    { "CMIOCU1Requests",     "cm", 17, "2nd IOCU Requests",            1.0, 1 },
};

static const struct gt_counter_table table = {
    "mips-cm", defs, sizeof(defs) / sizeof(defs[0]), NULL, NULL,
};

int cm_catalog_add(struct gt_catalog *cat, struct cm_slots *slots, const int *present)
{
    static const char *const reg_names[CM_NREG] = {
        "CMSamples", "CMRegP0Event", "CMRegP1Event", "CMRegCountOn", "CMRegOvfStop",
        "CMRegOverflows", "CMRegPairs", "CMRegQual0", "CMRegQual1", "CMRegWrapsEstimated",
    };
    char age[64];   /* NAMEAge, NAMEQual */
    int i, k;

    if ((k = gt_catalog_add(cat, "CMCycles", "cm", GT_COUNTER_DELTA, 1, 1.0)) < 0)
        return -1;
    slots->cycles = cat->counters[k].slot;
    for (i = 0; i < CM_NEVENTS; i++) {
        slots->event[i] = slots->age[i] = slots->qual[i] = CM_NO_SLOT;
        if (present && !present[i])
            continue;
        if ((k = gt_catalog_add(cat, cm_events[i].counter, "cm", GT_COUNTER_DELTA, 1, 1.0)) < 0)
            return -1;
        cat->counters[k].hw_index = (int)cm_events[i].number;
        slots->event[i] = cat->counters[k].slot;
        snprintf(age, sizeof(age), "%sAge", cm_events[i].counter);
        if ((k = gt_catalog_add(cat, age, "cm-reg", GT_COUNTER_DELTA, 1, 1.0)) < 0)
            return -1;
        slots->age[i] = cat->counters[k].slot;
        snprintf(age, sizeof(age), "%sQual", cm_events[i].counter);
        if ((k = gt_catalog_add(cat, age, "cm-reg", GT_COUNTER_DELTA, 1, 1.0)) < 0)
            return -1;
        slots->qual[i] = cat->counters[k].slot;
    }
    for (i = 0; i < CM_NREG; i++) {
        if ((k = gt_catalog_add(cat, reg_names[i], "cm-reg", GT_COUNTER_DELTA, 1, 1.0)) < 0)
            return -1;
        slots->reg[i] = cat->counters[k].slot;
    }
    return 0;
}

void cm_catalog_mark(struct gt_catalog *cat, const int *used, int multiplexed)
{
    int i, k;

    for (i = 0; i < CM_NEVENTS; i++)
        if ((k = gt_catalog_find(cat, cm_events[i].counter)) >= 0)
            cat->counters[k].estimated = used[i] && multiplexed;
}

const struct gt_counter_table *gt_mips_cm_counter_table(void)
{
    return &table;
}

int gt_mips_cm_catalog(struct gt_catalog *c)
{
    struct cm_slots slots;

    return cm_catalog_add(c, &slots, NULL);
}

/* IOCUs: GCR_CONFIG NUMIOCU, bits 11:8 in the CM2 header (mips-cm.h).
 * The document stars L2 events (8, 9) and the 2nd IOCU as configuration
 * dependent; the L2 is part of the CM from CM2.5 (GCR_REV major 7) on,
 * while CM2 systems have a separate L2 controller that these events do
 * not see. */
void cm_events_present(uint32_t rev, uint32_t config, int *present)
{
    unsigned niocu = config >> 8 & 0xf, major = rev >> 8 & 0xff;
    int i;

    for (i = 0; i < CM_NEVENTS; i++) {
        unsigned n = cm_events[i].number;
        present[i] = n == 16 ? niocu >= 1 : n == 17 ? niocu >= 2
                   : n == 8 || n == 9 ? major >= 7 : 1;
    }
}
