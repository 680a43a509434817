/* libFuzzer target: capture files (gputop-capture(5)) read to the end. */
#include "fuzz_common.h"
#include "gputop/capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gt_source_info info;
    struct gt_catalog cat;
    struct gt_snapshot s;
    struct gt_capture_reader *r;
    struct gt_diag d;
    const char *path = fuzz_file(data, size, ".gtcap");

    memset(&info, 0, sizeof(info));
    gt_catalog_init(&cat);
    gt_diag_clear(&d);
    r = gt_capture_open(path, &info, &cat, &d);
    if (!r) {
        gt_catalog_free(&cat);
        return 0;
    }
    if (gt_snapshot_init(&s, cat.nslots) == 0) {
        /* Bounded: a record is at least a few bytes, so a file of size
         * bytes holds fewer than size records. */
        for (size_t i = 0; i <= size && gt_capture_read(r, &s, &d) == 0; i++)
            ;
        gt_snapshot_free(&s);
    }
    gt_capture_close(r);
    gt_catalog_free(&cat);
    return 0;
}
