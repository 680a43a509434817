/* Capture index benchmark: what the dashboard's replay pays before its
 * first record (gt_capture_index, one checking scan of the whole file),
 * against the baseline of reading every record once in order (what a
 * batch replay does), measured in the same run, alternating, best of 5
 * rounds of CPU time. Prints figures; no pass/fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_setup.h"
#include "gputop/capture.h"

#define RECORDS 5000
#define ROUNDS  5

static double cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Deltas of every width, as real counters give: mostly small, some large. */
static int write_capture(const char *path, const struct gt_catalog *cat, long *bytes)
{
    struct gt_source_info info;
    struct gt_capture_writer *w;
    struct gt_snapshot s;
    struct gt_diag d;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    uint32_t i, j;
    FILE *f;

    memset(&info, 0, sizeof(info));
    snprintf(info.device, sizeof(info.device), "bench");
    if (gt_snapshot_init(&s, cat->nslots) < 0)
        return -1;
    if (!(w = gt_capture_create(path, &info, cat, &d))) {
        fprintf(stderr, "bench: %s\n", d.msg);
        return -1;
    }
    for (i = 0; i < RECORDS; i++) {
        for (j = 0; j < s.nslots; j++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s.deltas[j] = x >> (40 + x % 24);
        }
        s.t_start_ns = 1000000000ull + i * 100000000ull;
        s.t_end_ns = s.t_start_ns + 100000000ull;
        s.nsamples = 1;
        if (gt_capture_write(w, &s, &d) < 0) {
            fprintf(stderr, "bench: %s\n", d.msg);
            return -1;
        }
    }
    gt_snapshot_free(&s);
    if (gt_capture_finish(w, &d) < 0) {
        fprintf(stderr, "bench: %s\n", d.msg);
        return -1;
    }
    if (!(f = fopen(path, "rb")))
        return -1;
    fseek(f, 0, SEEK_END);
    *bytes = ftell(f);
    fclose(f);
    return 0;
}

/* CPU seconds to open path and either index it or read it through. */
static double one_pass(const char *path, int index)
{
    struct gt_source_info info;
    struct gt_catalog cat;
    struct gt_snapshot s;
    struct gt_diag d;
    struct gt_capture_reader *r;
    uint64_t n = 0;
    double t0 = cpu_s(), t;

    gt_catalog_init(&cat);
    r = gt_capture_open(path, &info, &cat, &d);
    if (!r || gt_snapshot_init(&s, cat.nslots) < 0)
        return -1;
    if (index)
        gt_capture_index(r, &n, &d);
    else
        while (gt_capture_read(r, &s, &d) == 0)
            n++;
    t = cpu_s() - t0;
    gt_capture_close(r);
    gt_snapshot_free(&s);
    gt_catalog_free(&cat);
    return n == RECORDS ? t : -1;
}

/* CPU seconds to checksum the whole file in 1 MB blocks: the share of a
 * pass that is CRC-32. */
static double crc_pass(const char *path)
{
    static unsigned char buf[1 << 20];
    FILE *f = fopen(path, "rb");
    double t0 = cpu_s();
    uint32_t crc = 0;
    size_t got;

    if (!f)
        return -1;
    while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
        crc = gt_capture_crc32(crc, buf, got);
    fclose(f);
    return crc == 1 ? 0 : cpu_s() - t0;      /* crc used, so the loop stays */
}

int main(void)
{
    struct bench_setup b;
    const char *dir = getenv("TMPDIR");
    char path[256];
    double idx = 1e9, rd = 1e9, crc = 1e9, t;
    long bytes = 0;
    int i, fd;

    snprintf(path, sizeof(path), "%s/gputop-bench-XXXXXX", dir && dir[0] ? dir : "/tmp");
    fd = mkstemp(path);
    if (fd < 0 || bench_setup(&b, "mali-g715") < 0 || write_capture(path, &b.catalog, &bytes) < 0) {
        fprintf(stderr, "bench: cannot set up the capture\n");
        return 1;
    }
    close(fd);
    for (i = 0; i < ROUNDS; i++) {
        if ((t = one_pass(path, 0)) < 0 || (rd = t < rd ? t : rd, (t = one_pass(path, 1)) < 0)) {
            fprintf(stderr, "bench: a pass did not see %d records\n", RECORDS);
            unlink(path);
            return 1;
        }
        idx = t < idx ? t : idx;
        t = crc_pass(path);
        crc = t >= 0 && t < crc ? t : crc;
    }
    unlink(path);
    printf("capture: %d records of %u slots (%s), %.1f MB\n", RECORDS, b.catalog.nslots,
           b.layout->name, (double)bytes / 1e6);
    printf("read in order (baseline): %.1f ms, %.1f us a record, %.0f MB/s\n", rd * 1e3,
           rd * 1e6 / RECORDS, (double)bytes / 1e6 / rd);
    printf("index (dashboard replay, before the first record): %.1f ms, %.1f us a record\n",
           idx * 1e3, idx * 1e6 / RECORDS);
    printf("of which CRC-32 (the whole file on its own): %.1f ms, %.0f MB/s, %.0f%% of the read\n",
           crc * 1e3, (double)bytes / 1e6 / crc, 100 * crc / rd);
    printf("index / read: %.2fx; an hour at 10 Hz (36000 records) indexes in %.2f s\n", idx / rd,
           idx / RECORDS * 36000);
    return 0;
}
