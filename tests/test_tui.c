/* The dashboard as a person uses it: the real binary in a tmux pane, keys
 * sent with send-keys, the screen read with capture-pane. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    s = tmux_wait_for(t, "gputop", WAIT_MS, &found);
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
    expect(&t, "triage");                      /* starts on GPU activity */
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

    start(&t, 80, 24, "", "--source sim:mali-t8xx,scene=game --no-cpu");
    tmux_literal(&t, "2");
    expect(&t, "GPU usage");
    expect(&t, "-bound");                       /* the verdict after the arrow */
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
    expect(&t, "instance 3");                   /* Mali-T830 MP4 */
    tmux_literal(&t, "/");
    tmux_literal(&t, "texture filtering");
    tmux_keys(&t, "Enter");
    expect(&t, "found: Texture filtering cycles");
    tmux_stop(&t);
}

Test(tui, resize_to_40x10_and_200x60, .timeout = 60)
{
    struct tmux t;

    start(&t, 80, 24, "", "--source sim:mali-t8xx --no-cpu");
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
    expect(&t, "triage");
    tmux_literal(&t, "q");
    s = tmux_wait_for(&t, "EXIT=0", WAIT_MS, &found);
    cr_assert(found, "no clean exit:\n%s", s);
    cr_assert_null(strstr(s, "triage"), "dashboard left on screen:\n%s", s);
    free(s);
    tmux_stop(&t);
}

Test(tui, ascii_only_when_the_locale_is_not_utf8, .timeout = 60)
{
    struct tmux t;
    FILE *f;
    int c, non_ascii = 0;
    long n = 0;

    start(&t, 80, 24, "LANG=C LC_ALL=C", "--source sim:mali-t8xx --no-cpu");
    tmux_literal(&t, "3");
    expect(&t, "Content behavior");
    tmux_literal(&t, "h");
    expect(&t, "gputop keys");
    tmux_literal(&t, "q");
    f = fopen(t.raw, "rb");
    cr_assert_not_null(f, "no raw pane output at %s", t.raw);
    while ((c = getc(f)) != EOF) {
        n++;
        non_ascii += c >= 0x80;
    }
    fclose(f);
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
