/* gputop with the fake kbase kernel behind the system-call seam, so the
 * end-to-end tests drive the real Mali source, engine and views as a user
 * would: gputop-fake GPU API VERSION [BLOCK:INST:INDEX=DELTA ...] -- ARGS.
 * GPU is T830, G715 or G720; API pre-r21, jm or csf; VERSION "11.20".
 * Among the counters, cycles=TOP:SHADER sets the clock cycles every sample
 * carries. Kernel variants go among the counters too: no-cycles (a legacy
 * reader without the _WITH_CYCLES forms), values=64, mask=0x177,
 * enum=fls|N (shader instances ENUM_INFO reports), idx=physical|dense,
 * page=16384, old-mmap, max-buffers=N, old-dump, deny=REQUEST (that ioctl
 * refused with EPERM); suspend:K:N suspends the
 * GPU for N legacy DUMP calls after the next K. GPUTOP_KILL_AT signals it
 * at a chosen seam call (kill_sys.h); on exit it prints what is left open
 * on stderr as "kbase-final: ...", and the samples the kernel wrote and
 * gputop took. The fake's clock moves 100 ms a manual dump, and gputop
 * samples on its timer (--timer-sampling), unless the variant real-clock
 * is given: then the fake's clock is CLOCK_MONOTONIC_RAW, so that the
 * periodic modes fill the ring as gputop runs, from the fake's own worker
 * thread ("fk-kworker", as kbase's dump worker), and gputop takes the
 * samples the kernel times. */
#include "gputop/cli.h"
#include "fakes/fake_kbase.h"
#include "fakes/kill_sys.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_kernel(struct fk_config *c, char **argv)
{
    memset(c, 0, sizeof(*c));
    c->new_gate = 1;
    if (strcmp(argv[0], "T830") == 0)
        c->gpu = FK_T830;
    else if (strcmp(argv[0], "G715") == 0)
        c->gpu = FK_G715;
    else if (strcmp(argv[0], "G720") == 0)
        c->gpu = FK_G720;
    else if (strcmp(argv[0], "G52") == 0)
        c->gpu = FK_G52;
    else if (strcmp(argv[0], "G78") == 0)
        c->gpu = FK_G78;
    else
        return -1;
    if (strcmp(argv[1], "pre-r21") == 0)
        c->api = FK_PRE_R21;
    else if (strcmp(argv[1], "jm") == 0)
        c->api = FK_JM;
    else if (strcmp(argv[1], "csf") == 0)
        c->api = FK_CSF;
    else
        return -1;
    return sscanf(argv[2], "%u.%u", &c->major, &c->minor) == 2 ? 0 : -1;
}

/* A kernel variant, as fk_config names it. */
static int set_variant(struct fk_config *c, const char *spec)
{
    unsigned long long v;

    if (sscanf(spec, "values=%llu", &v) == 1)
        c->nvalues = (unsigned)v;
    else if (sscanf(spec, "id=%llx", &v) == 1)
        c->gpu_id = v;
    else if (sscanf(spec, "deny=%llx", &v) == 1) {
        c->deny_request = (unsigned long)v;     /* refused with EPERM (SELinux) */
        c->deny_errno = EPERM;
    } else if (sscanf(spec, "mask=%llx", &v) == 1)
        c->core_mask = v;
    else if (strcmp(spec, "enum=fls") == 0)
        c->enum_shader = FK_ENUM_FLS;
    else if (sscanf(spec, "enum=%llu", &v) == 1)
        c->enum_shader = (int)v;
    else if (strcmp(spec, "idx=physical") == 0)
        c->block_idx = FK_IDX_PHYSICAL;
    else if (strcmp(spec, "idx=dense") == 0)
        c->block_idx = FK_IDX_DENSE;
    else if (sscanf(spec, "page=%llu", &v) == 1)
        c->page_size = (unsigned)v;
    else if (strcmp(spec, "old-mmap") == 0)
        c->old_mmap = 1;
    else if (sscanf(spec, "max-buffers=%llu", &v) == 1)
        c->max_buffers = (unsigned)v;
    else if (strcmp(spec, "old-dump") == 0)
        c->old_dump = 1;
    else if (strcmp(spec, "no-cycles") == 0)
        c->no_cycles = 1;
    else if (strcmp(spec, "real-clock") == 0)
        return 0;   /* taken once the fake is made */
    else
        return -1;
    return 0;
}

static int set_counter(struct fake_kbase *fk, const char *spec)
{
    int block;
    unsigned inst, index;
    unsigned long long delta, top, shader;

    if (strcmp(spec, "no-cycles") == 0 || strcmp(spec, "real-clock") == 0)
        return 0;   /* a kernel option, taken before the fake was made */
    if (sscanf(spec, "cycles=%llu:%llu", &top, &shader) == 2) {
        fk_set_cycles(fk, top, shader);
        return 0;
    }
    if (sscanf(spec, "suspend:%u:%u", &inst, &index) == 2) {
        fk_suspend_after(fk, (int)inst, (int)index);
        return 0;
    }
    if (sscanf(spec, "%d:%u:%u=%llu", &block, &inst, &index, &delta) != 4)
        return -1;
    fk_set_counter(fk, block, inst, index, delta);
    return 0;
}

int main(int argc, char **argv)
{
    volatile sig_atomic_t *stop = gt_install_stop_signals();
    const struct fk_stats *st;
    struct kill_sys ks;
    struct fk_config cfg;
    struct fake_kbase *fk;
    struct gt_options o;
    int i, status;

    if (argc < 5 || parse_kernel(&cfg, argv + 1) < 0) {
        fprintf(stderr, "usage: gputop-fake T830|G715|G720|G52|G78 pre-r21|jm|csf MAJOR.MINOR "
                        "[BLOCK:INST:INDEX=DELTA ...] -- gputop options\n");
        return 2;
    }
    for (i = 4; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (!strchr(argv[i], ':') && set_variant(&cfg, argv[i]) < 0) {
            fprintf(stderr, "gputop-fake: bad kernel variant '%s'\n", argv[i]);
            return 2;
        }
    fk = fk_new(&cfg);
    if (!fk)
        return 1;
    for (i = 4; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "real-clock") == 0)
            fk_real_clock(fk);
    for (i = 4; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strchr(argv[i], ':') && set_counter(fk, argv[i]) < 0) {
            fprintf(stderr, "gputop-fake: bad counter '%s'\n", argv[i]);
            fk_free(fk);
            return 2;
        }
    /* what follows "--" is a gputop command line; argv[i] stands in for argv[0] */
    if (gt_options_parse(&o, argc - i, argv + i, stderr) < 0) {
        fk_free(fk);
        return 2;
    }
    if (!fk_clock_is_real(fk))
        o.timer_sampling = 1;
    if (ks_init_from_env(&ks, fk_sys(fk)) < 0) {
        fprintf(stderr, "gputop-fake: bad GPUTOP_KILL_AT or GPUTOP_KILL_MARK\n");
        fk_free(fk);
        return 2;
    }
    o.sys = &ks.sys;
    if (o.cmd == GT_CMD_PROBE)
        status = gt_cmd_probe(&o, o.sys, stdout);
    else
        status = gt_cmd_run(&o, stop);
    /* The kernel drops a reader or kinstr client when its fd closes: what
     * must be left is no fd and no mapping. */
    st = fk_stats(fk);
    fprintf(stderr, "kbase-final: open_fds=%d mapped=%d started=%d stopped=%d "
                    "protocol_errors=%d seam_calls=%ld dumps=%d periodic=%llu skipped=%llu "
                    "gets=%d%s%s\n", st->open_fds, st->mapped, st->started, st->stopped,
            st->protocol_errors, atomic_load(&ks.calls), st->dumps,
            (unsigned long long)st->periodic, (unsigned long long)st->skipped, st->gets,
            st->protocol_errors ? " last: " : "", st->last_error);
    fk_free(fk);
    return status;
}
