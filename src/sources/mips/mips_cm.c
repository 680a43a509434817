/* The mips-cm source: the MIPS coherency manager's cycle counter and two
 * event counters (GCR debug block, through /dev/mem). Opening, options
 * (overflow, events=, force, the layout's qualifiers) live here; counting
 * lives in cm_run.c, the detail line in cm_describe.c. */
#include "cm_src.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INTERVAL_NS 1000000000ull
#define QUAL_WINDOW_NS  5000000L       /* default qualifier test per event */
#define QUAL_WINDOW_MAX 1000000000L

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

static void set_events(struct cm_src *c)
{
    int ev[CM_NEVENTS], i;
    size_t n = 0;

    for (i = 0; i < CM_NEVENTS; i++)
        if (c->used[i] && c->present[i])
            ev[n++] = i;
    cm_mux_init(&c->mux, ev, n, c->qual);
}

static int event_by_number(unsigned long n)
{
    int i;

    for (i = 0; i < CM_NEVENTS; i++)
        if (cm_events[i].number == n)
            return i;
    return -1;
}

/* events=A[,B]: up to two event numbers (the document's), counted exactly
 * with no rotation. The list's comma is the argument separator too, so a
 * bare number right after events= belongs to it; any other bare word is
 * refused. Returns how many, or -1 with d set. */
static int parse_events(const char *args, int *pin, struct gt_diag *d)
{
    const char *s = args, *end;
    int n = 0, in_list = 0, e;
    char item[64], *stop;
    unsigned long v;

    while (s && *s) {
        size_t len;
        end = strchr(s, ',');
        len = end ? (size_t)(end - s) : strlen(s);
        snprintf(item, sizeof(item), "%.*s", (int)(len < sizeof(item) ? len : sizeof(item) - 1), s);
        s = end ? end + 1 : NULL;
        if (strncmp(item, "events=", 7) == 0) {
            in_list = 1;
            memmove(item, item + 7, strlen(item + 7) + 1);
        } else if (strchr(item, '=') || !in_list || strcmp(item, "force") == 0) {
            if (!strchr(item, '=') && item[0] && strcmp(item, "force") != 0) {
                gt_diag_set(d, "mips-cm: '%s': not an option (events=A,B takes up to two event "
                               "numbers)", item);
                return -1;
            }
            in_list = 0;
            continue;
        }
        errno = 0;
        v = strtoul(item, &stop, 10);
        if (errno || *stop || stop == item || (e = event_by_number(v)) < 0) {
            gt_diag_set(d, "mips-cm: events=%s: not an event number of the document's list "
                           "(0-6, 8, 9, 16, 17)", item);
            return -1;
        }
        if (n == 2) {
            gt_diag_set(d, "mips-cm: events= takes at most two events: the CM has two counters");
            return -1;
        }
        pin[e] = 1;
        n++;
    }
    return n;
}

/* A bare word given as an option ("force"). */
static int has_flag(const char *args, const char *flag)
{
    size_t n = strlen(flag);
    const char *s = args;

    while (s && *s) {
        if (strncmp(s, flag, n) == 0 && (s[n] == ',' || s[n] == '\0'))
            return 1;
        s = strchr(s, ',');
        s = s ? s + 1 : NULL;
    }
    return 0;
}

/* Counting already on when found: a debugger, a driver or another tool
 * owns the counters, and their counts would be lost. */
static int refuse_running(const struct cm_src *c, struct gt_diag *d)
{
    uint32_t ctl = c->gcr.saved.ctl;

    if (!(ctl & CM_CTL_COUNTON))
        return 0;
    gt_diag_set(d, "mips-cm: the counters at 0x%" PRIx64 " are already running "
                   "(GCR_DB_PC_CTL 0x%08x, events %u and %u): a debugger, a driver or another "
                   "tool may be using them; add ',force' to take them over (their settings are "
                   "put back at exit, their counts cannot be)", c->gcr.base, ctl,
                c->gcr.saved.event & 0xff, c->gcr.saved.event >> 8 & 0xff);
    return -1;
}

static int open_block(struct gt_source *s, struct cm_src *c, const char *args, struct gt_diag *d)
{
    char arg[64];
    uint64_t base;

    if (cm_find_base(s->sys, gt_args_get(args, "gcr-base", arg, sizeof(arg)), &base,
                     c->gcr.how, sizeof(c->gcr.how), d) < 0 ||
        cm_gcr_open(&c->gcr, s->sys, base, d) < 0)
        return -1;
    if (cm_gcr_lock(&c->gcr, d) < 0 ||
        (!has_flag(args, "force") && refuse_running(c, d) < 0)) {
        cm_gcr_close(&c->gcr);
        return -1;
    }
    return 0;
}

/* qual-window=N[us|ms]: how long each event is counted with qualifier 0
 * and with all ones at start (0: not measured; qualifiers stay 0 unless
 * the layout gives them). */
static int parse_window(const char *args, long *ns, struct gt_diag *d)
{
    char v[32], *end;
    unsigned long long n;

    *ns = QUAL_WINDOW_NS;
    if (!gt_args_get(args, "qual-window", v, sizeof(v)))
        return 0;
    errno = 0;
    n = strtoull(v, &end, 10);
    if (errno || end == v || v[0] == '-' ||
        (*end && strcmp(end, "ms") != 0 && strcmp(end, "us") != 0) ||
        n > (unsigned long long)QUAL_WINDOW_MAX / 1000) {
        gt_diag_set(d, "mips-cm: qual-window=%s: expected a time up to 1000ms, such as 5ms, "
                       "200us or 0", v);
        return -1;
    }
    *ns = (long)n * (strcmp(end, "us") == 0 ? 1000L : 1000000L);
    if (*ns > QUAL_WINDOW_MAX) {
        gt_diag_set(d, "mips-cm: qual-window=%s: at most 1000ms", v);
        return -1;
    }
    return 0;
}

/* parse_options's arguments; the type lists them too, for --help's test. */
static const char *const cm_keys[] = { "gcr-base", "overflow", "events", "force",
                                       "qual-window", "", NULL };

static int parse_options(struct cm_src *c, const char *args, int *pin, struct gt_diag *d)
{
    char ovf[16];
    int n;

    if (gt_args_check(args, cm_keys, "mips-cm", d) < 0 || (n = parse_events(args, pin, d)) < 0 ||
        parse_window(args, &c->qual_window_ns, d) < 0)
        return -1;
    if (!gt_args_get(args, "overflow", ovf, sizeof(ovf)))
        snprintf(ovf, sizeof(ovf), "wrap");
    if (strcmp(ovf, "wrap") != 0 && strcmp(ovf, "stop") != 0) {
        gt_diag_set(d, "mips-cm: overflow=%s: expected wrap or stop", ovf);
        return -1;
    }
    c->ovf_stop = strcmp(ovf, "stop") == 0;
    c->pinned = n > 0;
    return 0;
}

/* Pinned events must be ones this CM has. */
static int keep_pinned(struct cm_src *c, const int *pin, struct gt_diag *d)
{
    int i;

    for (i = 0; i < CM_NEVENTS && c->pinned; i++) {
        if (pin[i] && !c->present[i]) {
            gt_diag_set(d, "mips-cm: events=%u: this CM has no %s (GCR_REV 0x%04x, GCR_CONFIG "
                           "0x%08x)", cm_events[i].number, cm_events[i].title, c->gcr.rev & 0xffff,
                        c->gcr.config);
            return -1;
        }
        c->present[i] = pin[i];
    }
    return 0;
}

static int cm_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    int pin[CM_NEVENTS] = { 0 };
    struct cm_src *c;
    int i;

    if (!(c = calloc(1, sizeof(*c)))) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return -1;
    }
    if (parse_options(c, args, pin, d) < 0 || open_block(s, c, args, d) < 0) {
        free(c);
        return -1;
    }
    s->priv = c;
    cm_events_present(c->gcr.rev, c->gcr.config, c->present);
    if (keep_pinned(c, pin, d) < 0 || cm_catalog_add(&s->catalog, &c->slot, c->present) < 0) {
        if (!d->msg[0])
            gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        cm_gcr_close(&c->gcr);
        free(c);
        s->priv = NULL;
        return -1;
    }
    for (i = 0; i < CM_NEVENTS; i++)
        c->used[i] = c->present[i];
    set_events(c);
    cm_catalog_mark(&s->catalog, c->used, cm_mux_multiplexed(&c->mux));
    snprintf(s->info.device, sizeof(s->info.device), "/dev/mem GCR 0x%" PRIx64 " (%s)",
             c->gcr.base, c->gcr.how);
    snprintf(s->info.layout, sizeof(s->info.layout), "mips-cm");
    snprintf(s->info.family, sizeof(s->info.family), "mips-cm");
    s->info.max_interval_ns = MAX_INTERVAL_NS;
    cm_describe(s);
    return 0;
}

/* Settings from the layout's 'option mips-cm ...' lines: qual.EVENT=VALUE,
 * a raw 32-bit qualifier or the preset 'reset' (0, the register's reset
 * state; the document gives no qualifier bit layouts to name others). An
 * event without one gets its qualifier measured at start (qual.c). */
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
    c->qual_how[e] = CM_QUAL_LAYOUT;
    set_events(c);
    cm_describe(s);
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
    cm_describe(s);
    return 0;
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
    .usage = "mips-cm[:gcr-base=0x...|default][,overflow=wrap|stop][,events=A,B]"
             "[,qual-window=5ms][,force]",
    .help = "MIPS coherency manager via /dev/mem, root; runs beside a GPU source, "
            "like cpu; events= pins two events, exact; force takes over counters "
            "already running",
    .keys = cm_keys,
    .kind = GT_SOURCE_COMPANION,
    .available = cm_available,
    .probe = cm_probe,
    .open = cm_open,
    .start = cm_run_start,
    .sample = cm_run_sample,
    .close = cm_close,
    .select = cm_select,
    .configure = cm_configure,
};
