/* The coherency manager's counters as a static table, so a CSV of
 * recorded counts (csv:FILE,gpu=mips-cm) names them as the source does:
 * CMCycles and one column per event of the document's list. */
#include "gputop/mips_cm.h"
#include "cm.h"

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
    "mips-cm", defs, sizeof(defs) / sizeof(defs[0]),
};

const struct gt_counter_table *gt_mips_cm_counter_table(void)
{
    return &table;
}

int gt_mips_cm_catalog(struct gt_catalog *c)
{
    struct cm_slots slots;

    return cm_catalog_add(c, &slots);
}
