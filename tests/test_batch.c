/* Batch output: CSV headers and empty no-data fields, JSON Lines read back
 * with a real JSON parser, per-second rates, selection by section and
 * pattern, and per-instance columns. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakes/capture_records.h"
#include "fakes/fake_kbase.h"
#include "fakes/scripted_source.h"
#include "fakes/tmux.h"
#include "gputop/batch.h"
#include "gputop/cli.h"
#include "gputop/kbase_uapi.h"

static const char layout_text[] =
    "gputop-layout 1\nname t\ntitle T\nfamily t\n"
    "section GPU activity\n  key 2\n  group Usage\n"
    "    metric GPU active cycles\n      ref 3.1.1\n      expr $Active\n      unit cycles\n      show count\n"
    "    metric Queue utilization\n      ref 3.2.1\n      expr max(min($Queue / $Active * 100, 100), 0)\n"
    "      unit %\n      show percent\n"
    "    metric Needs more\n      expr $Missing\n      show count\n"
    "section Other, with \"quotes\"\n  key o\n  group G\n"
    "    metric Cycles per thing\n      ref 9.1\n      expr $Active / $Queue\n      show value\n"
    "    metric CPU activity\n      expr $CPUActivityUser.Cluster[0..N]\n      unit %\n      show percent\n";

static void build(struct gt_catalog *c)
{
    gt_catalog_add(c, "Active", "front-end", GT_COUNTER_DELTA, 1, 1);
    gt_catalog_add(c, "Queue", "front-end", GT_COUNTER_DELTA, 1, 1);
    gt_catalog_add_cpu(c, 2);
}

/* slots: Active, Queue, TicksUser[2], TicksSystem[2], TicksTotal[2], Cycles[2] */
static const uint64_t rows[3][10] = {
    { 1000, 250, 10, 20, 0, 0, 100, 100, 0, 0 },
    { 0, 0, 0, 0, 0, 0, 100, 100, 0, 0 },             /* idle: no data */
    { 5000000000ull, 5000000000ull, 50, 0, 0, 0, 100, 0, 0, 0 },
};

struct run {
    struct scripted script;
    struct gt_source *src;
    struct gt_layout *l;
    struct gt_engine *e;
    struct gt_sampler *s;
    char *text;
    size_t len;
};

/* A script of nrows x nslots deltas through layout text and the catalogue
 * build makes; core_mask as a source would give it (0 none). */
struct script_spec {
    const char *layout;
    void (*build)(struct gt_catalog *c);
    const uint64_t *rows;
    size_t nrows;
    uint32_t nslots;
    uint64_t core_mask;
};

/* Runs the script (calls in fail_mask failing) through the sampler and
 * the batch writer; returns gt_batch_run's result, d its message. */
static int run_script_failing(struct run *r, struct gt_batch_opts *o,
                              const struct script_spec *sp, uint64_t fail_mask,
                              struct gt_diag *d)
{
    uint32_t off = 0;
    struct gt_sampler_config cfg;
    volatile sig_atomic_t stop = 0;
    FILE *f;
    int status;

    memset(r, 0, sizeof(*r));
    r->script.rows = sp->rows;
    r->script.nrows = sp->nrows;
    r->script.interval_ns = 100000000ull;
    r->script.fail_mask = fail_mask;
    r->src = scripted_source_new(&r->script, sp->build);
    cr_assert_eq(r->src->catalog.nslots, sp->nslots);
    r->l = gt_layout_parse("t.layout", sp->layout, strlen(sp->layout), d);
    cr_assert_not_null(r->l, "%s", d->msg);
    r->e = gt_engine_new(r->l, &r->src->catalog);
    if (sp->core_mask)
        gt_engine_set_core_mask(r->e, sp->core_mask);
    memset(&cfg, 0, sizeof(cfg));
    cfg.sources = &r->src;
    cfg.nsources = 1;
    cfg.slot_offset = &off;
    cfg.nslots = sp->nslots;
    cfg.interval_ns = 100000000ull;
    cfg.lossless = 1;
    r->s = gt_sampler_new(&cfg);
    cr_assert_eq(gt_sampler_start(r->s, d), 0);
    f = open_memstream(&r->text, &r->len);
    gt_diag_clear(d);
    status = gt_batch_run(f, r->s, r->e, r->l, &r->src, 1, o, &stop, d);
    fclose(f);
    return status;
}

static void run_script(struct run *r, struct gt_batch_opts *o, const struct script_spec *sp)
{
    struct gt_diag d;

    cr_assert_eq(run_script_failing(r, o, sp, 0, &d), 0, "%s", d.msg);
}

static int run_batch_text_failing(struct run *r, struct gt_batch_opts *o, const char *text,
                                  uint64_t fail_mask, struct gt_diag *d)
{
    struct script_spec sp = { text, build, &rows[0][0], 3, 10, 0 };

    return run_script_failing(r, o, &sp, fail_mask, d);
}

static int run_batch_failing(struct run *r, struct gt_batch_opts *o, uint64_t fail_mask,
                             struct gt_diag *d)
{
    return run_batch_text_failing(r, o, layout_text, fail_mask, d);
}

static void run_batch_on(struct run *r, struct gt_batch_opts *o, const char *text)
{
    struct gt_diag d;

    cr_assert_eq(run_batch_text_failing(r, o, text, 0, &d), 0, "%s", d.msg);
}

static void run_batch(struct run *r, struct gt_batch_opts *o)
{
    run_batch_on(r, o, layout_text);
}

static void free_run(struct run *r)
{
    gt_sampler_free(r->s);
    gt_engine_free(r->e);
    gt_layout_free(r->l);
    scripted_source_free(r->src);
    free(r->text);
}

Test(batch, csv_header_rows_and_empty_no_data)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV };
    struct run r;

    run_batch(&r, &o);
    cr_assert_str_eq(r.text,
        "time_s,interval_s,time_unix,GPU active cycles [cycles],Queue utilization [%],Needs more,"
        "Cycles per thing,CPU activity[0] [%],CPU activity[1] [%]\n"
        "0.1,0.1,,1000,25,,4,10,20\n"
        "0.2,0.1,,0,,,,0,0\n"
        "0.3,0.1,,5000000000,100,,1,50,\n");
    free_run(&r);
}

Test(batch, per_second_converts_counts_only)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV, .count = 1, .pattern = "*", .per_second = 1 };
    struct run r;

    run_batch(&r, &o);
    cr_assert(strstr(r.text, "\n0.1,0.1,,10000,25,,4,10,20\n"), "%s", r.text);
    free_run(&r);
}

Test(batch, section_and_pattern_select_columns)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV, .count = 1, .section = "2",
                               .pattern = "*utilization" };
    struct run r;

    run_batch(&r, &o);
    cr_assert_str_eq(r.text, "time_s,interval_s,time_unix,Queue utilization [%]\n0.1,0.1,,25\n");
    free_run(&r);
    o.section = "other, with \"QUOTES\"";
    o.pattern = NULL;
    run_batch(&r, &o);
    cr_assert(strncmp(r.text, "time_s,interval_s,time_unix,Cycles per thing,", 45) == 0, "%s",
              r.text);
    free_run(&r);
    o.section = NULL;
    o.pattern = "3.1.*";
    run_batch(&r, &o);
    cr_assert(strncmp(r.text, "time_s,interval_s,time_unix,GPU active cycles [cycles]\n", 55) == 0,
              "%s", r.text);
    free_run(&r);
}

Test(batch, nothing_selected_is_an_error)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV, .section = "nope" };
    struct gt_column *cols;
    struct gt_diag d;
    struct run r;

    memset(&r, 0, sizeof(r));
    r.l = gt_layout_parse("t.layout", layout_text, strlen(layout_text), &d);
    r.script.rows = &rows[0][0];
    r.src = scripted_source_new(&r.script, build);
    r.e = gt_engine_new(r.l, &r.src->catalog);
    cr_assert_eq(gt_batch_columns(r.l, r.e, &o, &cols, &d), 0);
    cr_assert_str_eq(d.msg, "no section 'nope' in layout t");
    free(cols);
    o.section = NULL;
    o.pattern = "zzz*";
    cr_assert_eq(gt_batch_columns(r.l, r.e, &o, &cols, &d), 0);
    cr_assert_str_eq(d.msg, "no metric matches 'zzz*'");
    free(cols);
    gt_engine_free(r.e);
    gt_layout_free(r.l);
    scripted_source_free(r.src);
}

Test(batch, json_lines_parse_with_a_real_parser)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_JSON };
    struct run r;
    char *line, *save = NULL;
    int n = 0;

    run_batch(&r, &o);
    for (line = strtok_r(r.text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
        enum json_tokener_error err;
        json_object *j = json_tokener_parse_verbose(line, &err), *v, *vals;
        cr_assert_not_null(j, "line %d is not JSON (%s): %s", n, json_tokener_error_desc(err), line);
        cr_assert(json_object_object_get_ex(j, "type", &v));
        if (n == 0) {
            json_object *metrics, *m0, *miss;
            cr_assert_str_eq(json_object_get_string(v), "meta");
            cr_assert(json_object_object_get_ex(j, "metrics", &metrics));
            cr_assert_eq(json_object_array_length(metrics), 6);
            m0 = json_object_array_get_idx(metrics, 0);
            cr_assert(json_object_object_get_ex(m0, "key", &v));
            cr_assert_str_eq(json_object_get_string(v), "gpu_active_cycles");
            cr_assert(json_object_object_get_ex(m0, "unit", &v));
            cr_assert_str_eq(json_object_get_string(v), "cycles");
            miss = json_object_array_get_idx(metrics, 2);
            cr_assert(json_object_object_get_ex(miss, "unavailable", &v));
            cr_assert_str_eq(json_object_get_string(v), "this source has no counter $Missing");
            json_object_put(j);
            continue;
        }
        cr_assert_str_eq(json_object_get_string(v), "sample");
        cr_assert(json_object_object_get_ex(j, "values", &vals));
        cr_assert(json_object_object_get_ex(vals, "gpu_active_cycles", &v));
        cr_assert(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
        cr_assert(json_object_object_get_ex(vals, "queue_utilization", &v));
        if (n == 1)
            cr_assert_eq(json_object_get_double(v), 25.0);
        if (n == 2)
            cr_assert(json_object_is_type(v, json_type_null), "idle utilisation must be null");
        if (n == 3) {
            cr_assert(json_object_object_get_ex(vals, "gpu_active_cycles", &v));
            cr_assert_eq(json_object_get_int64(v), 5000000000ll);
        }
        cr_assert(json_object_object_get_ex(vals, "cpu_activity_1", &v));
        cr_assert(json_object_object_get_ex(j, "interval_s", &v));
        cr_assert_eq(json_object_get_double(v), 0.1);
        json_object_put(j);
    }
    cr_assert_eq(n, 4);
    free_run(&r);
}

Test(batch, text_shows_dashes_for_no_data)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_TEXT, .count = 2, .section = "2" };
    struct run r;

    run_batch(&r, &o);
    cr_assert(strstr(r.text, "  GPU activity / Usage\n"), "%s", r.text);
    cr_assert(strstr(r.text, "Queue utilization"), "%s", r.text);
    cr_assert(strstr(r.text, " - %\n"), "%s", r.text);
    free_run(&r);
}

Test(batch, number_formatting_round_trips)
{
    const double vals[] = { 0.1, 1.0 / 3, 5000000000.0, 1e-300, 123456789.125, -2.5 };
    char buf[40];
    size_t i;

    for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        gt_format_number(buf, sizeof(buf), vals[i]);
        cr_assert_eq(strtod(buf, NULL), vals[i], "%s", buf);
    }
    gt_format_number(buf, sizeof(buf), NAN);
    cr_assert_str_eq(buf, "");
    gt_format_number(buf, sizeof(buf), 0.1);
    cr_assert_str_eq(buf, "0.1");
}

/* Two metrics share the title "Fragment shading rate" as in the Mali-G720
 * guide (4.7.1 and 6.3.4): only colliding titles get the guide reference,
 * or the section when there is none; every header carries its unit. */
static const char dup_layout[] =
    "gputop-layout 1\nname d\ntitle D\nfamily d\n"
    "section Fragments\n  key f\n  group Rates\n"
    "    metric Fragment shading rate\n      ref 4.7.1\n      expr $Queue / 3\n"
    "      unit %\n      show percent\n"
    "    metric Bytes\n      ref 4.7.2\n      expr $Active\n      unit bytes\n      show count\n"
    "section Overview\n  key v\n  group Again\n"
    "    metric Fragment shading rate\n      ref 6.3.4\n      expr $Active / 3\n"
    "      unit %\n      show percent\n"
    "    metric Bytes\n      expr $Queue\n      unit bytes\n      show count\n"
    "    metric Unique\n      expr $Queue\n      show count\n";

Test(batch, csv_headers_unique_with_units_and_six_digits)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV, .count = 1 };
    struct run r;

    run_batch_on(&r, &o, dup_layout);
    cr_assert_str_eq(r.text,
        "time_s,interval_s,time_unix,Fragment shading rate (4.7.1) [%],Bytes (4.7.2) [bytes],"
        "Fragment shading rate (6.3.4) [%],Bytes (Overview) [bytes],Unique\n"
        "0.1,0.1,,83.3333,1000,333.333,250,250\n");
    free_run(&r);
}

/* Issue 44 item 7: 8000 metrics (columns were matched by strcmp against
 * every earlier one). Section One's titles are all different and stay as
 * they are; Section Two's come in pairs, "Same k" twice: shared, so
 * each takes its section, and the second of a pair then #2. */
Test(batch, eight_thousand_metrics_get_unique_correct_names)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV };
    struct gt_column *cols;
    struct gt_diag d;
    struct run r;
    char *text, want[64];
    size_t len, i;
    FILE *f = open_memstream(&text, &len);

    fputs("gputop-layout 1\nname big\ntitle Big\nfamily big\n"
          "section One\n  key 1\n  group G\n", f);
    for (i = 0; i < 4000; i++)
        fprintf(f, "    metric M%zu\n      expr $Active + %zu\n      show count\n", i, i);
    fputs("section Two\n  key 2\n  group G\n", f);
    for (i = 0; i < 4000; i++)
        fprintf(f, "    metric Same %zu\n      expr $Queue\n      show count\n", i / 2);
    fclose(f);
    memset(&r, 0, sizeof(r));
    r.l = gt_layout_parse("big.layout", text, len, &d);
    cr_assert_not_null(r.l, "%s", d.msg);
    r.script.rows = &rows[0][0];
    r.src = scripted_source_new(&r.script, build);
    r.e = gt_engine_new(r.l, &r.src->catalog);
    cr_assert_not_null(r.e);
    cr_assert_eq(gt_batch_columns(r.l, r.e, &o, &cols, &d), 8000, "%s", d.msg);
    for (i = 0; i < 8000; i++) {
        if (i < 4000)
            snprintf(want, sizeof(want), "M%zu", i);
        else
            snprintf(want, sizeof(want), "Same %zu (Two)%s", (i - 4000) / 2, i % 2 ? "#2" : "");
        cr_assert_str_eq(cols[i].title, want, "column %zu", i);
        /* the key: the title in snake case (issue 43 item 14) */
        if (i < 4000)
            snprintf(want, sizeof(want), "m%zu", i);
        else
            snprintf(want, sizeof(want), "same_%zu_two%s", (i - 4000) / 2, i % 2 ? "_2" : "");
        cr_assert_str_eq(cols[i].key, want, "column %zu", i);
        cr_assert_eq(cols[i].metric, i);
    }
    free(cols);
    free(text);
    gt_engine_free(r.e);
    gt_layout_free(r.l);
    scripted_source_free(r.src);
}

/* Per second, counts change unit (bytes -> bytes/s, none -> count/s);
 * percentages keep theirs. */
Test(batch, per_second_changes_the_header_unit)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV, .count = 1, .per_second = 1 };
    struct run r;

    run_batch_on(&r, &o, dup_layout);
    cr_assert_str_eq(r.text,
        "time_s,interval_s,time_unix,Fragment shading rate (4.7.1) [%],Bytes (4.7.2) [bytes/s],"
        "Fragment shading rate (6.3.4) [%],Bytes (Overview) [bytes/s],Unique [count/s]\n"
        "0.1,0.1,,83.3333,10000,333.333,2500,2500\n");
    free_run(&r);
}

Test(batch, precision_full_reads_back_exactly)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV, .count = 1, .pattern = "Fragment*" };
    struct run r;

    o.digits = GT_DIGITS_FULL;
    run_batch_on(&r, &o, dup_layout);
    cr_assert_str_eq(r.text,
        "time_s,interval_s,time_unix,Fragment shading rate (4.7.1) [%],Fragment shading rate (6.3.4) [%]\n"
        "0.1,0.1,,83.33333333333333,333.3333333333333\n");
    free_run(&r);
    o.digits = 3;
    run_batch_on(&r, &o, dup_layout);
    cr_assert(strstr(r.text, "\n0.1,0.1,,83.3,333\n"), "%s", r.text);
    free_run(&r);
}

/* JSON: the same unique titles, the units (per second too) in the meta
 * record, and the precision said there. */
Test(batch, json_meta_has_unique_titles_units_and_precision)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_JSON, .count = 1, .per_second = 1 };
    struct run r;
    json_object *j, *v, *metrics, *m;
    char *nl;

    run_batch_on(&r, &o, dup_layout);
    nl = strchr(r.text, '\n');
    *nl = '\0';
    j = json_tokener_parse(r.text);
    cr_assert_not_null(j, "%s", r.text);
    cr_assert(json_object_object_get_ex(j, "significant_digits", &v));
    cr_assert_eq(json_object_get_int(v), 6);
    cr_assert(json_object_object_get_ex(j, "metrics", &metrics));
    m = json_object_array_get_idx(metrics, 2);
    cr_assert(json_object_object_get_ex(m, "title", &v));
    cr_assert_str_eq(json_object_get_string(v), "Fragment shading rate (6.3.4)");
    m = json_object_array_get_idx(metrics, 3);
    cr_assert(json_object_object_get_ex(m, "key", &v));
    cr_assert_str_eq(json_object_get_string(v), "bytes_overview");
    cr_assert(json_object_object_get_ex(m, "unit", &v));
    cr_assert_str_eq(json_object_get_string(v), "bytes/s");
    json_object_put(j);
    cr_assert(strstr(nl + 1, "\"fragment_shading_rate_4_7_1\":83.3333,"), "%s", nl + 1);
    free_run(&r);
}

static char *stdout_of(const char *args)
{
    const char *bin = getenv("GPUTOP_BIN");
    char cmd[2048], *buf = NULL, chunk[4096];
    size_t len = 0, n;
    FILE *p, *m = open_memstream(&buf, &len);

    snprintf(cmd, sizeof(cmd), "%s %s", bin && *bin ? bin : "./gputop", args);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        fwrite(chunk, 1, n, m);
    cr_assert_eq(pclose(p), 0, "%s", cmd);
    fclose(m);
    return buf;
}

/* Significant digits in a plain decimal field: leading zeros do not count. */
static int sig_digits(const char *f)
{
    int n = 0, started = 0;

    for (; *f; f++) {
        if (*f < '0' || *f > '9')
            continue;
        started |= *f != '0';
        n += started;
    }
    return n;
}

/* The simulated Mali-G720 through the real binary: no two header names
 * alike (the guide's two "Fragment shading rate" metrics carry their
 * numbers), and no fraction beyond six significant digits. */
Test(batch, g720_csv_from_the_binary, .timeout = 60)
{
    char *out = stdout_of("--source sim:mali-g720,scene=game,step=100000000 --no-cpu -b -f csv "
                          "-n 3");
    char *line, *save = NULL, *field, *fsave;
    char *names[512];
    size_t n = 0, i, j;

    cr_assert(strstr(out, ",Fragment shading rate (4.7.1) [%],"), "%.600s", out);
    cr_assert(strstr(out, ",Fragment shading rate (6.3.4) [%],"), "%.600s", out);
    line = strtok_r(out, "\n", &save);
    for (field = strtok_r(line, ",", &fsave); field && n < 512; field = strtok_r(NULL, ",", &fsave))
        names[n++] = field;
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            cr_assert_str_neq(names[i], names[j]);
    while ((line = strtok_r(NULL, "\n", &save))) {
        /* time_s and interval_s are to the nanosecond; values from the 3rd */
        for (field = strtok_r(line, ",", &fsave), i = 0; field;
             field = strtok_r(NULL, ",", &fsave), i++) {
            const char *dot = strchr(field, '.');
            if (i < 2 || !dot)
                continue;
            cr_assert_leq(sig_digits(field), 6 > dot - field ? 6 : (int)(dot - field),
                          "column %zu: %s", i, field);
        }
    }
    free(out);
}

/* Issue 16: each record carries the triage verdict of its interval, as a
 * last CSV column and a JSON field, whatever metrics are selected. */
Test(batch, records_carry_the_triage_verdict, .timeout = 60)
{
    char *csv = stdout_of("--source sim:mali-g720,scene=memory-bound,step=100000000 --no-cpu "
                          "-b -f csv -n 5 --metrics 6.1.1");
    char *json = stdout_of("--source sim:mali-g720,scene=idle,step=100000000 --no-cpu "
                           "-b -f json -n 3 --metrics 6.1.1");
    char *text = stdout_of("--source sim:mali-t8xx,scene=texture-bound,step=100000000 --no-cpu "
                           "-b -n 3 --metrics 6.1.1");
    const char *p = csv;
    int rows = 0;

    cr_assert(strstr(csv, "time_s,interval_s,time_unix,Arithmetic unit utilization [%],triage (held),"
                          "triage (this interval)\n") == csv, "%.200s", csv);
    while ((p = strstr(p, ",memory-stall-bound,memory-stall-bound\n"))) {
        rows++;
        p++;
    }
    /* the held verdict: the first is confirmed over 3 intervals (triage hold) */
    cr_assert_eq(rows, 3, "%s", csv);
    cr_assert(strstr(json, "\"triage\":\"idle\",\"triage_interval\":\"idle\"}"), "%s", json);
    /* before the first verdict is confirmed the held one is "not enough data" */
    cr_assert(strstr(json, "\"triage\":\"not enough data\",\"triage_interval\":\"idle\"}"),
              "%s", json);
    cr_assert(strstr(text, "\n  triage (held): texture-bound\n"), "%s", text);
    cr_assert(strstr(text, "\n  triage (held): not enough data; this interval: texture-bound\n"),
              "%s", text);
    free(csv);
    free(json);
    free(text);
}

/* A long group, a long title and a long unit, as the guides have. */
static const char long_layout[] =
    "gputop-layout 1\nname w\ntitle W\nfamily w\n"
    "section Memory system\n  key m\n  group External bus reads and writes\n"
    "    metric Output external read latency 128-191 cycles\n      ref 3.5.2\n"
    "      expr $Active\n      unit beats\n      show count\n"
    "    metric Read stall\n      expr $Queue / $Active * 100\n      unit %\n      show percent\n"
    "    metric Cycles per instruction\n      expr $Active / $Queue\n"
    "      unit cycles/instruction\n      show value\n";

static void assert_fits(const char *text, int width)
{
    const char *line = text, *nl;

    for (; (nl = strchr(line, '\n')); line = nl + 1)
        cr_assert_leq(nl - line, width, "%d columns: '%.*s'", width, (int)(nl - line), line);
}

/* At 40 columns: the group cut with an ellipsis, names cut to leave the
 * values and units whole, values right-aligned in one column. */
Test(batch, text_fits_40_columns)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_TEXT, .count = 1, .width = 40 };
    struct run r;

    run_batch_on(&r, &o, long_layout);
    assert_fits(r.text, 40);
    cr_assert_str_eq(r.text,
        "t=0.100 s  interval 100.0 ms\n"
        "Memory system / External bus reads an...\n"
        "  Output externa...      1000 beats\n"
        "  Read stall               25 %\n"
        "  Cycles...         4 cycles/instruction\n"
        "\n");
    free_run(&r);
}

/* At 30 columns a long unit leaves no room for the name: the value's
 * padding gives way too, and the value and unit stay whole. */
Test(batch, text_fits_30_columns)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_TEXT, .count = 1, .width = 30 };
    struct run r;

    run_batch_on(&r, &o, long_layout);
    assert_fits(r.text, 30);
    cr_assert(strstr(r.text, "\n          4 cycles/instruction\n"), "%s", r.text);
    free_run(&r);
}

Test(batch, text_fits_80_columns)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_TEXT, .count = 1, .width = 80 };
    struct run r;

    run_batch_on(&r, &o, long_layout);
    assert_fits(r.text, 80);
    cr_assert(strstr(r.text, "\n  Memory system / External bus reads and writes\n"), "%s", r.text);
    cr_assert(strstr(r.text, "\n    Output external read latency 128-191 cycles "), "%s", r.text);
    cr_assert(strstr(r.text, "         1000 beats\n"), "%s", r.text);
    free_run(&r);
    /* the G720-like layout of the other tests, per second: long values */
    o.per_second = 1;
    o.count = 3;
    run_batch(&r, &o);
    assert_fits(r.text, 80);
    cr_assert(strstr(r.text, " 50000000000 cycles/s\n"), "%s", r.text);
    free_run(&r);
}

/* Not a terminal: COLUMNS gives the width, else 80. */
Test(batch, text_width_from_columns_else_80)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_TEXT, .count = 1 };
    struct run r;

    setenv("COLUMNS", "40", 1);
    run_batch_on(&r, &o, long_layout);
    assert_fits(r.text, 40);
    cr_assert(strstr(r.text, "Output externa..."), "%s", r.text);
    free_run(&r);
    unsetenv("COLUMNS");
    run_batch_on(&r, &o, long_layout);
    assert_fits(r.text, 80);
    cr_assert(strstr(r.text, "Output external read latency 128-191 cycles"), "%s", r.text);
    free_run(&r);
}

/* As in an 80-column adb shell with TERM=dumb: no dashboard, text records
 * on the terminal, whose width gputop asks the terminal for (no COLUMNS).
 * The pane waits for Enter so that every byte reaches the log. */
Test(batch, text_fits_the_terminal_under_tmux, .timeout = 60)
{
    int widths[] = { 80, 40 }, k;

    for (k = 0; k < 2; k++) {
        struct tmux t;
        char cmd[1024], *text;
        size_t len = 0;
        int i, found;

        snprintf(cmd, sizeof(cmd), "read x; unset COLUMNS; TERM=dumb %s --source "
                 "sim:mali-g720,scene=game --no-cpu -n 2 2>/dev/null; echo END", gputop_bin());
        cr_assert_eq(tmux_start(&t, widths[k], 24, "", cmd), 0);
        tmux_keys(&t, "Enter");
        for (i = 0; i < 600 && tmux_alive(&t); i++)
            nanosleep(&(struct timespec){ 0, 50000000L }, NULL);
        /* The log's writer (pipe-pane's cat) may lag behind the pane. */
        text = tmux_wait_raw(&t, "END", 10000, &len, &found);
        tmux_stop(&t);
        cr_assert(found, "the run did not end:\n%s", text);
        cr_assert(strstr(text, "  interval "), "%s", text);
        assert_fits(text, widths[k] + 1);   /* the pane ends lines with \r\n */
        free(text);
    }
}

/* The source fails on its second call (scripted_source: that interval,
 * 0.1 to 0.2 s, passes without data): the row for it has its time and
 * length and empty fields, never zeros, and the rows around it are the
 * script's own. */
Test(batch, a_failed_interval_is_a_row_without_data, .init = cr_redirect_stderr)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV };
    struct gt_diag d;
    struct run r;

    cr_assert_eq(run_batch_failing(&r, &o, 1u << 1, &d), 0, "%s", d.msg);
    cr_assert_str_eq(r.text,
        "time_s,interval_s,time_unix,GPU active cycles [cycles],Queue utilization [%],Needs more,"
        "Cycles per thing,CPU activity[0] [%],CPU activity[1] [%]\n"
        "0.1,0.1,,1000,25,,4,10,20\n"
        "0.2,0.1,,,,,,,\n"
        "0.3,0.1,,0,,,,0,0\n"
        "0.4,0.1,,5000000000,100,,1,50,\n");
    free_run(&r);
    fflush(stderr);
    cr_assert_stderr_eq_str("gputop: no data for the interval ending at t=0.200 s: "
                            "scripted: device lost (retrying)\n");
}

/* --count 4 gives four rows, one of them without data: three good samples
 * of four asked is a failure, said in one line. */
Test(batch, fewer_good_samples_than_asked_is_an_error, .init = cr_redirect_stderr)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV, .count = 4, .pattern = "3.1.1" };
    struct gt_diag d;
    struct run r;

    cr_assert_eq(run_batch_failing(&r, &o, 1u << 1, &d), 1);
    cr_assert_str_eq(d.msg, "3 good samples of 4 asked (1 interval without data)");
    cr_assert_str_eq(r.text, "time_s,interval_s,time_unix,GPU active cycles [cycles]\n0.1,0.1,,1000\n0.2,0.1,,\n"
                     "0.3,0.1,,0\n0.4,0.1,,5000000000\n");
    free_run(&r);
    /* The script ends after three rows: asking for five is short, too. */
    o.count = 5;
    cr_assert_eq(run_batch_failing(&r, &o, 0, &d), 1);
    cr_assert_str_eq(d.msg, "3 good samples of 5 asked (the source ended)");
    free_run(&r);
    o.count = 3;
    cr_assert_eq(run_batch_failing(&r, &o, 0, &d), 0, "%s", d.msg);
    free_run(&r);
}

Test(batch, json_no_data_is_null_with_the_source_state, .init = cr_redirect_stderr)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_JSON };
    struct gt_diag d;
    struct run r;
    char *line, *save = NULL;
    int n = 0;

    cr_assert_eq(run_batch_failing(&r, &o, 1u << 1, &d), 0, "%s", d.msg);
    for (line = strtok_r(r.text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
        json_object *j = json_tokener_parse(line), *v, *vals, *it;
        struct json_object_iterator i, end;
        cr_assert_not_null(j, "line %d is not JSON: %s", n, line);
        if (n != 2) {
            cr_assert_not(json_object_object_get_ex(j, "no_data", &v), "%s", line);
            json_object_put(j);
            continue;
        }
        cr_assert(json_object_object_get_ex(j, "t", &v));
        cr_assert_eq(json_object_get_double(v), 0.2);
        cr_assert(json_object_object_get_ex(j, "no_data", &v), "%s", line);
        cr_assert_eq(json_object_array_length(v), 1);
        cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(v, 0)), "scripted");
        cr_assert(json_object_object_get_ex(j, "state", &v));
        cr_assert_str_eq(json_object_get_string(v), "retrying");
        cr_assert(json_object_object_get_ex(j, "error", &v));
        cr_assert_str_eq(json_object_get_string(v), "scripted: device lost");
        cr_assert(json_object_object_get_ex(j, "values", &vals));
        cr_assert_eq(json_object_object_length(vals), 6);
        i = json_object_iter_begin(vals);
        end = json_object_iter_end(vals);
        for (; !json_object_iter_equal(&i, &end); json_object_iter_next(&i)) {
            it = json_object_iter_peek_value(&i);
            cr_assert(json_object_is_type(it, json_type_null), "%s: %s",
                      json_object_iter_peek_name(&i), line);
        }
        json_object_put(j);
    }
    cr_assert_eq(n, 5);
    free_run(&r);
}

Test(batch, text_says_no_data, .init = cr_redirect_stderr)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_TEXT, .section = "2" };
    struct gt_diag d;
    struct run r;

    cr_assert_eq(run_batch_failing(&r, &o, 1u << 1, &d), 0, "%s", d.msg);
    cr_assert(strstr(r.text, "t=0.200 s  interval 100.0 ms  no data: scripted: device lost "
                             "(retrying)\n\n"), "%s", r.text);
    free_run(&r);
}

/* ---- a Mali GPU whose DUMP is refused, through the whole run ---- */

/* Points descriptor fd at a new temporary file; returns the old one. */
static int capture_fd(int fd, FILE **tmp)
{
    int old = dup(fd);

    *tmp = tmpfile();
    cr_assert_not_null(*tmp);
    cr_assert_geq(dup2(fileno(*tmp), fd), 0);
    return old;
}

/* Puts fd back and returns what was written to it. */
static char *release_fd(int fd, int old, FILE *tmp)
{
    char *buf = NULL, chunk[4096];
    size_t len = 0, n;
    FILE *m = open_memstream(&buf, &len);

    dup2(old, fd);
    close(old);
    rewind(tmp);
    while ((n = fread(chunk, 1, sizeof(chunk), tmp)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(tmp);
    fclose(m);
    return buf;
}

/* gputop -b -f csv -n 3 on a G715 whose kernel refuses every GET_SAMPLE
 * (EBUSY),
 * with the cpu source beside it: three rows without data (the CPU's good
 * counts do not turn the GPU's missing ones into zeros), a line on stderr
 * naming the device, and exit status 1 with the count of good samples. */
/* gt_cmd_run on the words of args with the fake kernel fk as the system:
 * its status, and what it wrote to stdout and stderr. */
static int run_on_fake(struct fake_kbase *fk, const char *args_in, char **out, char **err)
{
    char args[256], *argv[32], *save = NULL, *w;
    volatile sig_atomic_t stop = 0;
    struct gt_options o;
    FILE *f_out, *f_err;
    int argc = 0, old_out, old_err, status;

    snprintf(args, sizeof(args), "%s", args_in);
    for (w = strtok_r(args, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
        argv[argc++] = w;
    argv[argc] = NULL;
    cr_assert_eq(gt_options_parse(&o, argc, argv, stderr), 0);
    o.sys = fk_sys(fk);
    fflush(stdout);
    fflush(stderr);
    old_out = capture_fd(STDOUT_FILENO, &f_out);
    old_err = capture_fd(STDERR_FILENO, &f_err);
    status = gt_cmd_run(&o, &stop);
    fflush(stdout);
    fflush(stderr);
    *out = release_fd(STDOUT_FILENO, old_out, f_out);
    *err = release_fd(STDERR_FILENO, old_err, f_err);
    return status;
}

static void refused_dumps(const char *extra, int *status, char **out, char **err)
{
    char args[256];
    struct fk_config c;
    struct fake_kbase *fk;

    memset(&c, 0, sizeof(c));
    c.gpu = FK_G715;
    c.api = FK_CSF;
    c.major = 1;
    c.minor = 21;
    c.new_gate = 1;
    c.deny_request = GT_KINSTR_PRFCNT_GET_SAMPLE;
    c.deny_errno = EBUSY;
    fk = fk_new(&c);
    cr_assert_not_null(fk);
    snprintf(args, sizeof(args), "gputop -b -f csv -n 3 -i 10 --metrics 5.3.1 %s", extra);
    *status = run_on_fake(fk, args, out, err);
    fk_free(fk);
}

Test(batch, refused_gpu_dumps_are_no_data_and_a_failed_run)
{
    char *out, *err, *line, *save = NULL;
    int status, rows = 0;

    refused_dumps("", &status, &out, &err);
    cr_assert_eq(status, 1, "stdout:\n%s\nstderr:\n%s", out, err);
    for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save), rows++) {
        if (rows == 0) {
            cr_assert(strstr(line, "time_s,interval_s,time_unix,Shader core usage"), "%s", line);
            continue;
        }
        /* time, length, then the one metric column empty */
        cr_assert(line[strlen(line) - 1] == ',', "row %d has a value: %s", rows, line);
    }
    cr_assert_eq(rows, 4, "stderr: %s", err);
    cr_assert(strstr(err, "gputop: no data for the interval ending at t="), "%s", err);
    cr_assert(strstr(err, "mali: "), "names the source: %s", err);
    cr_assert(strstr(err, "gputop: 0 good samples of 3 asked (3 intervals without data)\n"),
              "%s", err);
    free(out);
    free(err);
}

/* ---- the binary, as a user runs it (gputop_bin: fakes/tmux.h) ---- */

/* Runs "gputop ARGS" through the shell; stdout and stderr apart. */
static char *run_gputop(const char *args, int *status, char **err)
{
    char cmd[2048], errpath[256], chunk[4096], *buf = NULL;
    const char *dir = getenv("TMPDIR");
    size_t len = 0, n;
    FILE *p, *m = open_memstream(&buf, &len), *e;
    int fd;

    snprintf(errpath, sizeof(errpath), "%s/gputop-err-XXXXXX", dir && dir[0] ? dir : "/tmp");
    fd = mkstemp(errpath);
    cr_assert_geq(fd, 0);
    close(fd);
    snprintf(cmd, sizeof(cmd), "%s %s 2>%s", gputop_bin(), args, errpath);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        fwrite(chunk, 1, n, m);
    *status = pclose(p);
    fclose(m);
    e = fopen(errpath, "r");
    cr_assert_not_null(e);
    m = open_memstream(err, &len);
    while ((n = fread(chunk, 1, sizeof(chunk), e)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(m);
    fclose(e);
    unlink(errpath);
    return buf;
}

/* A capture of six samples whose last record is damaged, replayed with
 * -n 6: five rows with values, one without (its fields empty), the
 * damage on stderr, and exit status 1 with the count of good samples. */
Test(batch, binary_damaged_capture_gives_a_row_without_data, .timeout = 60)
{
    char path[256], args[1024], *out, *err, *line, *save = NULL;
    const char *dir = getenv("TMPDIR");
    long at, payload;
    FILE *f;
    int status, fd, c, rows = 0;

    snprintf(path, sizeof(path), "%s/gputop-cap-XXXXXX", dir && dir[0] ? dir : "/tmp");
    fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    snprintf(args, sizeof(args), "--source sim:mali-t8xx,step=10000000 --no-cpu -b -f csv "
             "-i 10 -n 6 --record %s", path);
    out = run_gputop(args, &status, &err);
    cr_assert_eq(status, 0, "%s", err);
    free(out);
    free(err);
    /* Six records exactly: the recorder may hold a seventh, taken before
     * the sampler was stopped (more under load). */
    cr_assert_eq(capture_keep_samples(path, 6), 0, "fewer than 6 records in %s", path);
    /* a payload bit of the last record: a checksum mismatch there */
    cr_assert_eq(capture_sample_record(path, 6, &at, &payload), 0);
    f = fopen(path, "r+b");
    cr_assert_not_null(f);
    cr_assert_eq(fseek(f, at + 5 + payload / 2, SEEK_SET), 0);
    c = getc(f);
    cr_assert_eq(fseek(f, at + 5 + payload / 2, SEEK_SET), 0);
    putc(c ^ 0x10, f);
    cr_assert_eq(fclose(f), 0);

    snprintf(args, sizeof(args), "--source replay:%s,speed=max -b -f csv -n 6 --metrics 3.2.2",
             path);
    out = run_gputop(args, &status, &err);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d\n%s\n%s", status, out, err);
    for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save), rows++) {
        size_t n = strlen(line);
        if (rows == 0)
            continue;
        if (rows < 6)
            cr_assert(line[n - 1] != ',', "row %d has no value: %s", rows, line);
        else    /* at the last record's end, no length and no wall time: a file's clock is not ours;
                 * empty value and triage fields, as many as the header's */
            cr_assert(n > 7 && strcmp(line + n - 6, ",0,,,,") == 0,
                      "row 6 has its time, length 0 and no value: %s", line);
    }
    cr_assert_eq(rows, 7, "%s", out);
    cr_assert(strstr(err, "gputop: no data for the interval ending at t="), "%s", err);
    cr_assert(strstr(err, "checksum mismatch"), "%s", err);
    cr_assert(strstr(err, "gputop: 5 good samples of 6 asked (1 interval without data)\n"),
              "%s", err);
    free(out);
    free(err);
    unlink(path);
}

/* Two shader cores (physical 0 and 2: core mask 0x5) and two L2 slices
 * under sum rules; a 128-bit (16-byte) bus. */
static const char percore_layout[] =
    "gputop-layout 1\nname t\ntitle T\nfamily t\n"
    "aggregate shadercore sum\naggregate memsys sum\n"
    "section S\n  key 1\n  group G\n"
    "    metric Read bytes\n      ref 3.3.1\n      expr $Beats * ($Bus / 8)\n      unit bytes\n      show count\n"
    "    metric Warps\n      expr $Warps\n      unit warps\n      show count\n"
    "    metric Core usage\n      expr $Warps / $Cores / $Active * 100\n      unit %\n      show percent\n"
    "    metric Active\n      expr $Active\n      show count\n";

static void build_percore(struct gt_catalog *c)
{
    gt_catalog_add(c, "Active", "front-end", GT_COUNTER_DELTA, 1, 1);
    gt_catalog_add(c, "Warps", "shadercore", GT_COUNTER_DELTA, 2, 1);
    gt_catalog_add(c, "Beats", "memsys", GT_COUNTER_DELTA, 2, 1);
    gt_catalog_add_constant(c, "Bus", 128);
    gt_catalog_add_constant(c, "Cores", 2);
}

/* slots: Active, Warps[2], Beats[2] */
static const uint64_t percore_rows[1][5] = { { 1000, 100, 300, 100, 300 } };

static void run_percore(struct run *r, struct gt_batch_opts *o)
{
    struct script_spec sp = { percore_layout, build_percore, &percore_rows[0][0], 1, 5, 0x5 };

    run_script(r, o, &sp);
}

/* Worked by hand: slices 100 and 300 beats x 16 bytes = 1600 and 4800
 * bytes, total 6400; cores 100 and 300 warps, total 400; core usage
 * 400 / 2 cores / 1000 cycles = 20 %, per core as if both ran like it:
 * 2 x 100 / 2 / 1000 = 10 % and 30 %. */
Test(batch, per_core_csv_columns)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV, .count = 1 };
    struct run r;

    o.per_core = 1;
    run_percore(&r, &o);
    cr_assert_str_eq(r.text,
        "time_s,interval_s,time_unix,Read bytes [bytes],Read bytes [L2 slice 0] [bytes],"
        "Read bytes [L2 slice 1] [bytes],Warps [warps],Warps [shader core 0] [warps],"
        "Warps [shader core 2] [warps],Core usage [%],Core usage [shader core 0] [%],"
        "Core usage [shader core 2] [%],Active\n"
        "0.1,0.1,,6400,1600,4800,400,100,300,20,10,30,1000\n");
    free_run(&r);
    o.per_core = 0;                              /* without: the totals only */
    run_percore(&r, &o);
    cr_assert_str_eq(r.text, "time_s,interval_s,time_unix,Read bytes [bytes],Warps [warps],Core usage [%],Active\n"
                             "0.1,0.1,,6400,400,20,1000\n");
    free_run(&r);
}

Test(batch, per_core_json_fields)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_JSON, .count = 1 };
    struct json_object *meta, *rec, *vals, *v, *arr, *col;
    struct run r;
    char *nl;

    o.per_core = 1;
    run_percore(&r, &o);
    nl = strchr(r.text, '\n');
    cr_assert_not_null(nl);
    *nl = '\0';
    meta = json_tokener_parse(r.text);
    rec = json_tokener_parse(nl + 1);
    cr_assert(meta && rec, "%s", r.text);
    cr_assert(json_object_object_get_ex(meta, "metrics", &arr));
    col = json_object_array_get_idx(arr, 2);
    cr_assert(json_object_object_get_ex(col, "key", &v));
    cr_assert_str_eq(json_object_get_string(v), "read_bytes_l2_slice_1");
    cr_assert(json_object_object_get_ex(col, "title", &v));
    cr_assert_str_eq(json_object_get_string(v), "Read bytes [L2 slice 1]");
    cr_assert(json_object_object_get_ex(col, "instance", &v));
    cr_assert_str_eq(json_object_get_string(v), "L2 slice 1");
    cr_assert(json_object_object_get_ex(rec, "values", &vals));
    cr_assert(json_object_object_get_ex(vals, "read_bytes_l2_slice_0", &v));
    cr_assert_float_eq(json_object_get_double(v), 1600, 1e-9);
    cr_assert(json_object_object_get_ex(vals, "warps_shader_core_2", &v));
    cr_assert_float_eq(json_object_get_double(v), 300, 1e-9);
    cr_assert(json_object_object_get_ex(vals, "core_usage_shader_core_0", &v));
    cr_assert_float_eq(json_object_get_double(v), 10, 1e-9);
    json_object_put(meta);
    json_object_put(rec);
    free_run(&r);
}

/* gputop ARGS with no --source on a machine without a GPU (the fake
 * kernel's /dev/mali0 open fails with ENOENT, as when kbase is not loaded):
 * status, stdout and stderr. */
static int run_without_gpu(const char *args, char **out, char **err)
{
    struct fk_config c;
    struct fake_kbase *fk;
    int status;

    memset(&c, 0, sizeof(c));
    c.gpu = FK_G715;
    c.api = FK_CSF;
    c.major = 1;
    c.minor = 21;
    c.open_errno = ENOENT;
    fk = fk_new(&c);
    cr_assert_not_null(fk);
    status = run_on_fake(fk, args, out, err);
    fk_free(fk);
    return status;
}

/* No GPU: the probe results, and the simulated device to try instead: the
 * one --layout names when the simulator has it, else the default. */
Test(batch, no_gpu_names_the_probes_and_the_simulator_to_try)
{
    static const struct { const char *args, *want; } cases[] = {
        { "gputop -b -n 1", "try the simulated GPU: gputop --source sim\n" },
        { "gputop -b -n 1 --layout mips-cm", "try the simulated GPU: gputop --source sim:mips-cm\n" },
        { "gputop -b -n 1 --layout mali-bifrost",
          "try the simulated GPU: gputop --source sim:mali-bifrost\n" },
        { "gputop -b -n 1 --layout drm-fdinfo", "try the simulated GPU: gputop --source sim\n" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out, *err;
        int status = run_without_gpu(cases[i].args, &out, &err);
        cr_expect_neq(status, 0, "%s: status 0", cases[i].args);
        cr_expect(strstr(err, "no supported GPU found") && strstr(err, "/dev/mali0"),
                  "%s: no probe list:\n%s", cases[i].args, err);
        cr_expect(strstr(err, cases[i].want), "%s: want \"%s\" in:\n%s", cases[i].args,
                  cases[i].want, err);
        free(out);
        free(err);
    }
}

/* Issue 43 item 12: CSV and JSON records carry the interval's end on the
 * wall clock beside the time from the start, read here against time(2)
 * taken before and after the run; a replay's clock is not ours: empty. */
Test(batch, wall_clock_beside_the_relative_time, .timeout = 60)
{
    char *out, *err, *row;
    int status;
    time_t before = time(NULL), after;
    double wall;

    out = run_gputop("--source sim --no-cpu -b -f csv -n 2 --metrics 12.1.1", &status, &err);
    after = time(NULL);
    cr_assert_eq(status, 0, "%s", err);
    cr_assert(strncmp(out, "time_s,interval_s,time_unix,Shader core count", 45) == 0, "%s", out);
    row = strchr(out, '\n') + 1;
    cr_assert_eq(sscanf(row, "%*[^,],%*[^,],%lf,", &wall), 1, "%s", row);
    cr_expect(wall >= (double)before && wall <= (double)after + 1, "%f not in %ld..%ld", wall,
              (long)before, (long)after);
    free(out);
    free(err);

    out = run_gputop("--source sim --no-cpu -b -f json -n 1 --metrics 12.1.1", &status, &err);
    cr_assert_eq(status, 0, "%s", err);
    row = strstr(out, "\"time_unix\":");
    cr_assert_not_null(row, "%s", out);
    cr_assert_eq(sscanf(row + 12, "%lf", &wall), 1, "%s", row);
    cr_expect(wall >= (double)before && wall <= (double)time(NULL) + 1, "%f", wall);
    free(out);
    free(err);

    out = run_gputop("--source sim,step=100000000 --no-cpu -b -f json -n 1 --metrics 12.1.1",
                     &status, &err);
    cr_expect(strstr(out, "\"time_unix\":null"), "a virtual clock: %s", out);
    free(out);
    free(err);
}

/* Issue 43 item 14: one key scheme, not "2.1[0]" beside "GPU busy share":
 * every key is its column's title in snake case ([a-z0-9_]: letters
 * lowered, "%" as "percent", other runs of characters one '_'), unique,
 * per-core columns and percent-of-peak columns alike. */
Test(batch, json_keys_are_the_titles_in_snake_case, .timeout = 60)
{
    char *out, *err, *nl, want[300];
    json_object *meta, *metrics, *m, *v;
    int status;
    size_t i, k, n;

    out = run_gputop("--source sim:mali-g715 --no-cpu -b -f json -n 1 --per-core", &status, &err);
    cr_assert_eq(status, 0, "%s", err);
    nl = strchr(out, '\n');
    cr_assert_not_null(nl);
    *nl = '\0';
    meta = json_tokener_parse(out);
    cr_assert(meta && json_object_object_get_ex(meta, "metrics", &metrics));
    n = json_object_array_length(metrics);
    cr_assert_gt(n, 100);
    for (i = 0; i < n; i++) {
        const char *key, *title, *t;
        m = json_object_array_get_idx(metrics, i);
        cr_assert(json_object_object_get_ex(m, "key", &v));
        key = json_object_get_string(v);
        cr_assert(json_object_object_get_ex(m, "title", &v));
        title = json_object_get_string(v);
        /* the title in snake case, worked out here character by character */
        k = 0;
        for (t = title; *t && k + 10 < sizeof(want); t++) {
            if (*t == '%') {
                k += (size_t)snprintf(want + k, sizeof(want) - k, "%spercent", k ? "_" : "");
                continue;
            }
            if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9')))
                continue;
            if (k && t > title && !((t[-1] >= 'a' && t[-1] <= 'z') || (t[-1] >= 'A' && t[-1] <= 'Z') ||
                                    (t[-1] >= '0' && t[-1] <= '9')) && want[k - 1] != '_')
                want[k++] = '_';
            want[k++] = (char)(*t >= 'A' && *t <= 'Z' ? *t - 'A' + 'a' : *t);
        }
        want[k] = '\0';
        cr_expect_str_eq(key, want, "title '%s'", title);
        for (k = 0; k < i; k++) {
            json_object *o = json_object_array_get_idx(metrics, k), *ov;
            json_object_object_get_ex(o, "key", &ov);
            cr_expect_str_neq(json_object_get_string(ov), key);
        }
    }
    json_object_put(meta);
    free(out);
    free(err);
}
