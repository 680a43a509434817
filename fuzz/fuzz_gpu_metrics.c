/* libFuzzer target: amdgpu gpu_metrics blobs (sysfs), every revision the
 * parser knows, then every field read back by its v3.0 offset. */
#include "fuzz_common.h"
#include "../src/sources/amd/amd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gt_amd_metrics m;
    char why[256];
    /* A private copy: the parser must not read past size. */
    uint8_t *blob = malloc(size ? size : 1);
    uint64_t v;

    if (!blob)
        return 0;
    memcpy(blob, data, size);
    memset(&m, 0, sizeof(m));
    if (gt_amd_metrics_parse(blob, size, &m, why, sizeof(why)) == 0)
        for (int off = 0; off < 300; off++)
            (void)gt_amd_metrics_at_v3(&m, off, &v);
    free(blob);
    return 0;
}
