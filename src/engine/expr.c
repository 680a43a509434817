/* Metric expressions: a recursive-descent parser for the guides' syntax, a
 * reference tree evaluator, and a compiler to a shared register program
 * (hash-consed, so identical subexpressions across metrics run once, and
 * constant subtrees folded at compile time). */
#include "gputop/expr.h"

#include <ctype.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Deeper nesting than any guide uses by far; bounds recursion on hostile input. */
#define MAX_DEPTH 256

/* OP_CLAMP exists only in programs: max(min(x, hi), lo) with constant
 * bounds, the guides' percentage guard, run as one instruction. */
enum op { OP_NUM, OP_REF, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MIN, OP_MAX, OP_CLAMP };

struct node {
    enum op op;
    int a, b;          /* child nodes */
    double num;        /* OP_NUM */
    int ref;           /* OP_REF: index into refs */
};

struct ref {
    char *name;
    int instanced;
    int line, col;
};

struct gt_expr {
    struct node *nodes;
    size_t n, cap;
    struct ref *refs;
    size_t nrefs, refcap;
    int root;
};

/* ---- lexer ---- */

enum tok { T_EOF, T_NUM, T_REF, T_IDENT, T_PLUS, T_MINUS, T_STAR, T_SLASH,
           T_LP, T_RP, T_COMMA, T_BAD };

struct lexer {
    const char *s;
    size_t len, pos;
    int line, col;
    /* current token */
    enum tok t;
    size_t start, end;
    int tline, tcol;
    int instanced;     /* T_REF: has an instance range suffix */
    size_t name_end;   /* T_REF: end of the name proper */
};

static void advance_char(struct lexer *lx)
{
    if (lx->s[lx->pos] == '\n') {
        lx->line++;
        lx->col = 1;
    } else {
        lx->col++;
    }
    lx->pos++;
}

static int peek(const struct lexer *lx, size_t off)
{
    return lx->pos + off < lx->len ? (unsigned char)lx->s[lx->pos + off] : -1;
}

static int is_name_start(int c) { return c >= 0 && (isalpha(c) || c == '_'); }
static int is_name_char(int c) { return c >= 0 && (isalnum(c) || c == '_'); }

/* ".Cluster[0..N]": a word, then [a..b] where a and b are digits or N. */
static size_t instance_suffix_len(const struct lexer *lx)
{
    size_t i = 0;
    int c;

    if (peek(lx, 0) != '.' || !is_name_start(peek(lx, 1)))
        return 0;
    for (i = 1; is_name_char(peek(lx, i)); i++)
        ;
    if (peek(lx, i) != '[')
        return 0;
    i++;
    for (c = peek(lx, i); c >= 0 && (isdigit(c) || c == 'N' || c == '.'); c = peek(lx, ++i))
        ;
    if (peek(lx, i) != ']')
        return 0;
    return i + 1;
}

static void skip_space(struct lexer *lx)
{
    while (lx->pos < lx->len && isspace((unsigned char)lx->s[lx->pos]))
        advance_char(lx);
}

static void next(struct lexer *lx)
{
    int c;
    size_t n, i;

    skip_space(lx);
    lx->start = lx->pos;
    lx->tline = lx->line;
    lx->tcol = lx->col;
    lx->instanced = 0;
    c = peek(lx, 0);
    if (c < 0) {
        lx->t = T_EOF;
        lx->end = lx->pos;
        return;
    }
    if (c == '$') {
        advance_char(lx);
        if (!is_name_start(peek(lx, 0))) {
            lx->t = T_BAD;
            lx->end = lx->pos;
            return;
        }
        while (is_name_char(peek(lx, 0)))
            advance_char(lx);
        lx->name_end = lx->pos;
        n = instance_suffix_len(lx);
        for (i = 0; i < n; i++)
            advance_char(lx);
        lx->instanced = n > 0;
        lx->t = T_REF;
    } else if (isdigit(c) || (c == '.' && peek(lx, 1) >= 0 && isdigit(peek(lx, 1)))) {
        while (peek(lx, 0) >= 0 && isdigit(peek(lx, 0)))
            advance_char(lx);
        if (peek(lx, 0) == '.') {
            advance_char(lx);
            while (peek(lx, 0) >= 0 && isdigit(peek(lx, 0)))
                advance_char(lx);
        }
        lx->t = T_NUM;
    } else if (is_name_start(c)) {
        while (is_name_char(peek(lx, 0)))
            advance_char(lx);
        lx->t = T_IDENT;
    } else {
        advance_char(lx);
        switch (c) {
        case '+': lx->t = T_PLUS; break;
        case '-': lx->t = T_MINUS; break;
        case '*': lx->t = T_STAR; break;
        case '/': lx->t = T_SLASH; break;
        case '(': lx->t = T_LP; break;
        case ')': lx->t = T_RP; break;
        case ',': lx->t = T_COMMA; break;
        default: lx->t = T_BAD; break;
        }
    }
    lx->end = lx->pos;
}

/* ---- parser ---- */

struct parser {
    struct lexer lx;
    struct gt_expr *e;
    struct gt_diag *d;
    int failed;
    int depth;
    /* the last binary or unary operator consumed, for "dangling operator" */
    int op_line, op_col;
    char op_char;
};

static int fail_at(struct parser *p, int line, int col, const char *fmt, const char *arg)
{
    if (p->failed)
        return -1;
    p->failed = 1;
    if (p->d) {
        gt_diag_set(p->d, fmt, arg);
        p->d->line = line;
        p->d->col = col;
    }
    return -1;
}

static int fail_here(struct parser *p, const char *fmt, const char *arg)
{
    return fail_at(p, p->lx.tline, p->lx.tcol, fmt, arg);
}

static int add_node(struct parser *p, enum op op, int a, int b)
{
    struct gt_expr *e = p->e;
    struct node *nn;

    if (e->n == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 16;
        nn = realloc(e->nodes, cap * sizeof(*nn));
        if (!nn)
            return fail_here(p, "%sout of memory", "");
        e->nodes = nn;
        e->cap = cap;
    }
    nn = &e->nodes[e->n];
    memset(nn, 0, sizeof(*nn));
    nn->op = op;
    nn->a = a;
    nn->b = b;
    return (int)e->n++;
}

static int add_ref(struct parser *p)
{
    struct gt_expr *e = p->e;
    struct lexer *lx = &p->lx;
    size_t len = lx->name_end - lx->start - 1;
    struct ref *r;
    int node;

    if (e->nrefs == e->refcap) {
        size_t cap = e->refcap ? e->refcap * 2 : 8;
        r = realloc(e->refs, cap * sizeof(*r));
        if (!r)
            return fail_here(p, "%sout of memory", "");
        e->refs = r;
        e->refcap = cap;
    }
    r = &e->refs[e->nrefs];
    r->name = malloc(len + 1);
    if (!r->name)
        return fail_here(p, "%sout of memory", "");
    memcpy(r->name, lx->s + lx->start + 1, len);
    r->name[len] = '\0';
    r->instanced = lx->instanced;
    r->line = lx->tline;
    r->col = lx->tcol;
    node = add_node(p, OP_REF, -1, -1);
    if (node < 0) {
        free(r->name);
        return -1;
    }
    e->nodes[node].ref = (int)e->nrefs++;
    return node;
}

static int parse_sum(struct parser *p);

static const char *token_text(struct parser *p, char *buf, size_t len)
{
    size_t n = p->lx.end - p->lx.start;

    if (n == 0)
        n = 1;
    if (n >= len)
        n = len - 1;
    memcpy(buf, p->lx.s + p->lx.start, n);
    buf[n] = '\0';
    return buf;
}

/* An operand was expected but the current token cannot start one. */
static int missing_operand(struct parser *p)
{
    char buf[64];

    if (p->lx.t == T_BAD)
        return fail_here(p, p->lx.s[p->lx.start] == '$'
                         ? "expected a counter name after '%s'"
                         : "unexpected character '%s'", token_text(p, buf, sizeof(buf)));
    if (p->op_char) {
        buf[0] = p->op_char;
        buf[1] = '\0';
        return fail_at(p, p->op_line, p->op_col,
                       "dangling operator '%s': an operand must follow it", buf);
    }
    if (p->lx.t == T_EOF)
        return fail_here(p, "%sempty expression", "");
    if (p->lx.t == T_RP)
        return fail_here(p, "%sunbalanced parenthesis: ')' without a matching '('", "");
    return fail_here(p, "expected a number, counter or '(' before '%s'",
                     token_text(p, buf, sizeof(buf)));
}

static int parse_call(struct parser *p)
{
    char name[64];
    int line = p->lx.tline, col = p->lx.tcol;
    enum op op;
    int a, b;

    token_text(p, name, sizeof(name));
    if (strcmp(name, "min") == 0)
        op = OP_MIN;
    else if (strcmp(name, "max") == 0)
        op = OP_MAX;
    else
        return fail_here(p, "unknown function '%s' (expected min or max)", name);
    next(&p->lx);
    if (p->lx.t != T_LP)
        return fail_here(p, "expected '(' after '%s'", name);
    next(&p->lx);
    p->op_char = 0;
    a = parse_sum(p);
    if (a < 0)
        return -1;
    if (p->lx.t != T_COMMA) {
        if (p->lx.t == T_EOF)
            return fail_at(p, line, col, "unbalanced parenthesis: '%s(' is never closed", name);
        return fail_here(p, "%s() takes two or more arguments: expected ','", name);
    }
    /* max(a, b, c) as max(max(a, b), c): Arm's Valhall references write
     * three-term maxima (arithmetic unit utilization). */
    while (p->lx.t == T_COMMA) {
        next(&p->lx);
        p->op_char = 0;
        b = parse_sum(p);
        if (b < 0 || (a = add_node(p, op, a, b)) < 0)
            return -1;
    }
    if (p->lx.t != T_RP) {
        if (p->lx.t == T_EOF)
            return fail_at(p, line, col, "unbalanced parenthesis: '%s(' is never closed", name);
        return fail_here(p, "expected ')' to close %s(", name);
    }
    next(&p->lx);
    return a;
}

static int parse_unary(struct parser *p)
{
    struct lexer *lx = &p->lx;
    int node, line, col;
    char *end;

    if (++p->depth > MAX_DEPTH)
        return fail_here(p, "%sexpression nested too deeply", "");
    switch (lx->t) {
    case T_MINUS:
        p->op_char = '-';
        p->op_line = lx->tline;
        p->op_col = lx->tcol;
        next(lx);
        node = parse_unary(p);
        node = node < 0 ? -1 : add_node(p, OP_NEG, node, -1);
        break;
    case T_NUM: {
        char buf[64];
        size_t n = lx->end - lx->start;
        if (n >= sizeof(buf))
            return fail_here(p, "%snumber too long", "");
        memcpy(buf, lx->s + lx->start, n);
        buf[n] = '\0';
        node = add_node(p, OP_NUM, -1, -1);
        if (node >= 0)
            p->e->nodes[node].num = strtod(buf, &end);
        next(lx);
        break;
    }
    case T_REF:
        node = add_ref(p);
        next(lx);
        break;
    case T_IDENT:
        node = parse_call(p);
        break;
    case T_LP:
        line = lx->tline;
        col = lx->tcol;
        next(lx);
        if (lx->t == T_RP) {
            node = fail_at(p, line, col, "%sempty parentheses", "");
            break;
        }
        p->op_char = 0;
        node = parse_sum(p);
        if (node < 0)
            break;
        if (lx->t != T_RP) {
            if (lx->t == T_EOF || lx->t == T_COMMA)
                node = fail_at(p, line, col, "%sunbalanced parenthesis: '(' is never closed", "");
            else
                node = fail_here(p, "%sexpected ')'", "");
            break;
        }
        next(lx);
        break;
    default:
        node = missing_operand(p);
        break;
    }
    p->depth--;
    if (node >= 0)
        p->op_char = 0;
    return node;
}

static int parse_product(struct parser *p)
{
    int left = parse_unary(p), right;
    enum tok t;

    while (left >= 0 && (p->lx.t == T_STAR || p->lx.t == T_SLASH)) {
        t = p->lx.t;
        p->op_char = t == T_STAR ? '*' : '/';
        p->op_line = p->lx.tline;
        p->op_col = p->lx.tcol;
        next(&p->lx);
        right = parse_unary(p);
        if (right < 0)
            return -1;
        left = add_node(p, t == T_STAR ? OP_MUL : OP_DIV, left, right);
    }
    return left;
}

static int parse_sum(struct parser *p)
{
    int left = parse_product(p), right;
    enum tok t;

    while (left >= 0 && (p->lx.t == T_PLUS || p->lx.t == T_MINUS)) {
        t = p->lx.t;
        p->op_char = t == T_PLUS ? '+' : '-';
        p->op_line = p->lx.tline;
        p->op_col = p->lx.tcol;
        next(&p->lx);
        right = parse_product(p);
        if (right < 0)
            return -1;
        left = add_node(p, t == T_PLUS ? OP_ADD : OP_SUB, left, right);
    }
    return left;
}

struct gt_expr *gt_expr_parse(const char *text, size_t len, struct gt_diag *d)
{
    struct parser p;
    char buf[64];

    memset(&p, 0, sizeof(p));
    p.d = d;
    p.e = calloc(1, sizeof(*p.e));
    if (!p.e) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    p.lx.s = text;
    p.lx.len = len;
    p.lx.line = 1;
    p.lx.col = 1;
    next(&p.lx);
    p.e->root = parse_sum(&p);
    if (p.e->root >= 0 && p.lx.t != T_EOF) {
        if (p.lx.t == T_RP)
            fail_here(&p, "%sunbalanced parenthesis: ')' without a matching '('", "");
        else if (p.lx.t == T_COMMA)
            fail_here(&p, "%s',' outside min() or max()", "");
        else if (p.lx.t == T_BAD)
            missing_operand(&p);
        else
            fail_here(&p, "expected an operator before '%s'", token_text(&p, buf, sizeof(buf)));
    }
    if (p.failed || p.e->root < 0) {
        gt_expr_free(p.e);
        return NULL;
    }
    return p.e;
}

void gt_expr_free(struct gt_expr *e)
{
    size_t i;

    if (!e)
        return;
    for (i = 0; i < e->nrefs; i++)
        free(e->refs[i].name);
    free(e->refs);
    free(e->nodes);
    free(e);
}

size_t gt_expr_nrefs(const struct gt_expr *e) { return e->nrefs; }
const char *gt_expr_ref_name(const struct gt_expr *e, size_t i) { return e->refs[i].name; }
int gt_expr_ref_instanced(const struct gt_expr *e, size_t i) { return e->refs[i].instanced; }

void gt_expr_ref_pos(const struct gt_expr *e, size_t i, int *line, int *col)
{
    *line = e->refs[i].line;
    *col = e->refs[i].col;
}

static double apply(enum op op, double a, double b)
{
    switch (op) {
    case OP_NEG: return -a;
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: return gt_op_div(a, b);
    case OP_MIN: return gt_op_min(a, b);
    case OP_MAX: return gt_op_max(a, b);
    default: return NAN;
    }
}

/* The parser adds a node only after its operands, so the nodes are in an
 * order where children come first: one pass over them evaluates the tree
 * without recursion, however deep a long chain (a + b + ...) makes it. */
static double node_value(const struct node *nd, const double *v,
                         double (*value_of)(void *, size_t), void *arg)
{
    switch (nd->op) {
    case OP_NUM: return nd->num;
    case OP_REF: return value_of(arg, (size_t)nd->ref);
    case OP_NEG: return apply(nd->op, v[nd->a], 0);
    default: return apply(nd->op, v[nd->a], v[nd->b]);
    }
}

/* Values of most expressions fit on the stack; a longer one allocates. */
#define EVAL_ON_STACK 256

double gt_expr_eval(const struct gt_expr *e, double (*value_of)(void *, size_t), void *arg)
{
    double small[EVAL_ON_STACK], *v = small, r;
    size_t i, n = (size_t)e->root + 1;

    if (n > EVAL_ON_STACK && !(v = malloc(n * sizeof(*v))))
        return NAN;
    for (i = 0; i < n; i++)
        v[i] = node_value(&e->nodes[i], v, value_of, arg);
    r = v[e->root];
    if (v != small)
        free(v);
    return r;
}

/* ---- program ---- */

struct instr {
    uint8_t op;
    uint32_t a, b, c, dst;
};

/* The instruction after a program's last: its handler returns, so no
 * instruction tests for the end (two instructions fewer each). */
#define OP_END (OP_CLAMP + 1)

/* A register's definition, for hash-consing: constants by bit pattern,
 * operations by (op, a, b, c). */
struct def {
    uint8_t op;          /* OP_NUM for constants */
    uint32_t a, b, c;
    uint64_t bits;
};

struct gt_program {
    size_t ninputs;
    struct def *defs;    /* one per non-input register */
    size_t ndefs, defcap;
    struct instr *code;
    size_t ncode, codecap;
    uint32_t *table;     /* open addressing: def index + 1, 0 = empty */
    size_t tabcap;
};

struct gt_program *gt_program_new(size_t ninputs)
{
    struct gt_program *p = calloc(1, sizeof(*p));

    if (p)
        p->ninputs = ninputs;
    return p;
}

void gt_program_free(struct gt_program *p)
{
    if (!p)
        return;
    free(p->defs);
    free(p->code);
    free(p->table);
    free(p);
}

static uint64_t def_hash(const struct def *d)
{
    uint64_t h = 1469598103934665603ull;

    h = (h ^ d->op) * 1099511628211ull;
    h = (h ^ d->a) * 1099511628211ull;
    h = (h ^ d->b) * 1099511628211ull;
    h = (h ^ d->c) * 1099511628211ull;
    h = (h ^ d->bits) * 1099511628211ull;
    return h ^ (h >> 29);
}

static int def_equal(const struct def *x, const struct def *y)
{
    return x->op == y->op && x->a == y->a && x->b == y->b && x->c == y->c && x->bits == y->bits;
}

static int table_grow(struct gt_program *p)
{
    size_t cap = p->tabcap ? p->tabcap * 2 : 64, i, j;
    uint32_t *t = calloc(cap, sizeof(*t));

    if (!t)
        return -1;
    for (i = 0; i < p->ndefs; i++) {
        j = def_hash(&p->defs[i]) & (cap - 1);
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = (uint32_t)i + 1;
    }
    free(p->table);
    p->table = t;
    p->tabcap = cap;
    return 0;
}

static int is_const_reg(const struct gt_program *p, uint32_t r)
{
    return r >= p->ninputs && p->defs[r - p->ninputs].op == OP_NUM;
}

static double const_value(const struct gt_program *p, uint32_t r)
{
    double v;

    memcpy(&v, &p->defs[r - p->ninputs].bits, sizeof(v));
    return v;
}

/* Returns the register defined by d, creating it (and its instruction)
 * when no identical definition exists. */
static long intern(struct gt_program *p, const struct def *d)
{
    size_t j;
    uint32_t reg;

    if ((p->ndefs + 1) * 2 > p->tabcap && table_grow(p) < 0)
        return -1;
    j = def_hash(d) & (p->tabcap - 1);
    while (p->table[j]) {
        if (def_equal(&p->defs[p->table[j] - 1], d))
            return (long)(p->ninputs + p->table[j] - 1);
        j = (j + 1) & (p->tabcap - 1);
    }
    if (p->ndefs == p->defcap) {
        size_t cap = p->defcap ? p->defcap * 2 : 64;
        struct def *nd = realloc(p->defs, cap * sizeof(*nd));
        if (!nd)
            return -1;
        p->defs = nd;
        p->defcap = cap;
    }
    if (d->op != OP_NUM && p->ncode + 1 >= p->codecap) {
        size_t cap = p->codecap ? p->codecap * 2 : 64;
        struct instr *nc = realloc(p->code, cap * sizeof(*nc));
        if (!nc)
            return -1;
        p->code = nc;
        p->codecap = cap;
    }
    reg = (uint32_t)(p->ninputs + p->ndefs);
    p->defs[p->ndefs++] = *d;
    p->table[j] = (uint32_t)p->ndefs;
    if (d->op != OP_NUM) {
        struct instr *in = &p->code[p->ncode++];
        in->op = d->op;
        in->a = d->a;
        in->b = d->b;
        in->c = d->c;
        in->dst = reg;
        p->code[p->ncode].op = OP_END;
    }
    return (long)reg;
}

static long intern_const(struct gt_program *p, double v)
{
    struct def d = { OP_NUM, 0, 0, 0, 0 };

    memcpy(&d.bits, &v, sizeof(v));
    return intern(p, &d);
}

static long intern_op(struct gt_program *p, enum op op, long a, long b, long c)
{
    struct def d = { (uint8_t)op, (uint32_t)a, (uint32_t)b, (uint32_t)c, 0 };

    return intern(p, &d);
}

/* max(min(x, hi), lo), its operands in registers: one OP_CLAMP when the
 * bounds are numbers and x is not a constant, else the min and the max
 * (each folded when its operands are constants). */
static long compile_clamp(struct gt_program *p, long x, long hi, long lo)
{
    long m;

    if (is_const_reg(p, (uint32_t)lo) && is_const_reg(p, (uint32_t)hi) &&
        !is_const_reg(p, (uint32_t)x) && !isnan(const_value(p, (uint32_t)lo)) &&
        !isnan(const_value(p, (uint32_t)hi)))
        return intern_op(p, OP_CLAMP, x, hi, lo);
    m = is_const_reg(p, (uint32_t)x) && is_const_reg(p, (uint32_t)hi)
        ? intern_const(p, gt_op_min(const_value(p, (uint32_t)x), const_value(p, (uint32_t)hi)))
        : intern_op(p, OP_MIN, x, hi, 0);
    if (m < 0)
        return -1;
    if (is_const_reg(p, (uint32_t)m) && is_const_reg(p, (uint32_t)lo))
        return intern_const(p, gt_op_max(const_value(p, (uint32_t)m), const_value(p, (uint32_t)lo)));
    return intern_op(p, OP_MAX, m, lo, 0);
}

/* A min() that is the first operand of a max() is compiled by the max
 * (compile_clamp), which may make the two one instruction. */
static int clamp_inner(const struct gt_expr *e, int n)
{
    const struct node *nd = &e->nodes[n];

    return nd->op == OP_MAX && e->nodes[nd->a].op == OP_MIN;
}

/* The register of node n, whose operands' registers are in reg already. */
static long compile_node(struct gt_program *p, const struct gt_expr *e, int n, const long *reg,
                         const struct gt_ref_binding *bind)
{
    const struct node *nd = &e->nodes[n];
    struct def d = { 0, 0, 0, 0, 0 };
    long a, b = 0;

    switch (nd->op) {
    case OP_NUM:
        return intern_const(p, nd->num);
    case OP_REF:
        if (bind[nd->ref].input < 0)
            return intern_const(p, bind[nd->ref].constant);
        return bind[nd->ref].input;
    default:
        break;
    }
    if (clamp_inner(e, n)) {
        const struct node *inner = &e->nodes[nd->a];
        return compile_clamp(p, reg[inner->a], reg[inner->b], reg[nd->b]);
    }
    a = reg[nd->a];
    if (nd->op != OP_NEG)
        b = reg[nd->b];
    /* Fold when every operand is known now; apply() is the very function
     * the program runs, so folded and unfolded results are identical. */
    if (is_const_reg(p, (uint32_t)a) && (nd->op == OP_NEG || is_const_reg(p, (uint32_t)b)))
        return intern_const(p, apply(nd->op, const_value(p, (uint32_t)a),
                                     nd->op == OP_NEG ? 0 : const_value(p, (uint32_t)b)));
    d.op = (uint8_t)nd->op;
    d.a = (uint32_t)a;
    d.b = (uint32_t)b;
    return intern(p, &d);
}

/* Children come before their parent (gt_expr_eval), so one pass in order
 * compiles the tree without recursion; the min() under a max() waits for
 * it (compile_clamp). */
int gt_program_add(struct gt_program *p, const struct gt_expr *e,
                   const struct gt_ref_binding *bindings)
{
    size_t i, n = (size_t)e->root + 1;
    long *reg = malloc(n * sizeof(*reg)), r = -1;
    unsigned char *waits = calloc(n, 1);

    for (i = 0; reg && waits && i < n; i++)
        if (clamp_inner(e, (int)i))
            waits[e->nodes[i].a] = 1;
    for (i = 0; reg && waits && i < n; i++) {
        reg[i] = waits[i] ? 0 : compile_node(p, e, (int)i, reg, bindings);
        if (reg[i] < 0)
            break;
    }
    if (reg && waits && i == n)
        r = reg[e->root];
    free(reg);
    free(waits);
    return r < 0 || r > INT32_MAX ? -1 : (int)r;
}

size_t gt_program_nregs(const struct gt_program *p) { return p->ninputs + p->ndefs; }
size_t gt_program_ninstr(const struct gt_program *p) { return p->ncode; }

void gt_program_init_regs(const struct gt_program *p, double *regs)
{
    size_t i;

    for (i = 0; i < p->ndefs; i++)
        if (p->defs[i].op == OP_NUM)
            memcpy(&regs[p->ninputs + i], &p->defs[i].bits, sizeof(double));
}

/* OP_CLAMP: max(min(x, hi), lo) for bounds compile_clamp made sure are
 * numbers, so only x needs the NaN test (three fewer than the two calls). */
static inline double clamp_const(double x, double hi, double lo)
{
    if (isnan(x))
        return NAN;
    x = x < hi ? x : hi;
    return x > lo ? x : lo;
}

/* Threaded dispatch where the compiler has labels as values (GCC, Clang):
 * each instruction jumps straight to the next one's handler, which keeps
 * the interpreter near native speed; a plain switch elsewhere. */
void gt_program_run(const struct gt_program *p, double *r)
{
    const struct instr *in = p->code, *end = p->ncode ? p->code + p->ncode : p->code;

#if defined(__GNUC__)
    static const void *const handler[] = {
        [OP_NUM] = &&op_bad, [OP_REF] = &&op_bad, [OP_NEG] = &&op_neg, [OP_ADD] = &&op_add,
        [OP_SUB] = &&op_sub, [OP_MUL] = &&op_mul, [OP_DIV] = &&op_div, [OP_MIN] = &&op_min,
        [OP_MAX] = &&op_max, [OP_CLAMP] = &&op_clamp, [OP_END] = &&op_end,
    };
#define NEXT() do { ++in; goto *handler[in->op]; } while (0)
    if (in == end)
        return;
    goto *handler[in->op];
op_end: return;
op_neg: r[in->dst] = -r[in->a]; NEXT();
op_add: r[in->dst] = r[in->a] + r[in->b]; NEXT();
op_sub: r[in->dst] = r[in->a] - r[in->b]; NEXT();
op_mul: r[in->dst] = r[in->a] * r[in->b]; NEXT();
op_div: r[in->dst] = gt_op_div(r[in->a], r[in->b]); NEXT();
op_min: r[in->dst] = gt_op_min(r[in->a], r[in->b]); NEXT();
op_max: r[in->dst] = gt_op_max(r[in->a], r[in->b]); NEXT();
op_clamp: r[in->dst] = clamp_const(r[in->a], r[in->b], r[in->c]); NEXT();
op_bad: r[in->dst] = NAN; NEXT();
#undef NEXT
#else
    for (; in < end; in++) {
        double a = r[in->a], b = r[in->b];
        switch (in->op) {
        case OP_NEG: r[in->dst] = -a; break;
        case OP_ADD: r[in->dst] = a + b; break;
        case OP_SUB: r[in->dst] = a - b; break;
        case OP_MUL: r[in->dst] = a * b; break;
        case OP_DIV: r[in->dst] = gt_op_div(a, b); break;
        case OP_MIN: r[in->dst] = gt_op_min(a, b); break;
        case OP_MAX: r[in->dst] = gt_op_max(a, b); break;
        case OP_CLAMP: r[in->dst] = clamp_const(a, b, r[in->c]); break;
        default: r[in->dst] = NAN; break;
        }
    }
#endif
}
