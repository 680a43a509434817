/* The dashboard as a person uses it: the real binary in a tmux pane, keys
 * sent with send-keys, the screen read with capture-pane. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakes/tmux.h"
#include "gputop/layout.h"

#define WAIT_MS 8000

static void start(struct tmux *t, int cols, int rows, const char *env, const char *args)
{
    char cmd[1024];
    int found;
    char *s;

    snprintf(cmd, sizeof(cmd), "%s %s", gputop_bin(), args);
    cr_assert_eq(tmux_start(t, cols, rows, env, cmd), 0, "tmux did not start");
    /* The footer, which every dashboard frame draws: the header's
     * "gputop" is the first thing it drops when its figures need the room
     * (80 columns, a busy GPU), so a frame may well not show it. */
    s = tmux_wait_for(t, "q quit", WAIT_MS, &found);
    cr_assert(found, "the dashboard did not appear:\n%s", s);
    free(s);
}

static void expect(struct tmux *t, const char *text)
{
    int found;
    char *s = tmux_wait_for(t, text, WAIT_MS, &found);

    cr_assert(found, "'%s' not on screen:\n%s", text, s);
    free(s);
}

/* Everything the dashboard wrote, once its log holds the end: ncurses
 * leaves the terminal's full-screen mode (xterm's rmcup) as it exits. */
static char *logged_until_exit(struct tmux *t, size_t *n)
{
    int found;
    char *log = tmux_wait_raw(t, "\033[?1049l", WAIT_MS, n, &found);

    cr_assert(found, "the pane's log has no exit (%zu bytes)", *n);
    return log;
}

/* The first n characters of a title, as they fit in a narrow column. */
static void prefix(char *out, size_t len, const char *title, size_t n)
{
    snprintf(out, len, "%.*s", (int)(n < len - 1 ? n : len - 1), title);
}

Test(tui, every_section_by_hotkey_at_80x24, .timeout = 120)
{
    struct tmux t;
    struct gt_diag d;
    struct gt_layout *l = gt_layout_load("mali-t8xx", &d);
    char keys[8], want[40];
    size_t i, g;

    cr_assert_not_null(l, "%s", d.msg);
    start(&t, 80, 24, "", "--source sim:mali-t8xx --no-cpu");
    expect(&t, "GPU usage");                   /* starts on GPU activity */
    for (i = 0; i < l->nsections; i++) {
        const struct gt_section_def *s = &l->sections[i];
        const struct gt_group_def *gd = &l->groups[s->first];
        snprintf(keys, sizeof(keys), "%c", s->key);
        tmux_literal(&t, keys);
        expect(&t, gd->title);
        prefix(want, sizeof(want), l->metrics[gd->first].title, 24);
        expect(&t, want);
        for (g = s->first; g < s->first + s->count && g < s->first + 2; g++)
            expect(&t, l->groups[g].title);
    }
    tmux_stop(&t);
    gt_layout_free(l);
}

Test(tui, gpu_activity_fits_80x24_with_triage_line, .timeout = 60)
{
    struct tmux t;
    char *s;

    start(&t, 80, 24, "", "--source sim:mali-t8xx,scene=texture-bound --no-cpu");
    tmux_literal(&t, "2");
    expect(&t, "GPU usage");
    expect(&t, "triage: texture-bound");        /* the verdict, then its evidence */
    s = tmux_capture(&t);
    cr_assert(strstr(s, "utilization"), "queue utilisations visible without scrolling:\n%s", s);
    free(s);
    tmux_stop(&t);
}

Test(tui, help_pause_per_core_and_find, .timeout = 60)
{
    struct tmux t;

    start(&t, 100, 30, "", "--source sim:mali-t8xx --no-cpu");
    tmux_literal(&t, "h");
    expect(&t, "gputop keys");
    tmux_literal(&t, "x");                      /* any key closes help */
    tmux_literal(&t, " ");
    expect(&t, "PAUSED");
    tmux_literal(&t, " ");
    expect(&t, "live");
    tmux_literal(&t, "4");                      /* shader core data path */
    tmux_literal(&t, "c");
    expect(&t, "shader core 3");                /* Mali-T830 MP4 */
    tmux_literal(&t, "/");
    tmux_literal(&t, "texture filtering");
    tmux_keys(&t, "Enter");
    expect(&t, "found: Texture filtering cycles");
    tmux_stop(&t);
}

Test(tui, resize_to_40x10_and_200x60, .timeout = 60)
{
    struct tmux t;

    /* the full titles fit at 200 columns without the clocks tab */
    start(&t, 80, 24, "", "--source sim:mali-t8xx --no-cpu --no-clocks");
    tmux_resize(&t, 40, 10);
    expect(&t, " 2 ");
    cr_assert(tmux_alive(&t), "gputop died at 40x10");
    tmux_literal(&t, "5");
    tmux_resize(&t, 200, 60);
    expect(&t, "Shader core functional units");
    cr_assert(tmux_alive(&t), "gputop died at 200x60");
    tmux_resize(&t, 20, 5);
    tmux_resize(&t, 80, 24);
    expect(&t, "gputop");
    cr_assert(tmux_alive(&t));
    tmux_stop(&t);
}

Test(tui, q_leaves_the_shell_prompt_clean, .timeout = 60)
{
    struct tmux t;
    char cmd[1024], *s;
    int found;

    snprintf(cmd, sizeof(cmd), "PS1='PROMPT$ ' sh -i");
    cr_assert_eq(tmux_start(&t, 80, 24, "", cmd), 0);
    expect(&t, "PROMPT$");
    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-t8xx --no-cpu; echo EXIT=$?", gputop_bin());
    tmux_literal(&t, cmd);
    tmux_keys(&t, "Enter");
    expect(&t, "GPU usage");
    tmux_literal(&t, "q");
    s = tmux_wait_for(&t, "EXIT=0", WAIT_MS, &found);
    cr_assert(found, "no clean exit:\n%s", s);
    cr_assert_null(strstr(s, "GPU usage"), "dashboard left on screen:\n%s", s);
    free(s);
    tmux_stop(&t);
}

Test(tui, ascii_only_when_the_locale_is_not_utf8, .timeout = 60)
{
    struct tmux t;
    int non_ascii = 0;
    size_t i, n;
    char *log;

    start(&t, 80, 24, "LANG=C LC_ALL=C", "--source sim:mali-t8xx --no-cpu");
    tmux_literal(&t, "3");
    expect(&t, "Geometry usage");
    tmux_literal(&t, "h");
    expect(&t, "gputop keys");
    tmux_literal(&t, "q");
    log = logged_until_exit(&t, &n);
    for (i = 0; i < n; i++)
        non_ascii += (unsigned char)log[i] >= 0x80;
    free(log);
    cr_assert_gt(n, 100);
    cr_assert_eq(non_ascii, 0, "%d non-ASCII bytes reached the terminal", non_ascii);
    tmux_stop(&t);
}

Test(tui, stdout_to_a_pipe_prints_batch_output, .timeout = 60)
{
    char cmd[1024], line[65536];
    FILE *p;
    int lines = 0, header = 0;

    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-t8xx,step=100000000 --no-cpu -n 3 -f csv | cat",
             gputop_bin());
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while (fgets(line, sizeof(line), p)) {
        header += strncmp(line, "time_s,interval_s,", 18) == 0;
        lines++;
    }
    cr_assert_eq(pclose(p), 0);
    cr_assert_eq(header, 1);
    cr_assert_eq(lines, 4);
}

/* Everything after the first line (the header, whose clock ticks). */
static const char *below_header(const char *s)
{
    const char *nl = strchr(s, '\n');

    return nl ? nl + 1 : s;
}

/* Only changed cells are sent each refresh: after many such refreshes the
 * screen, colours included, must be what a full repaint draws. */
Test(tui, incremental_updates_equal_a_full_repaint, .timeout = 60)
{
    struct tmux t;
    char *inc, *full;
    struct timespec pause = { 1, 500000000L };

    start(&t, 100, 30, "", "--source sim:mali-g720,scene=cycle --no-cpu -i 20ms -r 50ms");
    tmux_literal(&t, "5");                      /* a section with bars of every level */
    nanosleep(&pause, NULL);
    tmux_literal(&t, "c");
    nanosleep(&pause, NULL);
    tmux_literal(&t, " ");
    expect(&t, "PAUSED");
    inc = tmux_capture_styled(&t);
    tmux_keys(&t, "C-l");
    nanosleep(&pause, NULL);
    full = tmux_capture_styled(&t);
    cr_assert_str_eq(below_header(inc), below_header(full),
                     "incremental screen differs from a repaint:\n%s\n----\n%s", inc, full);
    free(inc);
    free(full);
    tmux_stop(&t);
}

Test(tui, ctrl_z_suspends_and_fg_resumes, .timeout = 60)
{
    struct tmux t;
    char cmd[1024];

    cr_assert_eq(tmux_start(&t, 80, 24, "", "PS1='PROMPT$ ' sh -i"), 0);
    expect(&t, "PROMPT$");
    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-t8xx --no-cpu", gputop_bin());
    tmux_literal(&t, cmd);
    tmux_keys(&t, "Enter");
    expect(&t, "GPU usage");
    tmux_keys(&t, "C-z");
    expect(&t, "Stopped");
    tmux_literal(&t, "fg");
    tmux_keys(&t, "Enter");
    /* Redrawn at once, with data: the group title, not the triage line's
     * "no data yet" of the first frame. */
    expect(&t, "GPU usage");
    expect(&t, "live");
    tmux_literal(&t, "q");
    tmux_literal(&t, "echo EXIT=$?");
    tmux_keys(&t, "Enter");
    expect(&t, "EXIT=0");
    tmux_stop(&t);
}

/* SGR sequences (ESC [ params m) that set a foreground or background
 * colour: 30-38, 40-48, 90-97, 100-107 (39 and 49, the defaults, are not). */
static int colour_sgrs(const char *s)
{
    int n = 0;

    while ((s = strstr(s, "\033[")) != NULL) {
        const char *p = s + 2, *end = p;
        while (*end && (*end == ';' || (*end >= '0' && *end <= '9')))
            end++;
        if (*end == 'm')
            while (p < end) {
                long v = strtol(p, (char **)&p, 10);
                n += (v >= 30 && v <= 38) || (v >= 40 && v <= 48) || (v >= 90 && v <= 107);
                if (*p == ';')
                    p++;
                else
                    break;
            }
        s = end;
    }
    return n;
}

Test(tui, no_color_sends_no_colour_sequences, .timeout = 60)
{
    struct tmux t;
    char *log;
    size_t n;

    start(&t, 80, 24, "NO_COLOR=1", "--source sim:mali-t8xx --no-cpu");
    expect(&t, "GPU usage");                  /* the first section is up */
    tmux_keys(&t, "C-l");                       /* all of it again, into the raw log */
    tmux_literal(&t, "h");
    expect(&t, "gputop keys");
    tmux_literal(&t, "q");
    log = logged_until_exit(&t, &n);
    cr_assert_gt(n, 100);
    cr_assert_eq(colour_sgrs(log), 0, "a foreground colour was set");
    cr_assert_not_null(strstr(log, "\033[7m"), "reverse video still marks the header");
    free(log);
    tmux_stop(&t);
}

/* A click on a tab, as xterm reports it in SGR mouse mode. */
Test(tui, mouse_click_on_a_tab, .timeout = 60)
{
    struct tmux t;

    start(&t, 120, 30, "", "--source sim:mali-t8xx --no-cpu");
    expect(&t, "GPU usage");                  /* the first section is up */
    /* Narrow tabs are " 1 ", " 2 ", ...: a press and release on column 1
     * of row 1, in the encoding ncurses asks for (mode 1000: ESC [ M, then
     * button, column and row, each plus 32, 1-based). */
    tmux_literal(&t, "\033[M !\"\033[M#!\"");
    expect(&t, "CPU activity");
    tmux_stop(&t);
}

/* CPU time of a process so far, in ms, summed over its threads
 * (/proc/PID/task/TID/schedstat, first field, in ns). */
static double cpu_ms(int pid)
{
    char path[300], line[128];
    struct dirent *e;
    double ms = 0;
    DIR *d;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/task", pid);
    d = opendir(path);
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", pid, e->d_name);
        f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(line, sizeof(line), f))
            ms += strtod(line, NULL) / 1e6;
        fclose(f);
    }
    closedir(d);
    return ms;
}

/* A keyboard at end of file (stdin from /dev/null, a closed pty) is left
 * alone, not polled in a loop: the dashboard keeps running, idle. */
Test(tui, a_keyboard_at_end_of_file_is_not_spun_on, .timeout = 60)
{
    struct tmux t;
    char cmd[1024];
    struct timespec two = { 2, 0 };
    double before;
    int pid;

    snprintf(cmd, sizeof(cmd), "exec %s --source sim:mali-t8xx --no-cpu < /dev/null",
             gputop_bin());
    cr_assert_eq(tmux_start(&t, 80, 24, "", cmd), 0);
    expect(&t, "GPU usage");                  /* the first section is up */
    pid = tmux_pane_pid(&t);
    cr_assert_gt(pid, 0);
    before = cpu_ms(pid);
    nanosleep(&two, NULL);
    /* A spin takes the whole 2000 ms; the dashboard takes a few. */
    cr_assert_lt(cpu_ms(pid) - before, 1000.0, "%.0f ms of CPU in 2 s", cpu_ms(pid) - before);
    cr_assert(tmux_alive(&t));
    tmux_stop(&t);
}

/* The header says how busy the GPU is and at what clock, and the sim's
 * scene. Game on the G720 model: P_BUSY 0.97 and P_DVFS at the 0.99 cap,
 * each +-4 %, the clock +-1 %, so 93..100 % busy at 950..999 MHz. */
Test(tui, header_shows_busy_share_clock_and_scene, .timeout = 60)
{
    struct tmux t;

    start(&t, 160, 24, "", "--source sim:mali-g720,scene=game --no-cpu");
    expect(&t, "sim \u00b7 scene: game");
    expect(&t, "% busy @ 9");
    expect(&t, " MHz");
    tmux_stop(&t);
}

/* scene=cycle walks idle, ui, game, ... every 8 s of the sim's time; with
 * step= one 100 ms sample is one virtual second, so each scene shows for
 * about 0.8 s of real time. */
Test(tui, header_follows_the_scene_cycle, .timeout = 60)
{
    struct tmux t;

    start(&t, 160, 24, "", "--source sim:mali-g720,step=1000000000 -i 100 --no-cpu");
    expect(&t, "sim \u00b7 scene cycle: ui");
    expect(&t, "sim \u00b7 scene cycle: game");
    tmux_stop(&t);
}

/* On 80 columns the whole line does not fit: the scene gives way, the
 * busy share and the state stay (issue 28); wider, the scene comes back. */
Test(tui, header_extras_give_way_on_a_narrow_screen, .timeout = 60)
{
    struct tmux t;
    char *s;

    start(&t, 80, 24, "", "--source sim:mali-g720,scene=texture-bound --no-cpu");
    expect(&t, "-bound");                       /* data has arrived */
    tmux_literal(&t, " ");
    expect(&t, "PAUSED");
    s = tmux_capture(&t);
    cr_assert(strstr(s, "% busy @"), "the busy share on 80 columns:\n%s", s);
    cr_assert(!strstr(s, "scene:"), "no scene on 80 columns:\n%s", s);
    free(s);
    tmux_resize(&t, 160, 24);
    expect(&t, "% busy @ 9");
    expect(&t, "scene: texture-bound");
    tmux_stop(&t);
}

/* Polls the pane until text is gone from its first line (the header). */
static void expect_header_without(struct tmux *t, const char *text)
{
    struct timespec ts = { 0, 50000000L };
    int waited;
    char *s = NULL, *nl;

    for (waited = 0; waited <= WAIT_MS; waited += 50) {
        free(s);
        s = tmux_capture(t);
        nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        if (!strstr(s, text))
            break;
        nanosleep(&ts, NULL);
    }
    cr_assert(!strstr(s, text), "'%s' still in the header:\n%s", text, s);
    free(s);
}

/* A resize is followed however it falls, with no key after it. Drawing
 * every 10 ms the dashboard is often out of poll() when SIGWINCH comes
 * (on a loaded machine more so); such a resize used to wait for the next
 * key, here for ever. The scene shows at 160 columns, not at 80. */
Test(tui, every_resize_is_followed_without_a_key, .timeout = 120)
{
    struct tmux t;
    int i;

    start(&t, 80, 24, "", "--source sim:mali-g720,scene=texture-bound --no-cpu -i 10ms -r 10ms");
    expect(&t, "% busy @");
    for (i = 0; i < 20; i++) {
        tmux_resize(&t, i % 2 ? 80 : 160, 24);
        if (i % 2)
            expect_header_without(&t, "scene:");
        else
            expect(&t, "scene: texture-bound");
    }
    tmux_stop(&t);
}
