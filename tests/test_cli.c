/* Command-line behaviour: option errors, --list-layouts, --check-layout
 * on good, broken and unresolved layouts, and the embedded layouts. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/cli.h"
#include "gputop/duration.h"
#include "gputop/engine.h"
#include "gputop/layout.h"
#include "gputop/source.h"
#include "gputop/source.h"

static char *run_cmd(int (*fn)(FILE *out, FILE *err, void *arg), void *arg, int *status,
                     char **err_text)
{
    char *out = NULL, *err = NULL;
    size_t on = 0, en = 0;
    FILE *o = open_memstream(&out, &on), *e = open_memstream(&err, &en);

    *status = fn(o, e, arg);
    fclose(o);
    fclose(e);
    *err_text = err;
    return out;
}

static int check_fn(FILE *out, FILE *err, void *arg)
{
    const char **a = arg;
    return gt_cmd_check_layout(a[0], a[1], out, err);
}

static char *write_temp(const char *text)
{
    char *path = strdup("/tmp/gputop-cli-XXXXXX.layout");
    int fd = mkstemps(path, 7);
    FILE *f = fdopen(fd, "w");

    fputs(text, f);
    fclose(f);
    return path;
}

Test(cli, embedded_layouts_parse_and_resolve_against_their_gpus)
{
    size_t i;

    cr_assert_geq(gt_embedded_layout_count(), 1);
    for (i = 0; i < gt_embedded_layout_count(); i++) {
        const char *args[2] = { gt_embedded_layout_name(i), NULL };
        char *err, *out;
        int status;
        out = run_cmd(check_fn, args, &status, &err);
        cr_assert_eq(status, 0, "%s:\n%s%s", args[0], out, err);
        cr_assert(strstr(out, "0 unresolved counter names"), "%s", out);
        free(out);
        free(err);
    }
}

Test(cli, list_layouts_names_each_with_its_devices)
{
    char *out = NULL;
    size_t n = 0, i;
    FILE *f = open_memstream(&out, &n);

    cr_assert_eq(gt_cmd_list_layouts(f), 0);
    fclose(f);
    for (i = 0; i < gt_embedded_layout_count(); i++)
        cr_assert(strstr(out, gt_embedded_layout_name(i)), "%s", out);
    cr_assert(strstr(out, "mali 0x0820 0x0830"), "%s", out);
    free(out);
}

Test(cli, check_layout_reports_unresolved_names_with_position)
{
    char *path = write_temp("gputop-layout 1\nname x\ntitle X\nfamily x\ngpu T830\n"
                            "section S\n  key x\n  group G\n    metric M\n"
                            "      expr $MaliGPUCyclesGPUActive + $MaliNoSuchCounter\n"
                            "      show count\n");
    const char *args[2] = { path, NULL };
    char *err, *out;
    int status;
    char want[512];

    out = run_cmd(check_fn, args, &status, &err);
    cr_assert_eq(status, 1);
    snprintf(want, sizeof(want), "%s:10:38: error: unknown counter $MaliNoSuchCounter "
             "(not in the T830 catalogue)\n", path);
    cr_assert(strstr(err, want), "%s", err);
    cr_assert(strstr(err, "^\n"), "caret line missing: %s", err);
    cr_assert(strstr(out, "1 unresolved counter name"), "%s", out);
    free(out);
    free(err);
    /* --gpu picks the catalogue */
    args[1] = "G720";
    out = run_cmd(check_fn, args, &status, &err);
    cr_assert_eq(status, 1);
    cr_assert(strstr(err, "(not in the G720 catalogue)"), "%s", err);
    free(out);
    free(err);
    args[1] = "G999";
    out = run_cmd(check_fn, args, &status, &err);
    cr_assert_eq(status, 1);
    cr_assert(strstr(err, "no counter catalogue for GPU 'G999'"), "%s", err);
    free(out);
    free(err);
    unlink(path);
    free(path);
}

Test(cli, check_layout_reports_syntax_errors_with_caret)
{
    char *path = write_temp("gputop-layout 1\nname x\ntitle X\nfamily x\n"
                            "section S\n  key x\n  group G\n    metric M\n"
                            "      expr max(min($A, 100), 0\n      show percent\n");
    const char *args[2] = { path, NULL };
    char *err, *out, want[512];
    int status;

    out = run_cmd(check_fn, args, &status, &err);
    cr_assert_eq(status, 1);
    snprintf(want, sizeof(want), "gputop: %s:9:12: error: unbalanced parenthesis: 'max(' is never closed\n"
             "        expr max(min($A, 100), 0\n"
             "             ^\n", path);
    cr_assert_str_eq(err, want);
    free(out);
    free(err);
    unlink(path);
    free(path);
}

/* Each message names the option as typed and the value, and starts with
 * "gputop:" like every message gputop prints. */
Test(cli, option_errors)
{
    struct gt_options o;
    char *err = NULL;
    size_t n = 0;
    FILE *f;
    char *bad[][4] = {
        { "gputop", "-i", "5x", NULL },
        { "gputop", "--interval", "0", NULL },
        { "gputop", "--interval=20s", NULL, NULL },
        { "gputop", "-i0.5", NULL, NULL },
        { "gputop", "-r", "5ms", NULL },
        { "gputop", "-d", "soon", NULL },
        { "gputop", "--duration", "-1s", NULL },
        { "gputop", "-d", "0", NULL },
        { "gputop", "--format", "xml", NULL },
        { "gputop", "--count", "-3", NULL },
        { "gputop", "--precision", "0", NULL },
        { "gputop", "--precision=18", NULL, NULL },
        { "gputop", "--gpu", "G720", NULL },
        { "gputop", "--bogus", NULL, NULL },
        { "gputop", "stray", NULL, NULL },
        { "gputop", "--layout", NULL, NULL },
        { "gputop", "-i", "--no-cpu", NULL },
        { "gputop", "-n", "-b", NULL },
    };
    const char *msgs[] = {
        "gputop: -i 5x: not a duration (use e.g. 100ms, 0.5s)\n",
        "gputop: --interval 0: out of range (1ms to 10s)\n",
        "gputop: --interval 20s: out of range (1ms to 10s)\n",
        "gputop: -i 0.5: out of range (1ms to 10s)\n",
        "gputop: -r 5ms: out of range (10ms to 10s)\n",
        "gputop: -d soon: not a duration (use e.g. 10s, 500ms, 2m, 1h)\n",
        "gputop: --duration -1s: not a duration (use e.g. 10s, 500ms, 2m, 1h)\n",
        "gputop: -d 0: must be longer than 0\n",
        "gputop: --format xml: not text, csv, json or none\n",
        "gputop: --count -3: not a positive whole number\n",
        "gputop: --precision 0: not 'full' or a number of digits from 1 to 17\n",
        "gputop: --precision 18: not 'full' or a number of digits from 1 to 17\n",
        "gputop: --gpu goes with --check-layout\n",
        "gputop: unknown option '--bogus' (try --help)\n",
        "gputop: unexpected argument 'stray' (try --help)\n",
        "gputop: option '--layout' needs a value\n",
        "gputop: option '-i' needs a value ('--no-cpu' is an option)\n",
        "gputop: option '-n' needs a value ('-b' is an option)\n",
    };
    size_t i;

    for (i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++) {
        int argc = 0;
        while (argc < 4 && bad[i][argc])
            argc++;
        f = open_memstream(&err, &n);
        cr_assert_eq(gt_options_parse(&o, argc, bad[i], f), -1, "%s", msgs[i]);
        fclose(f);
        cr_assert_str_eq(err, msgs[i]);
        free(err);
        err = NULL;
    }
}

/* One grammar for every time option; a bare number keeps each option's
 * old unit (ms for -i and -r, seconds for -d). */
Test(cli, durations_take_units)
{
    struct {
        const char *opt, *val;
        uint64_t want_ns;
    } cases[] = {
        { "-i", "100", 100000000ull },
        { "-i", "250ms", 250000000ull },
        { "-i", "0.5s", 500000000ull },
        { "-i", "2500us", 2500000ull },
        { "-i", "1000000ns", 1000000ull },
        { "-i", "1.5ms", 1500000ull },
        { "-i", "10s", 10000000000ull },
        { "-r", "1s", 1000000000ull },
        { "-r", "40", 40000000ull },
        { "-d", "10", 10000000000ull },
        { "-d", "500ms", 500000000ull },
        { "-d", "2m", 120000000000ull },
        { "-d", "1.5min", 90000000000ull },
        { "-d", ".25s", 250000000ull },
        /* issue 43 item 6: a long unattended run */
        { "-d", "1h", 3600000000000ull },
        { "-d", "1.5h", 5400000000000ull },
        { "-d", "1d", 86400000000000ull },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gt_options o;
        char *argv[] = { "gputop", (char *)cases[i].opt, (char *)cases[i].val, NULL };
        uint64_t got;
        cr_assert_eq(gt_options_parse(&o, 3, argv, stderr), 0, "%s %s", cases[i].opt, cases[i].val);
        got = cases[i].opt[1] == 'i' ? o.interval_ns
            : cases[i].opt[1] == 'r' ? o.refresh_ns
            : (uint64_t)llround(o.out.duration_s * 1e9);
        cr_assert_eq(got, cases[i].want_ns, "%s %s: %llu ns", cases[i].opt, cases[i].val,
                     (unsigned long long)got);
    }
}

Test(cli, duration_parser_rejects_what_is_not_a_time)
{
    const char *bad[] = { "", "ms", "5x", "10 s", " 10s", "-1", "+1", "inf", "nan", "0x10",
                          "1e30s", "1sec", "5S" };
    uint64_t ns = 7;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cr_assert_eq(gt_parse_duration(bad[i], GT_NS_PER_MS, &ns), -1, "'%s'", bad[i]);
    cr_assert_eq(ns, 7);
    cr_assert_eq(gt_parse_duration("1e3", GT_NS_PER_MS, &ns), 0);
    cr_assert_eq(ns, 1000000000ull);
}

Test(cli, options_parsed)
{
    struct gt_options o;
    char *argv[] = { "gputop", "--source", "sim:mali-g720,seed=3", "-i", "250ms", "-f", "json",
                     "-n", "5", "--per-second", "--section", "2", "--metrics", "*util*",
                     "--no-cpu", "-d", "1.5", "--record", "x.gtc", NULL };

    cr_assert_eq(gt_options_parse(&o, 19, argv, stderr), 0);
    cr_assert_eq(o.nsources, 1);
    cr_assert_str_eq(o.sources[0], "sim:mali-g720,seed=3");
    cr_assert_eq(o.interval_ns, 250000000ull);
    cr_assert_eq(o.out.format, GT_FORMAT_JSON);
    cr_assert_eq(o.out.count, 5);
    cr_assert_eq(o.out.per_second, 1);
    cr_assert_str_eq(o.out.section, "2");
    cr_assert_str_eq(o.out.pattern, "*util*");
    cr_assert_eq(o.no_cpu, 1);
    cr_assert_float_eq(o.out.duration_s, 1.5, 1e-12);
    cr_assert_str_eq(o.record, "x.gtc");
    cr_assert_eq(o.out.digits, 0);   /* the default, six */
}

Test(cli, precision_option)
{
    struct gt_options o;
    char *full[] = { "gputop", "--precision", "full", NULL };
    char *three[] = { "gputop", "--precision=3", NULL };

    cr_assert_eq(gt_options_parse(&o, 3, full, stderr), 0);
    cr_assert_eq(o.out.digits, GT_DIGITS_FULL);
    cr_assert_eq(gt_options_parse(&o, 2, three, stderr), 0);
    cr_assert_eq(o.out.digits, 3);
}

/* "sim,scene=game" is read as "sim:scene=game": a known source name before
 * the first comma, with no colon, takes the comma as its separator. */
Test(cli, source_name_may_end_at_a_comma)
{
    struct gt_diag d;
    struct gt_source *s = gt_source_open("sim,scene=game,seed=3", NULL, &d);

    cr_assert_not_null(s, "%s", d.msg);
    cr_assert_str_eq(s->type->name, "sim");
    cr_assert_str_eq(s->info.detail, "scene game, seed 3");
    gt_source_close(s);
    s = gt_source_open("sim,mali-t8xx", NULL, &d);
    cr_assert_not_null(s, "%s", d.msg);
    /* its own layout, then the clocks it models as gpu-clocks gives them */
    cr_assert_str_eq(s->info.layout, "mali-t8xx gpu-clocks");
    gt_source_close(s);
    cr_assert_null(gt_source_open("sim,scene=nope", NULL, &d));
    cr_assert(strstr(d.msg, "unknown scene 'nope'"), "%s", d.msg);
    cr_assert_null(gt_source_open("simx,scene=game", NULL, &d));
    cr_assert(strncmp(d.msg, "unknown source 'simx' (known: ", 30) == 0, "%s", d.msg);
}

/* Runs the real binary; returns what it wrote on stderr. */
static char *stderr_of(const char *args, int *status)
{
    const char *bin = getenv("GPUTOP_BIN");
    char cmd[2048], *buf = NULL, chunk[4096];
    size_t len = 0, n;
    FILE *p, *m = open_memstream(&buf, &len);

    snprintf(cmd, sizeof(cmd), "%s %s 2>&1 >/dev/null", bin && *bin ? bin : "./gputop", args);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        fwrite(chunk, 1, n, m);
    *status = pclose(p);
    fclose(m);
    return buf;
}

/* Every line a user reads on stderr starts with "gputop:", also the
 * layout and capture errors that carry a file position. */
Test(cli, every_message_starts_with_gputop, .timeout = 60)
{
    char *bad_layout = write_temp("gputop-layout 1\nname x\ntitle X\nfamily x\n"
                                  "section S\n  key x\n  group G\n    metric M\n"
                                  "      expr max(min($A, 100), 0\n      show percent\n");
    char args[3][512];
    size_t i;

    snprintf(args[0], sizeof(args[0]), "--source sim --no-cpu -b -n 1 --layout %s", bad_layout);
    snprintf(args[1], sizeof(args[1]), "--source sim --no-cpu -b -n 1 --record /nonexistent/x.gtc");
    snprintf(args[2], sizeof(args[2]), "--source sim --no-cpu -b -n 1 --layout /nonexistent.layout");
    for (i = 0; i < 3; i++) {
        int status;
        char *err = stderr_of(args[i], &status);
        cr_assert_neq(status, 0, "%s", args[i]);
        cr_assert(strncmp(err, "gputop: ", 8) == 0, "%s: %s", args[i], err);
        free(err);
    }
    unlink(bad_layout);
    free(bad_layout);
}

Test(cli, per_core_option)
{
    struct gt_options o;
    char *argv[] = { "gputop", "-b", "--per-core", NULL };

    cr_assert_eq(gt_options_parse(&o, 3, argv, stderr), 0);
    cr_assert_eq(o.out.per_core, 1);
}

/* Found by fuzz/fuzz_options.c (heap-use-after-free): a parse that stopped
 * inside a cluster of short options ("-bzb" stops at z) left getopt
 * pointing into that argv, and the next parse read on from there. Every
 * parse must start afresh. */
Test(cli, parse_starts_afresh_after_error_in_cluster)
{
    struct gt_options o;
    char first[] = "-bzb";
    char *argv1[] = { "gputop", first, NULL };
    char *argv2[] = { "gputop", "-V", NULL };
    FILE *f = fopen("/dev/null", "w");

    cr_assert_not_null(f);
    cr_assert_eq(gt_options_parse(&o, 2, argv1, f), -1);
    first[3] = 'y';   /* what a stale pointer would now read: an unknown option */
    cr_assert_eq(gt_options_parse(&o, 2, argv2, f), 0);
    cr_assert_eq(o.cmd, GT_CMD_VERSION);
    cr_assert_eq(o.batch, 0);
    fclose(f);
}

Test(cli, export_options)
{
    struct gt_options o;
    char *argv[] = { "gputop", "--serve", ":9100", "--trace", "t.json", "-f", "none", NULL };

    cr_assert_eq(gt_options_parse(&o, 7, argv, stderr), 0);
    cr_expect_str_eq(o.serve, ":9100");
    cr_expect_str_eq(o.trace, "t.json");
    cr_expect_eq(o.out.format, GT_FORMAT_NONE);
}

/* --help reads on an 80-column adb shell: no line wider. */
Test(cli, help_fits_80_columns)
{
    char *buf = NULL, *line, *save = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    gt_usage(f);
    fclose(f);
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        cr_expect_leq(strlen(line), 80, "%zu columns: %s", strlen(line), line);
    free(buf);
}

/* Issue 43 item 5: --help and --list-sources say what sim: takes, the
 * families, the GPUs and the scenes. */
Test(cli, help_and_list_sources_name_sim_families_gpus_scenes)
{
    const char *want[] = { "mali-valhall-csf", "G925", "G57", "texture-bound", "cache-friendly" };
    char *help = NULL, *list = NULL;
    size_t n = 0, m = 0, i;
    FILE *f = open_memstream(&help, &n), *g = open_memstream(&list, &m);

    gt_usage(f);
    gt_cmd_list_sources(g);
    fclose(f);
    fclose(g);
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        cr_expect(strstr(help, want[i]), "--help lacks %s", want[i]);
        cr_expect(strstr(list, want[i]), "--list-sources lacks %s", want[i]);
    }
    free(help);
    free(list);
}

/* A key is named in a usage as ":KEY" or ",KEY", then "=" or "]". */
static int usage_names(const char *usage, const char *key)
{
    const char *u;
    size_t n = strlen(key);

    for (u = strstr(usage, key); u; u = strstr(u + 1, key))
        if (u > usage && (u[-1] == ':' || u[-1] == ',') && (u[n] == '=' || u[n] == ']'))
            return 1;
    return 0;
}

static void check_keys(const struct gt_source_type *t)
{
    size_t i;

    cr_assert_not_null(t->usage, "%s has no usage", t->name);
    cr_assert_not_null(t->help, "%s has no help", t->name);
    cr_assert_not_null(t->keys, "%s lists no argument keys", t->name);
    for (i = 0; t->keys[i]; i++)
        if (t->keys[i][0])
            cr_expect(usage_names(t->usage, t->keys[i]), "%s: key '%s' not in its usage '%s'",
                      t->name, t->keys[i], t->usage);
}

/* Every argument key a source takes is in the usage --help prints; the
 * simulator's families that open as types of their own too. */
Test(cli, every_source_key_is_in_its_usage)
{
    extern const struct gt_source_type gt_source_sim_amd, gt_source_sim_cm;
    size_t i;

    for (i = 0; gt_source_types[i]; i++)
        check_keys(gt_source_types[i]);
    check_keys(&gt_source_sim_amd);
    check_keys(&gt_source_sim_cm);
}

/* --help shows each source's usage whole (lines are broken before a '['
 * only) and its help. */
Test(cli, help_shows_every_source_usage)
{
    char *buf = NULL, *joined;
    size_t len = 0, i, j = 0;
    FILE *f = open_memstream(&buf, &len);

    gt_usage(f);
    fclose(f);
    joined = malloc(len + 1);
    cr_assert_not_null(joined);
    for (i = 0; i < len; i++) {
        if (buf[i] == '\n') {
            while (buf[i + 1] == ' ')
                i++;
            continue;
        }
        joined[j++] = buf[i];
    }
    joined[j] = '\0';
    for (i = 0; gt_source_types[i]; i++)
        cr_expect(strstr(joined, gt_source_types[i]->usage), "--help lacks %s",
                  gt_source_types[i]->usage);
    cr_expect(strstr(gt_source_type_find("amdgpu")->usage, "[,force]"), "amdgpu's force");
    free(joined);
    free(buf);
}
