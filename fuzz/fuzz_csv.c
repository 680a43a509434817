/* libFuzzer target: the csv source (counter deltas from a CSV file), opened,
 * started and sampled to the end as `--source csv:FILE` would. */
#include "fuzz_common.h"
#include "gputop/snapshot.h"
#include "gputop/source.h"

static void run(const char *spec, size_t size)
{
    struct gt_diag d;
    struct gt_snapshot s;
    struct gt_source *src;

    gt_diag_clear(&d);
    src = gt_source_open(spec, gt_sys_real(), &d);
    if (!src)
        return;
    if (src->type->start(src, &d) == 0 && gt_snapshot_init(&s, src->catalog.nslots) == 0) {
        for (size_t i = 0; i <= size && src->type->sample(src, &s, &d) == 0; i++)
            ;
        gt_snapshot_free(&s);
    }
    gt_source_close(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char spec[256];
    const char *path;

    /* The first byte picks the gpu= argument, so the AMD columns and the
     * Mali tables are both reached. */
    static const char *const gpus[] = { "", ",gpu=gfx1151", ",gpu=T830", ",gpu=G720" };
    const char *gpu = size ? gpus[data[0] & 3] : "";
    if (size) {
        data++;
        size--;
    }
    path = fuzz_file(data, size, ".csv");
    snprintf(spec, sizeof(spec), "csv:%s%s", path, gpu);
    run(spec, size);
    return 0;
}
