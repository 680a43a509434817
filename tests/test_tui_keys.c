/* The key table (src/ui/actions.c) against the real binary's screen: the
 * help overlay lists every row of it, and the footer's hints are its rows
 * marked for them, in their order. The binary runs in a tmux pane wide
 * enough that no help line wraps. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakes/tmux.h"
#include "../src/ui/tui_internal.h"

#define WAIT_MS 10000

static char *wait_for(struct tmux *t, const char *text)
{
    int found;
    char *s = tmux_wait_for(t, text, WAIT_MS, &found);

    cr_assert(found, "'%s' not on screen:\n%s", text, s);
    return s;
}

/* The named row a row belongs to: itself, or the nearest named one above. */
static const struct tui_binding *group_of(const struct tui_binding *b, size_t i)
{
    while (i > 0 && !b[i].name)
        i--;
    return &b[i];
}

static int in_mode(const struct tui_binding *b, enum tui_mode mode)
{
    return b->mode == TUI_ANY || b->mode == mode;
}

/* "name", blanks, "note" on one line of the screen; a joined row after
 * ";  ". */
static int listed(const char *screen, const struct tui_binding *b)
{
    char want[256];
    const char *p = screen;
    size_t n;

    snprintf(want, sizeof(want), "%s%s", b->join ? ";  " : "  ", b->name);
    n = strlen(want);
    while ((p = strstr(p, want)) != NULL) {
        const char *q = p + n;
        if (!b->note)
            return 1;
        if (*q == ' ') {
            while (*q == ' ')
                q++;
            if (strncmp(q, b->note, strlen(b->note)) == 0)
                return 1;
        }
        p++;
    }
    return 0;
}

/* Every row in force in mode is on the help overlay, by its group's name
 * and note; rows in force elsewhere are not. */
static void check_help(const char *screen, enum tui_mode mode)
{
    size_t n, i;
    const struct tui_binding *b = tui_bindings(&n);

    cr_assert_gt(n, 0);
    for (i = 0; i < n; i++) {
        const struct tui_binding *g = group_of(b, i);
        if (!in_mode(&b[i], mode))
            continue;
        /* a live row joined to a named row of both modes */
        if (!in_mode(g, mode)) {
            cr_expect(!b[i].name && g->mode == TUI_LIVE, "row %zu is in no help", i);
            continue;
        }
        cr_expect(listed(screen, g), "key row %zu (%s) is not in the help:\n%s", i, g->name, screen);
    }
    for (i = 0; i < n; i++)
        if (b[i].name && !in_mode(&b[i], mode) && b[i].note)
            cr_expect(!listed(screen, &b[i]), "'%s' is in the wrong help:\n%s", b[i].name, screen);
}

/* The footer's last line: the hints of the rows in force in mode, by rank
 * (rows of one rank in the table's order), each its key and its note,
 * and nothing else. */
static void check_footer(const char *screen, const char *section_keys, enum tui_mode mode)
{
    size_t n, i;
    const struct tui_binding *b = tui_bindings(&n);
    const char *line = screen + strlen(screen), *p;
    char want[1024] = " ", item[128];
    int rank, shown = 0;

    while (line > screen && (line[-1] == '\n' || line[-1] == ' '))
        line--;
    while (line > screen && line[-1] != '\n')
        line--;
    for (rank = 1; rank <= 32; rank++)
        for (i = 0; i < n; i++) {
            if (b[i].hint != rank || !in_mode(&b[i], mode))
                continue;
            snprintf(item, sizeof(item), "%s%s%s%s %s", shown++ ? "  " : "", b[i].hint_key,
                     b[i].hint_sections ? " " : "", b[i].hint_sections ? section_keys : "",
                     b[i].hint_note);
            strncat(want, item, sizeof(want) - strlen(want) - 1);
        }
    cr_assert_gt(shown, 2, "no hint rows");
    p = strstr(line, want);
    cr_expect(p == line, "footer:\n%.*s\nwanted:\n%s", (int)strcspn(line, "\n"), line, want);
}

Test(tui_keys, help_and_footer_are_the_key_table_live, .timeout = 60)
{
    struct tmux t;
    char cmd[512], *s;

    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-t8xx --no-cpu --no-processes", gputop_bin());
    cr_assert_eq(tmux_start(&t, 220, 50, "", cmd), 0, "tmux did not start");
    s = wait_for(&t, "sparklines");
    /* the Mali-T830 layout's sections' keys, then gpu-clocks' Power &
     * clocks (the sim models the GPU's clocks) */
    check_footer(s, "1-5 7 8 i k", TUI_LIVE);
    free(s);
    tmux_literal(&t, "h");
    s = wait_for(&t, "gputop keys");
    check_help(s, TUI_LIVE);
    free(s);
    tmux_stop(&t);
}

Test(tui_keys, help_is_the_key_table_during_a_replay, .timeout = 60)
{
    const char *dir = getenv("TMPDIR");
    char path[256], cmd[1024], *s;
    struct tmux t;
    int fd;

    snprintf(path, sizeof(path), "%s/gputop-keys-XXXXXX", dir && dir[0] ? dir : "/tmp");
    fd = mkstemp(path);
    cr_assert_geq(fd, 0, "mkstemp: %s", strerror(errno));
    close(fd);
    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-t8xx,step=100000000 --no-cpu -i 10ms -n 20 "
             "--record %s -b > /dev/null", gputop_bin(), path);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof(cmd), "%s --source replay:%s --no-processes; sleep 30", gputop_bin(), path);
    cr_assert_eq(tmux_start(&t, 220, 50, "", cmd), 0, "tmux did not start");
    s = wait_for(&t, "sample ");
    /* the replay's keys first; the capture names gpu-clocks' layout too */
    check_footer(s, "1-5 7 8 i k", TUI_REPLAY);
    free(s);
    tmux_literal(&t, "h");
    s = wait_for(&t, "gputop keys");
    check_help(s, TUI_REPLAY);
    free(s);
    tmux_stop(&t);
    unlink(path);
}
