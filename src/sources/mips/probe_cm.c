/* --probe for the coherency manager: where the GCR block is, what it is,
 * what its perf registers hold now, and — when nobody is counting — what
 * each event counts with qualifier 0 and with all bits set, the registers
 * put back afterwards. */
#include "gputop/mips_cm.h"
#include "gputop/source.h"
#include "cm_src.h"

#include <inttypes.h>
#include <string.h>

static const char *event_title(unsigned number)
{
    int i;

    for (i = 0; i < CM_NEVENTS; i++)
        if (cm_events[i].number == number)
            return cm_events[i].title;
    return "not in the document";
}

static const char *cm_name(unsigned major)
{
    return major == 6 ? "CM2" : major == 7 ? "CM2.5" : major == 8 ? "CM3" : "CM3.5";
}

static void print_ctl(uint32_t ctl, FILE *out)
{
    fprintf(out, "GCR_DB_PC_CTL:    0x%08x  Perf_Int_En %u, Perf_Ovf_Stop %u, counting:%s%s%s%s, "
                 "Perf_Num_Cnt %u\n", ctl, !!(ctl & CM_CTL_INT_EN), !!(ctl & CM_CTL_OVF_STOP),
            ctl & CM_CTL_CY_COUNTON ? " cycles" : "", ctl & CM_CTL_P0_COUNTON ? " P0" : "",
            ctl & CM_CTL_P1_COUNTON ? " P1" : "", ctl & CM_CTL_COUNTON ? "" : " none",
            ctl & CM_CTL_NUM_CNT);
}

static void print_regs(const struct cm_regs *r, FILE *out)
{
    print_ctl(r->ctl, out);
    fprintf(out, "GCR_DB_PC_OV:     0x%08x  overflowed:%s%s%s%s\n", r->ov,
            r->ov & CM_OV_CYCLE ? " cycles" : "", r->ov & CM_OV_P0 ? " P0" : "",
            r->ov & CM_OV_P1 ? " P1" : "", r->ov & CM_OV_ALL ? "" : " none");
    fprintf(out, "GCR_DB_PC_EVENT:  0x%08x  P0 event %u (%s), P1 event %u (%s)\n", r->event,
            r->event & 0xff, event_title(r->event & 0xff), r->event >> 8 & 0xff,
            event_title(r->event >> 8 & 0xff));
    fprintf(out, "qualifiers:       P0 0x%08x, P1 0x%08x\n", r->qual0, r->qual1);
    fprintf(out, "counts:           cycles %u, P0 %u, P1 %u\n", r->cycle, r->cnt0, r->cnt1);
    if (r->ctl & CM_CTL_COUNTON)
        fprintf(out, "in use:           counting is on: someone (a debugger, a driver) may own "
                     "the counters; gputop refuses them unless given 'force', and would then "
                     "put their settings back at exit\n");
    fprintf(out, "left as found:    control, event select, qualifiers and counts are put back "
                 "at exit, overflow bits already set are kept (not with overflow=stop, whose "
                 "start resets them); not the counts the owner's events would have made "
                 "meanwhile\n");
}

#define PROBE_WINDOW_NS 20000000L

struct measure {
    const int *present;
    FILE *out;
};

/* Each event on both counters, qualifier 0 on one, all ones on the other,
 * over the same window (qual.c); what the run would choose. */
static int measure_all(struct cm_gcr *g, void *arg)
{
    struct measure *m = arg;
    uint32_t ctl = g->saved.ctl & ~(CM_CTL_INT_EN | CM_CTL_OVF_STOP | CM_CTL_COUNTON |
                                    CM_CTL_RESETS | CM_CTL_NUM_CNT);
    uint32_t with0, withall, q;
    int i, how;

    for (i = 0; i < CM_NEVENTS; i++) {
        if (!m->present[i])
            continue;
        cm_qual_measure(g, ctl, cm_events[i].number, PROBE_WINDOW_NS, &with0, &withall);
        q = cm_qual_choose(with0, withall, &how);
        fprintf(m->out, "qualifier test:   event %2u %-29s qual 0x0: %10u  qual 0xffffffff: "
                        "%10u  -> %s\n", cm_events[i].number, cm_events[i].title, with0, withall,
                how == CM_QUAL_NONE ? "0x0 (neither counted: idle, or the qualifier must come "
                                      "from the core's manual)"
                : q ? "0xffffffff" : "0x0");
    }
    return 0;
}

static void qualifier_test(struct cm_gcr *g, const struct cm_regs *r, FILE *out)
{
    int present[CM_NEVENTS];
    struct measure m = { present, out };
    struct gt_diag d;

    if (r->ctl & CM_CTL_COUNTON) {
        fprintf(out, "qualifier test:   not run: the counters are in use\n");
        return;
    }
    gt_diag_clear(&d);
    if (cm_gcr_lock(g, &d) < 0) {
        fprintf(out, "qualifier test:   not run: %s\n", d.msg);
        return;
    }
    cm_events_present(g->rev, g->config, present);
    if (cm_guarded(g, measure_all, &m) == CM_BUS_ERROR)
        fprintf(out, "qualifier test:   bus error (SIGBUS) at %s: the block stopped answering; "
                     "its perf registers may be left programmed\n", cm_reg_name(g->fault_off));
}

static int read_regs(struct cm_gcr *g, void *arg)
{
    cm_gcr_read_regs(g, arg);
    return 0;
}

int gt_mips_cm_probe(const char *args, const struct gt_sys *sys, FILE *out)
{
    struct cm_gcr g;
    struct gt_diag d;
    struct cm_regs r;
    uint64_t base;
    char arg[64];
    unsigned major;

    gt_diag_clear(&d);
    memset(&g, 0, sizeof(g));
    if (cm_find_base(sys, gt_args_get(args, "gcr-base", arg, sizeof(arg)), &base, g.how,
                     sizeof(g.how), &d) < 0 ||
        cm_gcr_open_readonly(&g, sys, base, &d) < 0) {
        fprintf(out, "coherency manager: not found: %s\n", d.msg);
        return 1;
    }
    major = g.rev >> 8 & 0xff;
    fprintf(out, "coherency manager: GCR at 0x%" PRIx64 " (%s), through /dev/mem\n", base, g.how);
    fprintf(out, "revision:         GCR_REV 0x%04x: %s (major %u, minor %u)\n", g.rev & 0xffff,
            cm_name(major), major, g.rev & 0xff);
    fprintf(out, "configuration:    %u cores, %u IOCU (GCR_CONFIG 0x%08x)\n",
            (g.config & 0xff) + 1, g.config >> 8 & 0xf, g.config);
    fprintf(out, "counters:         one 32-bit cycle counter, 2 32-bit event counters; "
                 "%s\n", major >= 8 ? "counting refused: the CM3 perf-register layout is not "
                 "known to gputop" : "usable with --source mips-cm");
    if (cm_guarded(&g, read_regs, &r) == CM_BUS_ERROR) {
        fprintf(out, "registers:        bus error (SIGBUS) reading %s\n", cm_reg_name(g.fault_off));
        cm_gcr_close(&g);
        return 1;
    }
    print_regs(&r, out);
    if (major < 8)
        qualifier_test(&g, &r, out);
    cm_gcr_close(&g);
    return 0;
}

/* The mips-cm source's probe op: only when named (it runs beside a GPU). */
enum gt_probe_result cm_probe(const struct gt_probe *p, const char *args)
{
    if (!args)
        return GT_PROBE_NONE;
    return gt_mips_cm_probe(args, p->sys, p->out) == 0 ? GT_PROBE_WORKS : GT_PROBE_FAILED;
}
