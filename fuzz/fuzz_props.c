/* libFuzzer target: the Mali GPU-properties buffers, as GET_GPUPROPS packs
 * them (key, value) and as the pre-r21 GET_PROPS struct lays them out;
 * a parsed GPU is then named. */
#include "fuzz_common.h"
#include "gputop/kbase.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gt_kbase_gpu g;
    struct gt_diag d;
    /* A private copy: the parser must not read past size. */
    uint8_t *buf = malloc(size ? size : 1);

    if (!buf)
        return 0;
    memcpy(buf, data, size);
    memset(&g, 0, sizeof(g));
    gt_diag_clear(&d);
    if (gt_kbase_props_parse(buf, size, &g, &d) == 0)
        (void)gt_kbase_identify(&g);
    memset(&g, 0, sizeof(g));
    if (gt_kbase_props_parse_pre_r21(buf, size, &g, &d) == 0)
        (void)gt_kbase_identify(&g);
    free(buf);
    return 0;
}
