/* libFuzzer target: the MIPS CM source against a hostile GCR block. The
 * input sets the fake's GCR_REV, GCR_BASE readback, Perf_Num_Cnt and
 * GCR_CONFIG, writes the device tree's cells, compatible, reg and the
 * bus's ranges, then rewrites register loads (counters jumping, overflow
 * bits, the control register) and moves the fake's clock between samples. */
#include "hostile.h"
#include "fakes/fake_gcr.h"

#define BASE 0x1fbf8000u
#define NODE "/sys/firmware/devicetree/base/soc/coherency-manager@1fbf8000"

static uint32_t take32(const uint8_t **p, size_t *n)
{
    uint32_t v = 0;

    for (int i = 0; i < 4; i++) {
        v = v << 8 | (*n ? **p : 0);
        if (*n) {
            (*p)++;
            (*n)--;
        }
    }
    return v;
}

/* soc's ranges after reg: one byte, then (bit 6 set) up to 24 bytes of
 * entries from the input, else an empty ranges (one-to-one). */
static void write_ranges(const char *root, const uint8_t **p, size_t *n)
{
    uint8_t r[24];
    size_t len = 0, i;
    int given = *n && **p & 0x40;

    if (given)
        len = **p % 25;
    if (*n) {
        (*p)++;
        (*n)--;
    }
    for (i = 0; i < len; i++) {
        r[i] = *n ? **p : 0;
        if (*n) {
            (*p)++;
            (*n)--;
        }
    }
    fuzz_put(root, "/sys/firmware/devicetree/base/soc/ranges", r, len);
}

/* Cells and reg from the input (big-endian, as the kernel shows them). */
static void write_dt(const char *root, const uint8_t **p, size_t *n)
{
    uint8_t cells[8], reg[16];
    uint32_t a = take32(p, n), z = take32(p, n);
    size_t nreg;

    for (int i = 0; i < 4; i++) {
        cells[i] = (uint8_t)(a >> (24 - 8 * i));
        cells[4 + i] = (uint8_t)(z >> (24 - 8 * i));
    }
    fuzz_put(root, "/sys/firmware/devicetree/base/soc/#address-cells", cells, 4);
    fuzz_put(root, "/sys/firmware/devicetree/base/soc/#size-cells", cells + 4, 4);
    /* The next byte: reg's length, and in bit 7 compatible without its NUL. */
    nreg = *n ? **p % 17 : 0;
    fuzz_put(root, NODE "/compatible", "mti,mips-cm", *n && **p & 0x80 ? 11 : 12);
    if (*n) {
        (*p)++;
        (*n)--;
    }
    for (size_t i = 0; i < nreg; i++) {
        reg[i] = *n ? **p : 0;
        if (*n) {
            (*p)++;
            (*n)--;
        }
    }
    fuzz_put(root, NODE "/reg", reg, nreg);
    write_ranges(root, p, n);
}

static void run(struct fake_gcr *fg, const struct gt_sys *sys, const char *spec, unsigned stride,
                uint32_t qual, uint32_t step)
{
    struct gt_diag d;
    struct gt_source *s;
    struct gt_snapshot snap;
    unsigned char *used;
    int bad;

    gt_diag_clear(&d);
    s = gt_source_open(spec, sys, &d);
    if (!s)
        return;
    if (s->type->configure) {
        char v[16];
        snprintf(v, sizeof(v), "0x%x", qual);
        s->type->configure(s, "qual.CMSharingMiss", v, &d);
    }
    used = calloc(s->catalog.ncounters + 1, 1);
    if (!used)
        abort();
    for (size_t k = 0; k < s->catalog.ncounters; k++)
        used[k] = k % stride == 0;
    bad = s->type->select && s->type->select(s, used, &d) < 0;
    free(used);
    if (bad || s->type->start(s, &d) < 0 || gt_snapshot_init(&snap, s->catalog.nslots) < 0)
        goto out;
    for (int i = 0; i < 4; i++) {
        fg_advance(fg, (uint64_t)step << (i * 4));
        gt_snapshot_zero(&snap);
        if (s->type->sample(s, &snap, &d) < 0)
            break;
    }
    gt_snapshot_free(&snap);
out:
    gt_source_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const specs[] = {
        /* qualifier tests short or off: each one sleeps its window */
        "mips-cm:qual-window=10us", "mips-cm:gcr-base=default,qual-window=0,force",
        "mips-cm:gcr-base=0x1fbf8000,overflow=stop,qual-window=10us,events=0,5",
        "mips-cm:gcr-base=default,overflow=wrap,qual-window=0",
    };
    const uint8_t *p = data;
    size_t n = size;
    struct fg_config c;
    struct fake_gcr *fg;
    struct hostile h;
    uint32_t flags, qual, step;
    static const char *const dirs[] = { NODE, NULL };
    const char *root = fuzz_tree(dirs);

    memset(&c, 0, sizeof(c));
    flags = take32(&p, &n);
    c.base = BASE;
    c.rev = take32(&p, &n) & 0xffff;
    c.base_readback = flags & 1 ? take32(&p, &n) : 0;
    c.num_cnt = (flags >> 1) & 7;
    c.config = take32(&p, &n);
    c.access_cycles = (flags >> 4) & 15;
    c.root = root;
    qual = take32(&p, &n);
    step = take32(&p, &n);
    write_dt(root, &p, &n);
    fg = fg_new(&c);
    if (!fg)
        abort();
    for (unsigned ev = 0; ev < 18; ev++)
        fg_set_rate(fg, ev, (flags >> 8 & 0xff) * (ev + 1));
    hostile_wrap(&h, fg_sys(fg), p, n);
    run(fg, &h.sys, specs[(flags >> 16) & 3], flags & 0x40000 ? 1 : 9, qual, step);
    fg_free(fg);
    return 0;
}
