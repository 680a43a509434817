/* Error reports with file:line:column, the source line and a caret. */
#include "gputop/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gt_diag_clear(struct gt_diag *d)
{
    if (!d)
        return;
    memset(d, 0, sizeof(*d));
}

void gt_diag_set(struct gt_diag *d, const char *fmt, ...)
{
    va_list ap;

    if (!d)
        return;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
    va_end(ap);
}

void gt_diag_at(struct gt_diag *d, const char *file, int line, int col,
                const char *line_text, size_t line_len)
{
    if (!d)
        return;
    snprintf(d->file, sizeof(d->file), "%s", file ? file : "");
    d->line = line;
    d->col = col;
    d->src[0] = '\0';
    if (!line_text)
        return;
    if (line_len >= sizeof(d->src))
        line_len = sizeof(d->src) - 1;
    memcpy(d->src, line_text, line_len);
    d->src[line_len] = '\0';
}

/* The caret sits under column col; tabs in the source are copied so the
 * caret lines up whatever the tab width. */
static size_t caret_line(const struct gt_diag *d, char *buf, size_t len)
{
    size_t n = 0;
    int c;

    for (c = 1; c < d->col && n + 2 < len; c++) {
        size_t i = (size_t)(c - 1);
        buf[n++] = (i < strlen(d->src) && d->src[i] == '\t') ? '\t' : ' ';
    }
    if (n + 1 < len)
        buf[n++] = '^';
    buf[n] = '\0';
    return n;
}

const char *gt_diag_format(const struct gt_diag *d, char *buf, size_t len)
{
    char caret[GT_DIAG_SRC + 2];
    int n;

    if (!buf || len == 0)
        return buf;
    if (d->file[0] && d->line > 0)
        n = snprintf(buf, len, "%s:%d:%d: error: %s\n", d->file, d->line, d->col, d->msg);
    else if (d->line > 0)
        n = snprintf(buf, len, "%d:%d: error: %s\n", d->line, d->col, d->msg);
    else if (d->file[0])
        n = snprintf(buf, len, "%s: error: %s\n", d->file, d->msg);
    else
        n = snprintf(buf, len, "error: %s\n", d->msg);
    if (n < 0 || (size_t)n >= len || !d->src[0] || d->col <= 0)
        return buf;
    caret_line(d, caret, sizeof(caret));
    snprintf(buf + n, len - (size_t)n, "  %s\n  %s\n", d->src, caret);
    return buf;
}
