/* What an opened mali source tells --probe: its counter reader, the
 * counters it enables and those it cannot deliver. */
#include "gputop/kbase.h"
#include "gputop/kbase_uapi.h"
#include "gputop/source.h"
#include "kbase_src.h"

#include <stdio.h>

static unsigned popcount128(const uint64_t m[2])
{
    return (unsigned)(__builtin_popcountll(m[0]) + __builtin_popcountll(m[1]));
}

void gt_kbase_describe_source(const struct gt_source *s, FILE *out)
{
    const struct kbase_src *k = s->priv;
    const struct gt_kbase_dev *dev = &k->dev;
    static const char *const blocks[GT_KB_NBLOCKS] = { "front-end", "tiler", "memsys",
                                                       "shader core" };
    unsigned total = 0;
    int b;

    fprintf(out, "counter reader:   %s (%u buffers, %u values per block%s)\n",
            k->reader.ops->name, k->reader.buffers, k->reader.values_per_block,
            k->reader.ncycles ? ", with GPU clock cycles" : "");
    if (k->cut)
        fprintf(out, "                  counters %u..%u of each block are out of its reach\n",
                k->cut, GT_KB_MAX_VALUES - 1);
    if (gt_kbase_kinstr_buggy(dev) && k->iface == IFACE_KINSTR)
        fprintf(out, "                  kernel in the range with known kinstr_prfcnt bugs; "
                     "worked around\n");
    if (k->reader.physical_idx)
        fprintf(out, "                  shader blocks are numbered by physical core position "
                     "(a kinstr_prfcnt bug); remapped through the core mask\n");
    for (b = 0; b < GT_KB_NBLOCKS; b++) {
        unsigned n = popcount128(k->enabled.mask[b]);
        total += n;
        fprintf(out, "  %-12s %3u counters enabled (mask 0x%016llx%016llx)\n", blocks[b], n,
                (unsigned long long)k->enabled.mask[b][1],
                (unsigned long long)k->enabled.mask[b][0]);
    }
    fprintf(out, "counters enabled: %u\n", total);
}

void gt_kbase_describe_limits(const struct gt_source *s, FILE *out)
{
    const struct kbase_src *k = s->priv;

    if (!k->cut)
        return;
    fprintf(out, "counters %u..%u: not delivered: %s gives %u values per block\n",
            k->cut, GT_KB_MAX_VALUES - 1,
            k->iface == IFACE_LEGACY ? "the legacy reader" : "this kernel's kinstr_prfcnt", k->cut);
    if (k->iface == IFACE_LEGACY)
        fprintf(out, "                  (kinstr_prfcnt, on JM 11.34 / CSF 1.10 kernels or newer, "
                     "carries all 128)\n");
    else
        fprintf(out, "                  (its ENUM_INFO says so; a CSF kernel does this when it "
                     "finds the GPU's\n                  PRFCNT_FEATURES register not valid)\n");
    fprintf(out, "                  %zu of the GPU's counters are left out; the metrics needing "
                 "them are unavailable\n", k->ncut);
}
