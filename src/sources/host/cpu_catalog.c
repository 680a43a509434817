/* The CPU counters every source can carry beside its GPU's: ticks per
 * cluster, the activity ratios derived from them, and cycles. */
#include "gputop/catalog.h"

int gt_catalog_add_cpu(struct gt_catalog *c, uint32_t nclusters)
{
    int user, sys, total;

    if (nclusters == 0)
        return -1;
    user = gt_catalog_add(c, "CPUTicksUser", "cluster", GT_COUNTER_DELTA, nclusters, 1.0);
    sys = gt_catalog_add(c, "CPUTicksSystem", "cluster", GT_COUNTER_DELTA, nclusters, 1.0);
    total = gt_catalog_add(c, "CPUTicksTotal", "cluster", GT_COUNTER_DELTA, nclusters, 1.0);
    if (user < 0 || sys < 0 || total < 0)
        return -1;
    if (gt_catalog_add_ratio(c, "CPUActivityUser", user, total, 100.0) < 0 ||
        gt_catalog_add_ratio(c, "CPUActivitySystem", sys, total, 100.0) < 0)
        return -1;
    return gt_catalog_add(c, "CyclesCPUCycles", "cluster", GT_COUNTER_DELTA, nclusters, 1.0) < 0
           ? -1 : 0;
}

/* The same tick counters per CPU (block "cpu", one instance per CPU), as
 * the cpu source names them: $CPUCoreActivityUser / System per CPU. */
int gt_catalog_add_cpu_cores(struct gt_catalog *c, uint32_t ncpus)
{
    int user, sys, total;

    if (ncpus == 0)
        return -1;
    user = gt_catalog_add(c, "CPUCoreTicksUser", "cpu", GT_COUNTER_DELTA, ncpus, 1.0);
    sys = gt_catalog_add(c, "CPUCoreTicksSystem", "cpu", GT_COUNTER_DELTA, ncpus, 1.0);
    total = gt_catalog_add(c, "CPUCoreTicksTotal", "cpu", GT_COUNTER_DELTA, ncpus, 1.0);
    if (user < 0 || sys < 0 || total < 0)
        return -1;
    if (gt_catalog_add_ratio(c, "CPUCoreActivityUser", user, total, 100.0) < 0 ||
        gt_catalog_add_ratio(c, "CPUCoreActivitySystem", sys, total, 100.0) < 0)
        return -1;
    return 0;
}
