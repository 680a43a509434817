/* Capture files (man/gputop-capture.5): length-prefixed, CRC-checked records
 * encoded byte by byte, so a file cut short still reads up to its last record. */
#include "gputop/capture.h"
#include "capture_check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAGIC_LEN        8
#define FILE_HEADER_LEN  12          /* magic, u16 version, u16 flags */
#define PREFIX_LEN       5           /* u32 length, u8 type */
#define CRC_LEN          4
#define TYPE_HEADER      1
#define TYPE_SAMPLE      2
#define TYPE_SKIPPABLE   0x80        /* and above: extensions older readers skip */
#define TYPE_END         0x80        /* written on a clean close: the recording finished */
#define HEADER_MAX       (64u << 20)
#define SKIPPABLE_MAX    (16u << 20)
#define SAMPLE_FIXED     24          /* t_start, t_end, nsamples, nslots */
#define VARINT_MAX       10
#define COUNTER_MIN      37          /* bytes of a counter entry with empty strings */
#define FLAG_HW_NAME     1u
#define FLAG_ESTIMATED   2u   /* its deltas are estimates (multiplexed counters) */

static const unsigned char magic[MAGIC_LEN] = { 0x89, 'G', 'T', 'C', 'P', '\r', '\n', 0x1a };

/* ---- CRC-32 ---- */

/* Four bits at a time: a 16-entry constant table, no start-up work. */
static const uint32_t crc_nibble[16] = {
    0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
    0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c, 0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

uint32_t gt_capture_crc32(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t i;

    crc = ~crc;
    for (i = 0; i < len; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ crc_nibble[crc & 15];
        crc = (crc >> 4) ^ crc_nibble[crc & 15];
    }
    return ~crc;
}

/* ---- encoding ---- */

struct bytes {
    unsigned char *p;
    size_t len, cap;
    int oom;
};

static unsigned char *grow(struct bytes *b, size_t n)
{
    if (b->oom)
        return NULL;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        unsigned char *p;
        while (cap < b->len + n)
            cap *= 2;
        p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    b->len += n;
    return b->p + b->len - n;
}

static void le_store(unsigned char *p, uint64_t v, int n)
{
    int i;

    for (i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t le_load(const unsigned char *p, int n)
{
    uint64_t v = 0;
    int i;

    for (i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put_le(struct bytes *b, uint64_t v, int n)
{
    unsigned char *p = grow(b, (size_t)n);

    if (p)
        le_store(p, v, n);
}

static void put_f64(struct bytes *b, double v)
{
    uint64_t u;

    memcpy(&u, &v, sizeof(u));
    put_le(b, u, 8);
}

static void put_varint(struct bytes *b, uint64_t v)
{
    unsigned char tmp[VARINT_MAX], *p;
    size_t n = 0;

    do {
        tmp[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            tmp[n] |= 0x80;
        n++;
    } while (v);
    p = grow(b, n);
    if (p)
        memcpy(p, tmp, n);
}

/* Strings are a u8 length and the bytes, no terminator; callers have
 * checked the length. */
static void put_str(struct bytes *b, const char *s)
{
    size_t n = strlen(s);
    unsigned char *p;

    put_le(b, n, 1);
    p = grow(b, n);
    if (p)
        memcpy(p, s, n);
}

/* ---- decoding ---- */

struct cur {
    const unsigned char *p;
    size_t len, pos;
    const char *bad;         /* first problem found, NULL while fine */
};

static int need(struct cur *c, size_t n)
{
    if (c->bad)
        return 0;
    if (c->len - c->pos < n) {
        c->bad = "the record ends inside a field";
        return 0;
    }
    return 1;
}

static uint64_t get_le(struct cur *c, int n)
{
    uint64_t v = 0;
    int i;

    if (!need(c, (size_t)n))
        return 0;
    for (i = 0; i < n; i++)
        v |= (uint64_t)c->p[c->pos + (size_t)i] << (8 * i);
    c->pos += (size_t)n;
    return v;
}

static double get_f64(struct cur *c)
{
    uint64_t u = get_le(c, 8);
    double v;

    memcpy(&v, &u, sizeof(v));
    return v;
}

/* Unsigned LEB128, canonical only: at most 10 bytes, no value bits past
 * 64, no trailing zero byte; so each value has exactly one encoding. */
static uint64_t get_varint(struct cur *c)
{
    uint64_t v = 0;
    size_t i;

    for (i = 0; i < VARINT_MAX; i++) {
        unsigned char byte;
        if (!need(c, 1))
            return 0;
        byte = c->p[c->pos++];
        if (i == VARINT_MAX - 1 && byte > 1) {
            c->bad = "a varint overflows 64 bits";
            return 0;
        }
        v |= (uint64_t)(byte & 0x7f) << (7 * i);
        if (!(byte & 0x80)) {
            if (byte == 0 && i > 0)
                c->bad = "a varint is not in its shortest form";
            return v;
        }
    }
    c->bad = "a varint is longer than 10 bytes";
    return 0;
}

/* Copies a string of at most max bytes into a fresh allocation or into
 * dst[max + 1]; NUL bytes inside are refused. */
static int get_str_into(struct cur *c, char *dst, size_t max)
{
    size_t n = (size_t)get_le(c, 1);

    if (!need(c, n))
        return -1;
    if (n > max) {
        c->bad = "a string is longer than its field";
        return -1;
    }
    if (memchr(c->p + c->pos, '\0', n)) {
        c->bad = "a string holds a NUL byte";
        return -1;
    }
    memcpy(dst, c->p + c->pos, n);
    dst[n] = '\0';
    c->pos += n;
    return 0;
}

static char *get_str_dup(struct cur *c)
{
    char tmp[GT_CAPTURE_MAX_NAME + 1];
    char *s;

    if (get_str_into(c, tmp, GT_CAPTURE_MAX_NAME) < 0)
        return NULL;
    s = strdup(tmp);
    if (!s)
        c->bad = "out of memory";
    return s;
}

/* ---- header record payload ---- */

static const char *info_field_too_long(const struct gt_source_info *in)
{
    if (strnlen(in->device, sizeof(in->device)) >= sizeof(in->device) ||
        strnlen(in->gpu, sizeof(in->gpu)) >= sizeof(in->gpu) ||
        strnlen(in->layout, sizeof(in->layout)) >= sizeof(in->layout) ||
        strnlen(in->family, sizeof(in->family)) >= sizeof(in->family) ||
        strnlen(in->detail, sizeof(in->detail)) >= sizeof(in->detail))
        return "a source description field is not terminated";
    return NULL;
}

static int encode_kind(enum gt_counter_kind k)
{
    return k == GT_COUNTER_CONSTANT ? 1 : k == GT_COUNTER_RATIO ? 2 : 0;
}

static void encode_header(struct bytes *b, const struct gt_source_info *in,
                          const struct gt_catalog *c)
{
    size_t i;

    put_str(b, in->device);
    put_str(b, in->gpu);
    put_str(b, in->layout);
    put_str(b, in->family);
    put_str(b, in->detail);
    put_le(b, in->gpu_id, 8);
    put_le(b, in->shader_cores, 4);
    put_le(b, in->l2_slices, 4);
    put_le(b, in->bus_width_bits, 4);
    put_le(b, in->self_paced ? 1 : 0, 1);
    put_le(b, c->nslots, 4);
    put_le(b, c->ncounters, 4);
    for (i = 0; i < c->ncounters; i++) {
        const struct gt_counter *k = &c->counters[i];
        put_le(b, (uint64_t)encode_kind(k->kind), 1);
        put_le(b, (k->hw_name ? FLAG_HW_NAME : 0) | (k->estimated ? FLAG_ESTIMATED : 0), 1);
        put_le(b, k->slot, 4);
        put_le(b, k->instances, 4);
        put_le(b, (uint32_t)k->denominator, 4);
        put_le(b, (uint32_t)k->hw_index, 4);
        put_f64(b, k->scale);
        put_f64(b, k->value);
        put_str(b, k->name);
        put_str(b, k->block);
        put_str(b, k->hw_name ? k->hw_name : "");
    }
}

static void decode_info(struct cur *c, struct gt_source_info *in)
{
    uint64_t paced;

    memset(in, 0, sizeof(*in));
    get_str_into(c, in->device, sizeof(in->device) - 1);
    get_str_into(c, in->gpu, sizeof(in->gpu) - 1);
    get_str_into(c, in->layout, sizeof(in->layout) - 1);
    get_str_into(c, in->family, sizeof(in->family) - 1);
    get_str_into(c, in->detail, sizeof(in->detail) - 1);
    in->gpu_id = get_le(c, 8);
    in->shader_cores = (uint32_t)get_le(c, 4);
    in->l2_slices = (uint32_t)get_le(c, 4);
    in->bus_width_bits = (uint32_t)get_le(c, 4);
    paced = get_le(c, 1);
    if (paced > 1 && !c->bad)
        c->bad = "self_paced is neither 0 nor 1";
    in->self_paced = (int)paced;
}

static void decode_counter(struct cur *c, struct gt_counter *k)
{
    uint64_t kind = get_le(c, 1), flags = get_le(c, 1);

    if (!c->bad && (kind > 2 || (flags & ~(uint64_t)(FLAG_HW_NAME | FLAG_ESTIMATED))))
        c->bad = "a counter has an unknown kind or flag";
    k->kind = kind == 1 ? GT_COUNTER_CONSTANT : kind == 2 ? GT_COUNTER_RATIO : GT_COUNTER_DELTA;
    k->estimated = !!(flags & FLAG_ESTIMATED);
    k->slot = (uint32_t)get_le(c, 4);
    k->instances = (uint32_t)get_le(c, 4);
    k->denominator = (int32_t)(uint32_t)get_le(c, 4);
    k->hw_index = (int32_t)(uint32_t)get_le(c, 4);
    k->scale = get_f64(c);
    k->value = get_f64(c);
    k->name = get_str_dup(c);
    k->block = get_str_dup(c);
    if (flags & FLAG_HW_NAME)
        k->hw_name = get_str_dup(c);
    else if (get_le(c, 1) != 0 && !c->bad)
        c->bad = "a counter without a hardware name has one";
}

static void decode_catalog(struct cur *c, struct gt_catalog *cat)
{
    uint64_t nslots = get_le(c, 4), n = get_le(c, 4);

    if (c->bad)
        return;
    if (n > GT_CAPTURE_MAX_COUNTERS || nslots > GT_CAPTURE_MAX_SLOTS) {
        c->bad = "too many counters or slots";
        return;
    }
    /* The count must fit the bytes actually present before anything is
     * allocated for it. */
    if (n > (c->len - c->pos) / COUNTER_MIN) {
        c->bad = "the counter count exceeds the record";
        return;
    }
    cat->nslots = (uint32_t)nslots;
    if (n == 0)
        return;
    cat->counters = calloc((size_t)n, sizeof(*cat->counters));
    if (!cat->counters) {
        c->bad = "out of memory";
        return;
    }
    cat->cap = (size_t)n;
    while (cat->ncounters < n && !c->bad)
        decode_counter(c, &cat->counters[cat->ncounters++]);
}

/* ---- writer ---- */

struct gt_capture_writer {
    FILE *f;
    char *path;
    uint32_t nslots;
    uint64_t records;         /* sample records written */
    struct bytes rec;
    int failed;
    char err[GT_DIAG_MSG];
};

static void begin_record(struct bytes *b, int type)
{
    b->len = 0;
    b->oom = 0;
    put_le(b, 0, 4);
    put_le(b, (uint64_t)type, 1);
}

/* Fills in the length, appends the checksum, writes and flushes. */
static int end_record(struct gt_capture_writer *w, struct gt_diag *d)
{
    struct bytes *b = &w->rec;
    uint32_t crc;

    if (b->oom) {
        snprintf(w->err, sizeof(w->err), "%s: out of memory", w->path);
        gt_diag_set(d, "%s", w->err);
        return -1;
    }
    le_store(b->p, b->len - PREFIX_LEN, 4);
    crc = gt_capture_crc32(0, b->p, b->len);
    put_le(b, crc, 4);
    if (b->oom || fwrite(b->p, 1, b->len, w->f) != b->len || fflush(w->f) != 0) {
        w->failed = 1;
        snprintf(w->err, sizeof(w->err), "%s: cannot write the capture: %s", w->path,
                 b->oom ? "out of memory" : strerror(errno));
        gt_diag_set(d, "%s", w->err);
        return -1;
    }
    return 0;
}

static int write_file_header(struct gt_capture_writer *w, struct gt_diag *d)
{
    unsigned char h[FILE_HEADER_LEN];

    memcpy(h, magic, MAGIC_LEN);
    le_store(h + 8, GT_CAPTURE_VERSION, 2);
    le_store(h + 10, 0, 2);
    if (fwrite(h, 1, sizeof(h), w->f) != sizeof(h)) {
        w->failed = 1;
        gt_diag_errno(d, errno, "%s: cannot write the capture: %s", w->path, strerror(errno));
        return -1;
    }
    return 0;
}

static void writer_free(struct gt_capture_writer *w)
{
    if (w->f)
        fclose(w->f);
    free(w->rec.p);
    free(w->path);
    free(w);
}

struct gt_capture_writer *gt_capture_create(const char *path, const struct gt_source_info *info,
                                            const struct gt_catalog *cat, struct gt_diag *d)
{
    struct gt_capture_writer *w;
    char why[GT_DIAG_MSG];
    const char *bad = info_field_too_long(info);

    if (bad || (bad = gt_capture_check_catalog(cat, why, sizeof(why))) != NULL) {
        gt_diag_set(d, "%s: cannot record this source: %s", path, bad);
        return NULL;
    }
    w = calloc(1, sizeof(*w));
    if (!w || !(w->path = strdup(path))) {
        free(w);
        gt_diag_fail(d, GT_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    w->nslots = cat->nslots;
    w->f = fopen(path, "wb");
    if (!w->f) {
        gt_diag_errno(d, errno, "%s: cannot create the capture: %s", path, strerror(errno));
        writer_free(w);
        return NULL;
    }
    begin_record(&w->rec, TYPE_HEADER);
    encode_header(&w->rec, info, cat);
    if (write_file_header(w, d) < 0 || end_record(w, d) < 0) {
        writer_free(w);
        return NULL;
    }
    return w;
}

int gt_capture_write(struct gt_capture_writer *w, const struct gt_snapshot *s, struct gt_diag *d)
{
    uint32_t i;

    if (w->failed) {
        gt_diag_set(d, "%s", w->err);
        return -1;
    }
    if (s->nslots < w->nslots) {
        gt_diag_set(d, "%s: snapshot has %u slots, the catalogue %u", w->path, s->nslots,
                    w->nslots);
        return -1;
    }
    begin_record(&w->rec, TYPE_SAMPLE);
    put_le(&w->rec, s->t_start_ns, 8);
    put_le(&w->rec, s->t_end_ns, 8);
    put_le(&w->rec, s->nsamples, 4);
    put_le(&w->rec, w->nslots, 4);
    for (i = 0; i < w->nslots; i++)
        put_varint(&w->rec, s->deltas[i]);
    if (end_record(w, d) < 0)
        return -1;
    w->records++;
    return 0;
}

int gt_capture_finish(struct gt_capture_writer *w, struct gt_diag *d)
{
    int r = 0;

    if (!w)
        return 0;
    /* The end record tells a reader the recording was not cut off
     * between two records (kill -9, a crash, a lost device). */
    if (!w->failed) {
        begin_record(&w->rec, TYPE_END);
        put_le(&w->rec, w->records, 8);
        end_record(w, d);
    }
    if (fclose(w->f) != 0 && !w->failed) {
        gt_diag_errno(d, errno, "%s: cannot write the capture: %s", w->path, strerror(errno));
        r = -1;
    } else if (w->failed) {
        gt_diag_set(d, "%s", w->err);
        r = -1;
    }
    w->f = NULL;
    writer_free(w);
    return r;
}

/* ---- reader ---- */

struct gt_capture_reader {
    FILE *f;
    char *path;
    uint64_t off;             /* of the next record */
    uint64_t records;
    uint64_t size;            /* file size last seen; UINT64_MAX if not a file */
    uint32_t nslots;
    unsigned char *buf;
    size_t cap;
    int state;                /* 0 reading; else the sticky result */
    int ended;                /* the last record read was the end record */
    uint64_t first_start;     /* t_start of the first sample record */
    uint64_t last_end;        /* t_end of the last sample record read */
    char msg[GT_DIAG_MSG];
    uint64_t *index;          /* gt_capture_index: offset of record k, and of
                                 what follows the last good one; NULL none */
    uint64_t nindex;          /* good records indexed */
};

/* Bytes left in a regular file after off; UINT64_MAX when unknown (pipe).
 * The size is asked again only when a record seems to reach past it, so a
 * file still growing is followed without a system call per record. */
static uint64_t bytes_left(struct gt_capture_reader *r, uint64_t want)
{
    struct stat st;

    if (r->size < r->off || r->size - r->off < want) {
        if (fstat(fileno(r->f), &st) != 0 || !S_ISREG(st.st_mode))
            r->size = UINT64_MAX;
        else
            r->size = (uint64_t)st.st_size;
    }
    if (r->size == UINT64_MAX)
        return UINT64_MAX;
    return r->size > r->off ? r->size - r->off : 0;
}

static int stop(struct gt_capture_reader *r, int state, struct gt_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int stop(struct gt_capture_reader *r, int state, struct gt_diag *d, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(r->msg, sizeof(r->msg), "%s: ", r->path);

    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof(r->msg))
        vsnprintf(r->msg + n, sizeof(r->msg) - (size_t)n, fmt, ap);
    va_end(ap);
    r->state = state;
    gt_diag_set(d, "%s", r->msg);
    return state;
}

static int cut_short(struct gt_capture_reader *r, uint64_t got, struct gt_diag *d)
{
    return stop(r, 2, d, "cut short: the file ends at byte %llu, inside the record starting at "
                "byte %llu; %llu complete sample records before it",
                (unsigned long long)(r->off + got), (unsigned long long)r->off,
                (unsigned long long)r->records);
}

static int read_error(struct gt_capture_reader *r, struct gt_diag *d)
{
    return stop(r, -1, d, "read error at byte %llu: %s", (unsigned long long)r->off,
                strerror(errno));
}

static uint64_t type_limit(const struct gt_capture_reader *r, int type)
{
    if (type == TYPE_HEADER)
        return HEADER_MAX;
    if (type == TYPE_SAMPLE)
        return SAMPLE_FIXED + (uint64_t)VARINT_MAX * r->nslots;
    return SKIPPABLE_MAX;
}

/* Reads one framed record: 0 with its type and payload, or the sticky
 * 1 / 2 / -1 result. expect_header selects which types are legal. */
static int read_record(struct gt_capture_reader *r, int expect_header, int *type,
                       struct cur *payload, struct gt_diag *d)
{
    unsigned char pre[PREFIX_LEN];
    size_t got = fread(pre, 1, PREFIX_LEN, r->f);
    uint64_t len, total;
    uint32_t stored, crc;

    if (got < PREFIX_LEN && ferror(r->f))
        return read_error(r, d);
    if (got == 0) {
        r->state = 1;
        return 1;
    }
    if (got < PREFIX_LEN)
        return cut_short(r, got, d);
    len = (uint64_t)pre[0] | (uint64_t)pre[1] << 8 | (uint64_t)pre[2] << 16 |
          (uint64_t)pre[3] << 24;
    *type = pre[4];
    if (expect_header ? *type != TYPE_HEADER
                      : (*type != TYPE_SAMPLE && *type < TYPE_SKIPPABLE))
        return stop(r, -1, d, "corrupt record at byte %llu: %s record type %d",
                    (unsigned long long)r->off,
                    expect_header ? "expected a header record, found" : "unexpected", *type);
    if (len > type_limit(r, *type))
        return stop(r, -1, d, "corrupt record at byte %llu: bad length %llu (at most %llu)",
                    (unsigned long long)r->off, (unsigned long long)len,
                    (unsigned long long)type_limit(r, *type));
    total = PREFIX_LEN + len + CRC_LEN;
    if (total > bytes_left(r, total))
        return cut_short(r, bytes_left(r, total), d);
    if (total > r->cap) {
        unsigned char *p = realloc(r->buf, (size_t)total);
        if (!p)
            return stop(r, -1, d, "out of memory for the record at byte %llu",
                        (unsigned long long)r->off);
        r->buf = p;
        r->cap = (size_t)total;
    }
    memcpy(r->buf, pre, PREFIX_LEN);
    got = fread(r->buf + PREFIX_LEN, 1, (size_t)(len + CRC_LEN), r->f);
    if (got < len + CRC_LEN)
        return ferror(r->f) ? read_error(r, d) : cut_short(r, PREFIX_LEN + got, d);
    stored = (uint32_t)r->buf[total - 4] | (uint32_t)r->buf[total - 3] << 8 |
             (uint32_t)r->buf[total - 2] << 16 | (uint32_t)r->buf[total - 1] << 24;
    crc = gt_capture_crc32(0, r->buf, (size_t)(total - CRC_LEN));
    if (crc != stored)
        return stop(r, -1, d, "corrupt record at byte %llu: checksum mismatch (stored 0x%08x, "
                    "computed 0x%08x)", (unsigned long long)r->off, stored, crc);
    payload->p = r->buf + PREFIX_LEN;
    payload->len = (size_t)len;
    payload->pos = 0;
    payload->bad = NULL;
    r->off += total;
    return 0;
}

static void reader_free(struct gt_capture_reader *r)
{
    if (r->f)
        fclose(r->f);
    free(r->buf);
    free(r->index);
    free(r->path);
    free(r);
}

static int check_file_header(struct gt_capture_reader *r, struct gt_diag *d)
{
    unsigned char h[FILE_HEADER_LEN];
    size_t got = fread(h, 1, sizeof(h), r->f);
    unsigned version;

    if (got < sizeof(h) && ferror(r->f))
        return read_error(r, d);
    if (got == 0)
        return stop(r, -1, d, "empty file, not a gputop capture");
    if (memcmp(h, magic, got < MAGIC_LEN ? got : MAGIC_LEN) != 0)
        return stop(r, -1, d, "not a gputop capture (bad magic)");
    if (got < sizeof(h))
        return stop(r, 2, d, "cut short at byte %zu, inside the %d-byte file header", got,
                    FILE_HEADER_LEN);
    version = (unsigned)h[8] | (unsigned)h[9] << 8;
    if (version == 0)
        return stop(r, -1, d, "bad capture format version 0");
    if (version > GT_CAPTURE_VERSION)
        return stop(r, -1, d, "capture format version %u; this gputop reads up to version %d",
                    version, GT_CAPTURE_VERSION);
    r->off = FILE_HEADER_LEN;
    return 0;
}

static int read_header(struct gt_capture_reader *r, struct gt_source_info *info,
                       struct gt_catalog *cat, struct gt_diag *d)
{
    struct gt_source_info in;
    struct cur c;
    char why[GT_DIAG_MSG];
    const char *bad;
    int type, res = read_record(r, 1, &type, &c, d);

    if (res == 1)
        return stop(r, 2, d, "cut short at byte %d: the header record is missing",
                    FILE_HEADER_LEN);
    if (res != 0)
        return res;
    decode_info(&c, &in);
    decode_catalog(&c, cat);
    if (!c.bad && c.pos != c.len)
        c.bad = "bytes left over after the catalogue";
    bad = c.bad ? c.bad : gt_capture_check_catalog(cat, why, sizeof(why));
    if (bad) {
        gt_catalog_free(cat);
        return stop(r, -1, d, "bad header record at byte %d: %s", FILE_HEADER_LEN, bad);
    }
    *info = in;
    r->nslots = cat->nslots;
    return 0;
}

struct gt_capture_reader *gt_capture_open(const char *path, struct gt_source_info *info,
                                          struct gt_catalog *cat, struct gt_diag *d)
{
    struct gt_capture_reader *r = calloc(1, sizeof(*r));

    if (!r || !(r->path = strdup(path))) {
        free(r);
        gt_diag_fail(d, GT_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    r->f = fopen(path, "rb");
    if (!r->f) {
        gt_diag_errno(d, errno, "%s: %s", path, strerror(errno));
        reader_free(r);
        return NULL;
    }
    if (check_file_header(r, d) != 0 || read_header(r, info, cat, d) != 0) {
        reader_free(r);
        return NULL;
    }
    return r;
}

/* The times a missing end record is reported with. */
static void note_times(struct gt_capture_reader *r, uint64_t t_start, uint64_t t_end)
{
    if (r->records == 0)
        r->first_start = t_start;
    r->last_end = t_end;
    r->ended = 0;
}

static int decode_sample(struct gt_capture_reader *r, uint64_t at, struct cur *c,
                         struct gt_snapshot *s, struct gt_diag *d)
{
    uint64_t t0 = get_le(c, 8), t1 = get_le(c, 8), nsamples = get_le(c, 4),
             nslots = get_le(c, 4);
    uint32_t i;

    if (!c->bad && nslots != r->nslots)
        return stop(r, -1, d, "corrupt record at byte %llu: %llu slots, the catalogue has %u",
                    (unsigned long long)at, (unsigned long long)nslots, r->nslots);
    for (i = 0; i < r->nslots && !c->bad; i++)
        s->deltas[i] = get_varint(c);
    if (!c->bad && c->pos != c->len)
        c->bad = "bytes left over after the last slot";
    if (c->bad)
        return stop(r, -1, d, "corrupt record at byte %llu: %s", (unsigned long long)at, c->bad);
    s->t_start_ns = t0;
    s->t_end_ns = t1;
    s->nsamples = (uint32_t)nsamples;
    note_times(r, t0, t1);
    r->records++;
    return 0;
}

int gt_capture_read(struct gt_capture_reader *r, struct gt_snapshot *s, struct gt_diag *d)
{
    struct cur c;
    uint64_t at;
    int type, res;

    if (r->state) {
        if (r->state != 1)
            gt_diag_set(d, "%s", r->msg);
        return r->state;
    }
    if (s->nslots < r->nslots) {
        gt_diag_set(d, "%s: snapshot has %u slots, the catalogue %u", r->path, s->nslots,
                    r->nslots);
        return -1;
    }
    do {
        at = r->off;
        res = read_record(r, 0, &type, &c, d);
        if (res == 0 && type >= TYPE_SKIPPABLE)
            r->ended = type == TYPE_END;
    } while (res == 0 && type >= TYPE_SKIPPABLE);
    if (res != 0)
        return res;
    return decode_sample(r, at, &c, s, d);
}

/* ---- random access ---- */

/* Keeps off as entry r->nindex, growing the index as needed. */
static int push_offset(struct gt_capture_reader *r, uint64_t *cap, uint64_t off)
{
    if (r->nindex + 1 >= *cap) {
        uint64_t n = *cap ? *cap * 2 : 1024;
        uint64_t *p = realloc(r->index, (size_t)n * sizeof(*p));
        if (!p)
            return -1;
        r->index = p;
        *cap = n;
    }
    r->index[r->nindex] = off;
    return 0;
}

/* Checking each record's framing and checksum (not decoding its values:
 * that is most of a read's cost, and a record whose checksum holds was
 * written so) finds where a damaged file stops before anything is shown. */
static int scan(struct gt_capture_reader *r, struct gt_diag *d)
{
    struct gt_diag ignored;
    struct cur c;
    uint64_t cap = 0, at, end = r->off;
    int type;

    r->nindex = 0;
    for (;;) {
        at = r->off;
        if (read_record(r, 0, &type, &c, &ignored) != 0)
            break;
        if (type >= TYPE_SKIPPABLE) {
            r->ended = type == TYPE_END;
            continue;
        }
        if (push_offset(r, &cap, at) < 0)
            goto oom;
        if (c.len >= 16) {
            r->records = r->nindex;
            note_times(r, le_load(c.p, 8), le_load(c.p + 8, 8));
        }
        r->nindex++;
        end = r->off;
    }
    /* Past the last good record: the end, or the damage, read again. */
    if (push_offset(r, &cap, end) == 0)
        return 0;
oom:
    gt_diag_fail(d, GT_ERR_NOMEM, "%s: out of memory for the index", r->path);
    return -1;
}

static int go_to(struct gt_capture_reader *r, uint64_t off, uint64_t records)
{
    if (fseeko(r->f, (off_t)off, SEEK_SET) != 0)
        return -1;
    r->off = off;
    r->records = records;
    r->ended = 0;
    r->state = 0;
    r->msg[0] = '\0';
    return 0;
}

/* 1 with d set when the file ended without its end record. */
static int no_end(const struct gt_capture_reader *r, uint64_t records, struct gt_diag *d)
{
    if (r->ended)
        return 0;
    if (!records) {
        gt_diag_set(d, "%s: no end record: the recording did not finish (gputop was killed, or "
                    "the capture predates end records); no whole sample record", r->path);
        return 1;
    }
    gt_diag_set(d, "%s: no end record: the recording did not finish (gputop was killed, or the "
                "capture predates end records); %llu whole sample records, the last ending at "
                "t=%.3f s", r->path, (unsigned long long)records,
                (double)(r->last_end > r->first_start ? r->last_end - r->first_start : 0) / 1e9);
    return 1;
}

int gt_capture_unfinished(const struct gt_capture_reader *r, struct gt_diag *d)
{
    return r->state == 1 && no_end(r, r->records, d);
}

int gt_capture_index(struct gt_capture_reader *r, uint64_t *count, struct gt_diag *d)
{
    uint64_t off = r->off, records = r->records;
    char damage[GT_DIAG_MSG];
    struct stat st;

    *count = 0;
    /* Offsets count from the first record. */
    if (records != 0 || r->state != 0) {
        gt_diag_set(d, "%s: indexed only before the first record is read", r->path);
        return -1;
    }
    /* A pipe would be used up by the scan. */
    if (fstat(fileno(r->f), &st) != 0 || !S_ISREG(st.st_mode)) {
        gt_diag_set(d, "%s: not a regular file, so it cannot be indexed", r->path);
        return -1;
    }
    free(r->index);
    r->index = NULL;
    if (scan(r, d) < 0)
        goto fail;
    /* Where the scan stopped, unless at a clean end. */
    snprintf(damage, sizeof(damage), "%s", r->state == 1 ? "" : r->msg);
    if (r->state == 1 && no_end(r, r->nindex, d))
        snprintf(damage, sizeof(damage), "%s", d->msg);
    if (go_to(r, off, records) < 0) {
        gt_diag_errno(d, errno, "%s: cannot seek back to byte %llu: %s", r->path,
                      (unsigned long long)off, strerror(errno));
        goto fail;
    }
    *count = r->nindex;
    gt_diag_set(d, "%s", damage);
    return 0;
fail:
    free(r->index);
    r->index = NULL;
    r->nindex = 0;
    go_to(r, off, records);
    return -1;
}

int gt_capture_seek(struct gt_capture_reader *r, uint64_t k, struct gt_diag *d)
{
    if (!r->index) {
        gt_diag_set(d, "%s: no index to seek with", r->path);
        return -1;
    }
    if (k > r->nindex) {
        gt_diag_set(d, "%s: no sample record %llu (%llu good ones)", r->path,
                    (unsigned long long)k, (unsigned long long)r->nindex);
        return -1;
    }
    if (go_to(r, r->index[k], k) < 0) {
        gt_diag_errno(d, errno, "%s: cannot seek to record %llu: %s", r->path,
                      (unsigned long long)k, strerror(errno));
        return -1;
    }
    return 0;
}

void gt_capture_close(struct gt_capture_reader *r)
{
    if (r)
        reader_free(r);
}

uint64_t gt_capture_records(const struct gt_capture_reader *r)
{
    return r->records;
}

uint64_t gt_capture_offset(const struct gt_capture_reader *r)
{
    return r->off;
}
