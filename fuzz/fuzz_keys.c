/* libFuzzer target: the dashboard's key decoder (src/ui/keys.c) on input
 * bytes, fed through a real ncurses screen reading a pipe. The input
 * arrives in pieces (split at 0xff 0xfe), each drained before the next is
 * written, so escape sequences and UTF-8 are cut across reads as a slow
 * terminal line cuts them. Every key returned must be a byte, an ncurses
 * key code or ERR, never a negative number nor a stray byte of a
 * sequence. */
#include "fuzz_common.h"
#include "../src/ui/tui_internal.h"

#include <fcntl.h>

#define MAX_PIECE 4096   /* under the pipe's capacity: a write never blocks */

static int pipe_w = -1;

/* One ncurses screen per process: xterm-256color (as the dashboard runs
 * under tmux and most terminals), output to /dev/null, input from a pipe. */
static void screen(void)
{
    int fds[2];
    FILE *in, *out;

    if (pipe_w >= 0)
        return;
    if (pipe(fds) != 0)
        abort();
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    in = fdopen(fds[0], "r");
    out = fopen("/dev/null", "w");
    if (!in || !out)
        abort();
    if (!newterm("xterm-256color", out, in) && !newterm("xterm", out, in) &&
        !newterm("vt100", out, in))
        abort();
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(0);          /* a lone ESC at the end of a piece stays Esc */
    pipe_w = fds[1];
}

static void drain(void)
{
    int k, n = 0;

    while ((k = tui_next_key(NULL)) != ERR) {
        if (k < 0 || (k > 0xff && k < KEY_MIN))
            abort();
        if (++n > MAX_PIECE * 2)
            abort();          /* more keys than bytes: a loop */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t start = 0;

    screen();
    for (size_t i = 0; i <= size; i++) {
        size_t n;
        if (i + 1 < size && !(data[i] == 0xff && data[i + 1] == 0xfe))
            continue;
        if (i + 1 >= size)
            i = size;
        n = i - start > MAX_PIECE ? MAX_PIECE : i - start;
        if (n && write(pipe_w, data + start, n) != (ssize_t)n)
            abort();
        drain();
        start = i + 2;
        i++;
    }
    flushinp();
    return 0;
}
