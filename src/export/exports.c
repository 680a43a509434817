/* The exports a run asked for, started together and fed by one tap, so
 * the views need to know only that there is something to call. */
#include "gputop/export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gt_exports {
    struct gt_prom *prom;
    struct gt_http *http;
    struct gt_trace *trace;
    char url[128];
};

static void tap_both(void *arg, const struct gt_interval *iv)
{
    struct gt_exports *x = arg;

    if (x->prom)
        gt_prom_publish(x->prom, iv);
    if (x->trace)
        gt_trace_write(x->trace, iv);
}

static int start_server(struct gt_exports *x, const char *spec, const struct gt_layout *l,
                        const struct gt_engine *e, struct gt_source *const *src, size_t nsrc,
                        struct gt_sampler *sampler, int per_core, struct gt_diag *d)
{
    char host[256], port[16];

    if (gt_http_parse_addr(spec, host, sizeof(host), port, sizeof(port), d) < 0)
        return -1;
    x->prom = gt_prom_new(l, e, src, nsrc, sampler);
    if (!x->prom || (per_core && gt_prom_per_core(x->prom) < 0)) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return -1;
    }
    x->http = gt_http_start(spec, gt_prom_http_handler, x->prom, d);
    if (!x->http)
        return -1;
    snprintf(x->url, sizeof(x->url), strchr(host, ':') ? "http://[%.64s]:%d/metrics"
                                                        : "http://%.64s:%d/metrics",
             host, gt_http_port(x->http));
    return 0;
}

struct gt_exports *gt_exports_start(const char *serve, const char *trace,
                                    const struct gt_layout *l, const struct gt_engine *e,
                                    struct gt_source *const *src, size_t nsrc,
                                    struct gt_sampler *sampler, int per_core, struct gt_diag *d)
{
    struct gt_exports *x = calloc(1, sizeof(*x));
    struct gt_diag ignore;

    if (!x) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (serve && start_server(x, serve, l, e, src, nsrc, sampler, per_core, d) < 0)
        goto fail;
    if (trace && !(x->trace = gt_trace_open(trace, l, e, d)))
        goto fail;
    return x;
fail:
    gt_exports_finish(x, &ignore);
    return NULL;
}

void gt_exports_set_processes(struct gt_exports *x, struct gt_fdinfo_watch *w, unsigned top)
{
    if (x && x->prom)
        gt_prom_set_processes(x->prom, w, top);
}

struct gt_tap gt_exports_tap(struct gt_exports *x)
{
    struct gt_tap t = { NULL, NULL };

    if (x && (x->prom || x->trace)) {
        t.fn = tap_both;
        t.arg = x;
    }
    return t;
}

const char *gt_exports_url(const struct gt_exports *x)
{
    return x ? x->url : "";
}

int gt_exports_finish(struct gt_exports *x, struct gt_diag *d)
{
    int r;

    if (!x)
        return 0;
    gt_http_stop(x->http);
    gt_prom_free(x->prom);
    r = gt_trace_close(x->trace, d);
    free(x);
    return r;
}
