/* The csv source's fields (csv_fields.h): comma-separated values with
 * blanks trimmed and a spreadsheet's quotes ("" inside is a quote) removed. */
#include "csv_fields.h"

#include <string.h>

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* The end of a quoted field starting at p[i] == '"': the index of its
 * closing quote ("" inside is a quote), or len when it is not closed. */
static size_t closing_quote(const char *p, size_t len, size_t i)
{
    for (i++; i < len; i++) {
        if (p[i] != '"')
            continue;
        if (i + 1 < len && p[i + 1] == '"')
            i++;
        else
            return i;
    }
    return len;
}

/* Steps through comma-separated fields of p[0..len), blanks around each
 * trimmed and a field's quotes (as spreadsheets write them) removed;
 * returns 0 after the last one. *pos starts at 0. */
int gt_csv_next_field(const char *p, size_t len, size_t *pos, struct field *f)
{
    const char *comma;
    size_t start = *pos, end, q;

    if (start > len)
        return 0;
    while (start < len && is_blank(p[start]))
        start++;
    f->bad = NULL;
    if (start < len && p[start] == '"') {
        q = closing_quote(p, len, start);
        if (q == len)
            f->bad = "unterminated quote";
        f->p = p + start + 1;
        f->len = (q == len ? len : q) - start - 1;
        f->col = start + 1;
        comma = q < len ? memchr(p + q, ',', len - q) : NULL;
        *pos = comma ? (size_t)(comma - p) + 1 : len + 1;
        return 1;
    }
    comma = memchr(p + start, ',', len - start);
    end = comma ? (size_t)(comma - p) : len;
    *pos = end + 1;
    while (end > start && is_blank(p[end - 1]))
        end--;
    f->p = p + start;
    f->len = end - start;
    f->col = start + 1;
    return 1;
}

size_t gt_csv_count_fields(const char *p, size_t len)
{
    struct field f;
    size_t n = 0, pos = 0;

    /* The same walk as the readers', so that the count always agrees. */
    while (gt_csv_next_field(p, len, &pos, &f))
        n++;
    return n;
}

/* ---- numbers ---- */

/* An unsigned decimal up to 2^64-1: digits only. Returns NULL or why not. */
const char *gt_csv_parse_u64(const struct field *f, uint64_t *v)
{
    uint64_t x = 0;
    size_t i;

    if (f->len == 0)
        return "empty field (write 0 for a zero delta)";
    if (f->p[0] == '-')
        return "negative number";
    for (i = 0; i < f->len; i++) {
        unsigned dgt = (unsigned char)f->p[i] - '0';
        if (dgt > 9)
            return "not an unsigned integer";
        if (x > (UINT64_MAX - dgt) / 10)
            return "number out of range (more than 18446744073709551615)";
        x = x * 10 + dgt;
    }
    *v = x;
    return NULL;
}

size_t gt_csv_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i, j;
    size_t row[GT_CSV_MAX_NAME + 2];

    if (la > GT_CSV_MAX_NAME || lb > GT_CSV_MAX_NAME)
        return SIZE_MAX;
    for (j = 0; j <= lb; j++)
        row[j] = j;
    for (i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t sub = diag + ((a[i - 1] | 0x20) != (b[j - 1] | 0x20) ? 1 : 0);
            size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            diag = up;
        }
    }
    return row[lb];
}
