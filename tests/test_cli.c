/* Command-line behaviour: option errors, --list-layouts, --check-layout
 * on good, broken and unresolved layouts, and the embedded layouts. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/cli.h"
#include "gputop/engine.h"
#include "gputop/layout.h"

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
    snprintf(want, sizeof(want), "%s:9:12: error: unbalanced parenthesis: 'max(' is never closed\n"
             "        expr max(min($A, 100), 0\n"
             "             ^\n", path);
    cr_assert_str_eq(err, want);
    free(out);
    free(err);
    unlink(path);
    free(path);
}

Test(cli, option_errors)
{
    struct gt_options o;
    char *err = NULL;
    size_t n = 0;
    FILE *f;
    char *bad[][4] = {
        { "gputop", "--interval", "0", NULL },
        { "gputop", "--format", "xml", NULL },
        { "gputop", "--count", "-3", NULL },
        { "gputop", "--duration", "soon", NULL },
        { "gputop", "--gpu", "G720", NULL },
        { "gputop", "--bogus", NULL, NULL },
        { "gputop", "stray", NULL, NULL },
        { "gputop", "--layout", NULL, NULL },
    };
    const char *msgs[] = {
        "bad value '0' for --interval", "bad value 'xml' for --format",
        "bad value '-3' for --count", "bad value 'soon' for --duration",
        "--gpu goes with --check-layout", "unknown option '--bogus'",
        "unexpected argument 'stray'", "option '--layout' needs a value",
    };
    size_t i;

    for (i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++) {
        int argc = 0;
        while (argc < 4 && bad[i][argc])
            argc++;
        f = open_memstream(&err, &n);
        cr_assert_eq(gt_options_parse(&o, argc, bad[i], f), -1, "%s", msgs[i]);
        fclose(f);
        cr_assert(strstr(err, msgs[i]), "'%s' lacks '%s'", err, msgs[i]);
        free(err);
        err = NULL;
    }
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
}

Test(cli, per_core_option)
{
    struct gt_options o;
    char *argv[] = { "gputop", "-b", "--per-core", NULL };

    cr_assert_eq(gt_options_parse(&o, 3, argv, stderr), 0);
    cr_assert_eq(o.out.per_core, 1);
}
