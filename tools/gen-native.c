/* Build tool: writes the built-in layouts as native code, one C function
 * per layout evaluating every metric's value, peak and percent of peak,
 * and a table the engine matches a loaded layout against (name, number
 * of metrics and references, the hash of every expression's canonical
 * text). Built with $(HOSTCC) from the engine's own parser, so a cross
 * build generates on the host. Usage: gen-native OUT.c FILE.layout... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/expr.h"
#include "gputop/layout.h"
#include "gputop/native.h"

#define TEXT_MAX 65536

/* The distinct references of a layout (gt_native_refs), as the engine
 * numbers them. */
struct refs {
    const char **name;
    size_t n;
};

static long ref_index(const struct refs *r, const char *name)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        if (strcmp(r->name[i], name) == 0)
            return (long)i;
    return -1;
}

/* A C string literal (a layout's name has no quotes, but be safe). */
static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s < ' ')
            fprintf(f, "\\%03o", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

struct c_names {
    const struct refs *r;
    const struct gt_expr *e;
    char buf[32];
};

/* Reference i of the expression as the register holding its value. */
static const char *c_name(void *arg, size_t ref)
{
    struct c_names *n = arg;

    snprintf(n->buf, sizeof(n->buf), "r[%ld]", ref_index(n->r, gt_expr_ref_name(n->e, ref)));
    return n->buf;
}

/* The comma between a call's two arguments and its closing parenthesis,
 * for the call whose '(' is at s[open]. */
static void call_args(const char *s, size_t open, size_t *comma, size_t *close)
{
    size_t j;
    int depth = 0;

    *comma = *close = open;
    for (j = open + 1; s[j]; j++) {
        if (s[j] == '(')
            depth++;
        else if (s[j] == ')' && depth-- == 0)
            break;
        else if (s[j] == ',' && depth == 0)
            *comma = j;
    }
    *close = j;
}

/* 1 when s[0..n) is a register, r[K]; *k = K. */
static int is_reg(const char *s, size_t n, unsigned long *k)
{
    char *end;

    if (n < 4 || strncmp(s, "r[", 2) != 0 || s[n - 1] != ']')
        return 0;
    *k = strtoul(s + 2, &end, 10);
    return end == s + n - 1;
}

/* Writes printed C s[a..b), a division by a lone reference becoming
 * native_divr(x, r[K], r[NREFS + K]): a multiplication when the engine
 * put an exact reciprocal there (a constant power of two: the core or
 * slice count, which the floor's compiler folds the same way). */
static void put_c(FILE *f, const char *s, size_t a, size_t b, size_t nrefs)
{
    static const char div[] = "gt_op_div(";
    size_t comma, close;
    unsigned long k;

    while (a < b) {
        if (strncmp(s + a, div, sizeof(div) - 1) == 0) {
            call_args(s, a + sizeof(div) - 2, &comma, &close);
            if (close < b && comma > a && is_reg(s + comma + 2, close - comma - 2, &k)) {
                fputs("native_divr(", f);
                put_c(f, s, a + sizeof(div) - 1, comma, nrefs);
                fprintf(f, ", r[%lu], r[%lu])", k, (unsigned long)nrefs + k);
                a = close + 1;
                continue;
            }
        }
        fputc(s[a++], f);
    }
}

static int put_expr(FILE *f, const struct refs *r, const struct gt_expr *e, const char *lhs,
                    size_t i, char *buf)
{
    struct c_names n = { r, e, "" };

    if (gt_expr_to_c(e, buf, TEXT_MAX, c_name, &n) < 0)
        return -1;
    fprintf(f, "    %s[%zu] = ", lhs, i);
    put_c(f, buf, 0, strlen(buf), r->n);
    fputs(";\n", f);
    return 0;
}

static int write_function(FILE *f, const struct gt_layout *l, const struct refs *r,
                          size_t index, char *buf)
{
    size_t i;

    fprintf(f, "/* %s */\n"
               "static void eval_%zu(const double *restrict r, double *restrict out,\n"
               "                   double *restrict peak, double *restrict pop)\n{\n"
               "    (void)r; (void)peak; (void)pop;\n", l->name, index);
    for (i = 0; i < l->nmetrics; i++)
        if (put_expr(f, r, l->metrics[i].expr, "out", i, buf) < 0)
            return -1;
    /* Percent of peak: the layout's pop expression, else 100 * value /
     * peak, as the engine's eval_peaks computes it. */
    for (i = 0; i < l->nmetrics; i++) {
        if (!l->metrics[i].peak)
            continue;
        if (put_expr(f, r, l->metrics[i].peak, "peak", i, buf) < 0)
            return -1;
        if (l->metrics[i].pop) {
            if (put_expr(f, r, l->metrics[i].pop, "pop", i, buf) < 0)
                return -1;
        } else {
            fprintf(f, "    pop[%zu] = gt_op_div(100.0 * out[%zu], peak[%zu]);\n", i, i, i);
        }
    }
    fputs("}\n\n", f);
    return 0;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) != NULL) {
        *len = fread(buf, 1, (size_t)n, f);
        buf[*len] = '\0';
    }
    fclose(f);
    return buf;
}

/* One layout: its function and table; the table's entry goes to entries. */
static int write_layout(FILE *f, const char *path, size_t index, FILE *entries, char *buf)
{
    struct refs r = { NULL, 0 };
    uint64_t sig;
    struct gt_layout *l;
    struct gt_diag d;
    size_t len;
    char *text = read_all(path, &len);
    int ok;

    if (!text) {
        fprintf(stderr, "gen-native: %s: cannot read\n", path);
        return -1;
    }
    l = gt_layout_parse(path, text, len, &d);
    free(text);
    if (!l) {
        fprintf(stderr, "gen-native: %s:%d:%d: %s\n", path, d.line, d.col, d.msg);
        return -1;
    }
    sig = gt_native_signature(l);
    ok = sig != 0 && gt_native_refs(l, &r.name, &r.n) == 0 &&
         write_function(f, l, &r, index, buf) == 0;
    if (ok) {
        fputs("    { ", entries);
        put_string(entries, l->name);
        fprintf(entries, ", %zu, 0x%016llxull, %zu, eval_%zu },\n", l->nmetrics,
                (unsigned long long)sig, r.n, index);
    } else {
        fprintf(stderr, "gen-native: %s: an expression too long to print\n", path);
    }
    free(r.name);
    gt_layout_free(l);
    return ok ? 0 : -1;
}

/* What every generated file starts with: the helpers its expressions use
 * in place of gt_op_min and gt_op_max, and the settings that keep its
 * arithmetic the interpreter's. */
static const char prelude[] =
    "/* Generated by tools/gen-native.c from layouts/; do not edit. No\n"
    " * a * b + c fused into one rounding (the Makefile says it too):\n"
    " * results bit for bit the interpreter's. */\n"
    "#if defined(__clang__)\n#pragma STDC FP_CONTRACT OFF\n#endif\n"
    "#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n"
    "#include \"gputop/expr.h\"\n#include \"gputop/native.h\"\n\n"
    "/* gt_op_min and gt_op_max without a branch on the comparison (minsd,\n"
    " * maxsd, a select), giving the same values, NaN for NaN: counter data\n"
    " * different each interval mispredicts branches in every clamp (the\n"
    " * code ran at half speed). GCC's jump threading would rebuild those\n"
    " * branches, so it is off for this file. */\n"
    "#if defined(__GNUC__) && !defined(__clang__)\n"
    "#pragma GCC optimize(\"no-thread-jumps\", \"fp-contract=off\")\n#endif\n\n"
    "/* A bound written in the layout (a number, not NaN, not -0): then\n"
    " * minsd / maxsd with the bound first give the NaN and the ties the\n"
    " * guide's arithmetic gives, but for a tie of -0 with a bound 0 (which\n"
    " * \"+ 0.0\" makes +0). */\n"
    "#if defined(__GNUC__)\n"
    "#define BOUND(b) (__builtin_constant_p(b) && !isnan(b) && !((b) == 0.0 && signbit(b)))\n"
    "#else\n#define BOUND(b) 0\n#endif\n\n"
    "static inline double native_min(double a, double b)\n{\n"
    "    double m = a < b ? a : b;   /* b when either is NaN */\n\n"
    "    if (BOUND(b)) {\n"
    "        m = b < a ? b : a;      /* a when a is NaN */\n"
    "        return b == 0.0 ? m + 0.0 : m;\n"
    "    }\n"
    "    if (BOUND(a))\n        return m;\n"
    "    return isnan(a) ? a : m;\n}\n\n"
    "static inline double native_max(double a, double b)\n{\n"
    "    double m = a > b ? a : b;\n\n"
    "    if (BOUND(b)) {\n"
    "        m = b > a ? b : a;\n"
    "        return b == 0.0 ? m + 0.0 : m;\n"
    "    }\n"
    "    if (BOUND(a))\n        return m;\n"
    "    return isnan(a) ? a : m;\n}\n\n"
    "/* gt_op_div(a, b) where the engine found 1 / b exact (inv != 0). */\n"
    "static inline double native_divr(double a, double b, double inv)\n{\n"
    "    return inv != 0.0 ? a * inv : gt_op_div(a, b);\n}\n\n"
    "#define gt_op_min native_min\n#define gt_op_max native_max\n\n";

int main(int argc, char **argv)
{
    char *buf = malloc(TEXT_MAX), *table = NULL;
    size_t table_len = 0;
    FILE *f, *entries;
    int i;

    if (argc < 2 || !buf || !(f = fopen(argv[1], "w"))) {
        fprintf(stderr, "usage: gen-native OUT.c FILE.layout...\n");
        return 1;
    }
    entries = open_memstream(&table, &table_len);
    if (!entries)
        return 1;
    fputs(prelude, f);
    for (i = 2; i < argc; i++)
        if (write_layout(f, argv[i], (size_t)(i - 2), entries, buf) < 0) {
            fclose(f);
            remove(argv[1]);
            return 1;
        }
    fclose(entries);
    /* No layouts: one unused entry, as C has no empty arrays. */
    fprintf(f, "const struct gt_native_layout gt_native_layouts[] = {\n%s};\n"
               "const size_t gt_native_layouts_count = %d;\n",
            argc > 2 && table ? table : "    { \"\", 0, 0, 0, NULL },\n", argc - 2);
    free(table);
    free(buf);
    return fclose(f) == 0 ? 0 : 1;
}
