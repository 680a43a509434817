/* The simulated Mali model's value table: every interval of a family's
 * model writes the same entries, whatever the scene, which is what lets
 * the source leave the table uncleared between intervals. */
#include <criterion/criterion.h>
#include <string.h>

#include "../src/sources/mali/sim_model.h"

#define STEP_NS 100000000ull
#define NSTEPS  200           /* 20 s: scene=cycle fades into three scenes */

static const uint64_t poison[2] = { 0x5A5A5A5A5A5A5A5Aull, 0xA5A5A5A5A5A5A5A5ull };

/* Which entries one interval writes: an entry written reads back other
 * than the poison it held (two poisons, so a value that equals one is
 * still seen). */
static void written(struct sim *m, unsigned char *out)
{
    size_t i, j;
    int p;

    memset(out, 0, NVALUES * SIM_MAX_INST);
    for (p = 0; p < 2; p++) {
        uint64_t rng = m->rng, own = m->own_ns;
        for (i = 0; i < NVALUES; i++)
            for (j = 0; j < SIM_MAX_INST; j++)
                m->v[i][j] = poison[p];
        sim_model_interval(m, STEP_NS);
        for (i = 0; i < NVALUES; i++)
            for (j = 0; j < SIM_MAX_INST; j++)
                out[i * SIM_MAX_INST + j] |= m->v[i][j] != poison[p];
        if (p == 0) {
            m->rng = rng;     /* the same interval again */
            m->own_ns = own;
        }
    }
    m->own_ns += STEP_NS;
}

static void check_family(const struct family *f, int scene)
{
    static struct sim m;
    static unsigned char first[NVALUES * SIM_MAX_INST], now[NVALUES * SIM_MAX_INST];
    size_t i;
    int n;

    memset(&m, 0, sizeof(m));
    m.fam = f;
    m.scene = scene;
    m.rng = 7;
    for (i = 0; i < SIM_MAX_INST; i++)
        m.core_skew[i] = m.slice_skew[i] = 0.99;
    written(&m, first);
    for (n = 1; n < NSTEPS; n++) {
        written(&m, now);
        for (i = 0; i < sizeof(now); i++)
            cr_assert_eq(now[i], first[i],
                         "%s scene %d interval %d: value %zu instance %zu written %s",
                         f->name, scene, n, i / SIM_MAX_INST, i % SIM_MAX_INST,
                         now[i] ? "now but not in the first" : "in the first but not now");
    }
}

Test(sim_model, every_interval_writes_the_same_values)
{
    size_t i;
    int scene;

    for (i = 0; i < sim_family_count(); i++) {
        for (scene = 0; scene <= SCENE_CYCLE; scene++)
            check_family(sim_family_at(i), scene);
        for (scene = SIM_VARIANT_FIRST; sim_variant(scene); scene++)
            check_family(sim_family_at(i), scene);
    }
}
