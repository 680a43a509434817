/* Counting on the coherency manager: qualifiers measured, all three
 * counters started by one write, the layout's events rotated over the two
 * counters, and each sample checked before it is believed — the block
 * still answers (a bus error is SIGBUS, caught), still holds what we
 * programmed, and the interval was not longer than the 32-bit counters
 * can tell on their own. */
#include "cm_src.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define WARMUP_NS      1000000L   /* per pair at start, so every event has a rate */
#define TOGETHER_NS    20000u     /* a cycle read this close to its timestamps */
#define TWO32          4294967296.0

static int count_bits(uint32_t v)
{
    int n = 0;

    for (; v; v &= v - 1)
        n++;
    return n;
}

/* The cycle counter and the time read together: a timestamp each side of
 * the load, read again when something (a preemption) came between them,
 * the midpoint kept. */
static uint32_t cycle_at(struct cm_src *c, uint64_t *ns)
{
    uint64_t t0, t1;
    uint32_t cyc;
    int tries = 0;

    do {
        t0 = gt_now_ns();
        cyc = cm_rd(&c->gcr, CM_PC_CYCLE);
        t1 = gt_now_ns();
    } while (t1 - t0 > TOGETHER_NS && ++tries < 4);
    *ns = t0 + (t1 - t0) / 2;
    return cyc;
}

/* Selects the current pair and starts both event counters in one write
 * (reset first under Perf_Ovf_Stop); the cycle counter runs on untouched. */
static void program_pair(struct cm_src *c)
{
    int e0, e1;

    cm_mux_pair(&c->mux, c->mux.cur, &e0, &e1);
    c->prog_event = (e0 >= 0 ? cm_events[e0].number : 0) |
                    (e1 >= 0 ? cm_events[e1].number : 0) << 8;
    c->prog_q0 = e0 >= 0 ? c->mux.qual[e0] : 0;
    c->prog_q1 = e1 >= 0 ? c->mux.qual[e1] : 0;
    cm_wr(&c->gcr, CM_PC_CTL, c->run_ctl & ~(CM_CTL_P0_COUNTON | CM_CTL_P1_COUNTON));
    cm_wr(&c->gcr, CM_PC_EVENT, c->prog_event);
    cm_wr(&c->gcr, CM_PC_QUAL0, c->prog_q0);
    cm_wr(&c->gcr, CM_PC_QUAL1, c->prog_q1);
    /* Under Perf_Ovf_Stop the counters must start far from the top;
     * otherwise counts are differences and reset bits, which also clear
     * overflow bits, are not used. Whether reset bits read back is not
     * documented: leave none set. */
    if (c->ovf_stop)
        cm_wr(&c->gcr, CM_PC_CTL, c->run_ctl | CM_CTL_P0_RESET | CM_CTL_P1_RESET);
    cm_wr(&c->gcr, CM_PC_CTL, c->run_ctl);
    c->pair_cycle = cm_rd(&c->gcr, CM_PC_CYCLE);
    c->prev_c0 = cm_rd(&c->gcr, CM_PC_CNT0);
    c->prev_c1 = cm_rd(&c->gcr, CM_PC_CNT1);
}

/* All three counters started by a single control write. In wrap mode
 * they go on from what they held, since counts are differences: no reset
 * bits, which would also clear the overflow bits a previous owner left.
 * Under Perf_Ovf_Stop they are reset and started in that one write, as
 * the document allows, so none starts near the top (the owner's overflow
 * bits are lost then, and gputop(1) says so). */
static void start_all(struct cm_src *c)
{
    cm_wr(&c->gcr, CM_PC_CTL, c->run_ctl & ~CM_CTL_COUNTON);
    cm_wr(&c->gcr, CM_PC_CTL, c->run_ctl | (c->ovf_stop ? CM_CTL_RESETS : 0));
    if (c->ovf_stop)
        cm_wr(&c->gcr, CM_PC_CTL, c->run_ctl);
    c->prev_cycle = cm_rd(&c->gcr, CM_PC_CYCLE);
    program_pair(c);
}

/* Each event without a qualifier from the layout counted once with 0 and
 * once with all ones (qual.c); the one that counted is used. */
static void measure_quals(struct cm_src *c)
{
    uint32_t with0, withall;
    size_t i;

    for (i = 0; i < c->mux.nevents; i++) {
        int e = c->mux.events[i];
        if (c->qual_how[e] == CM_QUAL_LAYOUT || c->qual_window_ns == 0)
            continue;
        cm_qual_measure(&c->gcr, c->run_ctl, cm_events[e].number, c->qual_window_ns, &with0,
                        &withall);
        c->qual[e] = c->mux.qual[e] = cm_qual_choose(with0, withall, &c->qual_how[e]);
    }
}

/* The counted pair's counts c0, c1 (read right after cycle cyc) recorded. */
static void record_pair(struct cm_src *c, uint32_t cyc, uint32_t c0, uint32_t c1)
{
    cm_mux_record(&c->mux, (uint32_t)(c0 - c->prev_c0),
                  (uint32_t)(c1 - c->prev_c1), (uint64_t)(uint32_t)(cyc - c->pair_cycle));
    c->prev_c0 = c0;
    c->prev_c1 = c1;
    c->pair_cycle = cyc;
}

static void read_pair(struct cm_src *c, uint32_t cyc)
{
    uint32_t c0 = cm_rd(&c->gcr, CM_PC_CNT0);

    record_pair(c, cyc, c0, cm_rd(&c->gcr, CM_PC_CNT1));
}

/* A dropped interval: the pair's counts start again from here, unrecorded. */
static void skip_pair(struct cm_src *c, uint32_t cyc, uint32_t c0, uint32_t c1)
{
    c->prev_c0 = c0;
    c->prev_c1 = c1;
    c->pair_cycle = cyc;
}

/* Every pair counted once for a moment, so the first sample already has
 * a rate for each event. */
static void warm_up(struct cm_src *c)
{
    struct timespec ts = { 0, WARMUP_NS };
    size_t p;

    if (!cm_mux_multiplexed(&c->mux))
        return;
    for (p = 0; p < c->mux.npairs; p++) {
        nanosleep(&ts, NULL);
        read_pair(c, cm_rd(&c->gcr, CM_PC_CYCLE));
        cm_mux_next(&c->mux);
        program_pair(c);
    }
}

/* The first interval starts here: counts, cycles and time read together,
 * after the warm-up, so it is not inflated by it. */
static void baseline(struct cm_src *c)
{
    c->prev_c0 = cm_rd(&c->gcr, CM_PC_CNT0);
    c->prev_c1 = cm_rd(&c->gcr, CM_PC_CNT1);
    c->prev_cycle = c->pair_cycle = cycle_at(c, &c->prev_ns);
}

static int start_body(struct cm_gcr *g, void *arg)
{
    struct cm_src *c = arg;

    (void)g;
    /* Interrupts off (we poll), overflow stop as asked; other bits kept. */
    c->run_ctl = (c->gcr.saved.ctl & ~(CM_CTL_INT_EN | CM_CTL_OVF_STOP | CM_CTL_COUNTON |
                                       CM_CTL_RESETS | CM_CTL_NUM_CNT)) | CM_CTL_COUNTON;
    if (c->ovf_stop)
        c->run_ctl |= CM_CTL_OVF_STOP;
    /* Left as found in wrap mode; an overflow bit already set cannot say
     * that we wrapped, so such a counter's wraps are told from time. */
    c->found_ov = c->ovf_stop ? 0 : c->gcr.saved.ov & CM_OV_ALL;
    c->mux.cur = 0;
    measure_quals(c);
    start_all(c);
    warm_up(c);
    baseline(c);
    return 0;
}

/* A bus error: the block is gone. Nothing is written to it again (the
 * writes would fault too), so what gputop programmed may stay. */
static void note_gone(struct cm_src *c, const char *doing)
{
    c->lost_code = GT_ERR_NODEV;
    snprintf(c->lost, sizeof(c->lost), "bus error (SIGBUS) %s %s at GCR 0x%" PRIx64
             ": the block no longer answers; counting stopped and nothing more is written to "
             "it, so GCR_DB_PC_CTL, _EVENT, _QUAL0 and _QUAL1 may be left as gputop programmed "
             "them (counting on, events %u and %u)", doing, cm_reg_name(c->gcr.fault_off),
             c->gcr.base, c->prog_event & 0xff, c->prog_event >> 8 & 0xff);
}

int cm_run_start(struct gt_source *s, struct gt_diag *d)
{
    struct cm_src *c = s->priv;

    if (cm_guarded(&c->gcr, start_body, c) == CM_BUS_ERROR) {
        note_gone(c, "starting, at");
        gt_diag_fail(d, c->lost_code, "mips-cm: %s", c->lost);
        return -1;
    }
    cm_describe(s);
    return 0;
}

static void put_regs(struct cm_src *c, struct gt_snapshot *out, uint32_t ctl, uint32_t ov,
                     uint64_t wraps)
{
    uint32_t ev = c->prog_event;

    out->deltas[c->slot.reg[CM_R_SAMPLES]] = 1;
    out->deltas[c->slot.reg[CM_R_P0EVENT]] = ev & 0xff;
    out->deltas[c->slot.reg[CM_R_P1EVENT]] = ev >> 8 & 0xff;
    out->deltas[c->slot.reg[CM_R_COUNTON]] = (uint64_t)count_bits(ctl & CM_CTL_COUNTON);
    out->deltas[c->slot.reg[CM_R_OVFSTOP]] = !!(ctl & CM_CTL_OVF_STOP);
    out->deltas[c->slot.reg[CM_R_OVERFLOWS]] = (uint64_t)count_bits(ov & CM_OV_ALL & ~c->found_ov);
    out->deltas[c->slot.reg[CM_R_PAIRS]] = c->mux.npairs;
    out->deltas[c->slot.reg[CM_R_QUAL0]] = c->prog_q0;
    out->deltas[c->slot.reg[CM_R_QUAL1]] = c->prog_q1;
    out->deltas[c->slot.reg[CM_R_WRAPS]] = wraps;
}

/* Register loads can also lie without faulting: some interconnects answer
 * all ones, and another block answering (or a CM reset) shows another
 * GCR_REV or counter count. Then nothing read this interval is a count;
 * once the block reads right again the counters start over. */
static int check_block(struct gt_source *s, struct cm_src *c, uint32_t ctl, struct gt_diag *d)
{
    uint32_t rev = cm_rd(&c->gcr, CM_GCR_REV);
    uint64_t now = gt_now_ns();

    if (rev != c->gcr.rev || (ctl & CM_CTL_NUM_CNT) != 2) {
        /* all ones: the block no longer answers (a bus that floats) */
        enum gt_err code = rev == 0xffffffffu ? GT_ERR_NODEV : GT_ERR_DATA;
        gt_diag_fail(d, code, "%s reads GCR_REV 0x%08x (0x%04x at start), GCR_DB_PC_CTL "
                     "0x%08x%s: no counts this interval; counting starts over when it reads "
                     "right", s->info.device, rev, c->gcr.rev, ctl,
                     rev == 0xffffffffu ? " (all ones)" : "");
        c->garbled = 1;
        c->prev_ns = now;
        return -1;
    }
    if (!c->garbled)
        return 0;
    c->garbled = 0;
    start_all(c);
    baseline(c);
    gt_diag_fail(d, GT_ERR_AGAIN, "%s reads right again; counters started over, counting "
                 "resumes next interval", s->info.device);
    return -1;
}

/* What we programmed must still be there: another agent (a JTAG script, a
 * second tool) that changed it would have its events reported under our
 * names. Then counting stops and the registers are left to it. */
static int check_ours(struct cm_src *c, uint32_t ctl)
{
    uint32_t ev = cm_rd(&c->gcr, CM_PC_EVENT), q0 = cm_rd(&c->gcr, CM_PC_QUAL0);
    uint32_t q1 = cm_rd(&c->gcr, CM_PC_QUAL1);

    /* Only the fields the document defines: reserved bits may read anything. */
    uint32_t ctl_bits = CM_CTL_INT_EN | CM_CTL_OVF_STOP | CM_CTL_COUNTON;

    if (((ctl ^ c->run_ctl) & ctl_bits) == 0 && (ev & 0xffff) == c->prog_event &&
        q0 == c->prog_q0 && q1 == c->prog_q1)
        return 0;
    c->gcr.foreign = 1;
    c->lost_code = GT_ERR_BUSY;
    snprintf(c->lost, sizeof(c->lost), "another agent reprogrammed the counters at GCR "
             "0x%" PRIx64 " (GCR_DB_PC_CTL 0x%08x, EVENT 0x%04x, QUAL0 0x%08x, QUAL1 0x%08x; "
             "gputop wrote 0x%08x, 0x%04x, 0x%08x, 0x%08x): counting stopped rather than report "
             "its events under gputop's names; the registers are left to it", c->gcr.base, ctl,
             ev, q0, q1, c->run_ctl, c->prog_event, c->prog_q0, c->prog_q1);
    return -1;
}

struct sample_ctx {
    struct gt_source *s;
    struct gt_snapshot *out;
    struct gt_diag *d;
};

/* How many more times than once a counter wrapped in an interval, told
 * from time: wrap mode only, and only when its overflow bit says it
 * wrapped at all. want is what the interval should hold (from the measured
 * clock), got the 32-bit delta. Returns k >= 0, or -1 when want falls
 * between two candidates (the clock changed, the guess would be a lie). */
static int64_t wraps_from_time(double want, uint32_t got)
{
    double k, resid;

    if (want < 0.75 * TWO32)
        return 0;
    k = nearbyint((want - got) / TWO32);
    if (k < 0)
        k = 0;
    resid = fabs(want - ((double)got + k * TWO32));
    return resid > TWO32 / 4 ? -1 : (int64_t)k;
}

/* The interval's extra cycle-counter wraps, or -1 with d set to why the
 * interval is dropped. */
static int64_t cycle_wraps(struct cm_src *c, uint32_t ov, uint32_t dcyc, double secs,
                           struct gt_diag *d)
{
    int64_t k;

    if (c->ovf_stop || !(ov & CM_OV_CYCLE))
        return 0;
    /* No clock measured yet (the first interval): up to the sampler's 1 s
     * cap, one wrap at most below 4.2 GHz; beyond it nothing can tell. */
    if (c->hz <= 0) {
        if (secs <= 1.0)
            return 0;
        gt_diag_set(d, "the first interval took %.3f s and the cycle counter wrapped: "
                       "with no CM clock measured yet, how often cannot be told; interval "
                       "dropped", secs);
        d->code = GT_ERR_DATA;
        return -1;
    }
    k = wraps_from_time(secs * c->hz, dcyc);
    if (k < 0) {
        gt_diag_set(d, "%.3f s since the last sample is %.2f x 2^32 cycles at the "
                       "%.0f MHz measured before, too far from any whole number of 32-bit "
                       "wraps to tell how many were missed; interval dropped (a stalled or "
                       "stopped gputop, or the CM clock changed)", secs,
                    secs * c->hz / TWO32, c->hz / 1e6);
        d->code = GT_ERR_DATA;
    }
    return k;
}

/* An event counter's extra wraps over a long interval (its overflow bit
 * ov_bit set), from its event e's last rate; -1 when it has none or the
 * guess is ambiguous. */
static int64_t event_wraps(const struct cm_src *c, int e, uint32_t ov_bit, uint32_t ov,
                           uint32_t got, uint64_t window)
{
    if (e < 0 || !(ov & ov_bit))
        return 0;
    if (!c->mux.have[e] || c->mux.enabled[e] == 0)
        return -1;
    return wraps_from_time((double)c->mux.count[e] * (double)window / (double)c->mux.enabled[e],
                           got);
}

/* The counted pair over a long interval: each counter's extra wraps
 * estimated; -1 (interval dropped, d set) when one cannot be. */
static int read_pair_long(struct cm_src *c, uint32_t cyc, uint32_t c0, uint32_t c1, uint32_t ov,
                          int64_t k, struct gt_diag *d)
{
    uint32_t g0 = c0 - c->prev_c0, g1 = c1 - c->prev_c1;
    uint64_t window = (uint64_t)(uint32_t)(cyc - c->pair_cycle) + (uint64_t)k * (1ull << 32);
    int64_t j0, j1;
    int e0, e1;

    cm_mux_pair(&c->mux, c->mux.cur, &e0, &e1);
    j0 = event_wraps(c, e0, CM_OV_P0, ov, g0, window);
    j1 = event_wraps(c, e1, CM_OV_P1, ov, g1, window);
    c->prev_c0 = c0;
    c->prev_c1 = c1;
    c->pair_cycle = cyc;
    if (j0 < 0 || j1 < 0) {
        gt_diag_set(d, "an event counter wrapped in a %.0f-cycle interval and its "
                       "earlier rate cannot tell how often; interval dropped", (double)window);
        d->code = GT_ERR_DATA;
        return -1;
    }
    cm_mux_record(&c->mux, g0 + (uint64_t)j0 * (1ull << 32), g1 + (uint64_t)j1 * (1ull << 32),
                  window);
    return 0;
}

/* An event at 0 while the CM cycled and a bus was busy: its qualifier
 * probably selects nothing (the document: every group must match). */
static int flag_silent(const struct cm_src *c, const struct gt_snapshot *out, struct gt_diag *d)
{
    static const int bus[] = { 2, 3, 4 };   /* write data, command, read data usage */
    int i, busy = 0;
    size_t k;

    for (k = 0; k < 3; k++) {
        int e = bus[k];
        busy |= c->used[e] && c->present[e] && out->deltas[c->slot.event[e]] > 0;
    }
    if (!busy || out->deltas[c->slot.cycles] == 0)
        return 0;
    for (i = 0; i < CM_NEVENTS; i++) {
        /* a held rate is old news; only a fresh count of 0 says anything */
        if (!c->used[i] || !c->present[i] || !c->mux.have[i] || c->mux.age[i] ||
            out->deltas[c->slot.event[i]])
            continue;
        gt_diag_set(d, "%s 0 — qualifier 0x%x may select nothing (CM cycles and bus "
                       "usage advanced)", cm_events[i].counter, c->mux.qual[i]);
        return 2;
    }
    return 0;
}

static void put_events(struct cm_src *c, struct gt_snapshot *out, uint64_t cycles)
{
    int64_t est;
    int i;

    out->deltas[c->slot.cycles] = cycles;
    for (i = 0; i < CM_NEVENTS; i++) {
        if (!c->used[i] || !c->present[i] || (est = cm_mux_estimate(&c->mux, i, cycles)) < 0)
            continue;
        out->deltas[c->slot.event[i]] = (uint64_t)est;
        out->deltas[c->slot.age[i]] = c->mux.age[i];
        out->deltas[c->slot.qual[i]] = c->mux.qual[i];
    }
}

/* Perf_Ovf_Stop: a counter reached 0xffffffff and all three stopped. */
static int stopped_by_overflow(struct cm_src *c, uint32_t ov, struct gt_diag *d)
{
    if (!c->ovf_stop || !(ov & CM_OV_ALL))
        return 0;
    gt_diag_set(d, "overflow (GCR_DB_PC_OV 0x%x): a counter reached 0xffffffff and "
                   "Perf_Ovf_Stop stopped all three; this sample is short, counters "
                   "restarted", ov);
    return 2;
}

/* The next interval starts where this one ended, whatever became of it. */
static void advance(struct cm_src *c, uint32_t cyc, uint64_t now, uint32_t ov, int restart)
{
    c->prev_ns = now;
    c->prev_cycle = cyc;
    /* ours only: the bits a previous owner left stay as found */
    if (ov & CM_OV_ALL & ~c->found_ov && !c->ovf_stop)
        cm_wr(&c->gcr, CM_PC_OV, ov & CM_OV_ALL & ~c->found_ov);
    if (cm_mux_multiplexed(&c->mux))
        cm_mux_next(&c->mux);
    /* With Perf_Ovf_Stop, restart all three once the cycle counter is past
     * half its range, so that it never stops the others by itself. */
    if (restart) {
        cm_wr(&c->gcr, CM_PC_OV, ov & CM_OV_ALL);
        start_all(c);
        baseline(c);
    } else if (cm_mux_multiplexed(&c->mux)) {
        program_pair(c);
    }
}

static int sample_body(struct cm_gcr *g, void *arg)
{
    struct sample_ctx *x = arg;
    struct cm_src *c = x->s->priv;
    uint32_t ctl = cm_rd(g, CM_PC_CTL), cyc, c0, c1, ov;
    uint64_t now;
    int64_t k;
    double secs;
    int res;

    if (check_block(x->s, c, ctl, x->d) < 0)
        return -1;
    if (check_ours(c, ctl) < 0) {
        gt_diag_fail(x->d, c->lost_code, "%s", c->lost);
        return -1;
    }
    /* the counts right after the cycles, so both cover the same window */
    cyc = cycle_at(c, &now);
    c0 = cm_rd(g, CM_PC_CNT0);
    c1 = cm_rd(g, CM_PC_CNT1);
    ov = cm_rd(g, CM_PC_OV);
    secs = (double)(now - c->prev_ns) / 1e9;
    if ((k = cycle_wraps(c, ov, cyc - c->prev_cycle, secs, x->d)) < 0 ||
        (k > 0 && read_pair_long(c, cyc, c0, c1, ov, k, x->d) < 0)) {
        skip_pair(c, cyc, c0, c1);
        advance(c, cyc, now, ov, 0);
        return -1;
    }
    if (k == 0)
        record_pair(c, cyc, c0, c1);
    gt_snapshot_zero(x->out);
    x->out->t_start_ns = c->prev_ns;
    x->out->t_end_ns = now;
    x->out->nsamples = 1;
    put_events(c, x->out, (uint32_t)(cyc - c->prev_cycle) + (uint64_t)k * (1ull << 32));
    put_regs(c, x->out, ctl, ov, (uint64_t)k);
    res = stopped_by_overflow(c, ov, x->d);
    if (!res && k > 0) {
        gt_diag_set(x->d, "%.3f s since the last sample at %.0f MHz: the cycle counter "
                          "wrapped %lld more time%s than its 32 bits show; cycles and counts "
                          "corrected by that many 2^32 (estimated)", secs, c->hz / 1e6,
                    (long long)k, k > 1 ? "s" : "");
        res = 2;
    }
    if (!(ov & CM_OV_ALL) || !c->ovf_stop)
        c->hz = secs > 0 ? (double)x->out->deltas[c->slot.cycles] / secs : 0;
    if (!res)
        res = flag_silent(c, x->out, x->d);
    advance(c, cyc, now, ov, c->ovf_stop && ((ov & CM_OV_ALL) || cyc >= 0x80000000u));
    return res;
}

enum gt_sample_result cm_run_sample(struct gt_source *s, struct gt_snapshot *out, struct gt_diag *d)
{
    struct cm_src *c = s->priv;
    struct sample_ctx x = { s, out, d };
    int r;

    if (c->lost[0]) {
        gt_diag_fail(d, c->lost_code, "%s", c->lost);
        return GT_SAMPLE_ERROR;
    }
    r = cm_guarded(&c->gcr, sample_body, &x);
    if (r != CM_BUS_ERROR)
        return r;
    note_gone(c, "reading");
    gt_diag_fail(d, c->lost_code, "%s", c->lost);
    return GT_SAMPLE_ERROR;
}
