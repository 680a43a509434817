/* bench/footprint.sh, which make bench runs, and its reducer
 * bench/tools/wake_pages.c: the distinct pages and lines of code and data
 * each wake-up touches, from valgrind lackey's trace between the wake-up
 * marks of bench's gputop-phases. The reducer is checked on a trace written
 * here, whose counts are worked out by hand; the script end to end. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);

    return v && *v ? v : fallback;
}

/* The reducer's line for a waker: wake-ups counted and the four medians. */
struct figures {
    long n;
    double code_pages, data_pages, code_lines, data_lines;
};

static void run_reducer(const char *trace, const char *skip, struct figures out[2])
{
    char path[] = "/tmp/gputop-wake-trace.XXXXXX", cmd[1024], line[256];
    FILE *f, *p;
    int fd = mkstemp(path), i;

    cr_assert_geq(fd, 0);
    f = fdopen(fd, "w");
    cr_assert_not_null(f);
    fputs(trace, f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "'%s' %s < '%s' 2>/dev/null",
             env_or("GPUTOP_WAKE_PAGES_BIN", "build/native/bench/wake_pages"), skip, path);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    for (i = 0; i < 2 && fgets(line, sizeof(line), p); i++) {
        char who[16];
        cr_assert_eq(sscanf(line, "%15s %ld %lf %lf %lf %lf", who, &out[i].n, &out[i].code_pages,
                            &out[i].data_pages, &out[i].code_lines, &out[i].data_lines),
                     6, "reducer printed '%s'", line);
        cr_assert_str_eq(who, i ? "display" : "sampler");
    }
    cr_assert_eq(pclose(p), 0, "wake_pages failed");
    unlink(path);
    cr_assert_eq(i, 2, "reducer printed %d lines, not 2", i);
}

/* One sampler wake-up, by hand: code at 0x401000 and 0x401004 share a
 * line, 0x401040 is the next line of the same page (2 lines, 1 page);
 * data: 0x7ff000 (line 0x7ff000), 8 bytes at 0x7ff03c run into the next
 * line 0x7ff040, and 8 bytes at 0x800ffc into the next page (lines
 * 0x800fc0 and 0x801000): 4 lines on pages 0x7ff, 0x800 and 0x801. The
 * accesses outside the marks, and the display's, are not the sampler's. */
static const char trace_one[] =
    "==42== Lackey\n"
    "I  00500000,4\n"
    "**42** gputop-wake 0 awake\n"
    "I  00401000,4\n"
    "I  00401004,3\n"
    "I  00401040,5\n"
    " L 007ff000,8\n"
    " S 007ff03c,8\n"
    " M 00800ffc,8\n"
    "**42** gputop-wake 0 asleep\n"
    " L 00900000,8\n"
    "**42** gputop-wake 1 awake\n"
    "I  00600000,2\n"
    " L 00a00000,4\n"
    " L 00b00000,4\n"
    "**42** gputop-wake 1 asleep\n";

Test(footprint, reducer_counts_distinct_pages_and_lines_by_hand)
{
    struct figures f[2];

    run_reducer(trace_one, "0", f);
    cr_assert_eq(f[0].n, 1);
    cr_assert_float_eq(f[0].code_pages, 1, 1e-9);
    cr_assert_float_eq(f[0].code_lines, 2, 1e-9);
    cr_assert_float_eq(f[0].data_pages, 3, 1e-9);
    cr_assert_float_eq(f[0].data_lines, 4, 1e-9);
    cr_assert_eq(f[1].n, 1);
    cr_assert_float_eq(f[1].code_pages, 1, 1e-9);
    cr_assert_float_eq(f[1].data_pages, 2, 1e-9);
    cr_assert_float_eq(f[1].data_lines, 2, 1e-9);
}

/* Three sampler wake-ups touching 1, 3 and 2 data pages: skipping the
 * first leaves 3 and 2 (median 2.5); each wake-up starts from nothing, so
 * a page touched in an earlier one counts again. */
Test(footprint, reducer_skips_start_up_and_counts_each_wake_up_afresh)
{
    static const char trace[] =
        "**1** gputop-wake 0 awake\n L 00001000,8\n**1** gputop-wake 0 asleep\n"
        "**1** gputop-wake 0 awake\n L 00001000,8\n L 00002000,8\n L 00003000,8\n"
        "**1** gputop-wake 0 asleep\n"
        "**1** gputop-wake 0 awake\n L 00001000,8\n L 00001008,8\n L 00002000,8\n"
        "**1** gputop-wake 0 asleep\n";
    struct figures f[2];

    run_reducer(trace, "1", f);
    cr_assert_eq(f[0].n, 2);
    cr_assert_float_eq(f[0].data_pages, 2.5, 1e-9);
    cr_assert_float_eq(f[0].data_lines, 2.5, 1e-9);
    cr_assert_eq(f[1].n, 0);
}

/* A wake-up left open (no asleep mark: the trace ends) is not counted. */
Test(footprint, reducer_leaves_out_an_unfinished_wake_up)
{
    static const char trace[] = "**1** gputop-wake 1 awake\n L 00001000,8\n";
    struct figures f[2];

    run_reducer(trace, "0", f);
    cr_assert_eq(f[1].n, 0);
}

Test(footprint, counts_what_each_wake_up_of_the_dashboard_touches, .timeout = 240)
{
    char cmd[1024], line[512], out[8192] = "";
    double s_code = -1, s_data = -1, s_cl = -1, s_dl = -1, d_code = -1, d_data = -1, d_cl = -1,
           d_dl = -1, s_sum = -1, d_sum = -1;
    double s_pages = -1, s_lines = -1, d_pages = -1, d_lines = -1;
    long s_n = -1, d_n = -1;
    FILE *p;
    int rc;

#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("valgrind cannot run an AddressSanitizer build");
#endif
    /* Ends once 3 wake-ups of each are counted after the first 2: under
     * lackey, on a machine busy with the rest of the suite, that can take
     * a minute or two. */
    snprintf(cmd, sizeof(cmd),
             "cd '%s' && BENCH_SECONDS=200 BENCH_WAKES=3 BENCH_SKIP=2 sh bench/footprint.sh '%s' 2>&1",
             env_or("GPUTOP_SRC", "."), env_or("GPUTOP_BIN", "build/native/gputop"));
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while (fgets(line, sizeof(line), p)) {
        if (strlen(out) + strlen(line) < sizeof(out))
            strcat(out, line);
        sscanf(line, "  a sampling round (%ld counted): %lf pages (code %lf, data %lf), %lf lines (code %lf, data %lf)",
               &s_n, &s_pages, &s_code, &s_data, &s_lines, &s_cl, &s_dl);
        sscanf(line, "  a refresh (%ld counted): %lf pages (code %lf, data %lf), %lf lines (code %lf, data %lf)",
               &d_n, &d_pages, &d_code, &d_data, &d_lines, &d_cl, &d_dl);
        if (strncmp(line, "summary: pages a sampling round touches\t", 40) == 0)
            s_sum = strtod(line + 40, NULL);
        if (strncmp(line, "summary: pages a refresh touches\t", 33) == 0)
            d_sum = strtod(line + 33, NULL);
    }
    rc = pclose(p);
    cr_assert_eq(rc, 0, "footprint.sh failed:\n%s", out);
    cr_assert_geq(s_n, 3, "%ld sampling rounds counted:\n%s", s_n, out);
    cr_assert_geq(d_n, 3, "%ld refreshes counted:\n%s", d_n, out);
    /* Every wake-up runs code and reads and writes data, and every page
     * touched holds at least one line touched. */
    cr_assert_gt(s_code, 0);
    cr_assert_gt(s_data, 0);
    cr_assert_gt(d_code, 0);
    cr_assert_gt(d_data, 0);
    cr_assert_geq(s_cl, s_code);
    cr_assert_geq(s_dl, s_data);
    cr_assert_geq(d_cl, d_code);
    cr_assert_geq(d_dl, d_data);
    /* Which thread a wake-up is told apart by its marks is the reducer's
     * tests' concern (above): the first few refreshes of a slow start may
     * redraw with no new sample and run less code than a sampling round. */
    cr_assert_float_eq(s_sum, s_code + s_data, 1e-6);
    cr_assert_float_eq(d_sum, d_code + d_data, 1e-6);
    cr_assert_float_eq(s_pages, s_sum, 1e-6);
    cr_assert_float_eq(d_pages, d_sum, 1e-6);
}
