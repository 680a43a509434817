/* Helpers shared by the amdgpu source tests (see amd_harness.c): the real
 * source on the fake amdgpu kernel, through the real engine and layout. */
#ifndef GPUTOP_TEST_AMD_HARNESS_H
#define GPUTOP_TEST_AMD_HARNESS_H

#include <math.h>
#include <stdint.h>
#include "fakes/fake_amdgpu.h"
#include "gputop/engine.h"
#include "gputop/layout.h"
#include "gputop/source.h"

struct am {
    struct fake_amdgpu *fa;
    struct gt_source *s;
    struct gt_layout *l;
    struct gt_engine *e;
    struct gt_snapshot snap;
    double out[512];
    struct gt_diag d;
    uint64_t period_ns;      /* the fake's clock moves this much before a sample */
};

#define AM_HAS(msg, text) cr_assert(strstr((msg), (text)), "'%s' not in: %s", (text), (msg))
#define AM_NEAR(a, b) cr_assert(fabs((a) - (b)) <= 1e-9 * fabs(b) + 1e-12, "%.17g != %.17g", \
                                (double)(a), (double)(b))

/* A fake kernel from c (power "active" when unset) on a manual clock. */
struct fake_amdgpu *am_fake_with(struct fa_config c);
struct fake_amdgpu *am_fake(int root, enum fa_metrics m);
/* Opens spec on fa, loads its layout, enables what it reads, starts. */
void am_start(struct am *t, struct fake_amdgpu *fa, const char *spec);
/* One sample after period_ns (1 ms unless set) of the fake's clock; the
 * source's result (0, 2 warning, -1 error). */
int am_sample(struct am *t);
/* The same after ns. */
int am_sample_after(struct am *t, uint64_t ns);
double am_metric(struct am *t, const char *title);
const char *am_unavailable(struct am *t, const char *title);
uint64_t am_counter(struct am *t, const char *name, uint32_t inst);
double am_constant(struct am *t, const char *name);
/* Closes everything and checks the fake saw nothing left behind: fds,
 * registers, GFXOFF requests, pstate, protocol errors, a woken GPU. */
void am_stop(struct am *t);
/* spec must fail to open on fa; returns the message. */
const char *am_open_error(struct fake_amdgpu *fa, const char *spec, struct gt_diag *d);

#endif
