/* A test source that plays a script of deltas with exact timestamps. */
#ifndef GPUTOP_TEST_SCRIPTED_SOURCE_H
#define GPUTOP_TEST_SCRIPTED_SOURCE_H

#include "gputop/source.h"

struct scripted {
    const uint64_t *rows;     /* nrows x nslots deltas */
    size_t nrows, next;
    uint64_t interval_ns;     /* each sample's length */
    uint64_t t;
    /* Bit k set: call k fails (-1, "device lost"), its interval passing
     * like a device's that did not answer; no row is used. */
    uint64_t fail_mask;
    unsigned calls;
};

extern const struct gt_source_type scripted_source_type;

/* A source over the given catalogue builder; s->priv = script. */
struct gt_source *scripted_source_new(struct scripted *script,
                                      void (*build)(struct gt_catalog *c));
void scripted_source_free(struct gt_source *s);

#endif
