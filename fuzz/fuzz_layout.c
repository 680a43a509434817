/* libFuzzer target: layout files (sections, metrics, expressions, options). */
#include "fuzz_common.h"
#include "gputop/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gt_diag d;
    struct gt_layout *l;
    char buf[1024];

    gt_diag_clear(&d);
    l = gt_layout_parse("fuzz.layout", (const char *)data, size, &d);
    if (!l) {
        (void)gt_diag_format(&d, buf, sizeof(buf));
        return 0;
    }
    (void)gt_layout_section_list(l, buf, sizeof(buf));
    (void)gt_layout_find_metric(l, "x");
    (void)gt_layout_find_section(l, "x", &d);
    gt_layout_free(l);
    return 0;
}
