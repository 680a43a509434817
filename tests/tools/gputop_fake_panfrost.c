/* gputop with the fake panfrost device behind the system-call seam, so an
 * end-to-end test can stop the real binary with a signal and see the
 * counters disabled: gputop-fake-panfrost -- gputop options. The GPU is
 * the fake's 4-core T830 with the unstable ioctls allowed. GPUTOP_KILL_AT
 * signals it at a chosen seam call (kill_sys.h); on exit it prints the
 * counters' state on stderr as "panfrost-final: ...". */
#include "gputop/cli.h"
#include "gputop/panfrost_uapi.h"
#include "fakes/fake_panfrost.h"
#include "fakes/kill_sys.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    volatile sig_atomic_t *stop = gt_install_stop_signals();
    struct fp_config cfg = { .unstable_ioctls = 1 };
    const struct fp_stats *st;
    struct fake_panfrost *fp;
    struct kill_sys ks;
    struct gt_options o;
    int status;

    if (argc < 2 || strcmp(argv[1], "--") != 0) {
        fprintf(stderr, "usage: gputop-fake-panfrost -- gputop options\n");
        return 2;
    }
    fp = fp_new(&cfg);
    if (!fp)
        return 1;
    /* argv[1] ("--") stands in for argv[0] */
    if (gt_options_parse(&o, argc - 1, argv + 1, stderr) < 0 ||
        ks_init_from_env(&ks, fp_sys(fp)) < 0) {
        fp_free(fp);
        return 2;
    }
    /* panfrost waits for the dump with wait_for_completion_interruptible_timeout */
    ks_interruptible_ioctl(&ks, GT_PANFROST_PERFCNT_DUMP);
    o.sys = &ks.sys;
    status = o.cmd == GT_CMD_PROBE ? gt_cmd_probe(&o, o.sys, stdout) : gt_cmd_run(&o, stop);
    st = fp_stats(fp);
    fprintf(stderr, "panfrost-final: owner_fd=%d closed_enabled=%d open_fds=%d enables=%d "
                    "disables=%d protocol_errors=%d seam_calls=%ld\n", st->owner_fd,
            st->closed_enabled, st->open_fds, st->enables, st->disables, st->protocol_errors,
            atomic_load(&ks.calls));
    fp_free(fp);
    return status;
}
