/* Files compiled into the binary at build time (tools/embed-files.c). */
#ifndef GPUTOP_EMBEDDED_H
#define GPUTOP_EMBEDDED_H

#include <stddef.h>

struct gt_embedded_file {
    const char *path;            /* relative path, e.g. "mali-g720.layout", "x/xterm" */
    const unsigned char *data;   /* followed by a NUL not counted in len */
    size_t len;
    size_t plain_len;            /* 0: data is the file; else data is packed
                                    (embed-files -c) and unpacks to this many bytes */
};

/* Unpacks n bytes packed by tools/embed-files.c into out, which has room
 * for out_len bytes. Returns the bytes written, or -1 when the input is
 * not well formed (a copy reaching before the start, past out_len, or a
 * run cut short). */
long gt_unpack(const unsigned char *in, size_t n, char *out, size_t out_len);

/* the files of layouts/, named without ".layout" */
extern const struct gt_embedded_file gt_embedded_layouts[];
extern const size_t gt_embedded_layouts_count;
/* Compiled terminfo entries, generated with tic from the build machine's
 * ncurses: xterm-256color, xterm, screen, tmux-256color, vt100, linux. */
extern const struct gt_embedded_file gt_embedded_terminfo[];
extern const size_t gt_embedded_terminfo_count;

#endif
