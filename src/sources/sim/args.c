/* What every simulated family shares, in one place: seed= and step= (so
 * their messages and limits read the same for each), the random stream and
 * the exact arithmetic. */
#include "args.h"
#include "gputop/source.h"

int gt_sim_seed_step(const char *args, uint64_t max_step, uint64_t *seed, uint64_t *step_ns,
                     struct gt_diag *d)
{
    char buf[64];

    *seed = 1;
    if (gt_args_get(args, "seed", buf, sizeof(buf)) && gt_args_u64(buf, seed) < 0) {
        gt_diag_set(d, "sim: seed '%s' is not an unsigned integer", buf);
        return -1;
    }
    if (gt_args_get(args, "step", buf, sizeof(buf)) &&
        (gt_args_u64(buf, step_ns) < 0 || *step_ns == 0 || *step_ns > max_step)) {
        gt_diag_set(d, "sim: step '%s' is not a number of nanoseconds from 1 to %llu", buf,
                    (unsigned long long)max_step);
        return -1;
    }
    return 0;
}

uint64_t gt_sim_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
