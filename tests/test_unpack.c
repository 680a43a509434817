/* The built-in layouts as the binary carries them (squeezed and packed by
 * tools/embed-files.c, unpacked by gt_unpack): each unpacks to its file in
 * layouts/ line for line, comments and indentation aside, and malformed
 * packed input is refused rather than read or written out of bounds. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/embedded.h"
#include "gputop/layout.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = malloc((size_t)n + 1);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* The next line of *s without its leading blanks and its line break;
 * comment lines read as empty (the parser skips both alike). */
static const char *next_line(const char **s, size_t *len)
{
    const char *p = *s, *nl;

    if (!*p)
        return NULL;
    nl = strchr(p, '\n');
    *s = nl ? nl + 1 : p + strlen(p);
    while (*p == ' ' || *p == '\t')
        p++;
    *len = (size_t)((nl ? nl : *s) - p);
    if (*len && p[0] == '#')
        *len = 0;
    return p;
}

Test(unpack, every_builtin_layout_unpacks_to_its_file)
{
    const char *root = getenv("GPUTOP_SRC");
    size_t i;

    cr_assert_gt(gt_embedded_layout_count(), 5);
    for (i = 0; i < gt_embedded_layout_count(); i++) {
        char path[512];
        size_t tlen, flen, a, b;
        char *text = gt_embedded_layout_copy(i, &tlen), *file;
        const char *s, *t, *x, *y;
        int line = 0;

        cr_assert_not_null(text, "%s", gt_embedded_layout_name(i));
        snprintf(path, sizeof(path), "%s/layouts/%s.layout", root ? root : ".",
                 gt_embedded_layout_name(i));
        file = slurp(path, &flen);
        cr_assert_eq(strlen(text), tlen, "%s: a NUL inside", path);
        s = file;
        t = text;
        for (;;) {
            x = next_line(&s, &a);
            y = next_line(&t, &b);
            line++;
            if (!x || !y)
                break;
            cr_assert(a == b && memcmp(x, y, a) == 0, "%s:%d: '%.*s' embedded as '%.*s'",
                      path, line, (int)a, x, (int)b, y);
        }
        cr_assert(!x && !y, "%s: %s has more lines", path, x ? "the file" : "the embedded copy");
        free(file);
        free(text);
    }
}

Test(unpack, literals_and_overlapping_copies)
{
    /* "ab" then a copy of 7 from 2 back: "ababababa". */
    const unsigned char in[] = { 0x01, 'a', 'b', 0x80 | 4, 2, 0 };
    char out[16];

    cr_assert_eq(gt_unpack(in, sizeof(in), out, sizeof(out)), 9);
    cr_assert_eq(memcmp(out, "ababababa", 9), 0);
}

Test(unpack, malformed_input_is_refused)
{
    const unsigned char before_start[] = { 0x00, 'a', 0x80, 2, 0 };     /* 2 back, 1 written */
    const unsigned char zero_dist[] = { 0x00, 'a', 0x80, 0, 0 };
    const unsigned char cut_run[] = { 0x05, 'a', 'b' };                 /* 6 promised */
    const unsigned char cut_copy[] = { 0x00, 'a', 0x80, 1 };            /* distance cut */
    const unsigned char long_copy[] = { 0x00, 'a', 0xff, 1, 0 };        /* 130 into 16 */
    char out[16];

    cr_assert_eq(gt_unpack(before_start, sizeof(before_start), out, sizeof(out)), -1);
    cr_assert_eq(gt_unpack(zero_dist, sizeof(zero_dist), out, sizeof(out)), -1);
    cr_assert_eq(gt_unpack(cut_run, sizeof(cut_run), out, sizeof(out)), -1);
    cr_assert_eq(gt_unpack(cut_copy, sizeof(cut_copy), out, sizeof(out)), -1);
    cr_assert_eq(gt_unpack(long_copy, sizeof(long_copy), out, sizeof(out)), -1);
    cr_assert_eq(gt_unpack(long_copy, sizeof(long_copy), out, 1), -1);
}
