/* The dashboard's fit and keys as a person meets them (issue 13 items 4, 5,
 * 6, 11): section names, narrow and wide terminals, the footer, editing
 * keys in their several encodings. The real binary in a tmux pane. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fakes/tmux.h"

#define WAIT_MS 8000
/* Without the clocks the simulator models: the widths these tests fit the
 * tabs and the triage panel into were measured on the layouts' own
 * sections (test_gpu_clocks.c shows the Power & clocks tab). */
#define T8XX "--source sim:mali-t8xx --no-cpu --no-clocks"

static void start(struct tmux *t, int cols, int rows, const char *env, const char *args)
{
    char cmd[1024];
    int found;
    char *s;

    snprintf(cmd, sizeof(cmd), "%s %s", gputop_bin(), args);
    cr_assert_eq(tmux_start(t, cols, rows, env, cmd), 0, "tmux did not start");
    /* The key hints: the header's "gputop" gives way on a narrow screen. */
    s = tmux_wait_for(t, "h help", WAIT_MS, &found);
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

/* The line holding needle, copied into out ("" if none). */
static void line_with(const char *s, const char *needle, char *out, size_t len)
{
    const char *p = strstr(s, needle), *b;

    out[0] = '\0';
    if (!p)
        return;
    for (b = p; b > s && b[-1] != '\n'; b--)
        ;
    snprintf(out, len, "%.*s", (int)strcspn(b, "\n"), b);
}

/* Columns from the start of a UTF-8 line to p: one per character. */
static int column_of(const char *line, const char *p)
{
    int n = 0;

    for (; line < p; line++)
        n += ((unsigned char)*line & 0xC0) != 0x80;
    return n;
}

/* Polls until the pane's command has ended; 1 if it did. */
static int ended(struct tmux *t)
{
    struct timespec ts = { 0, 50000000L };
    int i;

    for (i = 0; i < 160 && tmux_alive(t); i++)
        nanosleep(&ts, NULL);
    return !tmux_alive(t);
}

/* ---- item 4: sections by name ---- */

Test(tui_view, tabs_show_section_names_at_120_columns, .timeout = 60)
{
    struct tmux t;
    char line[1024], *s;

    start(&t, 120, 30, "", T8XX);
    expect(&t, "GPU usage");
    s = tmux_capture(&t);
    tmux_line_of(s, 1, line, sizeof(line));
    /* The layout's tab labels, roomy: " 2 Activity ". */
    cr_assert(strstr(line, " 2 Activity "), "the current tab by name:\n%s", s);
    cr_assert(strstr(line, " 1 CPU "), "other tabs by name:\n%s", s);
    cr_assert(strstr(line, " 3 Content "), "other tabs by name:\n%s", s);
    free(s);
    tmux_stop(&t);
}

/* At 80 columns the T8xx's eight labels still fit whole. */
Test(tui_view, tabs_keep_whole_labels_at_80_columns, .timeout = 60)
{
    struct tmux t;
    char line[1024], *s;

    start(&t, 80, 24, "", T8XX);
    expect(&t, "GPU usage");
    s = tmux_capture(&t);
    tmux_line_of(s, 1, line, sizeof(line));
    /* with the Processes tab after them, key and label set together */
    cr_assert(strstr(line, "1CPU ") && strstr(line, " 4Data path ") && strstr(line, " iConfig"),
              "tabs: '%s'", line);
    cr_assert(strstr(line, " 2Activity ") && strstr(line, " PProcs"), "tabs: '%s'", line);
    free(s);
    tmux_stop(&t);
}

/* The tabs' form follows the width alone (tabs.c): another current tab
 * moves nothing; another width fits them anew. */
Test(tui_view, tabs_fit_anew_for_another_width_not_another_tab, .timeout = 60)
{
    struct tmux t;
    char before[1024], after[1024], *s;

    start(&t, 80, 24, "", T8XX);
    expect(&t, "GPU usage");
    s = tmux_capture(&t);
    tmux_line_of(s, 1, before, sizeof(before));
    free(s);
    tmux_keys(&t, "3");
    expect(&t, "Geometry usage");
    s = tmux_capture(&t);
    tmux_line_of(s, 1, after, sizeof(after));
    free(s);
    cr_assert_str_eq(after, before, "the tabs moved with the current one");
    tmux_resize(&t, 200, 30);
    expect(&t, "4 Shader core data path ");
    tmux_stop(&t);
}

Test(tui_view, section_by_name_opens_it, .timeout = 60)
{
    struct tmux t;

    start(&t, 100, 30, "", T8XX " --section content");
    expect(&t, "Geometry usage");
    tmux_stop(&t);
}

Test(tui_view, metrics_pattern_filters_the_dashboard, .timeout = 60)
{
    struct tmux t;
    char *s;

    start(&t, 100, 30, "", T8XX " --section 'GPU activity' --metrics '*utilization*'");
    expect(&t, "Fragment queue utilization");
    s = tmux_capture(&t);
    cr_assert_null(strstr(s, "GPU active cycles"), "a metric the pattern leaves out:\n%s", s);
    free(s);
    tmux_stop(&t);
}

Test(tui_view, unknown_section_lists_the_valid_ones_and_fails, .timeout = 60)
{
    struct tmux t;
    char cmd[1024];

    /* Typed at a prompt: output a pane's command writes before tmux has
     * sized the window can be lost. */
    cr_assert_eq(tmux_start(&t, 300, 30, "", "PS1='PROMPT$ ' sh -i"), 0);
    expect(&t, "PROMPT$");
    snprintf(cmd, sizeof(cmd), "%s " T8XX " --section nope; echo EXIT=$?", gputop_bin());
    tmux_literal(&t, cmd);
    tmux_keys(&t, "Enter");
    expect(&t, "EXIT=1");
    expect(&t, "--section nope");
    expect(&t, "2 GPU activity");
    expect(&t, "i GPU configuration");
    tmux_stop(&t);
}

Test(tui_view, list_layouts_names_the_sections, .timeout = 60)
{
    char cmd[1024], line[4096];
    FILE *p;
    int found = 0;

    snprintf(cmd, sizeof(cmd), "%s --list-layouts", gputop_bin());
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while (fgets(line, sizeof(line), p))
        found |= strstr(line, "1 CPU performance") && strstr(line, "2 GPU activity") &&
                 strstr(line, "i GPU configuration");
    cr_assert_eq(pclose(p), 0);
    cr_assert(found, "no line lists the sections with their keys");
}

/* ---- item 5: narrow and wide ---- */

Test(tui_view, header_at_40x10_keeps_paused_and_the_period, .timeout = 60)
{
    struct tmux t;
    char line[512], *s;
    int found;

    start(&t, 40, 10, "", T8XX);
    expect(&t, "live");
    tmux_literal(&t, " ");
    s = tmux_wait_for(&t, "PAUSED", WAIT_MS, &found);
    cr_assert(found, "PAUSED lost at 40 columns:\n%s", s);
    tmux_line_of(s, 0, line, sizeof(line));
    cr_assert(strstr(line, "PAUSED") && strstr(line, " ms"), "header: '%s'", line);
    free(s);
    tmux_stop(&t);
}

/* A replay that has ended says so, however narrow the header. */
Test(tui_view, header_at_40x10_keeps_the_sources_state, .timeout = 60)
{
    const char *tmp = getenv("TMPDIR");
    char cap[300], cmd[1024], line[512], *s;
    struct tmux t;
    int found;

    snprintf(cap, sizeof(cap), "%s/gputop-tui-view-%d.cap", tmp && *tmp ? tmp : "/tmp",
             (int)getpid());
    snprintf(cmd, sizeof(cmd), "%s " T8XX " -b -n 3 -i 10ms --record %s >/dev/null",
             gputop_bin(), cap);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof(cmd), "--source replay:%s,speed=max --no-cpu", cap);
    start(&t, 40, 10, "", cmd);
    /* A replay's state is its position's: "ended: end of capture". */
    s = tmux_wait_for(&t, "ended:", WAIT_MS, &found);
    tmux_line_of(s, 0, line, sizeof(line));
    cr_assert(found && strstr(line, "ended: end of capture"), "header: '%s'", line);
    free(s);
    tmux_stop(&t);
    unlink(cap);
}

Test(tui_view, triage_verdict_survives_40_columns, .timeout = 60)
{
    struct tmux t;

    start(&t, 40, 10, "", "--source sim:mali-t8xx,scene=texture-bound --no-cpu");
    expect(&t, "texture-bound");
    tmux_stop(&t);
}

/* Issue 16: an idle GPU is called idle with the busy share that shows it,
 * not arithmetic-bound by a unit at 22 % of its few active cycles. */
Test(tui_view, triage_line_calls_the_idle_gpu_idle, .timeout = 60)
{
    struct tmux t;
    char *s;

    start(&t, 100, 24, "", "--source sim:mali-g720,scene=idle --no-cpu");
    expect(&t, "triage: idle");
    expect(&t, "GPU busy share of max-clock time");
    s = tmux_capture(&t);
    cr_assert_null(strstr(s, "-bound"), "a bound verdict on an idle GPU:\n%s", s);
    free(s);
    tmux_stop(&t);
}

/* A unit at 80 % or more with a busy core is named, with its load. */
Test(tui_view, triage_line_names_the_bound_unit_with_its_evidence, .timeout = 60)
{
    struct tmux t;

    start(&t, 120, 24, "", "--source sim:mali-g720,scene=arithmetic-bound --no-cpu");
    expect(&t, "triage: arithmetic-bound");
    expect(&t, "Execution core utilization");
    expect(&t, "arithmetic unit 8");
    tmux_stop(&t);
}

Test(tui_view, titles_are_not_cut_at_40_columns_when_room_is_left, .timeout = 60)
{
    struct tmux t;

    start(&t, 40, 12, "", T8XX);
    expect(&t, "  GPU active cycles ");
    /* A count has no bar: its title takes the bar's columns too. */
    expect(&t, "  Non-fragment queue acti");
    tmux_stop(&t);
}

Test(tui_view, values_stay_near_their_titles_at_200_columns, .timeout = 60)
{
    struct tmux t;
    char line[2048], *s, *pct;

    start(&t, 200, 40, "", T8XX);
    expect(&t, "Fragment queue utilization");
    expect(&t, " %");
    s = tmux_capture(&t);
    line_with(s, "  Fragment queue utilization", line, sizeof(line));
    pct = strrchr(line, '%');
    cr_assert_not_null(pct, "no value: '%s'", line);
    cr_assert_lt(column_of(line, pct), 120, "value at column %d:\n%s", column_of(line, pct), s);
    free(s);
    tmux_stop(&t);
}

/* ---- item 6: the footer ---- */

Test(tui_view, quit_hint_at_80x24_before_and_after_an_arrow_key, .timeout = 60)
{
    struct tmux t;

    start(&t, 80, 24, "", T8XX);
    expect(&t, "q quit");
    tmux_keys(&t, "Down");
    expect(&t, "3.1.2");                        /* the selected metric's line */
    expect(&t, "q quit");
    tmux_stop(&t);
}

Test(tui_view, footer_cuts_with_an_ellipsis_and_gives_min_max_units, .timeout = 60)
{
    struct tmux t;
    char line[1024], *s, *min;

    start(&t, 80, 24, "LC_ALL=C.UTF-8", T8XX);
    tmux_keys(&t, "Down");
    expect(&t, "3.1.2");
    expect(&t, "max ");
    s = tmux_capture(&t);
    line_with(s, "3.1.2", line, sizeof(line));
    cr_assert(strstr(line, "\u2026"), "a description cut without an ellipsis: '%s'", line);
    min = strstr(line, "min ");
    cr_assert_not_null(min, "no min / max: '%s'", line);
    /* per second, cycles read as a clock (issue 43 item 1) */
    cr_assert(strstr(min, "Hz"), "min / max without unit: '%s'", line);
    free(s);
    s = tmux_capture_styled(&t);
    line_with(s, "3.1.2", line, sizeof(line));
    cr_assert_null(strstr(line, "\033[34m"), "dark blue on black: '%s'", line);
    free(s);
    tmux_stop(&t);
}

/* ---- item 11: keys ---- */

/* tmux and PuTTY send Home and End as ESC [ 1 ~ and ESC [ 4 ~, which the
 * xterm entry does not list: they must not reach the section keys 1, 4. */
/* The footer of the last metric of the T8xx GPU activity section (gputop's
 * own "External memory bandwidth", which the triage tests). */
#define LAST_T8XX "per second (3.3.1 plus"

Test(tui_view, home_end_as_vt_sequences_move_the_selection, .timeout = 60)
{
    struct tmux t;
    char *s;

    start(&t, 100, 30, "TERM=xterm", T8XX);
    expect(&t, "GPU usage");
    tmux_literal(&t, "\033[4~");
    expect(&t, LAST_T8XX);                      /* End: the section's last metric */
    tmux_literal(&t, "\033[1~");
    expect(&t, "3.1.1");                        /* Home: its first */
    tmux_literal(&t, " ");
    expect(&t, "PAUSED");
    s = tmux_capture(&t);
    cr_assert(strstr(s, "GPU usage"), "left the section:\n%s", s);
    free(s);
    tmux_stop(&t);
}

/* rxvt's Home / End (ESC [ 7 ~, ESC [ 8 ~), PgDn, xterm's Ctrl-End and the
 * SS3 Home: each moves the selection, none switches to section 7 or 8. */
Test(tui_view, other_encodings_of_the_editing_keys, .timeout = 60)
{
    struct tmux t;
    char *s;

    start(&t, 100, 30, "TERM=xterm", T8XX);
    expect(&t, "3.1.1");
    tmux_literal(&t, "\033[1;5F");
    expect(&t, LAST_T8XX);
    tmux_literal(&t, "\033[7~");
    expect(&t, "3.1.1");
    tmux_literal(&t, "\033[6~");
    expect(&t, LAST_T8XX);
    tmux_literal(&t, "\033OH");
    expect(&t, "3.1.1");
    tmux_literal(&t, "\033[8~");
    expect(&t, LAST_T8XX);
    tmux_literal(&t, " ");
    expect(&t, "PAUSED");
    s = tmux_capture(&t);
    cr_assert(strstr(s, "GPU usage"), "left the section:\n%s", s);
    free(s);
    tmux_stop(&t);
}

/* A parameter past INT_MAX (found by fuzz_keys): ESC [ 4294967300 ~ is no
 * key; read into an int it wrapped to 4, End, and moved the selection. */
Test(tui_view, huge_csi_parameter_is_no_key, .timeout = 60)
{
    struct tmux t;
    char *s;

    start(&t, 100, 30, "TERM=xterm", T8XX);
    expect(&t, "3.1.1");
    tmux_literal(&t, "\033[4294967300~");
    tmux_literal(&t, " ");
    expect(&t, "PAUSED");
    s = tmux_capture(&t);
    cr_assert_null(strstr(s, LAST_T8XX), "the selection moved to the last metric:\n%s", s);
    cr_assert(strstr(s, "3.1.1"), "the selection left the first metric:\n%s", s);
    free(s);
    tmux_stop(&t);
}

Test(tui_view, f10_quits, .timeout = 60)
{
    struct tmux t;

    start(&t, 80, 24, "", T8XX);
    expect(&t, "GPU usage");
    tmux_keys(&t, "F10");
    cr_assert(ended(&t), "F10 did not quit");
    tmux_stop(&t);
}

Test(tui_view, n_and_enter_find_the_next_match, .timeout = 60)
{
    struct tmux t;

    start(&t, 100, 30, "", "--source sim:mali-g720 --no-cpu");
    tmux_literal(&t, "/latency");
    tmux_keys(&t, "Enter");
    expect(&t, "found: Output external read latency 0-127 cycles");
    tmux_literal(&t, "n");
    expect(&t, "found: Output external read latency 128-191 cycles");
    tmux_keys(&t, "Enter");
    expect(&t, "found: Output external read latency 192-255 cycles");
    tmux_stop(&t);
}

Test(tui_view, per_core_on_a_group_without_instances_says_so, .timeout = 60)
{
    struct tmux t;

    start(&t, 100, 30, "", T8XX);
    expect(&t, "GPU usage");
    tmux_literal(&t, "c");
    expect(&t, "no per-core data");
    tmux_stop(&t);
}

Test(tui_view, help_hides_what_is_behind_it, .timeout = 60)
{
    struct tmux t;
    char *s;

    start(&t, 120, 40, "", T8XX);
    expect(&t, "GPU usage");
    tmux_literal(&t, "h");
    expect(&t, "gputop keys");
    s = tmux_capture(&t);
    cr_assert_null(strstr(s, "GPU usage"), "the dashboard shows around the help:\n%s", s);
    cr_assert_null(strstr(s, "triage"), "the dashboard shows around the help:\n%s", s);
    free(s);
    tmux_stop(&t);
}

/* Issue 26: at 80x24 the panel keeps the deciding step on screen, the
 * arrow keys scroll to the first step, thresholds and values carry units,
 * and the shares name only verdicts that were held. */
Test(tui_view, triage_panel_at_80x24_scrolls_to_every_step, .timeout = 60)
{
    struct tmux t;
    char *s;

    start(&t, 80, 24, "", "--source sim:mali-g715,scene=core-under-used --no-clocks");
    expect(&t, "triage: core under-used");
    tmux_literal(&t, "v");
    expect(&t, ">15 core under-used (\u00a75.3.5)");
    expect(&t, "5.3.5 Execution core utilization   < 7"); /* 70 %, or 75 % held */
    s = tmux_capture(&t);
    cr_assert_null(strstr(s, " 1 GPU-bound at reduced clock"), "not scrolled:\n%s", s);
    cr_assert_null(strstr(s, " 0%"), "a share at 0 %%:\n%s", s);
    free(s);
    tmux_keys(&t, "Home");
    expect(&t, " 1 GPU-bound at reduced clock (\u00a73.2)");
    expect(&t, "GPU busy share at current clock    >= 9"); /* 95 %, or 90 % held */
    tmux_keys(&t, "Down");
    tmux_keys(&t, "Down");
    tmux_keys(&t, "Down");
    s = tmux_wait_for(&t, " 2 CPU-bound (\u00a72.1)", WAIT_MS, &(int){ 0 });
    cr_assert_null(strstr(s, " 1 GPU-bound at reduced clock"), "not scrolled down:\n%s", s);
    free(s);
    tmux_literal(&t, "x");
    expect(&t, "GPU usage");
    tmux_stop(&t);
}

/* A layout whose metrics cite a reference name (MaliFragQueueUtil), not a
 * guide's section: the test lines give the metric's whole title, which the
 * name would cut at 80 columns; the step's heading names the reference. */
Test(tui_view, triage_panel_tests_keep_their_titles_beside_reference_names, .timeout = 60)
{
    struct tmux t;
    char *s;

    /* 25 rows: at 24 the guide's next step, wrapped on two lines (issue
     * 43), leaves the step before the deciding one out of view */
    start(&t, 80, 25, "", "--source sim:mali-bifrost,scene=game --no-clocks");
    expect(&t, "triage: texture-bound");
    tmux_literal(&t, "v");
    expect(&t, "front-end-starved (MaliFragFPKBUtil)");
    expect(&t, "     Fragment queue utilization ");
    s = tmux_capture(&t);
    cr_assert_null(strstr(s, "MaliFragQueueUtil Fragment"), "a reference name before a title:\n%s", s);
    free(s);
    tmux_literal(&t, "x");
    tmux_stop(&t);
}

/* A G57 (no SHADER_CORE_ACTIVE) on the Valhall job-manager layout: the
 * G68/G78-form steps are 'step-if-available', shown dimmed as left out
 * rather than as steps without data, and the verdict is not provisional. */
Test(tui_view, triage_panel_says_which_steps_this_gpu_leaves_out, .timeout = 60)
{
    const char *src = getenv("GPUTOP_SRC");
    char args[512];
    struct tmux t;
    char *s;

    snprintf(args, sizeof(args), "--source csv:%s/tests/triage_cases/g57-texture-bound.csv,"
             "gpu=G57,maxclock=1000000000 --layout mali-valhall-jm", src ? src : ".");
    start(&t, 100, 50, "", args);
    expect(&t, "triage: texture-bound");
    tmux_literal(&t, "v");
    expect(&t, "12 unit-bound (Shader Core Unit Utilization): left out, not on this GPU");
    s = tmux_capture(&t);
    cr_assert_null(strstr(s, "provisional"), "a provisional verdict:\n%s", s);
    free(s);
    tmux_literal(&t, "x");
    tmux_stop(&t);
}

/* Issue 16: 'v' opens the triage panel with every step's tests, values and
 * results, the verdict's next step and the verdicts' shares; any key
 * closes it. */
Test(tui_view, triage_panel_shows_the_evidence_chain, .timeout = 60)
{
    struct tmux t;

    start(&t, 110, 40, "", "--source sim:mali-g720,scene=memory-bound --no-cpu");
    expect(&t, "triage: memory-stall-bound");
    tmux_literal(&t, "v");
    expect(&t, "held over the run: memory-stall-bound");
    expect(&t, "next (\u00a73.4.1): External reads stall");
    expect(&t, " 3 idle (\u00a73.2)");
    expect(&t, ">");
    expect(&t, "3.4.1 Output external read stall percentage");
    expect(&t, "holds");
    expect(&t, "not reached");
    tmux_keys(&t, "End");
    expect(&t, "no single limiter (\u00a73.2): when nothing above holds");
    tmux_literal(&t, "x");
    expect(&t, "GPU usage");
    tmux_stop(&t);
}
