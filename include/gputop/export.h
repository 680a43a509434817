/* Exports for other tools: the latest values as a Prometheus scrape
 * (--serve) and the run as a Trace Event Format timeline (--trace). */
#ifndef GPUTOP_EXPORT_H
#define GPUTOP_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include "gputop/diag.h"
#include "gputop/engine.h"
#include "gputop/evaluate.h"
#include "gputop/layout.h"
#include "gputop/sampler.h"
#include "gputop/snapshot.h"
#include "gputop/source.h"

/* What a view hands every interval it evaluated (gt_evaluate) to, on its
 * own thread: the exports show the view's values and verdict, and judge
 * nothing themselves. */
struct gt_tap {
    void (*fn)(void *arg, const struct gt_interval *iv);
    void *arg;
};

/* ---- names ---- */

/* "Read bytes [L2 slice 1]" -> "read_bytes_l2_slice_1": text in snake case
 * as the Prometheus names have it ("%" is "percent"), for batch JSON keys. */
void gt_snake_case(char *buf, size_t len, const char *text);
/* "GPU activity" + "Fragment queue active" + "%" -> a Prometheus metric
 * name: gputop_<section>_<title>[_<unit>][_total], snake case, [a-z0-9_]
 * only; the unit is left out when the title already ends with it.
 * counter: 1 for counts (cumulative, "_total"). */
void gt_prom_name(char *buf, size_t len, const char *section, const char *title,
                  const char *unit, int counter);

/* ---- Prometheus ---- */

struct gt_prom;

/* The exposition for a layout run by engine on these sources; stats come
 * from sampler (may be NULL in tests). NULL out of memory. */
struct gt_prom *gt_prom_new(const struct gt_layout *l, const struct gt_engine *e,
                            struct gt_source *const *src, size_t nsrc,
                            struct gt_sampler *sampler);
/* --per-core: also a series per shader core, L2 slice or CPU cluster,
 * labelled instance="shader core 4"; call before the first publish.
 * Returns 0, or -1 out of memory. */
int gt_prom_per_core(struct gt_prom *p);
/* --processes N: per-client series (busy, memory) for the top n clients
 * the watcher lists, labelled pid, comm, container, driver, drm_pdev. */
struct gt_fdinfo_watch;
void gt_prom_set_processes(struct gt_prom *p, struct gt_fdinfo_watch *w, unsigned top);
void gt_prom_free(struct gt_prom *p);
/* Takes one evaluated interval (a gt_tap function; thread-safe against
 * gt_prom_render). Intervals without data change nothing. */
void gt_prom_publish(void *prom, const struct gt_interval *iv);
/* The text exposition format 0.0.4 of the latest values; *out is
 * malloc'd. Returns its length, or -1 out of memory. */
long gt_prom_render(struct gt_prom *p, char **out);

/* ---- HTTP ---- */

/* Limits of the endpoint: one request per connection, each connection
 * closed after its answer; up to 16 connections served side by side,
 * past which the one waiting longest for its request is dropped. */
#define GT_HTTP_MAX_REQUEST 8192          /* bytes of request head */
#define GT_HTTP_TIMEOUT_MS  2000          /* to receive the head */

/* Answers a GET of path: *body malloc'd, *type its content type; returns
 * the status (200, 404) or -1 out of memory. */
typedef int (*gt_http_handler)(void *arg, const char *path, char **body, size_t *len,
                               const char **type);

struct gt_http;

/* Parses "ADDR:PORT", ":PORT" or "PORT" (address 127.0.0.1 unless one is
 * given; "[::1]:PORT" for IPv6). Returns 0, or -1 with d set. */
int gt_http_parse_addr(const char *spec, char *host, size_t hlen, char *port, size_t plen,
                       struct gt_diag *d);
/* Binds and starts the server's one thread. NULL with d set on error. */
struct gt_http *gt_http_start(const char *spec, gt_http_handler fn, void *arg,
                              struct gt_diag *d);
/* The port bound (useful after asking for port 0). */
int  gt_http_port(const struct gt_http *h);
/* Requests answered so far, and of them the ones refused as malformed. */
void gt_http_counts(struct gt_http *h, uint64_t *served, uint64_t *bad);
void gt_http_stop(struct gt_http *h);

/* The handler for a gt_prom: /metrics, and a short page at /. */
int gt_prom_http_handler(void *prom, const char *path, char **body, size_t *len,
                         const char **type);

/* ---- trace ---- */

struct gt_trace;

/* Creates file and writes the track names: one process per section, one
 * counter track per available metric. NULL with d set on error. */
struct gt_trace *gt_trace_open(const char *file, const struct gt_layout *l,
                               const struct gt_engine *e, struct gt_diag *d);
/* A gt_tap function: one counter event per metric with a value, and an
 * instant event when the triage verdict changes. Write errors are kept
 * for gt_trace_close. */
void gt_trace_write(void *trace, const struct gt_interval *iv);
/* Ends the JSON array and closes; -1 with d set when any write failed. */
int  gt_trace_close(struct gt_trace *t, struct gt_diag *d);

/* ---- both, for a run ---- */

struct gt_exports;

/* Starts what --serve (spec, or NULL) and --trace (file, or NULL) ask for,
 * the endpoint with per-instance series when per_core; NULL with d set on
 * error. With neither, returns an empty set. */
struct gt_exports *gt_exports_start(const char *serve, const char *trace,
                                    const struct gt_layout *l, const struct gt_engine *e,
                                    struct gt_source *const *src, size_t nsrc,
                                    struct gt_sampler *sampler, int per_core,
                                    struct gt_diag *d);
/* The tap a view calls with each evaluated snapshot (fn NULL: none). */
struct gt_tap gt_exports_tap(struct gt_exports *x);
/* The endpoint also serves the top clients of w (--processes). */
void gt_exports_set_processes(struct gt_exports *x, struct gt_fdinfo_watch *w, unsigned top);
/* The address served, "" when not serving. */
const char *gt_exports_url(const struct gt_exports *x);
/* Stops the server, closes the trace; -1 with d set when the trace could
 * not be written whole. */
int gt_exports_finish(struct gt_exports *x, struct gt_diag *d);

#endif
