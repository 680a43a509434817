/* gputop --serve scraped by the real Prometheus (Debian's package): two
 * scrapes, then a known metric read back through Prometheus' HTTP API with
 * the expected labels and a value in range. Loopback only, free ports,
 * bounded in time; skipped with a message when prometheus is absent. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakes/loopback.h"
#include "fakes/tmux.h"

static struct bg_proc gputop_proc, prom_proc;
static char workdir[256];

/* Runs after the test, failed or not: neither process outlives it. */
static void stop_both(void)
{
    char cmd[400];

    bg_stop(&prom_proc, SIGTERM, 10000);
    bg_stop(&gputop_proc, SIGINT, 10000);
    if (workdir[0]) {
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", workdir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", workdir);
    }
}

static const char *find_prometheus(char *buf, size_t len)
{
    const char *env = getenv("PROMETHEUS_BIN"), *path = getenv("PATH");
    char dirs[4096], *dir, *save = NULL;

    if (env && *env)
        return access(env, X_OK) == 0 ? env : NULL;
    snprintf(dirs, sizeof(dirs), "%s:/usr/bin:/usr/local/bin", path ? path : "");
    for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        snprintf(buf, len, "%s/prometheus", dir);
        if (access(buf, X_OK) == 0)
            return buf;
    }
    return NULL;
}

/* The API's answer to an instant query, or NULL while it has none. */
static json_object *query(int port, const char *promql)
{
    char path[1024], *body;
    const char *p;
    size_t n = 0;
    int st;
    json_object *j, *data, *result;

    n += (size_t)snprintf(path, sizeof(path), "/api/v1/query?query=");
    for (p = promql; *p && n + 4 < sizeof(path); p++) {
        if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", *p))
            path[n++] = *p;
        else
            n += (size_t)snprintf(path + n, sizeof(path) - n, "%%%02X", (unsigned char)*p);
    }
    path[n] = '\0';
    body = loopback_get(port, path, &st);
    if (!body || st != 200) {
        free(body);
        return NULL;
    }
    j = json_tokener_parse(body);
    free(body);
    if (!j || !json_object_object_get_ex(j, "data", &data) ||
        !json_object_object_get_ex(data, "result", &result) ||
        json_object_array_length(result) == 0) {
        json_object_put(j);
        return NULL;
    }
    return j;
}

static json_object *first_result(json_object *j)
{
    json_object *data, *result;

    json_object_object_get_ex(j, "data", &data);
    json_object_object_get_ex(data, "result", &result);
    return json_object_array_get_idx(result, 0);
}

static double result_value(json_object *j)
{
    json_object *v;

    json_object_object_get_ex(first_result(j), "value", &v);
    return atof(json_object_get_string(json_object_array_get_idx(v, 1)));
}

static const char *result_label(json_object *j, const char *key)
{
    json_object *m, *v;

    json_object_object_get_ex(first_result(j), "metric", &m);
    return json_object_object_get_ex(m, key, &v) ? json_object_get_string(v) : "";
}

static int start_gputop(void)
{
    /* A scene built for one verdict: the label must say it (the tree's
     * hysteresis holds a verdict after three intervals). */
    char *argv[] = { (char *)gputop_bin(), "--source", "sim:mali-g720,scene=texture-bound",
                     "--no-cpu", "-b", "-f", "none",
                     "-i", "100ms", "-d", "80s", "--serve", "127.0.0.1:0", NULL };
    const char *at;
    int port = -1;

    cr_assert_eq(bg_start(&gputop_proc, argv), 0);
    cr_assert(bg_wait_err(&gputop_proc, "/metrics\n", 20000), "%s", gputop_proc.err);
    at = strstr(gputop_proc.err, "http://127.0.0.1:");
    cr_assert_not_null(at);
    sscanf(at, "http://127.0.0.1:%d/", &port);
    return port;
}

static int start_prometheus(const char *bin, int target)
{
    char cfg[300], data[300], listen[64], cfgarg[320], dataarg[320];
    char *argv[] = { "/usr/bin/timeout", "80", (char *)bin, cfgarg, dataarg, listen,
                     "--log.level=warn", NULL };
    int port = loopback_free_port();
    FILE *f;

    snprintf(cfg, sizeof(cfg), "%s/prometheus.yml", workdir);
    snprintf(data, sizeof(data), "%s/data", workdir);
    f = fopen(cfg, "w");
    cr_assert_not_null(f);
    /* The ready scrape config of gputop-exports(7), with a 1 s interval. */
    fprintf(f, "global:\n  scrape_interval: 1s\n"
               "scrape_configs:\n  - job_name: gputop\n    static_configs:\n"
               "      - targets: ['127.0.0.1:%d']\n", target);
    fclose(f);
    snprintf(cfgarg, sizeof(cfgarg), "--config.file=%s", cfg);
    snprintf(dataarg, sizeof(dataarg), "--storage.tsdb.path=%s", data);
    snprintf(listen, sizeof(listen), "--web.listen-address=127.0.0.1:%d", port);
    cr_assert(access(argv[0], X_OK) == 0, "no %s", argv[0]);
    cr_assert_eq(bg_start(&prom_proc, argv), 0);
    return port;
}

Test(prometheus, scrapes_gputop_on_the_sim, .fini = stop_both, .timeout = 90)
{
    char binbuf[4096];
    const char *bin = find_prometheus(binbuf, sizeof(binbuf)), *tmp = getenv("TMPDIR");
    json_object *j = NULL;
    int gport, pport, tries;

    if (!bin)
        cr_skip_test("prometheus is not installed (apt-get install prometheus; "
                     "scripts/bootstrap.sh check tries to): the real-Prometheus test is skipped");
    snprintf(workdir, sizeof(workdir), "%s/gputop-prom-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(workdir));
    gport = start_gputop();
    pport = start_prometheus(bin, gport);
    /* Two scrapes: two points of the sampler's counter within a minute.
     * Up to 60 s (one scrape a second once it has started). */
    for (tries = 0; tries < 600; tries++) {
        j = query(pport, "count_over_time(gputop_sampler_samples_total{job=\"gputop\"}[1m])");
        if (j && result_value(j) >= 2)
            break;
        json_object_put(j);
        j = NULL;
        usleep(100000);
    }
    cr_assert_not_null(j, "no two scrapes within a minute; prometheus said: %s", prom_proc.err);
    json_object_put(j);

    j = query(pport, "gputop_gpu_activity_main_phase_queue_utilization_percent");
    cr_assert_not_null(j, "the known metric did not arrive");
    cr_expect_str_eq(result_label(j, "job"), "gputop");
    cr_expect_str_eq(result_label(j, "device"), "simulated");
    cr_expect_str_eq(result_label(j, "layout"), "mali-g720");
    cr_expect(result_label(j, "gpu")[0], "no gpu label");
    cr_expect(result_value(j) >= 0 && result_value(j) <= 100, "%g", result_value(j));
    json_object_put(j);

    /* A counter went up between scrapes, and the verdict is a label. */
    j = query(pport, "increase(gputop_gpu_activity_gpu_active_cycles_total[1m])");
    cr_assert_not_null(j);
    cr_expect_gt(result_value(j), 0);
    json_object_put(j);
    j = query(pport, "gputop_triage_verdict == 1");
    cr_assert_not_null(j);
    cr_expect_str_eq(result_label(j, "verdict"), "texture-bound");
    json_object_put(j);
}
