/* Capture files and the replay source: bit-exact round trips, files cut
 * short at every byte of the last record, corrupt and hostile files, write
 * errors, and replay pacing. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/capture.h"
#include "gputop/source.h"

extern const struct gt_source_type gt_source_replay;

#define NRECORDS 1000

/* ---- helpers ---- */

static void temp_path(char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    int fd;

    snprintf(path, len, "%s/gputop-capture-XXXXXX", dir && dir[0] ? dir : "/tmp");
    fd = mkstemp(path);
    cr_assert_geq(fd, 0, "mkstemp %s: %s", path, strerror(errno));
    close(fd);
}

static uint64_t next_rand(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Values that stress the varint coding: 0, all ones, just past 2^53, and
 * random widths. */
static uint64_t random_delta(uint64_t *x)
{
    uint64_t r = next_rand(x);

    switch (r % 8) {
    case 0: return 0;
    case 1: return UINT64_MAX;
    case 2: return (1ull << 53) + 1 + (r >> 40);
    case 3: return 127 + (r >> 63);
    default: return next_rand(x) >> (r % 64);
    }
}

static void fill_info(struct gt_source_info *in)
{
    memset(in, 0, sizeof(*in));
    snprintf(in->device, sizeof(in->device), "/dev/mali0");
    snprintf(in->gpu, sizeof(in->gpu), "Mali-T830 MP4");
    snprintf(in->layout, sizeof(in->layout), "mali-t8xx");
    snprintf(in->family, sizeof(in->family), "mali-t8xx");
    snprintf(in->detail, sizeof(in->detail), "kbase hwcnt reader 1.0, caf\xc3\xa9");
    in->gpu_id = 0x1234567890abcdefull;
    in->shader_cores = 4;
    in->l2_slices = 2;
    in->bus_width_bits = 128;
}

/* Per-instance counters, constants, ratios, hardware names (absent, empty
 * and set) and odd scales. */
static void fill_catalog(struct gt_catalog *c)
{
    int k, beats;

    gt_catalog_init(c);
    cr_assert_geq(gt_catalog_add(c, "MaliGPUCyclesGPUActive", "front-end", GT_COUNTER_DELTA, 1, 1.0), 0);
    k = gt_catalog_add(c, "MaliShaderCoreCyclesFragmentActive", "shadercore", GT_COUNTER_DELTA, 4, 1.0);
    cr_assert_geq(k, 0);
    c->counters[k].hw_index = 4;
    c->counters[k].hw_name = strdup("FRAG_ACTIVE");
    beats = gt_catalog_add(c, "MaliExternalBusBeatsReadBeats", "memsys", GT_COUNTER_DELTA, 2, 0.1);
    cr_assert_geq(beats, 0);
    c->counters[beats].hw_name = strdup("");
    cr_assert_geq(gt_catalog_add(c, "MaliJobManagerPixels", "front-end", GT_COUNTER_DELTA, 1, 1024.0), 0);
    cr_assert_geq(gt_catalog_add_constant(c, "MaliConstantsShaderCoreCount", 4), 0);
    cr_assert_geq(gt_catalog_add_constant(c, "MaliConstantsBusWidthBits", 128.5), 0);
    cr_assert_eq(gt_catalog_add_cpu(c, 3), 0);
    cr_assert_geq(gt_catalog_add_ratio(c, "BeatsPerBeat", beats, beats, 2.5), 0);
}

static void assert_same_double(double a, double b, const char *what, const char *name)
{
    cr_assert(memcmp(&a, &b, sizeof(a)) == 0, "%s of %s: %.17g vs %.17g", what, name, a, b);
}

static void assert_same_catalog(const struct gt_catalog *a, const struct gt_catalog *b)
{
    size_t i;

    cr_assert_eq(a->ncounters, b->ncounters);
    cr_assert_eq(a->nslots, b->nslots);
    for (i = 0; i < a->ncounters; i++) {
        const struct gt_counter *x = &a->counters[i], *y = &b->counters[i];
        cr_assert_str_eq(x->name, y->name);
        cr_assert_str_eq(x->block, y->block);
        cr_assert_eq(x->kind, y->kind, "%s", x->name);
        cr_assert_eq(x->slot, y->slot, "%s", x->name);
        cr_assert_eq(x->instances, y->instances, "%s", x->name);
        cr_assert_eq(x->denominator, y->denominator, "%s", x->name);
        cr_assert_eq(x->hw_index, y->hw_index, "%s", x->name);
        assert_same_double(x->scale, y->scale, "scale", x->name);
        assert_same_double(x->value, y->value, "value", x->name);
        cr_assert_eq(x->hw_name == NULL, y->hw_name == NULL, "%s", x->name);
        if (x->hw_name)
            cr_assert_str_eq(x->hw_name, y->hw_name);
    }
}

static void assert_same_info(const struct gt_source_info *a, const struct gt_source_info *b)
{
    cr_assert_str_eq(a->device, b->device);
    cr_assert_str_eq(a->gpu, b->gpu);
    cr_assert_str_eq(a->layout, b->layout);
    cr_assert_str_eq(a->family, b->family);
    cr_assert_str_eq(a->detail, b->detail);
    cr_assert_eq(a->gpu_id, b->gpu_id);
    cr_assert_eq(a->shader_cores, b->shader_cores);
    cr_assert_eq(a->l2_slices, b->l2_slices);
    cr_assert_eq(a->bus_width_bits, b->bus_width_bits);
    cr_assert_eq(a->self_paced, b->self_paced);
}

/* A recording kept in memory beside the file it was written to. */
struct rec {
    char path[256];
    struct gt_source_info info;
    struct gt_catalog cat;
    size_t n;
    struct gt_snapshot *snaps;
    uint64_t *offsets;       /* of each sample record, from the reader,
                                and of what follows the last */
    uint64_t end;            /* file size: past the end record */
};

static void record(struct rec *r, size_t n, uint64_t seed, uint64_t step_ns)
{
    struct gt_capture_writer *w;
    struct gt_diag d;
    uint64_t x = seed, t = 1000000000ull;
    size_t i;
    uint32_t j;

    memset(r, 0, sizeof(*r));
    temp_path(r->path, sizeof(r->path));
    fill_info(&r->info);
    fill_catalog(&r->cat);
    r->n = n;
    r->snaps = calloc(n, sizeof(*r->snaps));
    r->offsets = calloc(n + 1, sizeof(*r->offsets));
    gt_diag_clear(&d);
    w = gt_capture_create(r->path, &r->info, &r->cat, &d);
    cr_assert_not_null(w, "%s", d.msg);
    for (i = 0; i < n; i++) {
        struct gt_snapshot *s = &r->snaps[i];
        cr_assert_eq(gt_snapshot_init(s, r->cat.nslots), 0);
        for (j = 0; j < s->nslots; j++)
            s->deltas[j] = random_delta(&x);
        s->t_start_ns = t;
        s->t_end_ns = t + step_ns + (step_ns ? next_rand(&x) % 1000 : 0);
        s->nsamples = 1 + (uint32_t)(next_rand(&x) % 3);
        t = s->t_end_ns;
        cr_assert_eq(gt_capture_write(w, s, &d), 0, "%s", d.msg);
    }
    cr_assert_eq(gt_capture_finish(w, &d), 0, "%s", d.msg);
}

static void free_rec(struct rec *r)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        gt_snapshot_free(&r->snaps[i]);
    free(r->snaps);
    free(r->offsets);
    gt_catalog_free(&r->cat);
    unlink(r->path);
}

static void assert_same_snapshot(const struct gt_snapshot *a, const struct gt_snapshot *b, size_t i)
{
    cr_assert_eq(a->t_start_ns, b->t_start_ns, "record %zu", i);
    cr_assert_eq(a->t_end_ns, b->t_end_ns, "record %zu", i);
    cr_assert_eq(a->nsamples, b->nsamples, "record %zu", i);
    cr_assert(memcmp(a->deltas, b->deltas, a->nslots * sizeof(uint64_t)) == 0, "record %zu", i);
}

/* Reads r's file back completely, checking every record; fills offsets. */
static void read_back(struct rec *r)
{
    struct gt_source_info info;
    struct gt_catalog cat;
    struct gt_snapshot s;
    struct gt_diag d;
    struct gt_capture_reader *rd;
    size_t i;

    gt_catalog_init(&cat);
    rd = gt_capture_open(r->path, &info, &cat, &d);
    cr_assert_not_null(rd, "%s", d.msg);
    assert_same_info(&info, &r->info);
    assert_same_catalog(&cat, &r->cat);
    cr_assert_eq(gt_snapshot_init(&s, cat.nslots), 0);
    for (i = 0; i < r->n; i++) {
        r->offsets[i] = gt_capture_offset(rd);
        cr_assert_eq(gt_capture_read(rd, &s, &d), 0, "record %zu: %s", i, d.msg);
        assert_same_snapshot(&s, &r->snaps[i], i);
    }
    r->offsets[r->n] = gt_capture_offset(rd);
    cr_assert_eq(gt_capture_read(rd, &s, &d), 1);
    cr_assert_eq(gt_capture_read(rd, &s, &d), 1);
    cr_assert_eq(gt_capture_records(rd), r->n);
    /* past the end record a clean close wrote */
    r->end = gt_capture_offset(rd);
    cr_assert_eq(r->end, r->offsets[r->n] + 9 + 8);
    cr_assert_eq(gt_capture_unfinished(rd, &d), 0, "%s", d.msg);
    gt_capture_close(rd);
    gt_snapshot_free(&s);
    gt_catalog_free(&cat);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *p;
    long n;

    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    p = malloc((size_t)n + 1);
    cr_assert_eq(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void spit(const char *path, const void *p, size_t len)
{
    FILE *f = fopen(path, "wb");

    cr_assert_not_null(f);
    cr_assert_eq(fwrite(p, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* Opens path as a capture and reads to the end: returns the last result,
 * with *n the records read and d the message. */
static int read_all(const char *path, size_t *n, struct gt_diag *d)
{
    struct gt_source_info info;
    struct gt_catalog cat;
    struct gt_snapshot s;
    struct gt_capture_reader *rd;
    int r;

    *n = 0;
    gt_catalog_init(&cat);
    gt_diag_clear(d);
    rd = gt_capture_open(path, &info, &cat, d);
    if (!rd)
        return -2;
    cr_assert_eq(gt_snapshot_init(&s, cat.nslots), 0);
    while ((r = gt_capture_read(rd, &s, d)) == 0)
        (*n)++;
    gt_capture_close(rd);
    gt_snapshot_free(&s);
    gt_catalog_free(&cat);
    return r;
}

/* A source opened the way gt_source_open does it. */
static int open_replay(struct gt_source *s, const char *args, struct gt_diag *d)
{
    memset(s, 0, sizeof(*s));
    s->type = &gt_source_replay;
    s->sys = gt_sys_real();
    gt_catalog_init(&s->catalog);
    gt_diag_clear(d);
    if (gt_source_replay.open(s, args, d) < 0) {
        gt_catalog_free(&s->catalog);
        return -1;
    }
    return 0;
}

static void close_replay(struct gt_source *s)
{
    gt_source_replay.close(s);
    gt_catalog_free(&s->catalog);
}

static char *contains(const char *hay, const char *needle)
{
    return strstr(hay, needle);
}

/* ---- the format ---- */

Test(capture, crc32_check_value)
{
    cr_assert_eq(gt_capture_crc32(0, "123456789", 9), 0xcbf43926u);
    cr_assert_eq(gt_capture_crc32(gt_capture_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);
    cr_assert_eq(gt_capture_crc32(0, "", 0), 0);
}

/* The bytes are those gputop-capture(5) describes. */
Test(capture, layout_matches_manual)
{
    struct gt_source_info info;
    struct gt_catalog cat;
    struct gt_snapshot s;
    struct gt_capture_writer *w;
    struct gt_diag d;
    char path[256];
    unsigned char *p;
    size_t len, hlen, rec;
    static const unsigned char sample[] = {
        0x1b, 0, 0, 0, 2,                                   /* length 27, type 2 */
        0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,     /* t_start */
        0x11, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,     /* t_end */
        3, 0, 0, 0,                                         /* nsamples */
        2, 0, 0, 0,                                         /* nslots */
        0xac, 0x02, 0x00,                                   /* 300, 0 */
    };
    static const unsigned char end[] = {
        8, 0, 0, 0, 0x80,                                   /* length 8, type 0x80 */
        1, 0, 0, 0, 0, 0, 0, 0,                             /* one sample record */
    };

    temp_path(path, sizeof(path));
    memset(&info, 0, sizeof(info));
    gt_catalog_init(&cat);
    cr_assert_eq(gt_catalog_add(&cat, "X", "b", GT_COUNTER_DELTA, 2, 1), 0);
    cr_assert_eq(gt_snapshot_init(&s, 2), 0);
    s.t_start_ns = 0xfedcba9876543210ull;
    s.t_end_ns = 0xfedcba9876543211ull;
    s.nsamples = 3;
    s.deltas[0] = 300;
    w = gt_capture_create(path, &info, &cat, &d);
    cr_assert_not_null(w, "%s", d.msg);
    cr_assert_eq(gt_capture_write(w, &s, &d), 0);
    cr_assert_eq(gt_capture_finish(w, &d), 0);
    p = slurp(path, &len);
    cr_assert(memcmp(p, "\x89GTCP\r\n\x1a\x01\x00\x00\x00", 12) == 0);
    hlen = (size_t)p[12] | (size_t)p[13] << 8 | (size_t)p[14] << 16 | (size_t)p[15] << 24;
    cr_assert_eq(p[16], 1);
    /* five empty strings, gpu_id, three u32, self_paced, nslots, ncounters,
     * one counter: 34 bytes of numbers, one-byte name and block, no hw_name */
    cr_assert_eq(hlen, 5 + 8 + 12 + 1 + 4 + 4 + (34 + 2 + 2 + 1));
    cr_assert_eq(gt_capture_crc32(0, p + 12, 5 + hlen),
                 (uint32_t)p[17 + hlen] | (uint32_t)p[18 + hlen] << 8 |
                 (uint32_t)p[19 + hlen] << 16 | (uint32_t)p[20 + hlen] << 24);
    rec = 12 + 5 + hlen + 4;
    cr_assert_eq(len, rec + sizeof(sample) + 4 + sizeof(end) + 4);
    cr_assert(memcmp(p + rec, sample, sizeof(sample)) == 0);
    rec += sizeof(sample);
    cr_assert_eq(gt_capture_crc32(0, sample, sizeof(sample)),
                 (uint32_t)p[rec] | (uint32_t)p[rec + 1] << 8 | (uint32_t)p[rec + 2] << 16 |
                 (uint32_t)p[rec + 3] << 24);
    rec += 4;
    cr_assert(memcmp(p + rec, end, sizeof(end)) == 0);
    cr_assert_eq(gt_capture_crc32(0, end, sizeof(end)),
                 (uint32_t)p[len - 4] | (uint32_t)p[len - 3] << 8 | (uint32_t)p[len - 2] << 16 |
                 (uint32_t)p[len - 1] << 24);
    free(p);
    gt_snapshot_free(&s);
    gt_catalog_free(&cat);
    unlink(path);
}

/* ---- round trips ---- */

Test(capture, record_then_read_is_bit_exact)
{
    struct rec r;

    record(&r, NRECORDS, 0x9e3779b97f4a7c15ull, 100000000ull);
    read_back(&r);
    free_rec(&r);
}

Test(capture, empty_catalogue_and_no_records)
{
    struct gt_source_info info, back;
    struct gt_catalog cat, cat2;
    struct gt_capture_writer *w;
    struct gt_snapshot s;
    struct gt_diag d;
    char path[256];
    size_t n;

    temp_path(path, sizeof(path));
    fill_info(&info);
    gt_catalog_init(&cat);
    w = gt_capture_create(path, &info, &cat, &d);
    cr_assert_not_null(w, "%s", d.msg);
    cr_assert_eq(gt_snapshot_init(&s, 0), 0);
    cr_assert_eq(gt_capture_write(w, &s, &d), 0);
    cr_assert_eq(gt_capture_finish(w, &d), 0);
    cr_assert_eq(read_all(path, &n, &d), 1, "%s", d.msg);
    cr_assert_eq(n, 1);
    gt_catalog_init(&cat2);
    gt_capture_close(gt_capture_open(path, &back, &cat2, &d));
    assert_same_info(&back, &info);
    cr_assert_eq(cat2.ncounters, 0);
    gt_snapshot_free(&s);
    unlink(path);
}

Test(capture, unrecordable_catalogue_is_refused)
{
    struct gt_source_info info;
    struct gt_catalog cat;
    struct gt_diag d;
    char path[256], name[300];

    temp_path(path, sizeof(path));
    fill_info(&info);
    gt_catalog_init(&cat);
    memset(name, 'x', 299);
    name[299] = '\0';
    cr_assert_geq(gt_catalog_add(&cat, name, "b", GT_COUNTER_DELTA, 1, 1), 0);
    cr_assert_null(gt_capture_create(path, &info, &cat, &d));
    cr_assert(contains(d.msg, path) && contains(d.msg, "255"), "%s", d.msg);
    gt_catalog_free(&cat);
    unlink(path);
}

/* ---- files cut short ---- */

Test(capture, cut_inside_last_record_at_every_byte)
{
    struct rec r;
    struct gt_diag d;
    char cut[256], want_end[64], want_start[64], want_n[64];
    unsigned char *p;
    size_t len, n;
    uint64_t at, last;

    record(&r, 20, 7, 100000000ull);
    read_back(&r);
    p = slurp(r.path, &len);
    temp_path(cut, sizeof(cut));
    last = r.offsets[r.n - 1];
    cr_assert_eq(len, r.end);
    for (at = last; at < r.offsets[r.n]; at++) {
        spit(cut, p, (size_t)at);
        int res = read_all(cut, &n, &d);
        if (at == last) {
            cr_assert_eq(res, 1, "cut at %llu: %s", (unsigned long long)at, d.msg);
            cr_assert_eq(n, r.n - 1);
            continue;
        }
        cr_assert_eq(res, 2, "cut at %llu: %d %s", (unsigned long long)at, res, d.msg);
        cr_assert_eq(n, r.n - 1);
        snprintf(want_end, sizeof(want_end), "ends at byte %llu", (unsigned long long)at);
        snprintf(want_start, sizeof(want_start), "starting at byte %llu", (unsigned long long)last);
        snprintf(want_n, sizeof(want_n), "%zu complete sample records", r.n - 1);
        cr_assert(contains(d.msg, want_end) && contains(d.msg, want_start) &&
                  contains(d.msg, want_n) && contains(d.msg, cut), "%s", d.msg);
    }
    free(p);
    unlink(cut);
    free_rec(&r);
}

/* Issue 44 item 3: a file cut right after a sample record (a killed
 * recording) reads to a clean end, but without the end record: the reader
 * says so with the record count and the last record's end, in seconds
 * from the first's start (worked out from the snapshots written). Before
 * any sample record, it says there is none. */
Test(capture, no_end_record_is_told_with_the_last_time)
{
    struct gt_source_info info;
    struct gt_catalog cat;
    struct gt_snapshot s;
    struct gt_capture_reader *rd;
    struct rec r;
    struct gt_diag d;
    char cut[256], want[128];
    unsigned char *p;
    size_t len;
    uint64_t count;

    record(&r, 20, 7, 100000000ull);
    read_back(&r);
    p = slurp(r.path, &len);
    temp_path(cut, sizeof(cut));
    spit(cut, p, (size_t)r.offsets[r.n]);
    snprintf(want, sizeof(want), "; 20 whole sample records, the last ending at t=%.3f s",
             (double)(r.snaps[19].t_end_ns - r.snaps[0].t_start_ns) / 1e9);
    gt_catalog_init(&cat);
    rd = gt_capture_open(cut, &info, &cat, &d);
    cr_assert_not_null(rd, "%s", d.msg);
    cr_assert_eq(gt_snapshot_init(&s, cat.nslots), 0);
    /* the index finds it at once */
    cr_assert_eq(gt_capture_index(rd, &count, &d), 0, "%s", d.msg);
    cr_assert_eq(count, 20);
    cr_assert(contains(d.msg, cut) && contains(d.msg, "no end record") && contains(d.msg, want),
              "%s", d.msg);
    while (gt_capture_read(rd, &s, &d) == 0)
        ;
    cr_assert_eq(gt_capture_read(rd, &s, &d), 1);
    cr_assert_eq(gt_capture_unfinished(rd, &d), 1);
    cr_assert(contains(d.msg, cut) && contains(d.msg, "no end record") && contains(d.msg, want),
              "%s", d.msg);
    gt_capture_close(rd);
    gt_catalog_free(&cat);
    /* only the header */
    spit(cut, p, (size_t)r.offsets[0]);
    gt_catalog_init(&cat);
    rd = gt_capture_open(cut, &info, &cat, &d);
    cr_assert_not_null(rd, "%s", d.msg);
    cr_assert_eq(gt_capture_read(rd, &s, &d), 1);
    cr_assert_eq(gt_capture_unfinished(rd, &d), 1);
    cr_assert(contains(d.msg, "no whole sample record"), "%s", d.msg);
    gt_capture_close(rd);
    gt_catalog_free(&cat);
    gt_snapshot_free(&s);
    free(p);
    unlink(cut);
    free_rec(&r);
}

Test(capture, cut_inside_header_fails_to_open)
{
    struct rec r;
    struct gt_diag d;
    char cut[256];
    unsigned char *p;
    size_t len, n, i;
    size_t at[] = { 0, 3, 8, 11, 12, 13, 16, 17, 40, 0, 0 };

    record(&r, 3, 1, 1000);
    read_back(&r);
    p = slurp(r.path, &len);
    at[9] = (size_t)r.offsets[0] - 4;
    at[10] = (size_t)r.offsets[0] - 1;
    temp_path(cut, sizeof(cut));
    for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
        spit(cut, p, at[i]);
        cr_assert_eq(read_all(cut, &n, &d), -2, "cut at %zu", at[i]);
        cr_assert(contains(d.msg, cut), "%s", d.msg);
        if (at[i] == 0)
            cr_assert(contains(d.msg, "empty file"), "%s", d.msg);
        else
            cr_assert(contains(d.msg, "cut short"), "cut at %zu: %s", at[i], d.msg);
    }
    free(p);
    unlink(cut);
    free_rec(&r);
}

/* ---- damaged and hostile files ---- */

static void flip_and_read(struct rec *r, size_t byte, unsigned char mask, int want, size_t want_n,
                          const char *want_msg, uint64_t want_at)
{
    struct gt_diag d;
    char path[256], at[64];
    unsigned char *p;
    size_t len, n;
    int res;

    p = slurp(r->path, &len);
    temp_path(path, sizeof(path));
    p[byte] ^= mask;
    spit(path, p, len);
    res = read_all(path, &n, &d);
    cr_assert_eq(res, want, "flip %zu: %d %s", byte, res, d.msg);
    cr_assert_eq(n, want_n, "flip %zu", byte);
    snprintf(at, sizeof(at), "at byte %llu", (unsigned long long)want_at);
    cr_assert(contains(d.msg, want_msg) && contains(d.msg, at), "flip %zu: %s", byte, d.msg);
    free(p);
    unlink(path);
}

Test(capture, flipped_payload_byte_is_a_bad_checksum)
{
    struct rec r;

    record(&r, 10, 3, 1000000);
    read_back(&r);
    flip_and_read(&r, (size_t)r.offsets[5] + 5 + 3, 0x10, -1, 5, "checksum mismatch", r.offsets[5]);
    flip_and_read(&r, (size_t)r.offsets[5] + 5 + 30, 0x01, -1, 5, "checksum mismatch", r.offsets[5]);
    flip_and_read(&r, (size_t)r.offsets[9] + 4, 0x03, -1, 9, "record type", r.offsets[9]);
    flip_and_read(&r, (size_t)r.offsets[2] + 3, 0x40, -1, 2, "bad length", r.offsets[2]);
    /* a length that still fits the file lands on a wrong checksum */
    flip_and_read(&r, (size_t)r.offsets[2], 0x01, -1, 2, "corrupt record", r.offsets[2]);
    flip_and_read(&r, 30, 0x01, -2, 0, "checksum mismatch", 12);
    free_rec(&r);
}

Test(capture, corrupt_result_is_sticky)
{
    struct rec r;
    struct gt_source_info info;
    struct gt_catalog cat;
    struct gt_snapshot s;
    struct gt_capture_reader *rd;
    struct gt_diag d;
    unsigned char *p;
    size_t len;

    record(&r, 4, 5, 1000);
    read_back(&r);
    p = slurp(r.path, &len);
    p[r.offsets[1] + 10] ^= 0xff;
    spit(r.path, p, len);
    gt_catalog_init(&cat);
    rd = gt_capture_open(r.path, &info, &cat, &d);
    cr_assert_not_null(rd);
    cr_assert_eq(gt_snapshot_init(&s, cat.nslots), 0);
    cr_assert_eq(gt_capture_read(rd, &s, &d), 0);
    cr_assert_eq(gt_capture_read(rd, &s, &d), -1);
    gt_diag_clear(&d);
    cr_assert_eq(gt_capture_read(rd, &s, &d), -1);
    cr_assert(contains(d.msg, "checksum"), "%s", d.msg);
    gt_capture_close(rd);
    gt_snapshot_free(&s);
    gt_catalog_free(&cat);
    free(p);
    free_rec(&r);
}

Test(capture, bad_magic)
{
    struct gt_diag d;
    char path[256];
    size_t n;

    temp_path(path, sizeof(path));
    spit(path, "interval_ns,MaliGPUCyclesGPUActive\n1,2\n", 39);
    cr_assert_eq(read_all(path, &n, &d), -2);
    cr_assert(contains(d.msg, "not a gputop capture") && contains(d.msg, path), "%s", d.msg);
    spit(path, "\x89GTC", 4);
    cr_assert_eq(read_all(path, &n, &d), -2);
    cr_assert(contains(d.msg, "cut short at byte 4"), "%s", d.msg);
    unlink(path);
}

Test(capture, future_and_zero_version)
{
    struct rec r;
    struct gt_diag d;
    unsigned char *p;
    size_t len, n;

    record(&r, 2, 9, 1000);
    p = slurp(r.path, &len);
    p[8] = 7;
    spit(r.path, p, len);
    cr_assert_eq(read_all(r.path, &n, &d), -2);
    cr_assert(contains(d.msg, "version 7; this gputop reads up to version 1"), "%s", d.msg);
    p[8] = 0;
    p[9] = 1;
    spit(r.path, p, len);
    cr_assert_eq(read_all(r.path, &n, &d), -2);
    cr_assert(contains(d.msg, "version 256;"), "%s", d.msg);
    p[9] = 0;
    spit(r.path, p, len);
    cr_assert_eq(read_all(r.path, &n, &d), -2);
    cr_assert(contains(d.msg, "version 0"), "%s", d.msg);
    free(p);
    free_rec(&r);
}

/* Writes magic, one framed record of the given type and payload with a
 * correct checksum, and optionally more records. */
struct framed {
    unsigned char *p;
    size_t len;
};

static void frame(struct framed *f, int type, const unsigned char *payload, size_t n)
{
    uint32_t crc;
    size_t i;

    f->p = realloc(f->p, f->len + n + 9);
    for (i = 0; i < 4; i++)
        f->p[f->len + i] = (unsigned char)(n >> (8 * i));
    f->p[f->len + 4] = (unsigned char)type;
    memcpy(f->p + f->len + 5, payload, n);
    crc = gt_capture_crc32(0, f->p + f->len, n + 5);
    for (i = 0; i < 4; i++)
        f->p[f->len + 5 + n + i] = (unsigned char)(crc >> (8 * i));
    f->len += n + 9;
}

static void start_file(struct framed *f)
{
    f->p = malloc(12);
    memcpy(f->p, "\x89GTCP\r\n\x1a\x01\x00\x00\x00", 12);
    f->len = 12;
}

/* A header payload: empty info, then the catalogue bytes given. */
static size_t header_payload(unsigned char *out, const unsigned char *cat, size_t n)
{
    /* five empty strings, gpu_id, three u32, self_paced */
    memset(out, 0, 26);
    memcpy(out + 26, cat, n);
    return 26 + n;
}

static void expect_bad_header(const unsigned char *cat, size_t n, const char *want)
{
    struct framed f = { 0 };
    unsigned char payload[256];
    struct gt_diag d;
    char path[256];
    size_t got;

    start_file(&f);
    frame(&f, 1, payload, header_payload(payload, cat, n));
    temp_path(path, sizeof(path));
    spit(path, f.p, f.len);
    cr_assert_eq(read_all(path, &got, &d), -2);
    cr_assert(contains(d.msg, want) && contains(d.msg, "at byte 12"), "want '%s': %s", want, d.msg);
    free(f.p);
    unlink(path);
}

Test(capture, hostile_headers_are_refused)
{
    /* nslots, ncounters */
    static const unsigned char huge_count[] = { 4, 0, 0, 0, 0, 0, 1, 0 };
    static const unsigned char too_many[] = { 4, 0, 0, 0, 1, 0, 1, 0 };
    static const unsigned char too_many_slots[] = { 0, 0, 0x20, 0, 0, 0, 0, 0 };
    /* one counter: kind, flags, slot, instances, denominator, hw_index,
     * scale, value, name, block, hw_name length */
#define COUNTER(kind, flags, slot, inst, den) \
    kind, flags, slot, 0, 0, 0, inst, 0, 0, 0, den, den, den, den, 0xff, 0xff, 0xff, 0xff, \
    0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0, 1, 'A', 1, 'b'
    static const unsigned char slot_out[] = { 4, 0, 0, 0, 1, 0, 0, 0, COUNTER(0, 0, 2, 3, 0xff), 0 };
    static const unsigned char no_inst[] = { 4, 0, 0, 0, 1, 0, 0, 0, COUNTER(0, 0, 0, 0, 0xff), 0 };
    static const unsigned char bad_kind[] = { 4, 0, 0, 0, 1, 0, 0, 0, COUNTER(3, 0, 0, 1, 0xff), 0 };
    static const unsigned char bad_flag[] = { 4, 0, 0, 0, 1, 0, 0, 0, COUNTER(0, 4, 0, 1, 0xff), 0 };
    static const unsigned char self_ratio[] = { 4, 0, 0, 0, 1, 0, 0, 0, COUNTER(2, 0, 0, 1, 0), 0 };
    static const unsigned char bad_den[] = { 4, 0, 0, 0, 1, 0, 0, 0, COUNTER(2, 0, 0, 1, 5), 0 };
    static const unsigned char const_den[] = { 4, 0, 0, 0, 2, 0, 0, 0, COUNTER(1, 0, 0, 1, 0xff), 0,
                                               COUNTER(2, 0, 0, 1, 0), 0 };
    static const unsigned char twice[] = { 4, 0, 0, 0, 2, 0, 0, 0, COUNTER(0, 0, 0, 1, 0xff), 0,
                                           COUNTER(0, 0, 1, 1, 0xff), 0 };
    static const unsigned char trailing[] = { 4, 0, 0, 0, 1, 0, 0, 0, COUNTER(0, 0, 0, 1, 0xff), 0, 9 };
    static const unsigned char short_str[] = { 4, 0, 0, 0, 1, 0, 0, 0, COUNTER(0, 1, 0, 1, 0xff), 5 };
    static const unsigned char stray_hw[] = { 4, 0, 0, 0, 1, 0, 0, 0, COUNTER(0, 0, 0, 1, 0xff), 5 };
    static const unsigned char nul_name[] = { 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 2, 'A', 0, 1, 'b', 0 };
#undef COUNTER

    expect_bad_header(huge_count, sizeof(huge_count), "exceeds the record");
    expect_bad_header(too_many, sizeof(too_many), "too many counters");
    expect_bad_header(too_many_slots, sizeof(too_many_slots), "too many counters or slots");
    expect_bad_header(slot_out, sizeof(slot_out), "uses slots 2..5 of 4");
    expect_bad_header(no_inst, sizeof(no_inst), "uses slots");
    expect_bad_header(bad_kind, sizeof(bad_kind), "unknown kind");
    expect_bad_header(bad_flag, sizeof(bad_flag), "unknown kind or flag");
    expect_bad_header(self_ratio, sizeof(self_ratio), "bad denominator");
    expect_bad_header(bad_den, sizeof(bad_den), "bad denominator");
    expect_bad_header(const_den, sizeof(const_den), "is a constant");
    expect_bad_header(twice, sizeof(twice), "appears twice");
    expect_bad_header(trailing, sizeof(trailing), "left over");
    expect_bad_header(short_str, sizeof(short_str), "ends inside a field");
    expect_bad_header(stray_hw, sizeof(stray_hw), "without a hardware name has one");
    expect_bad_header(nul_name, sizeof(nul_name), "NUL byte");
}

static size_t sample_payload(unsigned char *p, uint32_t nslots, const unsigned char *v, size_t n)
{
    memset(p, 0, 24);
    p[20] = (unsigned char)nslots;
    memcpy(p + 24, v, n);
    return 24 + n;
}

static void expect_bad_sample(const unsigned char *v, size_t n, uint32_t nslots, const char *want)
{
    static const unsigned char cat[] = { 2, 0, 0, 0, 1, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0, 1, 'A', 1, 'b', 0 };
    struct framed f = { 0 };
    unsigned char payload[256];
    struct gt_diag d;
    char path[256];
    size_t got;

    start_file(&f);
    frame(&f, 1, payload, header_payload(payload, cat, sizeof(cat)));
    frame(&f, 2, payload, sample_payload(payload, 2, (const unsigned char *)"\x01\x02", 2));
    frame(&f, 2, payload, sample_payload(payload, nslots, v, n));
    temp_path(path, sizeof(path));
    spit(path, f.p, f.len);
    cr_assert_eq(read_all(path, &got, &d), -1, "%s", d.msg);
    cr_assert_eq(got, 1);
    cr_assert(contains(d.msg, want), "want '%s': %s", want, d.msg);
    free(f.p);
    unlink(path);
}

Test(capture, hostile_samples_are_refused)
{
    expect_bad_sample((const unsigned char *)"\x01\x02", 2, 3, "3 slots, the catalogue has 2");
    expect_bad_sample((const unsigned char *)"\x01", 1, 2, "ends inside a field");
    expect_bad_sample((const unsigned char *)"\x01\x02\x03", 3, 2, "left over");
    expect_bad_sample((const unsigned char *)"\x80\x00\x01", 3, 2, "shortest form");
    expect_bad_sample((const unsigned char *)"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02\x00", 11, 2,
                      "overflows 64 bits");
    expect_bad_sample((const unsigned char *)"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x81\x00", 11, 2,
                      "overflows 64 bits");
}

/* Extension records (type 0x80 and above) are skipped; other unknown
 * types are errors. */
Test(capture, extension_records_are_skipped)
{
    static const unsigned char cat[] = { 1, 0, 0, 0, 1, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0, 1, 'A', 1, 'b', 0 };
    struct framed f = { 0 };
    unsigned char payload[256];
    struct gt_diag d;
    char path[256];
    size_t got;

    start_file(&f);
    frame(&f, 1, payload, header_payload(payload, cat, sizeof(cat)));
    frame(&f, 0x80, (const unsigned char *)"future", 6);
    frame(&f, 2, payload, sample_payload(payload, 1, (const unsigned char *)"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10));
    frame(&f, 0xff, (const unsigned char *)"", 0);
    frame(&f, 2, payload, sample_payload(payload, 1, (const unsigned char *)"\x05", 1));
    temp_path(path, sizeof(path));
    spit(path, f.p, f.len);
    cr_assert_eq(read_all(path, &got, &d), 1, "%s", d.msg);
    cr_assert_eq(got, 2);
    frame(&f, 0x7f, (const unsigned char *)"", 0);
    spit(path, f.p, f.len);
    cr_assert_eq(read_all(path, &got, &d), -1);
    cr_assert(contains(d.msg, "record type 127"), "%s", d.msg);
    free(f.p);
    unlink(path);
}

/* Random damage: whatever the bytes, the reader answers without reading
 * out of bounds (the ASan build checks) or looping. */
Test(capture, random_damage_never_crashes)
{
    struct rec r;
    struct gt_diag d;
    char path[256];
    unsigned char *p, *q;
    size_t len, n, i, k;
    uint64_t x = 12345;

    record(&r, 6, 11, 1000);
    p = slurp(r.path, &len);
    q = malloc(len);
    temp_path(path, sizeof(path));
    for (i = 0; i < 1500; i++) {
        memcpy(q, p, len);
        for (k = 0; k < 1 + next_rand(&x) % 4; k++)
            q[next_rand(&x) % len] = (unsigned char)next_rand(&x);
        spit(path, q, len - (i % 3 == 0 ? next_rand(&x) % len : 0));
        int res = read_all(path, &n, &d);
        cr_assert(res == -2 || res == -1 || res == 1 || res == 2);
        cr_assert(res == 1 || d.msg[0], "no message for result %d", res);
        cr_assert_leq(n, r.n);
    }
    free(p);
    free(q);
    unlink(path);
    free_rec(&r);
}

/* ---- write errors ---- */

Test(capture, write_error_names_path_and_reason)
{
    struct gt_source_info info;
    struct gt_catalog cat;
    struct gt_diag d;

    fill_info(&info);
    fill_catalog(&cat);
    gt_diag_clear(&d);
    cr_assert_null(gt_capture_create("/dev/full", &info, &cat, &d));
    cr_assert(contains(d.msg, "/dev/full") && contains(d.msg, strerror(ENOSPC)), "%s", d.msg);
    gt_diag_clear(&d);
    cr_assert_null(gt_capture_create("/nonexistent-dir/x.gtcap", &info, &cat, &d));
    cr_assert(contains(d.msg, "/nonexistent-dir/x.gtcap") && contains(d.msg, strerror(ENOENT)),
              "%s", d.msg);
    gt_catalog_free(&cat);
    cr_assert_eq(gt_capture_finish(NULL, &d), 0);
}

Test(capture, write_refuses_a_short_snapshot)
{
    struct rec r;
    struct gt_capture_writer *w;
    struct gt_snapshot s;
    struct gt_diag d;

    record(&r, 1, 1, 1);
    w = gt_capture_create(r.path, &r.info, &r.cat, &d);
    cr_assert_not_null(w);
    cr_assert_eq(gt_snapshot_init(&s, r.cat.nslots - 1), 0);
    cr_assert_eq(gt_capture_write(w, &s, &d), -1);
    cr_assert(contains(d.msg, "slots"), "%s", d.msg);
    cr_assert_eq(gt_capture_finish(w, &d), 0);
    gt_snapshot_free(&s);
    free_rec(&r);
}

/* ---- the replay source ---- */

Test(replay, max_speed_is_bit_exact)
{
    struct rec r;
    struct gt_source s;
    struct gt_snapshot out;
    struct gt_diag d;
    char args[300], want[300];
    size_t i;

    record(&r, NRECORDS, 0x5eedull, 100000000ull);
    snprintf(args, sizeof(args), "%s,speed=max", r.path);
    cr_assert_eq(open_replay(&s, args, &d), 0, "%s", d.msg);
    snprintf(want, sizeof(want), "replay of %s (was: /dev/mali0)", r.path);
    cr_assert_str_eq(s.info.device, want);
    cr_assert_eq(s.info.self_paced, 1);
    s.info.self_paced = 0;
    snprintf(s.info.device, sizeof(s.info.device), "%s", r.info.device);
    assert_same_info(&s.info, &r.info);
    assert_same_catalog(&s.catalog, &r.cat);
    cr_assert_eq(gt_source_replay.start(&s, &d), 0);
    cr_assert_eq(gt_snapshot_init(&out, s.catalog.nslots), 0);
    for (i = 0; i < r.n; i++) {
        cr_assert_eq(gt_source_replay.sample(&s, &out, &d), 0, "%zu: %s", i, d.msg);
        assert_same_snapshot(&out, &r.snaps[i], i);
    }
    cr_assert_eq(gt_source_replay.sample(&s, &out, &d), 1);
    cr_assert_eq(gt_source_replay.sample(&s, &out, &d), 1);
    gt_snapshot_free(&out);
    close_replay(&s);
    free_rec(&r);
}

static uint64_t replay_all(const char *args, size_t want, int want_end)
{
    struct gt_source s;
    struct gt_snapshot out;
    struct gt_diag d;
    uint64_t t0;
    size_t n = 0;
    int res;

    cr_assert_eq(open_replay(&s, args, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_snapshot_init(&out, s.catalog.nslots), 0);
    t0 = gt_now_ns();
    cr_assert_eq(gt_source_replay.start(&s, &d), 0);
    while ((res = gt_source_replay.sample(&s, &out, &d)) == 0)
        n++;
    t0 = gt_now_ns() - t0;
    cr_assert_eq(res, want_end);
    cr_assert_eq(n, want);
    gt_snapshot_free(&out);
    close_replay(&s);
    return t0;
}

Test(replay, paces_at_recorded_speed_times_n)
{
    struct rec r;
    char args[300];
    uint64_t ns;

    record(&r, 10, 3, 20000000ull);          /* 10 x 20 ms */
    snprintf(args, sizeof(args), "%s", r.path);
    ns = replay_all(args, 10, 1);
    cr_assert_geq(ns, 195000000ull, "speed 1 took %llu ns", (unsigned long long)ns);
    cr_assert_lt(ns, 2000000000ull, "speed 1 took %llu ns", (unsigned long long)ns);
    snprintf(args, sizeof(args), "%s,speed=4", r.path);
    ns = replay_all(args, 10, 1);
    cr_assert_geq(ns, 48000000ull, "speed 4 took %llu ns", (unsigned long long)ns);
    cr_assert_lt(ns, 190000000ull, "speed 4 took %llu ns", (unsigned long long)ns);
    free_rec(&r);
}

Test(replay, max_speed_does_not_sleep)
{
    struct rec r;
    char args[300];
    uint64_t ns;

    record(&r, 200, 3, 10000000000ull);      /* 200 x 10 s */
    snprintf(args, sizeof(args), "%s,speed=max", r.path);
    ns = replay_all(args, 200, 1);
    cr_assert_lt(ns, 1000000000ull, "took %llu ns", (unsigned long long)ns);
    free_rec(&r);
}

Test(replay, cut_short_replays_then_ends_with_detail)
{
    struct rec r;
    struct gt_source s;
    struct gt_snapshot out;
    struct gt_diag d;
    char args[300], want[64];
    unsigned char *p;
    size_t len, i;

    record(&r, 5, 21, 1000);
    read_back(&r);
    p = slurp(r.path, &len);
    len = r.offsets[r.n];           /* cut inside the last sample record */
    spit(r.path, p, len - 3);
    snprintf(args, sizeof(args), "%s,speed=max", r.path);
    cr_assert_eq(open_replay(&s, args, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_snapshot_init(&out, s.catalog.nslots), 0);
    cr_assert_eq(gt_source_replay.start(&s, &d), 0);
    for (i = 0; i < 4; i++) {
        cr_assert_eq(gt_source_replay.sample(&s, &out, &d), 0);
        assert_same_snapshot(&out, &r.snaps[i], i);
    }
    gt_diag_clear(&d);
    cr_assert_eq(gt_source_replay.sample(&s, &out, &d), 1);
    /* As the sampler does once its thread is joined. */
    cr_assert_eq(gt_source_replay.playback->control(&s, GT_PLAYBACK_SETTLE, 0), 0);
    snprintf(want, sizeof(want), "ends at byte %zu", len - 3);
    cr_assert(contains(s.info.detail, "cut short") && contains(s.info.detail, want) &&
              contains(s.info.detail, "4 complete"), "%s", s.info.detail);
    cr_assert(contains(d.msg, "cut short"), "%s", d.msg);
    cr_assert_eq(gt_source_replay.sample(&s, &out, &d), 1);
    gt_snapshot_free(&out);
    close_replay(&s);
    free(p);
    free_rec(&r);
}

Test(replay, corrupt_record_fails_once_then_ends)
{
    struct rec r;
    struct gt_source s;
    struct gt_snapshot out;
    struct gt_diag d;
    char args[300], want[64];
    unsigned char *p;
    size_t len;

    record(&r, 5, 22, 1000);
    read_back(&r);
    p = slurp(r.path, &len);
    p[r.offsets[2] + 20] ^= 4;
    spit(r.path, p, len);
    snprintf(args, sizeof(args), "%s,speed=max", r.path);
    cr_assert_eq(open_replay(&s, args, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_snapshot_init(&out, s.catalog.nslots), 0);
    cr_assert_eq(gt_source_replay.sample(&s, &out, &d), 0);
    cr_assert_eq(gt_source_replay.sample(&s, &out, &d), 0);
    cr_assert_eq(gt_source_replay.sample(&s, &out, &d), -1);
    snprintf(want, sizeof(want), "corrupt record at byte %llu", (unsigned long long)r.offsets[2]);
    cr_assert(contains(d.msg, want), "%s", d.msg);
    cr_assert_eq(gt_source_replay.playback->control(&s, GT_PLAYBACK_SETTLE, 0), 0);
    cr_assert(contains(s.info.detail, want), "%s", s.info.detail);
    cr_assert_eq(gt_source_replay.sample(&s, &out, &d), 1);
    cr_assert_eq(gt_source_replay.sample(&s, &out, &d), 1);
    gt_snapshot_free(&out);
    close_replay(&s);
    free(p);
    free_rec(&r);
}

Test(replay, bad_arguments)
{
    static const char *const bad[][2] = {
        { "", "no capture file" },
        { "speed=2", "no capture file" },
        { "/x.gtcap,speed=0", "bad speed '0'" },
        { "/x.gtcap,speed=-1", "bad speed" },
        { "/x.gtcap,speed=fast", "bad speed 'fast'" },
        { "/x.gtcap,speed=2x", "bad speed" },
        { "/x.gtcap,speed=1e9", "bad speed" },
        { "/x.gtcap,speed=0.001", "bad speed '0.001' (a number from 0.01 to 1e+06, or 'max')" },
        { "/x.gtcap,speed=nan", "bad speed" },
        { "/x.gtcap,pace=2", "no option 'pace'" },
        { "/nonexistent-gputop.gtcap", "/nonexistent-gputop.gtcap: No such file" },
    };
    struct gt_source s;
    struct gt_diag d;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_assert_eq(open_replay(&s, bad[i][0], &d), -1, "%s", bad[i][0]);
        cr_assert(contains(d.msg, bad[i][1]), "'%s': %s", bad[i][0], d.msg);
    }
}

Test(replay, not_a_capture_fails_to_open)
{
    struct gt_source s;
    struct gt_diag d;
    char path[256];

    temp_path(path, sizeof(path));
    spit(path, "hello", 5);
    cr_assert_eq(open_replay(&s, path, &d), -1);
    cr_assert(contains(d.msg, "not a gputop capture"), "%s", d.msg);
    cr_assert_eq(s.catalog.ncounters, 0);
    unlink(path);
}
