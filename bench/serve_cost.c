/* What --serve costs: scrape latency and CPU time of the endpoint scraped
 * once a second beside 10 Hz sampling of the simulated G720, and the
 * sampler's own wake-up lateness with and without the endpoint, measured
 * one phase after the other in the same run. Prints figures and ratios;
 * no pass/fail. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench_setup.h"
#include "gputop/export.h"

#ifndef SECONDS
#define SECONDS 10
#endif
#define INTERVAL_NS 100000000ull

static uint64_t ns_of(clockid_t c)
{
    struct timespec ts;

    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct phase {
    struct gt_source *src;
    struct gt_layout *layout;
    struct gt_engine *engine;
    struct gt_sampler *sampler;
    struct gt_prom *prom;
    struct gt_evaluator *eval;
    uint32_t offset;            /* the sampler borrows it */
    volatile sig_atomic_t stop;
};

/* The view: takes each snapshot, evaluates it and publishes it, as the
 * batch writer with -f none does. */
static void *reader(void *arg)
{
    struct phase *p = arg;
    struct gt_snapshot snap;
    double *vals = calloc(gt_engine_nmetrics(p->engine) + 1, sizeof(double));

    gt_snapshot_init(&snap, gt_sampler_nslots(p->sampler));
    while (!p->stop) {
        if (gt_sampler_take(p->sampler, &snap, 200000000ull) <= 0)
            continue;
        gt_prom_publish(p->prom, gt_evaluate(p->eval, &snap, vals));
    }
    gt_snapshot_free(&snap);
    free(vals);
    return NULL;
}

static int open_phase(struct phase *p)
{
    struct gt_sampler_config cfg;
    struct gt_diag d;

    memset(p, 0, sizeof(*p));
    p->src = gt_source_open("sim", NULL, &d);
    if (!p->src || !(p->layout = bench_own_layout(p->src, &d)) ||
        !(p->engine = gt_engine_new(p->layout, &p->src->catalog)))
        return -1;
    memset(&cfg, 0, sizeof(cfg));
    cfg.sources = &p->src;
    cfg.nsources = 1;
    cfg.slot_offset = &p->offset;
    cfg.nslots = p->src->catalog.nslots;
    cfg.interval_ns = INTERVAL_NS;
    cfg.timer_only = 1;      /* the endpoint's effect on the timer's lateness */
    p->sampler = gt_sampler_new(&cfg);
    if (!p->sampler)
        return -1;
    /* As in gputop: each scrape also copies the sampler's counters. */
    p->prom = gt_prom_new(p->layout, p->engine, &p->src, 1, p->sampler);
    p->eval = gt_evaluator_new(p->layout, p->engine);
    return p->prom && p->eval && gt_sampler_start(p->sampler, &d) == 0 ? 0 : -1;
}

static void close_phase(struct phase *p, struct gt_lateness_summary *lat)
{
    struct gt_sampler_stats st;

    gt_sampler_stop(p->sampler);
    gt_sampler_get_stats(p->sampler, &st);
    *lat = st.lateness;
    gt_sampler_free(p->sampler);
    gt_prom_free(p->prom);
    gt_evaluator_free(p->eval);
    gt_engine_free(p->engine);
    gt_layout_free(p->layout);
    gt_source_close(p->src);
}

/* One GET /metrics; returns the bytes received, -1 on failure. */
static long scrape(int port)
{
    static const char req[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    struct sockaddr_in a = { .sin_family = AF_INET };
    char buf[65536];
    long total = 0;
    ssize_t r;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        send(fd, req, sizeof(req) - 1, 0) < 0) {
        close(fd);
        return -1;
    }
    while ((r = recv(fd, buf, sizeof(buf), 0)) > 0)
        total += r;
    close(fd);
    return total;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Runs one phase of SECONDS; with serve, scrapes once a second from this
 * thread, whose own CPU time is left out of the figure. */
static int run_phase(int serve, struct gt_lateness_summary *lat, double *cpu_ms,
                     uint64_t *lat_ns, int *nscrapes, long *bytes)
{
    struct phase p;
    struct gt_http *h = NULL;
    struct gt_diag d;
    pthread_t t;
    uint64_t c0, me0, start, i;

    if (open_phase(&p) < 0)
        return -1;
    if (serve && !(h = gt_http_start("127.0.0.1:0", gt_prom_http_handler, p.prom, &d))) {
        fprintf(stderr, "bench: %s\n", d.msg);
        return -1;
    }
    c0 = ns_of(CLOCK_PROCESS_CPUTIME_ID);
    me0 = ns_of(CLOCK_THREAD_CPUTIME_ID);
    start = ns_of(CLOCK_MONOTONIC);
    pthread_create(&t, NULL, reader, &p);
    *nscrapes = 0;
    for (i = 1; i <= SECONDS; i++) {
        struct timespec ts;
        uint64_t at = start + i * 1000000000ull - 500000000ull;   /* between samples */
        ts.tv_sec = (time_t)(at / 1000000000ull);
        ts.tv_nsec = (long)(at % 1000000000ull);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
            ;
        if (!serve)
            continue;
        uint64_t s0 = ns_of(CLOCK_MONOTONIC);
        *bytes = scrape(gt_http_port(h));
        lat_ns[(*nscrapes)++] = ns_of(CLOCK_MONOTONIC) - s0;
    }
    {
        struct timespec ts;
        uint64_t at = start + (uint64_t)SECONDS * 1000000000ull;
        ts.tv_sec = (time_t)(at / 1000000000ull);
        ts.tv_nsec = (long)(at % 1000000000ull);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
            ;
    }
    *cpu_ms = (double)(ns_of(CLOCK_PROCESS_CPUTIME_ID) - c0 -
                       (ns_of(CLOCK_THREAD_CPUTIME_ID) - me0)) / 1e6;
    p.stop = 1;
    pthread_join(t, NULL);
    gt_http_stop(h);
    close_phase(&p, lat);
    return 0;
}

/* CPU time of rendering the body, the bulk of a scrape's work, in a
 * loop: steadier than the difference of two phases on a busy machine. */
static double render_us(void)
{
    struct phase p;
    struct gt_lateness_summary lat;
    uint64_t c0;
    char *text;
    int i, n = 200;

    if (open_phase(&p) < 0)
        return 0;
    c0 = ns_of(CLOCK_THREAD_CPUTIME_ID);
    for (i = 0; i < n; i++) {
        if (gt_prom_render(p.prom, &text) < 0)
            break;
        free(text);
    }
    c0 = ns_of(CLOCK_THREAD_CPUTIME_ID) - c0;
    close_phase(&p, &lat);
    return (double)c0 / n / 1e3;
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0;
}

int main(void)
{
    struct gt_lateness_summary base, served;
    uint64_t lat_ns[SECONDS], none[SECONDS];
    double cpu_base, cpu_served;
    int n = 0, n0;
    long bytes = 0, b0;

    if (run_phase(0, &base, &cpu_base, none, &n0, &b0) < 0 ||
        run_phase(1, &served, &cpu_served, lat_ns, &n, &bytes) < 0) {
        puts("serve_cost: cannot set up the sim (skipped)");
        return 0;
    }
    qsort(lat_ns, (size_t)n, sizeof(lat_ns[0]), cmp_u64);
    printf("scrape of %ld bytes, %d scrapes at 1/s: latency p50 %.2f ms, max %.2f ms\n", bytes, n,
           (double)lat_ns[n / 2] / 1e6, (double)lat_ns[n - 1] / 1e6);
    printf("CPU per second, 10 Hz sampling + view: %.2f ms without the endpoint, %.2f ms with "
           "it (ratio %.2f); %.2f ms per scrape\n",
           cpu_base / SECONDS, cpu_served / SECONDS, ratio(cpu_served, cpu_base),
           (cpu_served - cpu_base) / n);
    printf("rendering the exposition: %.0f us of CPU per scrape (in a loop)\n", render_us());
    printf("sampler wake-up lateness without / with the endpoint: p50 %.0f / %.0f us "
           "(ratio %.2f), p99 %.0f / %.0f us (ratio %.2f), max %.0f / %.0f us, "
           "late by a period %llu / %llu\n",
           (double)base.p50_ns / 1e3, (double)served.p50_ns / 1e3,
           ratio((double)served.p50_ns, (double)base.p50_ns),
           (double)base.p99_ns / 1e3, (double)served.p99_ns / 1e3,
           ratio((double)served.p99_ns, (double)base.p99_ns),
           (double)base.max_ns / 1e3, (double)served.max_ns / 1e3,
           (unsigned long long)base.over_period, (unsigned long long)served.over_period);
    return 0;
}
