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

static void run_script(struct run *r, struct gt_batch_opts *o, const struct script_spec *sp)
{
    struct gt_diag d;
    uint32_t off = 0;
    struct gt_sampler_config cfg;
    volatile sig_atomic_t stop = 0;
    FILE *f;

    memset(r, 0, sizeof(*r));
    r->script.rows = sp->rows;
    r->script.nrows = sp->nrows;
    r->script.interval_ns = 100000000ull;
    r->src = scripted_source_new(&r->script, sp->build);
    cr_assert_eq(r->src->catalog.nslots, sp->nslots);
    r->l = gt_layout_parse("t.layout", sp->layout, strlen(sp->layout), &d);
    cr_assert_not_null(r->l, "%s", d.msg);
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
    cr_assert_eq(gt_sampler_start(r->s, &d), 0);
    f = open_memstream(&r->text, &r->len);
    cr_assert_eq(gt_batch_run(f, r->s, r->e, r->l, &r->src, 1, o, &stop, &d), 0, "%s", d.msg);
    fclose(f);
}

static void run_batch(struct run *r, struct gt_batch_opts *o)
{
    struct script_spec sp = { layout_text, build, &rows[0][0], 3, 10, 0 };

    run_script(r, o, &sp);
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
    struct gt_batch_opts o = { GT_FORMAT_CSV, 0, 0, NULL, NULL, 0, 0 };
    struct run r;

    run_batch(&r, &o);
    cr_assert_str_eq(r.text,
        "time_s,interval_s,GPU active cycles,Queue utilization,Needs more,Cycles per thing,"
        "CPU activity[0],CPU activity[1]\n"
        "0.1,0.1,1000,25,,4,10,20\n"
        "0.2,0.1,0,,,,0,0\n"
        "0.3,0.1,5000000000,100,,1,50,\n");
    free_run(&r);
}

Test(batch, per_second_converts_counts_only)
{
    struct gt_batch_opts o = { GT_FORMAT_CSV, 1, 0, NULL, "*", 1, 0 };
    struct run r;

    run_batch(&r, &o);
    cr_assert(strstr(r.text, "\n0.1,0.1,10000,25,,4,10,20\n"), "%s", r.text);
    free_run(&r);
}

Test(batch, section_and_pattern_select_columns)
{
    struct gt_batch_opts o = { GT_FORMAT_CSV, 1, 0, "2", "*utilization", 0, 0 };
    struct run r;

    run_batch(&r, &o);
    cr_assert_str_eq(r.text, "time_s,interval_s,Queue utilization\n0.1,0.1,25\n");
    free_run(&r);
    o.section = "other, with \"QUOTES\"";
    o.pattern = NULL;
    run_batch(&r, &o);
    cr_assert(strncmp(r.text, "time_s,interval_s,Cycles per thing,", 35) == 0, "%s", r.text);
    free_run(&r);
    o.section = NULL;
    o.pattern = "3.1.*";
    run_batch(&r, &o);
    cr_assert(strncmp(r.text, "time_s,interval_s,GPU active cycles\n", 36) == 0, "%s", r.text);
    free_run(&r);
}

Test(batch, nothing_selected_is_an_error)
{
    struct gt_batch_opts o = { GT_FORMAT_CSV, 0, 0, "nope", NULL, 0, 0 };
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
    struct gt_batch_opts o = { GT_FORMAT_JSON, 0, 0, NULL, NULL, 0, 0 };
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
    struct gt_batch_opts o = { GT_FORMAT_TEXT, 2, 0, "2", NULL, 0, 0 };
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
    struct gt_batch_opts o = { GT_FORMAT_CSV, 1, 0, NULL, NULL, 0, 0 };
    struct run r;

    o.per_core = 1;
    run_percore(&r, &o);
    cr_assert_str_eq(r.text,
        "time_s,interval_s,Read bytes,Read bytes [L2 slice 0],Read bytes [L2 slice 1],"
        "Warps,Warps [shader core 0],Warps [shader core 2],"
        "Core usage,Core usage [shader core 0],Core usage [shader core 2],Active\n"
        "0.1,0.1,6400,1600,4800,400,100,300,20,10,30,1000\n");
    free_run(&r);
    o.per_core = 0;                              /* without: the totals only */
    run_percore(&r, &o);
    cr_assert_str_eq(r.text, "time_s,interval_s,Read bytes,Warps,Core usage,Active\n"
                             "0.1,0.1,6400,400,20,1000\n");
    free_run(&r);
}

Test(batch, per_core_json_fields)
{
    struct gt_batch_opts o = { GT_FORMAT_JSON, 1, 0, NULL, NULL, 0, 0 };
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
    cr_assert_str_eq(json_object_get_string(v), "3.3.1 [L2 slice 1]");
    cr_assert(json_object_object_get_ex(col, "title", &v));
    cr_assert_str_eq(json_object_get_string(v), "Read bytes [L2 slice 1]");
    cr_assert(json_object_object_get_ex(col, "instance", &v));
    cr_assert_str_eq(json_object_get_string(v), "L2 slice 1");
    cr_assert(json_object_object_get_ex(rec, "values", &vals));
    cr_assert(json_object_object_get_ex(vals, "3.3.1 [L2 slice 0]", &v));
    cr_assert_float_eq(json_object_get_double(v), 1600, 1e-9);
    cr_assert(json_object_object_get_ex(vals, "Warps [shader core 2]", &v));
    cr_assert_float_eq(json_object_get_double(v), 300, 1e-9);
    cr_assert(json_object_object_get_ex(vals, "Core usage [shader core 0]", &v));
    cr_assert_float_eq(json_object_get_double(v), 10, 1e-9);
    json_object_put(meta);
    json_object_put(rec);
    free_run(&r);
}
