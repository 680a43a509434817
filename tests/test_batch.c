/* Batch output: CSV headers and empty no-data fields, JSON Lines read back
 * with a real JSON parser, per-second rates, selection by section and
 * pattern, and per-instance columns. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/scripted_source.h"
#include "fakes/tmux.h"
#include "gputop/batch.h"

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

static void run_batch_on(struct run *r, struct gt_batch_opts *o, const char *text)
{
    struct gt_diag d;
    uint32_t off = 0;
    struct gt_sampler_config cfg;
    volatile sig_atomic_t stop = 0;
    FILE *f;

    memset(r, 0, sizeof(*r));
    r->script.rows = &rows[0][0];
    r->script.nrows = 3;
    r->script.interval_ns = 100000000ull;
    r->src = scripted_source_new(&r->script, build);
    cr_assert_eq(r->src->catalog.nslots, 10);
    r->l = gt_layout_parse("t.layout", text, strlen(text), &d);
    cr_assert_not_null(r->l, "%s", d.msg);
    r->e = gt_engine_new(r->l, &r->src->catalog);
    memset(&cfg, 0, sizeof(cfg));
    cfg.sources = &r->src;
    cfg.nsources = 1;
    cfg.slot_offset = &off;
    cfg.nslots = 10;
    cfg.interval_ns = 100000000ull;
    cfg.lossless = 1;
    r->s = gt_sampler_new(&cfg);
    cr_assert_eq(gt_sampler_start(r->s, &d), 0);
    f = open_memstream(&r->text, &r->len);
    cr_assert_eq(gt_batch_run(f, r->s, r->e, r->l, &r->src, 1, o, &stop, &d), 0, "%s", d.msg);
    fclose(f);
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
        "time_s,interval_s,GPU active cycles [cycles],Queue utilization [%],Needs more,"
        "Cycles per thing,CPU activity[0] [%],CPU activity[1] [%]\n"
        "0.1,0.1,1000,25,,4,10,20\n"
        "0.2,0.1,0,,,,0,0\n"
        "0.3,0.1,5000000000,100,,1,50,\n");
    free_run(&r);
}

Test(batch, per_second_converts_counts_only)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV, .count = 1, .pattern = "*", .per_second = 1 };
    struct run r;

    run_batch(&r, &o);
    cr_assert(strstr(r.text, "\n0.1,0.1,10000,25,,4,10,20\n"), "%s", r.text);
    free_run(&r);
}

Test(batch, section_and_pattern_select_columns)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV, .count = 1, .section = "2",
                               .pattern = "*utilization" };
    struct run r;

    run_batch(&r, &o);
    cr_assert_str_eq(r.text, "time_s,interval_s,Queue utilization [%]\n0.1,0.1,25\n");
    free_run(&r);
    o.section = "other, with \"QUOTES\"";
    o.pattern = NULL;
    run_batch(&r, &o);
    cr_assert(strncmp(r.text, "time_s,interval_s,Cycles per thing,", 35) == 0, "%s", r.text);
    free_run(&r);
    o.section = NULL;
    o.pattern = "3.1.*";
    run_batch(&r, &o);
    cr_assert(strncmp(r.text, "time_s,interval_s,GPU active cycles [cycles]\n", 45) == 0, "%s",
              r.text);
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
            cr_assert_str_eq(json_object_get_string(v), "3.1.1");
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
        cr_assert(json_object_object_get_ex(vals, "3.1.1", &v));
        cr_assert(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
        cr_assert(json_object_object_get_ex(vals, "3.2.1", &v));
        if (n == 1)
            cr_assert_eq(json_object_get_double(v), 25.0);
        if (n == 2)
            cr_assert(json_object_is_type(v, json_type_null), "idle utilisation must be null");
        if (n == 3) {
            cr_assert(json_object_object_get_ex(vals, "3.1.1", &v));
            cr_assert_eq(json_object_get_int64(v), 5000000000ll);
        }
        cr_assert(json_object_object_get_ex(vals, "CPU activity[1]", &v));
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
        "time_s,interval_s,Fragment shading rate (4.7.1) [%],Bytes (4.7.2) [bytes],"
        "Fragment shading rate (6.3.4) [%],Bytes (Overview) [bytes],Unique\n"
        "0.1,0.1,83.3333,1000,333.333,250,250\n");
    free_run(&r);
}

/* Per second, counts change unit (bytes -> bytes/s, none -> count/s);
 * percentages keep theirs. */
Test(batch, per_second_changes_the_header_unit)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV, .count = 1, .per_second = 1 };
    struct run r;

    run_batch_on(&r, &o, dup_layout);
    cr_assert_str_eq(r.text,
        "time_s,interval_s,Fragment shading rate (4.7.1) [%],Bytes (4.7.2) [bytes/s],"
        "Fragment shading rate (6.3.4) [%],Bytes (Overview) [bytes/s],Unique [count/s]\n"
        "0.1,0.1,83.3333,10000,333.333,2500,2500\n");
    free_run(&r);
}

Test(batch, precision_full_reads_back_exactly)
{
    struct gt_batch_opts o = { .format = GT_FORMAT_CSV, .count = 1, .pattern = "Fragment*" };
    struct run r;

    o.digits = GT_DIGITS_FULL;
    run_batch_on(&r, &o, dup_layout);
    cr_assert_str_eq(r.text,
        "time_s,interval_s,Fragment shading rate (4.7.1) [%],Fragment shading rate (6.3.4) [%]\n"
        "0.1,0.1,83.33333333333333,333.3333333333333\n");
    free_run(&r);
    o.digits = 3;
    run_batch_on(&r, &o, dup_layout);
    cr_assert(strstr(r.text, "\n0.1,0.1,83.3,333\n"), "%s", r.text);
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
    cr_assert_str_eq(json_object_get_string(v), "Bytes (Overview)");
    cr_assert(json_object_object_get_ex(m, "unit", &v));
    cr_assert_str_eq(json_object_get_string(v), "bytes/s");
    json_object_put(j);
    cr_assert(strstr(nl + 1, "\"4.7.1\":83.3333,"), "%s", nl + 1);
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
        char cmd[1024], *text = NULL;
        size_t len = 0;
        FILE *f;
        int i;

        snprintf(cmd, sizeof(cmd), "read x; unset COLUMNS; TERM=dumb %s --source "
                 "sim:mali-g720,scene=game --no-cpu -n 2 2>/dev/null; echo END", gputop_bin());
        cr_assert_eq(tmux_start(&t, widths[k], 24, "", cmd), 0);
        tmux_keys(&t, "Enter");
        for (i = 0; i < 600 && tmux_alive(&t); i++)
            nanosleep(&(struct timespec){ 0, 50000000L }, NULL);
        for (i = 0; i < 100; i++) {
            f = fopen(t.raw, "r");
            cr_assert_not_null(f);
            free(text);
            text = NULL;
            getdelim(&text, &len, '\0', f);
            fclose(f);
            if (text && strstr(text, "END"))
                break;
            nanosleep(&(struct timespec){ 0, 50000000L }, NULL);
        }
        tmux_stop(&t);
        cr_assert(text && strstr(text, "  interval "), "%s", text);
        assert_fits(text, widths[k] + 1);   /* the pane ends lines with \r\n */
        free(text);
    }
}
