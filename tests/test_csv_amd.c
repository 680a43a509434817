/* CSV import of AMD gfx1151 counts (csv:FILE,gpu=gfx1151): the document's
 * counter names, NAME[i] per instance, the constants as columns. One row
 * goes through the real binary's batch CSV output, whose header carries
 * the document's row names, and every speed-of-light value and % of peak
 * equals the document's formula evaluated here, apart from the engine. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakes/tmux.h"
#include "gputop/source.h"

static const char header[] =
    "interval_ns,SQ_INSTS_VALU,SQ_INSTS_ALL,SQ_INSTS_INTERNAL,"
    "SQ_BUSY_CYCLES[0],SQ_BUSY_CYCLES[1],SQ_WAVE_CYCLES[0],SQ_WAVE_CYCLES[1],"
    "SQ_WAIT_ANY[0],SQ_WAIT_ANY[1],SQ_WAIT_INST_ANY[0],SQ_WAIT_INST_ANY[1],"
    "GL2C_HIT[0],GL2C_HIT[1],GL2C_HIT[2],GL2C_HIT[3],GL2C_MISS,"
    "GL2C_EA_RDREQ_32B,GL2C_EA_RDREQ_64B,GL2C_EA_RDREQ_96B,GL2C_EA_RDREQ_128B,"
    "GL2C_MC_WRREQ,GL2C_EA_WRREQ_64B,SQC_LDS_BANK_CONFLICT,TCP_REQ,TCP_REQ_MISS,"
    "GL1C_REQ,GL1C_REQ_MISS,GL1C_GL2_REQ_READ_32B,GL1C_GL2_REQ_READ_64B,"
    "GL1C_GL2_REQ_READ_128B,GL2C_READ_32_REQ,GL2C_READ_64_REQ,GL2C_READ_128_REQ,"
    "GL2C_COMPRESSED_READ_96_REQ,SQC_DCACHE_HITS,SQC_DCACHE_MISSES,SQC_TC_DATA_READ_REQ,"
    "SQC_ICACHE_HITS,SQC_ICACHE_MISSES,SQC_TC_INST_REQ,max_sclk,cu_per_gpu,max_waves_per_cu\n";
static const char row[] =
    "100000000,800000000,1000000000,100000000,"
    "290000000,250000000,1000000000,600000000,"
    "400000000,200000000,100000000,100000000,"
    "100,200,300,400,200,"
    "100,200,40,1000,"
    "500,200,140,40000,10000,"
    "2000,400,40,80,"
    "120,40,80,120,"
    "20,180,20,40,"
    "380,20,60,2900,40,32\n";

/* The document's 19 rows, evaluated here from the same numbers: kernel
 * time = the row's interval, 1e8 ns; _sum = the sum of the instances. */
struct want { const char *title; double value, pop; };

static void expected(struct want *w)
{
    const double ns = 1e8, s = ns / 1e9, clk = 2900, cu = 40, waves = 32;
    const double valu = 8e8, all = 1e9, internal = 1e8;
    const double busy_sum = 2.9e8 + 2.5e8, busy_avr = busy_sum / 2, wave = 1e9 + 6e8;
    const double hit = 100 + 200 + 300 + 400, miss = 200;
    struct want v[] = {
        { "VALU FLOPs (FP16)", valu * 64 / ns, 100 * (valu * 64 / ns) / (clk * cu * 256 / 1000) },
        { "VALU FLOPs (FP32)", valu * 64 / ns, 100 * (valu * 64 / ns) / (clk * cu * 128 / 1000) },
        { "IPC", (all - internal) / busy_sum, 100 * all / busy_sum / 5 },
        { "Wavefront Occupancy", wave / busy_avr, 100 * (wave / busy_avr) / (waves * cu) },
        { "L2 Cache Hit Rate", 100 * hit / (hit + miss), NAN },
        { "L2-Fabric Read BW", (32 * 100 + 64 * 200 + 96 * 40 + 128 * 1000) / s, NAN },
        { "L2-Fabric Write BW", ((500 - 200) * 32 + 200 * 64) / s, NAN },
        { "LDS Bank Conflicts", 140, NAN },
        { "Wave Dependency Wait", 100 * (4e8 + 2e8) / wave, NAN },
        { "Wave Issue Wait", 100 * (1e8 + 1e8) / wave, NAN },
        { "TCP Cache Hit Rate", 100.0 * (40000 - 10000) / 40000, NAN },
        { "TCP Cache BW", 40000.0 * 64 / s, NAN },
        { "GL1C Hit Rate", 100.0 * (2000 - 400) / 2000, NAN },
        { "GL1C Read BW", (32 * 40 + 64 * 80 + 128 * 120) / s, NAN },
        { "GL2C Cache BW", (32 * 40 + 64 * 80 + 128 * 120 + 96 * 20) / s, NAN },
        { "Scalar Data Cache Hit Rate", 100.0 * 180 / (180 + 20), NAN },
        { "Scalar Data Cache BW", 40.0 * 128 / s, NAN },
        { "Instruction Cache Hit Rate", 100.0 * 380 / (380 + 20), NAN },
        { "Instruction Cache BW", 60.0 * 128 / s, NAN },
    };
    memcpy(w, v, sizeof(v));
}

static void write_file(char *path, const char *text)
{
    FILE *f;
    int fd;

    strcpy(path, "/tmp/gputop-csv-amd-XXXXXX");
    fd = mkstemp(path);
    cr_assert_geq(fd, 0, "mkstemp: %s", strerror(errno));
    f = fdopen(fd, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* Splits one CSV line (no quoted commas in these titles) into fields. */
static size_t fields(char *line, char **out, size_t max)
{
    size_t n = 0;
    char *p = line;

    /* empty fields count (time_unix is empty for a file's rows) */
    line[strcspn(line, "\n")] = '\0';
    while (n < max) {
        out[n++] = p;
        p = strchr(p, ',');
        if (!p)
            break;
        *p++ = '\0';
    }
    return n;
}

static long column(char **names, size_t n, const char *want)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp(names[i], want) == 0)
            return (long)i;
    return -1;
}

Test(csv_amd, one_row_gives_the_documents_values_by_name)
{
    char path[64], cmd[512], head[8192], data[8192], *h[128], *v[128], name[160];
    char text[sizeof(header) + sizeof(row)];
    struct want w[19];
    size_t nh, nv, i;
    FILE *p;

    snprintf(text, sizeof(text), "%s%s", header, row);
    write_file(path, text);
    snprintf(cmd, sizeof(cmd), "%s --source csv:%s,gpu=gfx1151 --no-cpu --batch --format csv "
             "--section 1 --precision full", gputop_bin(), path);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(head, sizeof(head), p), "no output from %s", cmd);
    cr_assert_not_null(fgets(data, sizeof(data), p), "no data row from %s", cmd);
    cr_expect_eq(pclose(p), 0);
    unlink(path);
    nh = fields(head, h, 128);
    nv = fields(data, v, 128);
    cr_assert_eq(nh, nv, "header %zu fields, row %zu", nh, nv);
    expected(w);
    for (i = 0; i < 19; i++) {
        const char *unit = strstr(w[i].title, "BW") ? "Bytes/s"
                         : strstr(w[i].title, "FLOPs") ? "GFLOP/s"
                         : strcmp(w[i].title, "IPC") == 0 ? "Instr/cycle"
                         : strcmp(w[i].title, "Wavefront Occupancy") == 0 ? "Wavefronts"
                         : strcmp(w[i].title, "LDS Bank Conflicts") == 0 ? "Conflicts"
                         : "%";   /* the document's "Percent", spelt as "% of peak" is */
        long c;
        snprintf(name, sizeof(name), "%s [%s]", w[i].title, unit);
        c = column(h, nh, name);
        cr_assert_geq(c, 0, "no column '%s' in the header", name);
        cr_expect(fabs(strtod(v[c], NULL) - w[i].value) <= 1e-9 * fabs(w[i].value),
                  "%s: got %s, want %.17g", w[i].title, v[c], w[i].value);
        if (isnan(w[i].pop))
            continue;
        snprintf(name, sizeof(name), "%s %% of peak [%%]", w[i].title);
        c = column(h, nh, name);
        cr_assert_geq(c, 0, "no column '%s' in the header", name);
        cr_expect(fabs(strtod(v[c], NULL) - w[i].pop) <= 1e-9 * fabs(w[i].pop),
                  "%s %% of peak: got %s, want %.17g", w[i].title, v[c], w[i].pop);
    }
}

static void open_fails(const char *text, const char *args, const char *msg)
{
    char path[64], spec[160];
    struct gt_diag d;
    struct gt_source *s;

    write_file(path, text);
    snprintf(spec, sizeof(spec), "csv:%s%s", path, args);
    s = gt_source_open(spec, NULL, &d);
    unlink(path);
    cr_assert_null(s, "accepted %s", spec);
    cr_expect(strstr(d.msg, msg) != NULL, "'%s' lacks '%s'", d.msg, msg);
}

Test(csv_amd, names_and_errors)
{
    open_fails("interval_ns,SQ_INSTS_VALU\n1,2\n", "", "an AMD gfx1151 counter: add gpu=gfx1151");
    open_fails("interval_ns,SQ_INSTS_VALUE\n1,2\n", ",gpu=gfx1151",
               "unknown counter 'SQ_INSTS_VALUE' (did you mean 'SQ_INSTS_VALU'?)");
    open_fails("interval_ns,MaliGPUCyclesGPUActive\n1,2\n", ",gpu=gfx1151",
               "unknown counter 'MaliGPUCyclesGPUActive'");
    open_fails("interval_ns,max_sclk[0]\n1,2\n", ",gpu=gfx1151", "constant 'max_sclk' takes no");
    open_fails("interval_ns,SQ_INSTS_VALU\n1,2\n", ",gpu=gfx9", "known: T760, T820, T830, T860, T880, G52, G76, G57, G77, G68, G78, G310, G510, G610, G710, G715, G720, G625, G725, mips-cm, gfx1151");
}

Test(csv_amd, layout_and_cu_count_follow_the_columns)
{
    char path[64], spec[160];
    struct gt_diag d;
    struct gt_source *s;
    int k;

    write_file(path, "interval_ns,TCP_REQ[0],TCP_REQ[1],TCP_REQ[2],GL2C_HIT\n10,1,2,3,4\n");
    snprintf(spec, sizeof(spec), "csv:%s,gpu=gfx1151", path);
    s = gt_source_open(spec, NULL, &d);
    unlink(path);
    cr_assert_not_null(s, "%s", d.msg);
    cr_expect_str_eq(s->info.layout, "amd-gfx1151");
    cr_expect_eq(s->info.shader_cores, 3);
    k = gt_catalog_find(&s->catalog, "cu_per_gpu");
    cr_assert_geq(k, 0, "cu_per_gpu derived from TCP's instances");
    cr_expect_float_eq(s->catalog.counters[k].value, 3.0, 1e-12);
    cr_expect_eq(s->catalog.counters[gt_catalog_find(&s->catalog, "TCP_REQ")].instances, 3);
    cr_expect_str_eq(s->catalog.counters[gt_catalog_find(&s->catalog, "GL2C_HIT")].block, "GL2C");
    gt_source_close(s);
}

Test(csv_amd, json_names_the_percent_of_peak_keys)
{
    char path[64], cmd[512], text[sizeof(header) + sizeof(row)], meta[65536], rec[65536];
    FILE *p;

    snprintf(text, sizeof(text), "%s%s", header, row);
    write_file(path, text);
    snprintf(cmd, sizeof(cmd), "%s --source csv:%s,gpu=gfx1151 --no-cpu --batch --format json "
             "--section 1", gputop_bin(), path);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(meta, sizeof(meta), p));
    cr_assert_not_null(fgets(rec, sizeof(rec), p));
    cr_expect_eq(pclose(p), 0);
    unlink(path);
    cr_expect(strstr(meta, "{\"key\":\"ipc_percent_of_peak\",\"title\":\"IPC % of peak\",\"ref\":null,"
                           "\"unit\":\"%\",\"show\":\"percent\"") != NULL, "%s", meta);
    /* 100 * 1e9 / 5.4e8 / 5 = 37.037037...; six significant digits */
    cr_expect(strstr(rec, "\"ipc_percent_of_peak\":37.037,") != NULL, "%s", rec);
    /* hit rates with peak 100 carry no separate column */
    cr_expect(strstr(meta, "L2 Cache Hit Rate % of peak") == NULL, "%s", meta);
}
