/* libFuzzer target: terminal descriptions. The input is written as the
 * compiled terminfo entry "tfuzz" in a private TERMINFO directory, ncurses
 * loads it (newterm, output to /dev/null), and gputop's own use of it
 * runs: the capability strings taken for its renderer
 * (gt_termout_caps_from_terminfo), cursor addressing expanded with tparm,
 * a styled frame rendered and released. ncurses' own allocations are kept
 * out of leak reports: it keeps some for the life of the process. */
#include "fuzz_common.h"
#include "gputop/cellbuf.h"
#include "gputop/termout.h"

#include <curses.h>
#include <sanitizer/lsan_interface.h>
#include <term.h>

#define NSTYLES 4

static FILE *in_file, *out_file;

static const char *setup(void)
{
    static const char *const dirs[] = { "/t", NULL };
    static const char *root;

    if (root)
        return root;
    root = fuzz_tree(dirs);
    setenv("TERMINFO", root, 1);
    unsetenv("TERMINFO_DIRS");
    /* The size a terminal reports (TIOCGWINSZ); without one ncurses takes
     * the entry's lines# and cols#, and lines#6144 cols#20481 is a
     * 3.5 GB screen (found by this target: see gputop-internals(7)). */
    setenv("LINES", "24", 1);
    setenv("COLUMNS", "80", 1);
    in_file = fopen("/dev/null", "r");
    out_file = fopen("/dev/null", "w");
    if (!in_file || !out_file)
        abort();
    return root;
}

static void render(void)
{
    static const unsigned attrs[NSTYLES] = { 0, GT_TERM_BOLD, GT_TERM_REVERSE,
                                             GT_TERM_BOLD | GT_TERM_REVERSE };
    static const short fg[NSTYLES] = { -1, 1, 2, 7 };
    struct gt_termout_caps caps;
    struct gt_termout *o;
    struct gt_cellbuf *b;
    const char *out;
    char buf[4096];

    if (gt_termout_caps_from_terminfo(&caps, attrs, fg, NSTYLES, 1, buf, sizeof(buf)) < 0)
        return;
    o = gt_termout_new(&caps);
    b = gt_cellbuf_new(0);
    if (o && b && gt_cellbuf_begin(b, 5, 20) == 0) {
        for (int y = 0; y < 5; y++)
            gt_cellbuf_text(b, y, y, "gputop \xe2\x80\xa6 x", 20 - y, y % NSTYLES);
        gt_termout_render(o, b, &out);
        gt_termout_release(o, &out);
    }
    gt_cellbuf_free(b);
    gt_termout_free(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *root = setup();
    SCREEN *s;

    fuzz_put(root, "/t/tfuzz", data, size);
    __lsan_disable();
    s = newterm("tfuzz", out_file, in_file);
    __lsan_enable();
    if (!s)
        return 0;
    set_term(s);
    render();
    /* No delscreen: on some crafted entries ncurses 6.4-20221231 frees
     * part of the entry twice there (gputop-internals(7), ROBUSTNESS),
     * which would end every run; the screen is left allocated, out of
     * leak reports. */
    __lsan_disable();
    endwin();
    __lsan_enable();
    return 0;
}
