/* Build tool: turns files into a C source that embeds them, so the binary
 * needs no files at run time (layouts, compiled terminal descriptions).
 * Usage: embed-files [-c] OUT.c SYMBOL STRIP_PREFIX STRIP_SUFFIX FILE...
 * Each file is recorded under its path less STRIP_PREFIX and STRIP_SUFFIX
 * ("" to keep). -c squeezes layouts for a smaller phone binary: comment
 * lines (first non-blank character '#') keep only their line breaks, so
 * messages about an embedded layout still name the right line, and
 * indentation goes but for one space on continuation lines; the squeezed
 * text is then packed (LZ77, the format gt_unpack in src/engine/unpack.c
 * reads): layouts repeat counter names on every line, so they pack to
 * about a quarter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* Squeezed text goes to a memory stream (raw bytes, flagged by a NULL
 * count) before it is packed; everything else straight out as C. */
static void put_byte(FILE *out, int c, long *n)
{
    if (!n) {
        fputc(c, out);
        return;
    }
    fprintf(out, "%s0x%02x,", (*n)++ % 16 ? "" : "\n    ", c);
}

static void put_text(FILE *out, const char *s, size_t len, long *n)
{
    while (len--)
        put_byte(out, (unsigned char)*s++, n);
}

/* Keywords after which deeper-indented lines continue the value. */
static int starts_continuation(const char *s, size_t len)
{
    static const char *const kws[] = { "expr", "peak", "pop", "desc" };
    size_t i, k;

    for (i = 0; i < sizeof(kws) / sizeof(kws[0]); i++) {
        k = strlen(kws[i]);
        if (len >= k && strncmp(s, kws[i], k) == 0 && (len == k || s[k] == ' ' || s[k] == '\t'))
            return 1;
    }
    return 0;
}

/* A layout line, squeezed (-c): a comment keeps only its line break; the
 * indentation goes, but for one space on a line that continues an expr,
 * peak, pop or desc (the parser needs a continuation indented deeper than
 * its keyword, nothing more). Line numbers stay the file's. */
static void put_layout_line(FILE *out, const char *line, size_t len, long *n, int *in_cont,
                            size_t *cont_indent)
{
    size_t indent = strspn(line, " \t");
    const char *rest = line + indent;
    size_t rlen = len - indent;

    if (rlen && rest[rlen - 1] == '\n')
        rlen--;
    if (rlen == 0 || rest[0] == '#') {
        if (len && line[len - 1] == '\n')
            put_byte(out, '\n', n);
        return;
    }
    if (*in_cont && indent > *cont_indent) {
        put_byte(out, ' ', n);
    } else {
        *in_cont = starts_continuation(rest, rlen);
        *cont_indent = indent;
    }
    put_text(out, rest, len - indent, n);
}

/* ---- packing: a control byte c < 0x80 is followed by c + 1 literal
 * bytes; c >= 0x80 copies (c & 0x7f) + 3 bytes from a distance of the
 * next two bytes (little-endian, 1..65535) back in the output. ---- */

#define MIN_MATCH 3
#define MAX_MATCH (0x7f + MIN_MATCH)
#define WINDOW 65535u
#define CHAIN 512
#define HASH_BITS 15

static unsigned hash3(const unsigned char *p)
{
    return ((unsigned)p[0] * 2654435761u ^ (unsigned)p[1] * 40503u ^ p[2]) & ((1u << HASH_BITS) - 1);
}

static void flush_literals(FILE *out, const unsigned char *lit, size_t n, long *count)
{
    while (n) {
        size_t k = n > 128 ? 128 : n;
        put_byte(out, (int)(k - 1), count);
        put_text(out, (const char *)lit, k, count);
        lit += k;
        n -= k;
    }
}

/* Greedy LZ77 over a hash chain; returns 0, or -1 out of memory. */
static int pack(FILE *out, const unsigned char *in, size_t len, long *count)
{
    long *head = malloc(sizeof(long) << HASH_BITS), *prev = malloc(sizeof(long) * (len + 1));
    size_t i = 0, lit = 0;

    if (!head || !prev) {
        free(head);
        free(prev);
        return -1;
    }
    for (i = 0; i < (1u << HASH_BITS); i++)
        head[i] = -1;
    i = 0;
    while (i < len) {
        size_t best = 0, dist = 0;
        if (i + MIN_MATCH <= len) {
            unsigned h = hash3(in + i);
            long c = head[h];
            int depth = 0;
            for (; c >= 0 && i - (size_t)c <= WINDOW && depth < CHAIN; c = prev[c], depth++) {
                size_t k = 0;
                while (k < MAX_MATCH && i + k < len && in[(size_t)c + k] == in[i + k])
                    k++;
                if (k > best) {
                    best = k;
                    dist = i - (size_t)c;
                }
            }
            prev[i] = head[h];
            head[h] = (long)i;
        }
        if (best < MIN_MATCH) {
            i++;
            continue;
        }
        flush_literals(out, in + lit, i - lit, count);
        put_byte(out, (int)(0x80 | (best - MIN_MATCH)), count);
        put_byte(out, (int)(dist & 0xff), count);
        put_byte(out, (int)(dist >> 8), count);
        /* The matched bytes join the chains too, so later text finds them. */
        for (size_t j = i + 1; j < i + best && j + MIN_MATCH <= len; j++) {
            unsigned h = hash3(in + j);
            prev[j] = head[h];
            head[h] = (long)j;
        }
        i += best;
        lit = i;
    }
    flush_literals(out, in + lit, len - lit, count);
    free(head);
    free(prev);
    return 0;
}

/* The squeezed text of a layout, in memory (malloc'd). */
static char *squeeze_file(FILE *in, size_t *len)
{
    char *buf = NULL, *line = NULL;
    size_t blen = 0, cap = 0, cont_indent = 0;
    FILE *mem = open_memstream(&buf, &blen);
    ssize_t n;
    int in_cont = 0;

    if (!mem)
        return NULL;
    while ((n = getline(&line, &cap, in)) >= 0)
        put_layout_line(mem, line, (size_t)n, NULL, &in_cont, &cont_indent);
    free(line);
    if (fclose(mem) != 0) {
        free(buf);
        return NULL;
    }
    *len = blen;
    return buf;
}

/* Writes file i's bytes as a C array; *plain gets the unpacked length of
 * a packed (-c) file, 0 for one embedded as it is. */
static int embed(FILE *out, const char *sym, const char *path, int i, int squeeze, size_t *plain)
{
    FILE *in = fopen(path, "rb");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long n = 0;
    int r = 0;

    if (!in) {
        perror(path);
        return -1;
    }
    *plain = 0;
    fprintf(out, "static const unsigned char %s_%d[] = {", sym, i);
    if (squeeze) {
        size_t tlen = 0;
        char *text = squeeze_file(in, &tlen);
        r = text ? pack(out, (const unsigned char *)text, tlen, &n) : -1;
        *plain = tlen;
        free(text);
    } else {
        while ((len = getline(&line, &cap, in)) >= 0)
            put_text(out, line, (size_t)len, &n);
    }
    free(line);
    /* A trailing NUL, outside the length, lets text be used as a string. */
    fprintf(out, "\n    0x00\n};\n");
    fclose(in);
    if (r < 0)
        fprintf(stderr, "%s: out of memory\n", path);
    return r;
}

int main(int argc, char **argv)
{
    const char *sym, *strip, *suffix;
    size_t slen, xlen, *plain;
    FILE *out;
    int i, comments = 0;

    if (argc > 1 && strcmp(argv[1], "-c") == 0) {
        comments = 1;
        argv++;
        argc--;
    }
    if (argc < 5) {
        fprintf(stderr, "usage: %s [-c] OUT.c SYMBOL STRIP_PREFIX STRIP_SUFFIX [FILE...]\n",
                argv[0]);
        return 2;
    }
    sym = argv[2];
    strip = argv[3];
    suffix = argv[4];
    slen = strlen(strip);
    xlen = strlen(suffix);
    out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    fprintf(out, "/* Generated by tools/embed-files.c; do not edit. */\n"
                 "#include \"gputop/embedded.h\"\n\n");
    plain = calloc((size_t)argc, sizeof(*plain));
    if (!plain)
        return 1;
    for (i = 5; i < argc; i++)
        if (embed(out, sym, argv[i], i - 5, comments, &plain[i]) < 0)
            return 1;
    fprintf(out, "const struct gt_embedded_file %s[] = {\n", sym);
    for (i = 5; i < argc; i++) {
        const char *p = strncmp(argv[i], strip, slen) == 0 ? argv[i] + slen : argv[i];
        size_t n = strlen(p);
        if (xlen && n > xlen && strcmp(p + n - xlen, suffix) == 0)
            n -= xlen;
        fprintf(out, "    { \"%.*s\", %s_%d, sizeof(%s_%d) - 1, %zu },\n", (int)n, p, sym,
                i - 5, sym, i - 5, plain[i]);
    }
    free(plain);
    fprintf(out, "    { 0, 0, 0, 0 },\n};\n\nconst size_t %s_count = %d;\n", sym, argc - 5);
    if (fclose(out) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
