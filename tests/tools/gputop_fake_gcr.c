/* gputop with the fake MIPS coherency manager behind the system-call seam,
 * so an end-to-end test can stop the real binary with a signal and see the
 * perf registers put back: gputop-fake-gcr REV -- gputop options. The GCR
 * is at 0x1fbf8000 (gcr-base=default); its perf registers start as a
 * debugger might have left them, and on exit the final state is printed
 * on stderr as "gcr-final: ..."; GPUTOP_KILL_AT signals it at a chosen
 * seam call (kill_sys.h). Time passes 20000 CM cycles per register
 * access, with events 0..17 at 10..180 per 1000 cycles. GPUTOP_FAKE_GCR_QUAL=N
 * gives event N qualifier groups 0x0f and 0xf0 with traffic attributes
 * 0x11 (the document: an event counts only when every group matches).
 * GPUTOP_FAKE_GCR_NOTHING=1: nothing answers at the address (every access
 * raises SIGBUS, as do_be() delivers it on MIPS); GPUTOP_FAKE_GCR_CUT_MS=N:
 * the block goes away N ms after the start, mid-run. */
#include "gputop/cli.h"
#include "fakes/fake_gcr.h"
#include "fakes/kill_sys.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    struct fg_regs start = { .ctl = 0x60000002, .ov = 0, .event = 0x0309, .cycle = 1000,
                             .qual0 = 0x12345678, .cnt0 = 77, .qual1 = 0x9abcdef0, .cnt1 = 5 };
    volatile sig_atomic_t *stop = gt_install_stop_signals();
    struct kill_sys ks;
    struct fg_config cfg;
    struct fake_gcr *fg;
    struct gt_options o;
    struct fg_regs r;
    unsigned ev;
    int status;

    if (argc < 3 || strcmp(argv[2], "--") != 0) {
        fprintf(stderr, "usage: gputop-fake-gcr GCR_REV -- gputop options\n");
        return 2;
    }
    memset(&cfg, 0, sizeof(cfg));
    cfg.base = 0x1fbf8000;
    cfg.rev = (uint32_t)strtoul(argv[1], NULL, 0);
    cfg.config = 0x0103;
    cfg.access_cycles = 20000;
    if (getenv("GPUTOP_FAKE_GCR_CUT_MS"))
        cfg.cut_after_ns = strtoull(getenv("GPUTOP_FAKE_GCR_CUT_MS"), NULL, 10) * 1000000ull;
    fg = fg_new(&cfg);
    if (!fg)
        return 1;
    fg_set_regs(fg, &start);
    for (ev = 0; ev <= 17; ev++)
        fg_set_rate(fg, ev, 10 * (ev + 1));
    if (getenv("GPUTOP_FAKE_GCR_NOTHING"))
        fg_bus_error(fg, 1);
    if (getenv("GPUTOP_FAKE_GCR_QUAL")) {
        static const uint32_t groups[] = { 0x0f, 0xf0 };
        fg_set_qual_groups(fg, (unsigned)strtoul(getenv("GPUTOP_FAKE_GCR_QUAL"), NULL, 0), groups,
                           2, 0x11);
    }
    /* argv[2] ("--") stands in for argv[0] */
    if (gt_options_parse(&o, argc - 2, argv + 2, stderr) < 0) {
        fg_free(fg);
        return 2;
    }
    if (ks_init_from_env(&ks, fg_sys(fg)) < 0) {
        fprintf(stderr, "gputop-fake-gcr: bad GPUTOP_KILL_AT or GPUTOP_KILL_MARK\n");
        fg_free(fg);
        return 2;
    }
    o.sys = &ks.sys;
    status = o.cmd == GT_CMD_PROBE ? gt_cmd_probe(&o, o.sys, stdout) : gt_cmd_run(&o, stop);
    fg_get_regs(fg, &r);
    fprintf(stderr, "gcr-final: ctl=0x%08x ov=0x%x event=0x%04x qual0=0x%08x qual1=0x%08x "
                    "cycle=%u cnt0=%u cnt1=%u protocol_errors=%d open_fds=%d seam_calls=%ld%s%s\n",
            r.ctl, r.ov, r.event, r.qual0, r.qual1, r.cycle, r.cnt0, r.cnt1,
            fg_stats(fg)->protocol_errors, fg_stats(fg)->open_fds, atomic_load(&ks.calls),
            fg_stats(fg)->protocol_errors ? " last: " : "", fg_stats(fg)->last_error);
    fg_free(fg);
    return status;
}
