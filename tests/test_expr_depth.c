/* Expressions as long as a layout may hold (4 MiB): a chain of 70,000
 * terms builds a tree as deep as itself, which the parser, the tree walk
 * and the compiler must take without running out of stack (issue 44). The
 * expected values are worked out by hand: every term is a small integer,
 * so each step is exact in a double. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/catalog.h"
#include "gputop/cli.h"
#include "gputop/engine.h"
#include "gputop/expr.h"
#include "gputop/layout.h"

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

static double ref_is_two(void *arg, size_t ref)
{
    (void)arg;
    (void)ref;
    return 2.0;
}

/* The value of text with every reference 2, by the tree walk and by a
 * compiled program (references as input 0); both must agree. */
static double value_of(const char *text)
{
    struct gt_diag d;
    struct gt_expr *e = gt_expr_parse(text, strlen(text), &d);
    struct gt_program *p = gt_program_new(1);
    struct gt_ref_binding *b;
    double tree, *regs, prog;
    size_t i, n;
    int r;

    cr_assert_not_null(e, "%.40s...: %d:%d %s", text, d.line, d.col, d.msg);
    tree = gt_expr_eval(e, ref_is_two, NULL);
    n = gt_expr_nrefs(e);
    b = calloc(n + 1, sizeof(*b));
    cr_assert(b && p);
    for (i = 0; i < n; i++)
        b[i].input = 0;
    r = gt_program_add(p, e, b);
    cr_assert_geq(r, 0, "%.40s...: not compiled", text);
    regs = calloc(gt_program_nregs(p) + 1, sizeof(*regs));
    cr_assert_not_null(regs);
    regs[0] = 2.0;
    gt_program_init_regs(p, regs);
    gt_program_run(p, regs);
    prog = regs[r];
    cr_assert(tree == prog || (isnan(tree) && isnan(prog)), "%.40s...: tree %.17g, program %.17g",
              text, tree, prog);
    free(regs);
    free(b);
    gt_program_free(p);
    gt_expr_free(e);
    return tree;
}

static void check_chain(const char *head, const char *part, const char *tail, double want)
{
    char *text = chain(head, part, tail);
    double got = value_of(text);

    cr_assert_eq(got, want, "%s%s...%s (%d terms): %.17g, expected %.17g", head, part, tail,
                 TERMS, got, want);
    free(text);
}

/* The input of issue 44: $x + 1 + 1 + ... = 2 + 69,999. */
Test(expr_depth, a_sum_of_seventy_thousand_terms)
{
    check_chain("$CMCycles", "+1", "", 2.0 + (TERMS - 1));
}

Test(expr_depth, a_long_chain_of_each_binary_operator)
{
    check_chain("$A", "-1", "", 2.0 - (TERMS - 1));
    check_chain("$A", "*1", "", 2.0);
    check_chain("$A", "/1", "", 2.0);
    check_chain("1", "*$A", "", 0.0 + ldexp(1.0, TERMS - 1) * 2.0);   /* 2^70000: inf */
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
    s.deltas[c.counters[k].slot] = 5;
    gt_engine_eval(e, &s, &v);
    cr_assert_eq(v, 5.0 + (TERMS - 1));
    cr_assert_eq(gt_engine_eval_instance(e, &s, 0, 0), 5.0 + (TERMS - 1));
    gt_snapshot_free(&s);
    gt_engine_free(e);
    gt_catalog_free(&c);
    gt_layout_free(l);
    unlink(path);
    free(text);
    fclose(out);
    fclose(err);
}
