/* Start-up cost of batch columns in the number of metrics (issue 44 item
 * 7: every column was compared with every earlier one, 0.99 s for 8k
 * metrics): gt_batch_columns over layouts of 2k, 4k and 8k metrics, half
 * with titles of their own, half in pairs that take their section and a
 * #2. Linear growth makes 8k cost about 4x 2k; quadratic, 16x; the goal
 * leaves room for caches outgrown and a loaded machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gputop/batch.h"
#include "gputop/engine.h"
#include "gputop/layout.h"

#define ROUNDS 21
#define GOAL   10.0    /* the 8k / 2k ratio: linear 4, quadratic 16 */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct gt_layout *big_layout(size_t n)
{
    struct gt_layout *l;
    struct gt_diag d;
    char *text;
    size_t len, i;
    FILE *f = open_memstream(&text, &len);

    if (!f)
        return NULL;
    fputs("gputop-layout 1\nname big\ntitle Big\nfamily big\nsection One\n  key 1\n  group G\n", f);
    for (i = 0; i < n / 2; i++)
        fprintf(f, "    metric M%zu\n      expr $Active + %zu\n      show count\n", i, i);
    fputs("section Two\n  key 2\n  group G\n", f);
    for (i = 0; i < n / 2; i++)
        fprintf(f, "    metric Same %zu\n      expr $Active\n      show count\n", i / 2);
    fclose(f);
    l = gt_layout_parse("big.layout", text, len, &d);
    if (!l)
        fprintf(stderr, "columns_cost: %s\n", d.msg);
    free(text);
    return l;
}

/* The best of ROUNDS calls, in seconds; -1 on an error. */
static double columns_time(size_t n)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV };
    struct gt_layout *l = big_layout(n);
    struct gt_catalog c;
    struct gt_engine *e;
    struct gt_column *cols;
    struct gt_diag d;
    double best = -1;
    int r;

    gt_catalog_init(&c);
    if (!l || gt_catalog_add(&c, "Active", "front-end", GT_COUNTER_DELTA, 1, 1) < 0 ||
        !(e = gt_engine_new(l, &c))) {
        gt_layout_free(l);
        gt_catalog_free(&c);
        return -1;
    }
    for (r = 0; r < ROUNDS; r++) {
        double t = now_s();
        long got = gt_batch_columns(l, e, &o, &cols, &d);
        t = now_s() - t;
        free(cols);
        if (got != (long)n) {
            best = -1;
            break;
        }
        if (best < 0 || t < best)
            best = t;
    }
    gt_engine_free(e);
    gt_layout_free(l);
    gt_catalog_free(&c);
    return best;
}

int main(void)
{
    static const size_t sizes[] = { 2000, 4000, 8000 };
    double t[3], ratio;
    int i;

    for (i = 0; i < 3; i++) {
        t[i] = columns_time(sizes[i]);
        if (t[i] < 0) {
            fprintf(stderr, "columns_cost: %zu metrics failed\n", sizes[i]);
            return 1;
        }
        printf("batch columns, %zu metrics: %.2f ms (best of %d)\n", sizes[i], t[i] * 1e3, ROUNDS);
    }
    ratio = t[0] > 0 ? t[2] / t[0] : 0;
    printf("summary: batch columns 8k / 2k metrics, time ratio\t%.1f\t<= %.0f (linear 4, "
           "quadratic 16)\t%s\n", ratio, GOAL, ratio <= GOAL ? "yes" : "no");
    return 0;
}
