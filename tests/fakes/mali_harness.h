/* Helpers shared by the Mali source tests (see mali_harness.c). */
#ifndef GPUTOP_TEST_MALI_HARNESS_H
#define GPUTOP_TEST_MALI_HARNESS_H

#include <stdint.h>
#include "fakes/fake_kbase.h"
#include "gputop/engine.h"
#include "gputop/layout.h"
#include "gputop/source.h"

struct kb {
    struct fake_kbase *fk;
    struct gt_source *s;
    struct gt_layout *l;
    struct gt_engine *e;
    struct gt_snapshot snap;
    double out[512];
    struct gt_diag d;
};

#define HAS(msg, text) cr_assert(strstr((msg), (text)), "'%s' not in: %s", (text), (msg))
#define HASNT(msg, text) cr_assert(!strstr((msg), (text)), "'%s' in: %s", (text), (msg))

/* A fake kernel with the new gate. */
struct fake_kbase *fake(enum fk_gpu gpu, enum fk_api api, unsigned major, unsigned minor);
/* Opens the source on fk, loads its layout, enables what it reads, starts. */
void kb_start(struct kb *t, struct fake_kbase *fk, const char *spec);
/* One sample; returns the source's result (0, 2 warning, -1 error). */
int kb_sample(struct kb *t);
double kb_metric(struct kb *t, const char *ref);
uint64_t kb_counter(struct kb *t, const char *name, uint32_t inst);
/* Closes everything and checks the fake saw no leak or protocol error. */
void kb_stop(struct kb *t);
/* spec must fail to open on fk; returns the message. */
const char *open_error(struct fake_kbase *fk, const char *spec, struct gt_diag *d);
/* gputop --probe on fk, its output (free it). */
char *probe(struct fake_kbase *fk, int *status);
const char *fake_bin(void);
/* gputop-fake ARGS with stderr folded into the output (free it). */
char *run(const char *args, int *status);

#endif
