/* Expression language: parsing, precedence, no-data semantics, folding and
 * sharing, every compile error with its position, and chains as long as a
 * layout may hold. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/catalog.h"
#include "gputop/cli.h"
#include "gputop/engine.h"
#include "gputop/expr.h"
#include "gputop/layout.h"

/* Values for references: $A=ref value table by first letter after '$'. */
struct vals { double v[26]; };

static double by_letter(void *arg, size_t ref)
{
    (void)ref;
    return ((double *)arg)[0];
}

struct env {
    const struct gt_expr *e;
    double v[26];
};

static double env_value(void *arg, size_t ref)
{
    struct env *x = arg;
    const char *name = gt_expr_ref_name(x->e, ref);
    return x->v[(name[0] - 'A') % 26];
}

/* Parses and evaluates with the tree walker and through a program; both
 * must agree bit for bit. */
static double eval2(const char *text, const double *v26)
{
    struct gt_diag d;
    struct gt_expr *e = gt_expr_parse(text, strlen(text), &d);
    struct env x;
    struct gt_program *p;
    struct gt_ref_binding *b;
    double tree, *regs, prog;
    size_t i, n;
    int r;

    cr_assert_not_null(e, "parse failed for '%s': %d:%d %s", text, d.line, d.col, d.msg);
    x.e = e;
    memcpy(x.v, v26, sizeof(x.v));
    tree = gt_expr_eval(e, env_value, &x);
    p = gt_program_new(26);
    n = gt_expr_nrefs(e);
    b = calloc(n + 1, sizeof(*b));
    for (i = 0; i < n; i++)
        b[i].input = (gt_expr_ref_name(e, i)[0] - 'A') % 26;
    r = gt_program_add(p, e, b);
    cr_assert_geq(r, 0);
    regs = calloc(gt_program_nregs(p), sizeof(double));
    memcpy(regs, v26, 26 * sizeof(double));
    gt_program_init_regs(p, regs);
    gt_program_run(p, regs);
    prog = regs[r];
    if (isnan(tree))
        cr_assert(isnan(prog), "%s: tree NaN, program %g", text, prog);
    else
        cr_assert(memcmp(&tree, &prog, sizeof(double)) == 0, "%s: tree %.17g program %.17g",
                  text, tree, prog);
    free(regs);
    free(b);
    gt_program_free(p);
    gt_expr_free(e);
    return tree;
}

static const double V[26] = { 2, 3, 5, 7, 11, 13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

Test(expr, precedence_and_associativity)
{
    cr_assert_eq(eval2("1 + 2 * 3", V), 7);
    cr_assert_eq(eval2("(1 + 2) * 3", V), 9);
    cr_assert_eq(eval2("10 - 4 - 3", V), 3);          /* left-assoc */
    cr_assert_eq(eval2("64 / 8 / 2", V), 4);          /* left-assoc */
    cr_assert_eq(eval2("2 * 3 / 4", V), 1.5);
    cr_assert_eq(eval2("$A + $B * $C", V), 17);
    cr_assert_eq(eval2("$A * $B + $C * $D", V), 41);
    cr_assert_eq(eval2("$E - $D - $C", V), -1);
    cr_assert_eq(eval2("$F / $B / $A", V), 13.0 / 3 / 2);
}

Test(expr, unary_minus)
{
    cr_assert_eq(eval2("-3", V), -3);
    cr_assert_eq(eval2("--3", V), 3);
    cr_assert_eq(eval2("-$A * $B", V), -6);
    cr_assert_eq(eval2("$B - -$A", V), 5);
    cr_assert_eq(eval2("-($A + $B)", V), -5);
    cr_assert_eq(eval2("2 * -3", V), -6);
    cr_assert_eq(eval2("-2 * -3", V), 6);
}

Test(expr, nested_min_max)
{
    cr_assert_eq(eval2("min(3, 4)", V), 3);
    cr_assert_eq(eval2("max(3, 4)", V), 4);
    cr_assert_eq(eval2("max(min(150, 100), 0)", V), 100);
    cr_assert_eq(eval2("max(min(-5, 100), 0)", V), 0);
    cr_assert_eq(eval2("max(min(($A / $B) * 100, 100), 0)", V), 2.0 / 3 * 100);
    cr_assert_eq(eval2("min(max(min($A, $B), max($C, $D)), min(max($E, $F), 100))", V), 7);
    cr_assert_eq(eval2("max(max(max(max(1, 2), 3), 4), min(5, min(6, min(7, 8))))", V), 5);
}

/* Arm's Valhall references write max() of three terms (arithmetic unit
 * utilization: max(FMA, CVT, SFU * 4)): the largest, worked out by hand. */
Test(expr, min_max_take_more_than_two_arguments)
{
    cr_assert_eq(eval2("max($A, $B, $C * 4)", V), 20);
    cr_assert_eq(eval2("max($E, $B, $C)", V), 11);
    cr_assert_eq(eval2("min($D, $B, $C, $E)", V), 3);
    cr_assert_eq(eval2("max(min($A, $B, $C) * 100, 1, 50)", V), 200);
}

Test(expr, white_space_and_newlines_anywhere)
{
    cr_assert_eq(eval2(" \n max ( min ( ( $A\n /\n $B ) * 100 ,\n 100 ) ,\t0 )\n", V),
                 2.0 / 3 * 100);
}

Test(expr, decimal_numbers)
{
    cr_assert_eq(eval2("0.5 * 4", V), 2);
    cr_assert_eq(eval2(".25 * 4", V), 1);
    cr_assert_eq(eval2("1024", V), 1024);
    cr_assert_eq(eval2("3.", V), 3);
}

Test(expr, division_by_zero_is_no_data)
{
    cr_assert(isnan(eval2("1 / 0", V)));
    cr_assert(isnan(eval2("0 / 0", V)));
    cr_assert(isnan(eval2("$A / $G", V)));      /* G = 0 */
    cr_assert(isnan(eval2("$G / $G", V)));
}

Test(expr, no_data_propagates_through_every_operator)
{
    const char *cases[] = {
        "$A / $G + 1", "1 + $A / $G", "$A / $G - 1", "1 - $A / $G",
        "$A / $G * 0", "0 * ($A / $G)", "($A / $G) / 1", "1 / ($A / $G)",
        "-($A / $G)", "min($A / $G, 100)", "min(100, $A / $G)",
        "max($A / $G, 0)", "max(0, $A / $G)",
        "max(min($A / $G * 100, 100), 0)", "max(min(1/0*100, 100), 0)",
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        cr_assert(isnan(eval2(cases[i], V)), "'%s' should be no data", cases[i]);
}

Test(expr, min_max_do_not_drop_nan_like_fmin)
{
    cr_assert(isnan(gt_op_min(NAN, 1)));
    cr_assert(isnan(gt_op_min(1, NAN)));
    cr_assert(isnan(gt_op_max(NAN, 1)));
    cr_assert(isnan(gt_op_max(1, NAN)));
    cr_assert_eq(gt_op_min(-1, 1), -1);
    cr_assert_eq(gt_op_max(-1, 1), 1);
}

Test(expr, values_above_2_pow_32_are_exact)
{
    double v[26] = { 0 };

    v[0] = 4294967296.0 * 3 + 7;     /* 2^32 * 3 + 7 */
    v[1] = 4294967296.0 + 1;
    cr_assert_eq(eval2("$A - $B", v), 4294967296.0 * 2 + 6);
    cr_assert_eq(eval2("$A + $B", v), 17179869192.0);
    v[0] = 9007199254740992.0;        /* 2^53, still exact */
    v[1] = 1;
    cr_assert_eq(eval2("$A - $B", v), 9007199254740991.0);
}

Test(expr, refs_names_positions_and_instance_ranges)
{
    const char *t = "max(min(($MaliA /\n  $MaliB.Cluster[0..N]) * 100, 100), 0)";
    struct gt_diag d;
    struct gt_expr *e = gt_expr_parse(t, strlen(t), &d);
    int line, col;

    cr_assert_not_null(e);
    cr_assert_eq(gt_expr_nrefs(e), 2);
    cr_assert_str_eq(gt_expr_ref_name(e, 0), "MaliA");
    cr_assert_str_eq(gt_expr_ref_name(e, 1), "MaliB");
    cr_assert_eq(gt_expr_ref_instanced(e, 0), 0);
    cr_assert_eq(gt_expr_ref_instanced(e, 1), 1);
    gt_expr_ref_pos(e, 1, &line, &col);
    cr_assert_eq(line, 2);
    cr_assert_eq(col, 3);
    gt_expr_free(e);
}

/* ---- folding and sharing ---- */

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

Test(expr, folding_gives_the_unfolded_tree_results_on_random_inputs)
{
    /* $K.. are bound as constants (folded), $A..$D as inputs. */
    const char *texts[] = {
        "$A * ($K / 8)",
        "max(min(($A - $B) / $C * 100, 100), 0)",
        "($A / $K) / $B * 100",
        "$A * $K * 2 + -$L / ($K - $K)",
        "max(min($A / ($K * $L) * 100, 100), 0)",
        "$A / $B * $K - min($C, $L * 4)",
    };
    size_t t, trial, i;

    for (t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
        struct gt_diag d;
        struct gt_expr *e = gt_expr_parse(texts[t], strlen(texts[t]), &d);
        cr_assert_not_null(e);
        for (trial = 0; trial < 500; trial++) {
            struct env x;
            struct gt_program *p = gt_program_new(4);
            struct gt_ref_binding b[16];
            double regs[128], tree;
            int r;
            x.e = e;
            for (i = 0; i < 26; i++)
                x.v[i] = (rng() % 5 == 0) ? 0 : (double)(rng() % 100000) / ((rng() % 3) + 1);
            for (i = 0; i < gt_expr_nrefs(e); i++) {
                int letter = gt_expr_ref_name(e, i)[0] - 'A';
                if (letter >= 10) {
                    b[i].input = -1;
                    b[i].constant = x.v[letter];
                } else {
                    b[i].input = letter;
                }
            }
            r = gt_program_add(p, e, b);
            cr_assert_geq(r, 0);
            cr_assert_leq(gt_program_nregs(p), 128);
            memcpy(regs, x.v, 4 * sizeof(double));
            gt_program_init_regs(p, regs);
            gt_program_run(p, regs);
            tree = gt_expr_eval(e, env_value, &x);
            if (isnan(tree))
                cr_assert(isnan(regs[r]), "%s: expected no data", texts[t]);
            else
                cr_assert(memcmp(&tree, &regs[r], sizeof(double)) == 0,
                          "%s: %.17g vs %.17g", texts[t], tree, regs[r]);
            gt_program_free(p);
        }
        gt_expr_free(e);
    }
}

Test(expr, constant_subexpressions_are_folded)
{
    const char *t = "$A * ($K / 8) + (2 * 3 - 1)";
    struct gt_diag d;
    struct gt_expr *e = gt_expr_parse(t, strlen(t), &d);
    struct gt_program *p = gt_program_new(1);
    struct gt_ref_binding b[2] = { { 0, 0 }, { -1, 128 } };
    double regs[16] = { 10 };
    int r = gt_program_add(p, e, b);

    /* Only the multiply and the add remain. */
    cr_assert_eq(gt_program_ninstr(p), 2);
    gt_program_init_regs(p, regs);
    gt_program_run(p, regs);
    cr_assert_eq(regs[r], 10 * 16 + 5);
    gt_program_free(p);
    gt_expr_free(e);
}

Test(expr, common_subexpressions_are_shared_across_expressions)
{
    const char *t1 = "$A - $B";
    const char *t2 = "max(min(($A - $B) / $C * 100, 100), 0)";
    struct gt_diag d;
    struct gt_expr *e1 = gt_expr_parse(t1, strlen(t1), &d);
    struct gt_expr *e2 = gt_expr_parse(t2, strlen(t2), &d);
    struct gt_program *p = gt_program_new(3);
    struct gt_ref_binding b[3] = { { 0, 0 }, { 1, 0 }, { 2, 0 } };
    int r1 = gt_program_add(p, e1, b), r2;

    cr_assert_eq(gt_program_ninstr(p), 1);
    r2 = gt_program_add(p, e2, b);
    /* sub shared; div, mul and one clamp for max(min(.., 100), 0) added */
    cr_assert_eq(gt_program_ninstr(p), 4);
    cr_assert_eq(gt_program_add(p, e2, b), r2);
    cr_assert_eq(gt_program_ninstr(p), 4);
    (void)r1;
    gt_program_free(p);
    gt_expr_free(e1);
    gt_expr_free(e2);
}

/* ---- errors ---- */

struct err_case {
    const char *text;
    int line, col;
    const char *msg;   /* substring */
};

static void expect_error(const struct err_case *c)
{
    struct gt_diag d;
    struct gt_expr *e;

    gt_diag_clear(&d);
    e = gt_expr_parse(c->text, strlen(c->text), &d);
    cr_assert_null(e, "'%s' should not parse", c->text);
    cr_assert(strstr(d.msg, c->msg) != NULL, "'%s': message '%s' lacks '%s'", c->text, d.msg, c->msg);
    cr_assert_eq(d.line, c->line, "'%s': line %d, expected %d (%s)", c->text, d.line, c->line, d.msg);
    cr_assert_eq(d.col, c->col, "'%s': col %d, expected %d (%s)", c->text, d.col, c->col, d.msg);
}

Test(expr_errors, each_with_its_position)
{
    static const struct err_case cases[] = {
        { "mn($A, 1)", 1, 1, "unknown function 'mn' (expected min or max)" },
        { "max(min($A, 1), 0", 1, 1, "unbalanced parenthesis: 'max(' is never closed" },
        { "($A + 1", 1, 1, "unbalanced parenthesis: '(' is never closed" },
        { "$A + 1)", 1, 7, "unbalanced parenthesis: ')' without a matching '('" },
        { "$A +", 1, 4, "dangling operator '+'" },
        { "$A *\n  ", 1, 4, "dangling operator '*'" },
        { "max($A -, 1)", 1, 8, "dangling operator '-'" },
        { "$A / ( )", 1, 6, "empty parentheses" },
        { "", 1, 1, "empty expression" },
        { "   \n ", 2, 2, "empty expression" },
        { "$A $B", 1, 4, "expected an operator before '$B'" },
        { "$A\n  + @", 2, 5, "unexpected character '@'" },
        { "$A -\n\n", 1, 4, "dangling operator '-'" },
        { "$A @ 1", 1, 4, "unexpected character '@'" },
        { "$ A", 1, 1, "expected a counter name after '$'" },
        { "$1abc", 1, 1, "expected a counter name after '$'" },
        { "max($A)", 1, 7, "max() takes two or more arguments" },
        { "min($A, 1, 2", 1, 1, "unbalanced parenthesis: 'min(' is never closed" },
        { "max 1", 1, 5, "expected '(' after 'max'" },
        { "1, 2", 1, 2, "',' outside min() or max()" },
        { "\\max(1, 2)", 1, 1, "unexpected character" },
        { "$A\n+ ($B\n* 2", 2, 3, "unbalanced parenthesis: '(' is never closed" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        expect_error(&cases[i]);
}

Test(expr_errors, nesting_is_bounded)
{
    char buf[4096];
    struct gt_diag d;
    size_t i, n = 1000;

    for (i = 0; i < n; i++)
        buf[i] = '(';
    buf[n] = '1';
    for (i = 0; i < n; i++)
        buf[n + 1 + i] = ')';
    buf[2 * n + 1] = '\0';
    cr_assert_null(gt_expr_parse(buf, strlen(buf), &d));
    cr_assert(strstr(d.msg, "nested too deeply"));
    (void)by_letter;
}

/* ---- expressions as long as a layout may hold (4 MiB) ----
 * A chain of 70,000 terms builds a tree as deep as itself, which the
 * parser, the tree walk and the compiler must take without running out of
 * stack (issue 44). Every term is a small integer, so each step of the
 * expected values, worked out by hand, is exact in a double. */

#define TERMS 70000

/* head, then TERMS - 1 times part, then tail: malloc'ed. */
static char *chain(const char *head, const char *part, const char *tail)
{
    size_t hl = strlen(head), pl = strlen(part), tl = strlen(tail), i;
    char *s = malloc(hl + pl * (TERMS - 1) + tl + 1), *p = s;

    cr_assert_not_null(s);
    memcpy(p, head, hl);
    p += hl;
    for (i = 1; i < TERMS; i++, p += pl)
        memcpy(p, part, pl);
    memcpy(p, tail, tl + 1);
    return s;
}

static void check_chain(const char *head, const char *part, const char *tail, double want)
{
    char *text = chain(head, part, tail);
    double got = eval2(text, V);

    cr_assert_eq(got, want, "%s%s...%s (%d terms): %.17g, expected %.17g", head, part, tail,
                 TERMS, got, want);
    free(text);
}

/* The input of issue 44: $CMCycles + 1 + 1 + ... = 5 + 69,999 ($C is 5). */
Test(expr_depth, a_sum_of_seventy_thousand_terms)
{
    check_chain("$CMCycles", "+1", "", 5.0 + (TERMS - 1));
}

Test(expr_depth, a_long_chain_of_each_binary_operator)
{
    check_chain("$A", "-1", "", 2.0 - (TERMS - 1));
    check_chain("$A", "*1", "", 2.0);
    check_chain("$A", "/1", "", 2.0);
    check_chain("1", "*$A", "", INFINITY);   /* 2^69,999 overflows */
    check_chain("min($A", ",5", ")", 2.0);
    check_chain("max($A", ",1", ")", 2.0);
    check_chain("max(min($A", ",5", "),0)", 2.0);
}

/* Mixed operators, chains inside brackets and calls, with constants folded
 * among them: each "+3*2-10/2" adds 1. */
Test(expr_depth, long_mixed_chains)
{
    check_chain("$A", "+3*2-10/2", "", 2.0 + (TERMS - 1));
    check_chain("-($A", "+3*2-10/2", ")", -(2.0 + (TERMS - 1)));
    check_chain("max(0, $A", "+1", ") * 2 - 1", 2.0 * (2.0 + (TERMS - 1)) - 1.0);
    check_chain("1", "+1", "", TERMS);   /* folded whole */
}

/* Brackets nested past the parser's depth are still refused, with where. */
Test(expr_depth, nesting_too_deep_is_refused_with_its_position)
{
    char text[4096];
    struct gt_diag d;
    int i;

    for (i = 0; i < 1000; i++)
        text[i] = '(';
    strcpy(text + 1000, "$A");
    gt_diag_clear(&d);
    cr_assert_null(gt_expr_parse(text, strlen(text), &d));
    cr_assert(strstr(d.msg, "nested too deeply"), "%s", d.msg);
    cr_assert_eq(d.line, 1);
    cr_assert_gt(d.col, 1);
}

/* The same sum as a layout's metric, checked as `gputop --check-layout`
 * checks it and evaluated by the engine on a snapshot. */
Test(expr_depth, a_layout_with_the_long_sum_loads_and_evaluates)
{
    char path[] = "/tmp/gputop-depth-XXXXXX";
    char *text = chain("gputop-layout 1\nname deep\ntitle Deep\nfamily mips-cm\ngpu mips-cm\n"
                       "section S\n  key x\n  group G\n    metric Deep\n      expr $CMCycles",
                       "+1", "\n      show count\n");
    struct gt_layout *l;
    struct gt_catalog c;
    struct gt_engine *e;
    struct gt_snapshot s;
    struct gt_diag d;
    FILE *f, *out = tmpfile(), *err = tmpfile();
    double v;
    int fd = mkstemp(path), k;

    cr_assert(fd >= 0 && out && err);
    f = fdopen(fd, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    cr_assert_eq(gt_cmd_check_layout(path, "mips-cm", out, err), 0);

    l = gt_layout_load(path, &d);
    cr_assert_not_null(l, "%s:%d:%d: %s", path, d.line, d.col, d.msg);
    gt_catalog_init(&c);
    k = gt_catalog_add(&c, "CMCycles", "cm", GT_COUNTER_DELTA, 1, 1.0);
    cr_assert_geq(k, 0);
    e = gt_engine_new(l, &c);
    cr_assert_not_null(e);
    cr_assert_eq(gt_snapshot_init(&s, c.nslots), 0);
    s.t_start_ns = 0;
    s.t_end_ns = 100000000;
    s.nsamples = 1;
    s.deltas[c.counters[k].slot] = 7;
    gt_engine_eval(e, &s, &v);
    cr_assert_eq(v, 7.0 + (TERMS - 1));
    cr_assert_eq(gt_engine_eval_instance(e, &s, 0, 0), 7.0 + (TERMS - 1));
    gt_snapshot_free(&s);
    gt_engine_free(e);
    gt_catalog_free(&c);
    gt_layout_free(l);
    unlink(path);
    free(text);
    fclose(out);
    fclose(err);
}
