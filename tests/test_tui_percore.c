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
    const char *p = strstr(screen, "[min ");
    const char *q = p ? strstr(p, " max ") : NULL;

    if (!p || !q)
        return 0;
    *mn = parse_si(p + 5);
    *mx = parse_si(q + 5);
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
    free(expect(&t, "1000 ms"));
    tmux_keys(&t, "Down");
    tmux_keys(&t, "Up");                        /* the footer shows min / max again */
    /* Poll until five new samples (the last ones a second long) have
     * entered the sparkline. */
    for (polls = 0; polls < 600 && changes < 6; polls++) {
        s = tmux_capture(&t);
        line_with(s, "GPU active cycles", row, sizeof(row));
        if (strcmp(row, last) != 0) {
            snprintf(last, sizeof(last), "%s", row);
            changes++;
        }
        free(s);
        usleep(50000);
    }
    cr_assert_geq(changes, 6, "the sparkline did not move: %s", last);
    s = tmux_capture(&t);
    cr_assert(footer_min_max(s, &mn, &mx), "no min / max in the footer:\n%s", s);
    /* The scene holds within a few percent; a 10x jump is the bug. */
    cr_assert(mn > 0 && mx / mn < 1.5, "min %g max %g across the period change:\n%s", mn, mx, s);
    free(s);
    tmux_stop(&t);
}
