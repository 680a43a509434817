/* A Mali GPU's catalogue: its generated counter table (tables.c) with the
 * instance counts and constants the device described. */
#include "gputop/catalog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t device_instances(const char *block, void *arg)
{
    const struct gt_device_desc *d = arg;

    if (strcmp(block, "shadercore") == 0)
        return d->shader_cores;
    if (strcmp(block, "memsys") == 0)
        return d->l2_slices;
    return 1;
}

static double device_constant(const char *name, void *arg)
{
    const struct gt_device_desc *d = arg;

    if (strcmp(name, "MaliConstantsShaderCoreCount") == 0)
        return d->shader_cores;
    if (strcmp(name, "MaliConstantsL2SliceCount") == 0)
        return d->l2_slices;
    if (strcmp(name, "MaliConstantsBusWidthBits") == 0)
        return d->bus_width_bits ? d->bus_width_bits : NAN;
    return NAN;
}

/* A counter the reader cannot deliver is left out rather than read as
 * zero, so the metrics using it say they are unavailable. */
static int add_truncated(struct gt_catalog *c, const struct gt_counter_table *t,
                         const struct gt_device_desc *d)
{
    struct gt_counter_def *defs = malloc((t->ndefs ? t->ndefs : 1) * sizeof(*defs));
    struct gt_counter_table cut = { t->gpu, defs, 0, NULL, NULL };
    size_t i;
    int r;

    if (!defs)
        return -1;
    for (i = 0; i < t->ndefs; i++)
        if ((defs[cut.ndefs] = gt_counter_table_def(t, i)).index < d->max_hw_index)
            cut.ndefs++;
    r = gt_catalog_add_table(c, &cut, device_instances, device_constant, (void *)d);
    free(defs);
    return r;
}

int gt_catalog_add_device(struct gt_catalog *c, const struct gt_device_desc *d)
{
    const struct gt_counter_table *t = gt_counter_table_find(d->gpu);

    if (!t)
        return -1;
    if (d->max_hw_index > 0)
        return add_truncated(c, t, d);
    return gt_catalog_add_table(c, t, device_instances, device_constant, (void *)d);
}
