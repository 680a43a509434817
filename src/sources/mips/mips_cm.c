/* The mips-cm source: the MIPS coherency manager's cycle counter and two
 * event counters (GCR debug block, through /dev/mem), with the layout's
 * events rotated over the two counters and scaled to estimates. */
#include "gputop/source.h"
#include "cm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WARMUP_NS   1000000L   /* per pair at start, so every event has a rate */
#define MAX_INTERVAL_NS 1000000000ull

struct cm_src {
    struct cm_gcr gcr;
    struct cm_mux mux;
    uint32_t qual[CM_NEVENTS];
    int used[CM_NEVENTS];
    int ovf_stop;
    struct cm_slots slot;
    uint32_t run_ctl;          /* the control word while counting, without reset bits */
    uint32_t prev_cycle, prev_c0, prev_c1, pair_cycle;
    uint64_t prev_ns;
    double hz;                 /* CM clock measured by the last sample, 0 before */
    int garbled;               /* the block read wrong: start over once it reads right */
};

static int count_bits(uint32_t v)
{
    int n = 0;

    for (; v; v &= v - 1)
        n++;
    return n;
}

static int cm_available(const struct gt_sys *sys, char *why, size_t len)
{
    struct gt_diag d;
    uint64_t base;
    char how[64];

    gt_diag_clear(&d);
    if (cm_find_base(sys, "", &base, how, sizeof(how), &d) < 0) {
        snprintf(why, len, "no mti,mips-cm node in the device tree: give mips-cm:gcr-base=ADDRESS");
        return -1;
    }
    return 0;
}

/* The detail line (and a capture's header) says what is counted how. */
static void describe(struct gt_source *s)
{
    struct cm_src *c = s->priv;
    uint32_t major = c->gcr.rev >> 8 & 0xff, minor = c->gcr.rev & 0xff;
    size_t i, n;
    char *p = s->info.detail;

    n = (size_t)snprintf(p, sizeof(s->info.detail), "CM%s GCR_REV %u.%u, %u cores, %u IOCU; ",
                         major == 6 ? "2" : major == 7 ? "2.5" : "3", major, minor,
                         (c->gcr.config & 0xff) + 1, c->gcr.config >> 8 & 0xf);
    if (c->mux.nevents > 2)
        n += (size_t)snprintf(p + n, sizeof(s->info.detail) - n, "%zu events over 2 counters "
                              "(multiplexed, estimates)", c->mux.nevents);
    else
        n += (size_t)snprintf(p + n, sizeof(s->info.detail) - n, "%zu events, exact",
                              c->mux.nevents);
    for (i = 0; i < c->mux.nevents && n < sizeof(s->info.detail); i++) {
        int e = c->mux.events[i];
        if (c->qual[e])
            n += (size_t)snprintf(p + n, sizeof(s->info.detail) - n, "; %s qual 0x%08x",
                                  cm_events[e].counter, c->qual[e]);
    }
}

static void set_events(struct cm_src *c)
{
    int ev[CM_NEVENTS], i;
    size_t n = 0;

    for (i = 0; i < CM_NEVENTS; i++)
        if (c->used[i])
            ev[n++] = i;
    cm_mux_init(&c->mux, ev, n, c->qual);
}

static int cm_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    static const char *const keys[] = { "gcr-base", "overflow", NULL };
    char arg[64], ovf[16];
    struct cm_src *c;
    uint64_t base;
    int i;

    if (gt_args_check(args, keys, "mips-cm", d) < 0)
        return -1;
    if (!gt_args_get(args, "overflow", ovf, sizeof(ovf)))
        snprintf(ovf, sizeof(ovf), "wrap");
    if (strcmp(ovf, "wrap") != 0 && strcmp(ovf, "stop") != 0) {
        gt_diag_set(d, "mips-cm: overflow=%s: expected wrap or stop", ovf);
        return -1;
    }
    if (!(c = calloc(1, sizeof(*c)))) {
        gt_diag_set(d, "out of memory");
        return -1;
    }
    c->ovf_stop = strcmp(ovf, "stop") == 0;
    if (cm_find_base(s->sys, gt_args_get(args, "gcr-base", arg, sizeof(arg)), &base,
                     c->gcr.how, sizeof(c->gcr.how), d) < 0 ||
        cm_gcr_open(&c->gcr, s->sys, base, d) < 0) {
        free(c);
        return -1;
    }
    s->priv = c;
    if (cm_catalog_add(&s->catalog, &c->slot) < 0) {
        gt_diag_set(d, "out of memory");
        cm_gcr_close(&c->gcr);
        free(c);
        s->priv = NULL;
        return -1;
    }
    for (i = 0; i < CM_NEVENTS; i++)
        c->used[i] = 1;
    set_events(c);
    cm_catalog_mark(&s->catalog, c->used, cm_mux_multiplexed(&c->mux));
    snprintf(s->info.device, sizeof(s->info.device), "/dev/mem GCR 0x%" PRIx64 " (%s)", base,
             c->gcr.how);
    snprintf(s->info.layout, sizeof(s->info.layout), "mips-cm");
    snprintf(s->info.family, sizeof(s->info.family), "mips-cm");
    s->info.max_interval_ns = MAX_INTERVAL_NS;
    describe(s);
    return 0;
}

/* Settings from the layout's 'option mips-cm ...' lines: qual.EVENT=VALUE,
 * a raw 32-bit qualifier or the preset 'reset' (0, the register's reset
 * state; the document gives no qualifier bit layouts to name others). */
static int cm_configure(struct gt_source *s, const char *key, const char *value,
                        struct gt_diag *d)
{
    struct cm_src *c = s->priv;
    unsigned long long v;
    char *end;
    int e;

    if (strncmp(key, "qual.", 5) != 0 || (e = cm_event_find(key + 5)) < 0) {
        gt_diag_set(d, "mips-cm: unknown option '%s' (expected qual.EVENT, e.g. "
                       "qual.CMRequests)", key);
        return -1;
    }
    if (strcmp(value, "reset") == 0) {
        c->qual[e] = 0;
    } else {
        errno = 0;
        v = strtoull(value, &end, 0);
        if (errno || *end || end == value || v > 0xffffffffull || *value == '-') {
            gt_diag_set(d, "mips-cm: %s=%s: a qualifier is a 32-bit number or 'reset'", key,
                        value);
            return -1;
        }
        c->qual[e] = (uint32_t)v;
    }
    set_events(c);
    describe(s);
    return 0;
}

static int cm_select(struct gt_source *s, const unsigned char *used, struct gt_diag *d)
{
    struct cm_src *c = s->priv;
    int i, k;

    (void)d;
    for (i = 0; i < CM_NEVENTS; i++) {
        k = gt_catalog_find(&s->catalog, cm_events[i].counter);
        c->used[i] = k >= 0 && used[k];
    }
    set_events(c);
    cm_catalog_mark(&s->catalog, c->used, cm_mux_multiplexed(&c->mux));
    describe(s);
    return 0;
}

/* Selects the current pair and resets and starts both event counters in
 * one write; the cycle counter runs on untouched. */
static void program_pair(struct cm_src *c)
{
    int e0, e1;

    cm_mux_pair(&c->mux, c->mux.cur, &e0, &e1);
    cm_wr(&c->gcr, CM_PC_CTL, c->run_ctl & ~(CM_CTL_P0_COUNTON | CM_CTL_P1_COUNTON));
    cm_wr(&c->gcr, CM_PC_EVENT, (e0 >= 0 ? cm_events[e0].number : 0) |
                                (e1 >= 0 ? cm_events[e1].number : 0) << 8);
    cm_wr(&c->gcr, CM_PC_QUAL0, e0 >= 0 ? c->mux.qual[e0] : 0);
    cm_wr(&c->gcr, CM_PC_QUAL1, e1 >= 0 ? c->mux.qual[e1] : 0);
    cm_wr(&c->gcr, CM_PC_CTL, c->run_ctl | CM_CTL_P0_RESET | CM_CTL_P1_RESET);
    /* Whether reset bits read back is not documented: leave none set. */
    cm_wr(&c->gcr, CM_PC_CTL, c->run_ctl);
    c->pair_cycle = cm_rd(&c->gcr, CM_PC_CYCLE);
    c->prev_c0 = cm_rd(&c->gcr, CM_PC_CNT0);
    c->prev_c1 = cm_rd(&c->gcr, CM_PC_CNT1);
}

/* All three counters reset and started by a single control write, as the
 * document allows; overflow bits cleared first (write 1 to clear). */
static void start_all(struct cm_src *c)
{
    cm_wr(&c->gcr, CM_PC_CTL, c->run_ctl & ~CM_CTL_COUNTON);
    cm_wr(&c->gcr, CM_PC_OV, CM_OV_ALL);
    cm_wr(&c->gcr, CM_PC_CTL, c->run_ctl | CM_CTL_RESETS);
    cm_wr(&c->gcr, CM_PC_CTL, c->run_ctl);
    c->prev_cycle = cm_rd(&c->gcr, CM_PC_CYCLE);
    program_pair(c);
}

static void read_pair(struct cm_src *c, uint32_t cyc)
{
    uint32_t c0 = cm_rd(&c->gcr, CM_PC_CNT0), c1 = cm_rd(&c->gcr, CM_PC_CNT1);

    cm_mux_record(&c->mux, (uint32_t)(c0 - c->prev_c0), (uint32_t)(c1 - c->prev_c1),
                  (uint32_t)(cyc - c->pair_cycle));
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

static int cm_start(struct gt_source *s, struct gt_diag *d)
{
    struct cm_src *c = s->priv;

    (void)d;
    /* Interrupts off (we poll), overflow stop as asked; other bits kept. */
    c->run_ctl = (c->gcr.saved.ctl & ~(CM_CTL_INT_EN | CM_CTL_OVF_STOP | CM_CTL_COUNTON |
                                       CM_CTL_RESETS)) | CM_CTL_COUNTON;
    if (c->ovf_stop)
        c->run_ctl |= CM_CTL_OVF_STOP;
    c->mux.cur = 0;
    start_all(c);
    warm_up(c);
    c->prev_ns = gt_now_ns();
    return 0;
}

static void put_regs(struct cm_src *c, struct gt_snapshot *out, uint32_t ov)
{
    uint32_t ctl = cm_rd(&c->gcr, CM_PC_CTL), ev = cm_rd(&c->gcr, CM_PC_EVENT);

    out->deltas[c->slot.reg[CM_R_SAMPLES]] = 1;
    out->deltas[c->slot.reg[CM_R_P0EVENT]] = ev & 0xff;
    out->deltas[c->slot.reg[CM_R_P1EVENT]] = ev >> 8 & 0xff;
    out->deltas[c->slot.reg[CM_R_COUNTON]] = (uint64_t)count_bits(ctl & CM_CTL_COUNTON);
    out->deltas[c->slot.reg[CM_R_OVFSTOP]] = !!(ctl & CM_CTL_OVF_STOP);
    out->deltas[c->slot.reg[CM_R_OVERFLOWS]] = (uint64_t)count_bits(ov & CM_OV_ALL);
    out->deltas[c->slot.reg[CM_R_PAIRS]] = c->mux.npairs;
}

/* Wrap mode: a delta modulo 2^32 is exact after at most one wrap. With an
 * overflow bit set and an interval as long as 2^32 cycles, a second wrap
 * cannot be ruled out. */
static int check_overflow(struct cm_src *c, uint32_t ov, double secs, struct gt_diag *d)
{
    double hz = c->hz;

    if (!(ov & CM_OV_ALL))
        return 0;
    if (c->ovf_stop) {
        gt_diag_set(d, "mips-cm: overflow (GCR_DB_PC_OV 0x%x): a counter reached 0xffffffff and "
                       "Perf_Ovf_Stop stopped all three; this sample is short, counters "
                       "restarted", ov);
        return 2;
    }
    cm_wr(&c->gcr, CM_PC_OV, ov & CM_OV_ALL);
    if (hz > 0 && secs * hz >= 4294967296.0) {
        gt_diag_set(d, "mips-cm: counter wrapped (GCR_DB_PC_OV 0x%x) in %.3f s at %.0f MHz: "
                       "a second wrap may have been missed, values may be short", ov, secs,
                    hz / 1e6);
        return 2;
    }
    return 0;
}

/* Register loads cannot fail, but they can lie: a bus error reads all
 * ones, and another block answering (or a CM reset) shows another
 * GCR_REV or counter count. Then nothing read this interval is a count;
 * once the block reads right again the counters start over, since what
 * they hold since is unknown. Two reads a sample. */
static int check_block(struct gt_source *s, struct cm_src *c, uint64_t now, struct gt_diag *d)
{
    uint32_t rev = cm_rd(&c->gcr, CM_GCR_REV), ctl = cm_rd(&c->gcr, CM_PC_CTL);

    if (rev != c->gcr.rev || (ctl & CM_CTL_NUM_CNT) != 2) {
        gt_diag_set(d, "mips-cm: %s reads GCR_REV 0x%08x (0x%04x at start), GCR_DB_PC_CTL "
                       "0x%08x%s: no counts this interval; counting starts over when it reads "
                       "right", s->info.device, rev, c->gcr.rev, ctl, rev == 0xffffffffu
                       ? " (all ones: a bus error)" : "");
        c->garbled = 1;
        c->prev_ns = now;
        return -1;
    }
    if (!c->garbled)
        return 0;
    c->garbled = 0;
    start_all(c);
    c->prev_ns = now;
    gt_diag_set(d, "mips-cm: %s reads right again; counters started over, counting resumes "
                   "next interval", s->info.device);
    return -1;
}

static int cm_sample(struct gt_source *s, struct gt_snapshot *out, struct gt_diag *d)
{
    struct cm_src *c = s->priv;
    uint64_t now = gt_now_ns();
    uint32_t cyc, dcyc, ov;
    double secs = (double)(now - c->prev_ns) / 1e9;
    int i, res;
    int64_t est;

    if (check_block(s, c, now, d) < 0)
        return -1;
    cyc = cm_rd(&c->gcr, CM_PC_CYCLE);
    dcyc = cyc - c->prev_cycle;
    read_pair(c, cyc);
    ov = cm_rd(&c->gcr, CM_PC_OV);
    gt_snapshot_zero(out);
    out->t_start_ns = c->prev_ns;
    out->t_end_ns = now;
    out->nsamples = 1;
    out->deltas[c->slot.cycles] = dcyc;
    for (i = 0; i < CM_NEVENTS; i++)
        if (c->used[i] && (est = cm_mux_estimate(&c->mux, i, dcyc)) > 0)
            out->deltas[c->slot.event[i]] = (uint64_t)est;
    put_regs(c, out, ov);
    res = check_overflow(c, ov, secs, d);
    if (!(ov & CM_OV_ALL) || !c->ovf_stop)
        c->hz = secs > 0 ? dcyc / secs : 0;
    c->prev_ns = now;
    c->prev_cycle = cyc;
    if (cm_mux_multiplexed(&c->mux))
        cm_mux_next(&c->mux);
    /* With Perf_Ovf_Stop, restart all three once the cycle counter is past
     * half its range, so that it never stops the others by itself. */
    if (c->ovf_stop && (res == 2 || cyc >= 0x80000000u))
        start_all(c);
    else if (cm_mux_multiplexed(&c->mux))
        program_pair(c);
    return res;
}

static void cm_close(struct gt_source *s)
{
    struct cm_src *c = s->priv;

    if (!c)
        return;
    cm_gcr_close(&c->gcr);
    free(c);
    s->priv = NULL;
}

/* Beside a GPU source, like cpu, but hardware: never probed on its own,
 * since it maps physical memory and needs the user to say so. */
const struct gt_source_type gt_source_mips_cm = {
    .name = "mips-cm",
    .help = "MIPS coherency manager counters via /dev/mem (root): "
            "mips-cm[:gcr-base=0x...|default][,overflow=wrap|stop]",
    .kind = GT_SOURCE_COMPANION,
    .available = cm_available,
    .open = cm_open,
    .start = cm_start,
    .sample = cm_sample,
    .close = cm_close,
    .select = cm_select,
    .configure = cm_configure,
};
