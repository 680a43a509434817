/* The Bifrost and Valhall layouts against Arm's per-GPU counter references:
 * every metric marked "# guide: GPU ..." must have, for each GPU named, the
 * very expression that GPU's reference gives its ref (a libGPUCounters name)
 * as Streamline derivation (src/sources/mali/tables/guides/<GPU>.tsv), white space aside. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXLINE 4096

static FILE *open_src(const char *rel)
{
    const char *root = getenv("GPUTOP_SRC");
    char path[1024];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", root ? root : ".", rel);
    f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s (GPUTOP_SRC set?)", path);
    return f;
}

static void squeeze(char *s)
{
    char *w = s;

    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            *w++ = *s;
    *w = '\0';
}

/* The reference's derivation of name for gpu, white space removed; 0 when
 * the reference has none. */
static int guide_expr(const char *gpu, const char *name, char *out, size_t len)
{
    char rel[128], line[MAXLINE];
    FILE *f;
    int found = 0;

    snprintf(rel, sizeof(rel), "src/sources/mali/tables/guides/%s.tsv", gpu);
    f = open_src(rel);
    while (!found && fgets(line, sizeof(line), f)) {
        char *tab1 = strchr(line, '\t'), *expr;
        if (!tab1 || (size_t)(tab1 - line) != strlen(name) || strncmp(line, name, strlen(name)))
            continue;
        expr = strrchr(line, '\t') + 1;
        snprintf(out, len, "%s", expr);
        squeeze(out);
        found = 1;
    }
    fclose(f);
    return found;
}

struct pending {
    char gpus[256], ref[128], expr[MAXLINE];
    int in_expr, line;
};

static size_t check_metric(const char *file, struct pending *m)
{
    char want[MAXLINE], *gpu, *save = NULL;
    char ref[128];
    size_t n = 0;

    snprintf(ref, sizeof(ref), "%s", m->ref);
    ref[strcspn(ref, "@")] = '\0';      /* "MaliCoreUtil@G77": a second form */
    squeeze(m->expr);
    for (gpu = strtok_r(m->gpus, " ", &save); gpu; gpu = strtok_r(NULL, " ", &save)) {
        cr_assert(guide_expr(gpu, ref, want, sizeof(want)), "%s:%d: %s's reference has no %s",
                  file, m->line, gpu, ref);
        cr_expect_str_eq(m->expr, want, "%s:%d: %s differs from %s's reference", file, m->line,
                         m->ref, gpu);
        n++;
    }
    return n;
}

/* Returns how many (metric, GPU) pairs were compared. */
static size_t check_layout(const char *rel, size_t *metrics)
{
    char line[MAXLINE];
    struct pending m;
    FILE *f = open_src(rel);
    size_t n = 0;
    int no = 0;

    memset(&m, 0, sizeof(m));
    *metrics = 0;
    while (fgets(line, sizeof(line), f)) {
        const char *t = line + strspn(line, " ");
        no++;
        if (m.in_expr && strncmp(line, "           ", 11) == 0 && t[0] != '#') {
            strncat(m.expr, t, sizeof(m.expr) - strlen(m.expr) - 1);
            continue;
        }
        if (m.in_expr) {
            n += check_metric(rel, &m);
            (*metrics)++;
            memset(&m, 0, sizeof(m));
        }
        if (strncmp(t, "# guide: ", 9) == 0) {
            snprintf(m.gpus, sizeof(m.gpus), "%s", t + 9);
            m.gpus[strcspn(m.gpus, "\n")] = '\0';
            m.line = no;
        } else if (m.gpus[0] && strncmp(t, "ref ", 4) == 0) {
            snprintf(m.ref, sizeof(m.ref), "%s", t + 4);
            m.ref[strcspn(m.ref, "\n")] = '\0';
        } else if (m.gpus[0] && strncmp(t, "expr ", 5) == 0) {
            snprintf(m.expr, sizeof(m.expr), "%s", t + 5);
            m.in_expr = 1;
        }
    }
    if (m.in_expr) {
        n += check_metric(rel, &m);
        (*metrics)++;
    }
    fclose(f);
    return n;
}

Test(mali_guides, bifrost_expressions_are_the_references)
{
    size_t metrics, pairs = check_layout("layouts/mali-bifrost.layout", &metrics);

    /* G52 and G76 give the same derivations: every guide metric names both */
    cr_assert_geq(metrics, 20);
    cr_assert_eq(pairs, 2 * metrics);
}

Test(mali_guides, valhall_jm_expressions_are_the_references)
{
    size_t metrics, pairs = check_layout("layouts/mali-valhall-jm.layout", &metrics);

    cr_assert_geq(metrics, 25);
    cr_assert_geq(pairs, 2 * metrics);
}

Test(mali_guides, valhall_csf_expressions_are_the_references)
{
    size_t metrics, pairs = check_layout("layouts/mali-valhall-csf.layout", &metrics);

    cr_assert_geq(metrics, 25);
    cr_assert_eq(pairs, 4 * metrics);
}

/* The checker itself: a changed expression must not pass. */
Test(mali_guides, a_different_expression_is_caught)
{
    char want[MAXLINE], got[] = "max(min(($MaliGPUCyclesFragmentQueueActive / "
                                "$MaliGPUCyclesGPUActive) * 10, 100), 0)";

    cr_assert(guide_expr("G78", "MaliFragQueueUtil", want, sizeof(want)));
    squeeze(got);
    cr_assert_str_neq(got, want);
    cr_assert_str_eq(want, "max(min(($MaliGPUCyclesFragmentQueueActive/$MaliGPUCyclesGPUActive)"
                           "*100,100),0)");
}
