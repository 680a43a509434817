/* gputop with the fake amdgpu kernel behind the system-call seam, so the
 * end-to-end tests drive the real amdgpu source, engine and views as a
 * user would, signals included:
 *   gputop-amdfake [root] [suspended] [HWBLOCK:EVENT:INST=COUNT ...] -- ARGS
 * On exit it reports on stderr whether every register gputop wrote is
 * back at its power-on value, GFXOFF is allowed again and no stable power
 * state is held; GPUTOP_KILL_AT signals it at a chosen seam call
 * (kill_sys.h). */
#include "gputop/cli.h"
#include "fakes/fake_amdgpu.h"
#include "fakes/kill_sys.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int set_rate(struct fake_amdgpu *fa, const char *spec)
{
    char block[16];
    unsigned event, se, sa, idx;
    unsigned long long n;

    /* BLOCK:EVENT:SE.SA.IDX=N, or BLOCK:EVENT:IDX=N for SE 0, SA 0. */
    if (sscanf(spec, "%15[A-Z0-9_]:%u:%u.%u.%u=%llu", block, &event, &se, &sa, &idx, &n) == 6) {
        fa_set_rate(fa, block, event, FA_UNIT(se, sa, idx), n);
        return 0;
    }
    if (sscanf(spec, "%15[A-Z0-9_]:%u:%u=%llu", block, &event, &idx, &n) != 4)
        return -1;
    fa_set_rate(fa, block, event, FA_UNIT(0, 0, idx), n);
    return 0;
}

int main(int argc, char **argv)
{
    volatile sig_atomic_t *stop = gt_install_stop_signals();
    struct kill_sys ks;
    struct fa_config cfg;
    struct fake_amdgpu *fa;
    struct gt_options o;
    const struct fa_stats *st;
    int i, status;

    memset(&cfg, 0, sizeof(cfg));
    cfg.metrics = FA_METRICS_V3_0;
    cfg.power = "active";
    for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "root") == 0)
            cfg.root = 1;
        else if (strcmp(argv[i], "suspended") == 0)
            cfg.power = "suspended";
    }
    fa = fa_new(&cfg);
    if (!fa)
        return 1;
    for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strchr(argv[i], '=') && set_rate(fa, argv[i]) < 0) {
            fprintf(stderr, "gputop-amdfake: bad counter '%s'\n", argv[i]);
            fa_free(fa);
            return 2;
        }
    if (i == argc || gt_options_parse(&o, argc - i, argv + i, stderr) < 0) {
        fprintf(stderr, "usage: gputop-amdfake [root] [suspended] [BLOCK:EVENT:INST=N ...] "
                        "-- gputop options\n");
        fa_free(fa);
        return 2;
    }
    if (ks_init_from_env(&ks, fa_sys(fa)) < 0) {
        fprintf(stderr, "gputop-amdfake: bad GPUTOP_KILL_AT or GPUTOP_KILL_MARK\n");
        fa_free(fa);
        return 2;
    }
    o.sys = &ks.sys;
    if (o.cmd == GT_CMD_PROBE)
        status = gt_cmd_probe(&o, o.sys, stdout);
    else
        status = gt_cmd_run(&o, stop);
    st = fa_stats(fa);
    fprintf(stderr, "fake-amdgpu: %d registers written, %d not restored, %d GFXOFF requests "
                    "held, %d fds open, woken %d times, stable pstate %d, %d protocol errors, "
                    "%ld seam calls, %d GFXOFF entries\n", st->regs_written,
            st->regs_not_restored, st->gfxoff_refs, st->open_fds, st->woken, st->pstate,
            st->protocol_errors, atomic_load(&ks.calls), st->gfxoff_entries);
    fa_free(fa);
    return status;
}
