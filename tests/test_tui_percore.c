/* The dashboard's per-core view and its history across a change of the
 * sampling period, as a person sees them: the real binary under tmux. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakes/tmux.h"

#define WAIT_MS 8000

static void start(struct tmux *t, int cols, int rows, const char *args)
{
    char cmd[1024];
    int found;
    char *s;

    snprintf(cmd, sizeof(cmd), "%s %s", gputop_bin(), args);
    cr_assert_eq(tmux_start(t, cols, rows, "", cmd), 0, "tmux did not start");
    s = tmux_wait_for(t, "gputop", WAIT_MS, &found);
    cr_assert(found, "the dashboard did not appear:\n%s", s);
    free(s);
}

static char *expect(struct tmux *t, const char *text)
{
    int found;
    char *s = tmux_wait_for(t, text, WAIT_MS, &found);

    cr_assert(found, "'%s' not on screen:\n%s", text, s);
    return s;
}

/* "79.8M" as 79.8e6; NaN when it is not a number. */
static double parse_si(const char *p)
{
    char *end;
    double v = strtod(p, &end);

    if (end == p)
        return NAN;
    switch (*end) {
    case 'k': return v * 1e3;
    case 'M': return v * 1e6;
    case 'G': return v * 1e9;
    case 'T': return v * 1e12;
    }
    return v;
}

/* The footer's "[min A max B]" of the selected metric; 0 when absent. */
static int footer_min_max(const char *screen, double *mn, double *mx)
{
    const char *p = strstr(screen, "  min ");
    const char *q = p ? strstr(p, "  max ") : NULL;

    if (!p || !q)
        return 0;
    *mn = parse_si(p + 6);
    *mx = parse_si(q + 6);
    return !isnan(*mn) && !isnan(*mx);
}

/* The line holding text, copied into out. */
static void line_with(const char *screen, const char *text, char *out, size_t len)
{
    const char *p = strstr(screen, text), *b, *e;

    out[0] = '\0';
    if (!p)
        return;
    for (b = p; b > screen && b[-1] != '\n'; b--)
        ;
    e = strchr(p, '\n');
    snprintf(out, len, "%.*s", (int)(e ? e - b : (long)strlen(b)), b);
}

/* The levels (0-7) of the sparkline's cells (U+2581..U+2588, E2 96 81..88
 * in UTF-8), as many as it has (its width follows the terminal's). */
static int spark_levels(const char *line, int *lv, int max)
{
    const unsigned char *p = (const unsigned char *)line;
    int n = 0;

    for (; *p; p++)
        if (p[0] == 0xE2 && p[1] == 0x96 && p[2] >= 0x81 && p[2] <= 0x88 && n < max) {
            lv[n++] = p[2] - 0x81;
            p += 2;
        }
    return n;
}

/* A step up: the oldest columns at the bottom, the newest at the top, as
 * ▁▁▁▁▁▂▄█████ after a tenfold longer period. */
static int spikes(const char *line)
{
    int lv[256], i, n = spark_levels(line, lv, 256);

    if (n < 7)
        return 0;
    for (i = 0; i < 4; i++)
        if (lv[i] > 1)
            return 0;
    for (i = n - 3; i < n; i++)
        if (lv[i] < 6)
            return 0;
    return 1;
}

/* A steady scene sampled every 100 ms, then every second ('-' three
 * times): the counts per interval grow tenfold, but history, min / max
 * and the sparkline compare like with like, so no spike appears. */
Test(tui_percore, period_change_leaves_history_comparable, .timeout = 120)
{
    struct tmux t;
    char row[512], last[512] = "";
    double mn = NAN, mx = NAN;
    int changes = 0, polls;
    char *s;

    start(&t, 220, 30, "--source sim:mali-g715,scene=compute,seed=3 --no-cpu");
    s = expect(&t, "GPU active cycles");
    free(s);
    tmux_keys(&t, "-- - - -");                  /* 100 ms, 200 ms, 500 ms, 1 s */
    free(expect(&t, "sampling every 1 s"));
    tmux_keys(&t, "Down");
    tmux_keys(&t, "Up");                        /* the footer shows min / max again */
    /* Poll until seven new samples (the last ones a second long) have
     * entered the sparkline. */
    for (polls = 0; polls < 600 && changes < 8; polls++) {
        s = tmux_capture(&t);
        line_with(s, "GPU active cycles", row, sizeof(row));
        if (strcmp(row, last) != 0) {
            snprintf(last, sizeof(last), "%s", row);
            changes++;
        }
        free(s);
        usleep(50000);
    }
    cr_assert_geq(changes, 8, "the sparkline did not move: %s", last);
    s = tmux_capture(&t);
    line_with(s, "GPU active cycles", row, sizeof(row));
    /* A spike squeezes everything before it into the lowest level: ▁▁▁▁▁▁▁██ */
    cr_assert(!spikes(row), "the sparkline spikes: %s", row);
    cr_assert(footer_min_max(s, &mn, &mx), "no min / max in the footer:\n%s", s);
    /* The scene holds within a few percent; a 10x jump is the bug. */
    cr_assert(mn > 0 && mx / mn < 1.5, "min %g max %g across the period change:\n%s", mn, mx, s);
    free(s);
    tmux_stop(&t);
}

/* Column where the value of the line holding text starts: the first digit
 * after the title. */
static int value_column(const char *line, const char *title)
{
    const char *p = strstr(line, title);
    const char *q;

    if (!p)
        return -1;
    for (q = p + strlen(title); *q && !(*q >= '0' && *q <= '9'); q++)
        ;
    return *q ? (int)(q - line) : -1;
}

/* Columns of text up to byte offset n (UTF-8: one column a character). */
static int columns(const char *s, int n)
{
    int c = 0, i;

    for (i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* Polls until the line holding title shows a number after it. */
static void wait_for_value(struct tmux *t, const char *title)
{
    char line[512], *s = NULL;
    int tries;

    for (tries = 0; tries < WAIT_MS / 50; tries++) {
        free(s);
        s = tmux_capture(t);
        line_with(s, title, line, sizeof(line));
        if (value_column(line, title) >= 0)
            break;
        usleep(50000);
    }
    cr_assert_lt(tries, WAIT_MS / 50, "no value for '%s':\n%s", title, s);
    free(s);
}

/* A G715 MC7 (core mask 0x177) and its two L2 slices, in the per-core
 * view: rows named by what they are, with physical core numbers; a count's
 * rows are each instance's own count, so the slices add up to the total;
 * the values sit in the metric's own value column. */
Test(tui_percore, rows_are_named_and_add_up, .timeout = 60)
{
    struct tmux t;
    char metric[512], s0[512], s1[512];
    double total, a, b;
    char *s;

    start(&t, 100, 40, "--source sim:mali-g715,scene=game --no-cpu");
    tmux_literal(&t, "/");
    tmux_literal(&t, "Output external read bytes");
    tmux_keys(&t, "Enter");
    tmux_literal(&t, "c");
    free(expect(&t, "L2 slice 1"));
    wait_for_value(&t, "L2 slice 1");           /* a sample has arrived */
    tmux_literal(&t, " ");                      /* pause: one snapshot on screen */
    s = expect(&t, "PAUSED");
    cr_assert_null(strstr(s, "instance"), "rows say 'instance':\n%s", s);
    line_with(s, "  Output external read bytes", metric, sizeof(metric));
    line_with(s, "L2 slice 0", s0, sizeof(s0));
    line_with(s, "L2 slice 1", s1, sizeof(s1));
    total = parse_si(metric + value_column(metric, "bytes") );
    a = parse_si(s0 + value_column(s0, "slice 0"));
    b = parse_si(s1 + value_column(s1, "slice 1"));
    /* Three significant digits on screen: within 1 % */
    cr_assert(fabs(a + b - total) <= 0.01 * total, "slices %g + %g, total %g:\n%s", a, b, total, s);
    cr_assert_eq(columns(s0, value_column(s0, "slice 0")), columns(metric, value_column(metric, "bytes")),
                 "values out of line:\n%s\n%s", metric, s0);
    free(s);
    tmux_literal(&t, " ");
    tmux_literal(&t, "4");                      /* shader core data path, still per core */
    s = expect(&t, "shader core 8");
    cr_assert(strstr(s, "shader core 4") && strstr(s, "shader core 6"), "%s", s);
    cr_assert_null(strstr(s, "shader core 3"), "core 3 is fused off (mask 0x177):\n%s", s);
    cr_assert_null(strstr(s, "shader core 7"), "core 7 is fused off (mask 0x177):\n%s", s);
    free(s);
    free(expect(&t, "shader cores: min "));
    tmux_stop(&t);
}

/* At 80 columns a 12-core G720 fits its cores as a strip, several per
 * line, with min / max / spread above. */
Test(tui_percore, many_cores_make_a_strip, .timeout = 60)
{
    struct tmux t;
    char spread[512];
    const char *p;
    int lines = 0;
    char *s;

    start(&t, 80, 30, "--source sim:mali-g720,scene=game --no-cpu");
    tmux_literal(&t, "4");
    tmux_literal(&t, "c");
    s = expect(&t, "shader cores: min ");
    cr_assert_null(strstr(s, "shader core 11"), "one row per core:\n%s", s);
    line_with(s, "shader cores: min ", spread, sizeof(spread));
    cr_assert(strstr(spread, "max ") && strstr(spread, "spread "), "%s", spread);
    /* Strip lines follow: indented, starting with a core number. */
    p = strstr(s, spread) + strlen(spread) + 1;
    while (strncmp(p, "    ", 4) == 0 && p[strspn(p, " ")] >= '0' && p[strspn(p, " ")] <= '9') {
        const char *e = strchr(p, '\n');
        lines++;
        if (!e)
            break;
        p = e + 1;
    }
    cr_assert(lines >= 2 && lines <= 4, "12 cores in %d strip lines:\n%s", lines, s);
    cr_assert(strstr(s, " 11 "), "core 11 missing from the strip:\n%s", s);
    free(s);
    tmux_stop(&t);
}

/* The header and first record of a batch run of the G715 sim. */
/* A CSV row without its third field, time_unix (the wall clock, which
 * these tests do not read). */
static void drop_wall_time(char *rec)
{
    char *a = strchr(rec, ','), *b = a ? strchr(a + 1, ',') : NULL, *c = b ? strchr(b + 1, ',') : NULL;

    if (c)
        memmove(b, c, strlen(c) + 1);
}

static void batch_lines(const char *metrics, char *head, size_t hlen, char *rec, size_t rlen)
{
    char cmd[1024];
    FILE *p;

    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-g715,scene=game --no-cpu -b -f csv -n 1 "
             "--per-core --metrics '%s'", gputop_bin(), metrics);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(head, (int)hlen, p), "%s: no header", cmd);
    cr_assert_not_null(fgets(rec, (int)rlen, p), "%s: no record", cmd);
    pclose(p);
}

/* --per-core end to end: the sim's core mask (0x177) reaches the batch
 * columns, and the two slices' bytes add up to the total exactly. */
Test(percore_batch, csv_columns_from_the_real_binary, .timeout = 60)
{
    char head[8192], rec[8192];
    double t, dt, total, s0, s1;

    batch_lines("Output external read bytes", head, sizeof(head), rec, sizeof(rec));
    cr_assert_str_eq(head, "time_s,interval_s,time_unix,Output external read bytes [bytes],"
                           "Output external read bytes [L2 slice 0] [bytes],"
                           "Output external read bytes [L2 slice 1] [bytes],triage (held),triage (this interval)\n");
    drop_wall_time(rec);
    cr_assert_eq(sscanf(rec, "%lf,%lf,%lf,%lf,%lf", &t, &dt, &total, &s0, &s1), 5, "%s", rec);
    cr_assert(total > 0 && s0 + s1 == total, "%s", rec);
    batch_lines("Fragment warps", head, sizeof(head), rec, sizeof(rec));
    cr_assert(strstr(head, ",Fragment warps [shader core 8] [warps],triage (held),triage (this interval)\n"), "%s", head);
    cr_assert(strstr(head, ",Fragment warps [shader core 4] [warps],"), "%s", head);
    cr_assert_null(strstr(head, "shader core 3"), "%s", head);
}

/* The Mali source against the fake kbase (a G715 with the sparse core
 * mask 0xEF: cores 0-3 and 5-7): the cores the kernel lays out in mask
 * order reach the columns under their physical numbers. Logical core 4 is
 * physical core 5, logical 6 is core 7. */
Test(percore_batch, fake_kbase_cores_by_physical_number, .timeout = 60)
{
    const char *fake = getenv("GPUTOP_FAKE_BIN");
    char cmd[1024], head[8192] = "", rec[8192] = "", want[512];
    double v[10];
    FILE *p;
    int n;

    snprintf(cmd, sizeof(cmd), "%s G715 csf 1.21 3:4:9=100 3:6:9=300 -- -b -f csv -n 1 --no-cpu "
             "--per-core --metrics 'Fragment warps'",
             fake ? fake : "build/native/tests/gputop-fake");
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(head, sizeof(head), p), "%s: no header", cmd);
    cr_assert_not_null(fgets(rec, sizeof(rec), p), "%s: no record", cmd);
    pclose(p);
    snprintf(want, sizeof(want), "time_s,interval_s,time_unix,Fragment warps [warps],"
             "Fragment warps [shader core 0] [warps],Fragment warps [shader core 1] [warps],"
             "Fragment warps [shader core 2] [warps],Fragment warps [shader core 3] [warps],"
             "Fragment warps [shader core 5] [warps],Fragment warps [shader core 6] [warps],"
             "Fragment warps [shader core 7] [warps],triage (held),triage (this interval)\n");
    cr_assert_str_eq(head, want);
    drop_wall_time(rec);
    n = sscanf(rec, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &v[6], &v[7], &v[8], &v[9]);
    cr_assert_eq(n, 10, "%s", rec);
    /* G715: shader cores averaged, (100 + 300) / 7 per core; each column
     * its core's own count (six significant digits: 57.1429) */
    cr_assert_float_eq(v[2], 400.0 / 7, 1e-4, "%s", rec);
    cr_assert(v[3] == 0 && v[4] == 0 && v[5] == 0 && v[6] == 0 && v[8] == 0, "%s", rec);
    cr_assert_eq(v[7], 100, "%s", rec);
    cr_assert_eq(v[9], 300, "%s", rec);
}
