/* Command-line parsing and --help. */
#include "gputop/cli.h"
#include "gputop/sampler.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#ifndef GPUTOP_VERSION
#define GPUTOP_VERSION "0"
#endif

void gt_usage(FILE *out)
{
    fputs(
"usage: gputop [options]\n"
"Live GPU hardware-counter monitor: the vendor guides' metrics as live bars.\n"
"\n"
"Sources and layouts:\n"
"  --source SPEC           counter source, repeatable: mali[:/dev/maliN][,interface=I],\n"
"                          sim[:FAMILY][,scene=S][,seed=N],\n"
"                          cpu[:cycles=auto|on|off][,clusters=MODE],\n"
    "                          replay:FILE[,speed=1|N|max], csv:FILE[,gpu=T820|T830|G715|G720]\n"
"  --no-cpu                do not add the cpu source beside the GPU source\n"
"  --list-sources          list the sources and whether they can run here\n"
"  --probe                 find the Mali GPU, say what it is and test its counters\n"
"  --layout NAME|FILE      use a built-in layout or a layout file\n"
"  --list-layouts          list the built-in layouts and the devices they match\n"
"  --check-layout FILE     parse a layout, compile it, list unresolved counters\n"
"  --gpu NAME              with --check-layout: the counter catalogue to use\n"
"                          (T820, T830, G715, G720; default: the layout's own)\n"
"Sampling:\n"
"  -i, --interval TIME     sample period, 1ms..10s (default 100ms; '250', '0.5s')\n"
"  --record FILE           also write every raw sample to a capture file\n"
"Dashboard:\n"
"  -r, --refresh TIME      screen refresh period (default 250ms, i.e. 4 Hz)\n"
"  --no-color              no colours (also when NO_COLOR is set)\n"
"  --no-mouse              do not take mouse clicks on the section tabs\n"
"  (keys in a replay)      space pause/play, . and , one sample on/back,\n"
"                          Home/End first/last sample, PgUp/PgDn back/forward 10%\n"
"Batch output (automatic when stdout is not a terminal):\n"
"  -b, --batch             print records instead of the dashboard\n"
"  -f, --format FMT        text, csv or json (JSON Lines; default text)\n"
"  -n, --count N           stop after N records\n"
"  -d, --duration TIME     stop after TIME ('10', '10s', '500ms'; seconds by default)\n"
"  --section NAME|KEY      only this section (title or hotkey)\n"
"  --metrics PATTERN       only metrics whose title or ref matches the glob\n"
"  --per-second            counts as rates per second\n"
"Other:\n"
"  -h, --help              show this help\n"
"  -V, --version           show the version\n"
"\n"
"See gputop(1), gputop-layout(5) and gputop-capture(5).\n", out);
}

const char *gt_version(void) { return GPUTOP_VERSION; }

static int parse_count(const char *s, uint64_t *out)
{
    char *end;

    if (!*s || *s == '-')
        return -1;
    errno = 0;
    *out = strtoull(s, &end, 10);
    return errno || *end || *out == 0 ? -1 : 0;
}

static int parse_duration(const char *s, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || !(v > 0) || v > 1e9)
        return -1;
    if (strcmp(end, "ms") == 0)
        v /= 1000;
    else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        v *= 60;
    else if (*end && strcmp(end, "s") != 0)
        return -1;
    *out = v;
    return 0;
}

static int parse_format(const char *s, enum gt_batch_format *f)
{
    if (strcmp(s, "text") == 0)
        *f = GT_FORMAT_TEXT;
    else if (strcmp(s, "csv") == 0)
        *f = GT_FORMAT_CSV;
    else if (strcmp(s, "json") == 0 || strcmp(s, "jsonl") == 0)
        *f = GT_FORMAT_JSON;
    else
        return -1;
    return 0;
}

enum {
    OPT_LAYOUT = 256, OPT_LIST_LAYOUTS, OPT_CHECK_LAYOUT, OPT_GPU, OPT_SOURCE, OPT_NO_CPU,
    OPT_LIST_SOURCES, OPT_RECORD, OPT_SECTION, OPT_METRICS, OPT_PER_SECOND,
    OPT_NO_COLOR, OPT_NO_MOUSE, OPT_PROBE,
};

static const struct option longopts[] = {
    { "help", no_argument, 0, 'h' },
    { "version", no_argument, 0, 'V' },
    { "layout", required_argument, 0, OPT_LAYOUT },
    { "list-layouts", no_argument, 0, OPT_LIST_LAYOUTS },
    { "check-layout", required_argument, 0, OPT_CHECK_LAYOUT },
    { "gpu", required_argument, 0, OPT_GPU },
    { "source", required_argument, 0, OPT_SOURCE },
    { "no-cpu", no_argument, 0, OPT_NO_CPU },
    { "list-sources", no_argument, 0, OPT_LIST_SOURCES },
    { "probe", no_argument, 0, OPT_PROBE },
    { "interval", required_argument, 0, 'i' },
    { "record", required_argument, 0, OPT_RECORD },
    { "batch", no_argument, 0, 'b' },
    { "format", required_argument, 0, 'f' },
    { "count", required_argument, 0, 'n' },
    { "duration", required_argument, 0, 'd' },
    { "section", required_argument, 0, OPT_SECTION },
    { "metrics", required_argument, 0, OPT_METRICS },
    { "per-second", no_argument, 0, OPT_PER_SECOND },
    { "refresh", required_argument, 0, 'r' },
    { "no-color", no_argument, 0, OPT_NO_COLOR },
    { "no-colour", no_argument, 0, OPT_NO_COLOR },
    { "no-mouse", no_argument, 0, OPT_NO_MOUSE },
    { 0, 0, 0, 0 },
};

static int bad_value(FILE *err, const char *opt, const char *val, const char *want)
{
    fprintf(err, "gputop: bad value '%s' for %s: %s\n", val, opt, want);
    return -1;
}

static int one_option(struct gt_options *o, int c, const char *arg, FILE *err)
{
    switch (c) {
    case 'h': o->cmd = GT_CMD_HELP; return 0;
    case 'V': o->cmd = GT_CMD_VERSION; return 0;
    case OPT_LAYOUT: o->layout = arg; return 0;
    case OPT_LIST_LAYOUTS: o->cmd = GT_CMD_LIST_LAYOUTS; return 0;
    case OPT_LIST_SOURCES: o->cmd = GT_CMD_LIST_SOURCES; return 0;
    case OPT_PROBE: o->cmd = GT_CMD_PROBE; return 0;
    case OPT_CHECK_LAYOUT: o->cmd = GT_CMD_CHECK_LAYOUT; o->check_file = arg; return 0;
    case OPT_GPU: o->gpu = arg; return 0;
    case OPT_NO_CPU: o->no_cpu = 1; return 0;
    case OPT_RECORD: o->record = arg; return 0;
    case OPT_SECTION: o->out.section = arg; return 0;
    case OPT_METRICS: o->out.pattern = arg; return 0;
    case OPT_PER_SECOND: o->out.per_second = 1; return 0;
    case 'b': o->batch = 1; return 0;
    case OPT_NO_COLOR: o->no_color = 1; return 0;
    case OPT_NO_MOUSE: o->no_mouse = 1; return 0;
    case 'r':
        o->refresh_ns = gt_parse_interval(arg);
        return o->refresh_ns >= 10000000ull ? 0 : bad_value(err, "--refresh", arg,
                                                 "a time from 10ms to 10s, e.g. 250ms, 1s");
    case OPT_SOURCE:
        if (o->nsources == GT_MAX_SOURCES) {
            fprintf(err, "gputop: at most %d --source options\n", GT_MAX_SOURCES);
            return -1;
        }
        o->sources[o->nsources++] = arg;
        return 0;
    case 'i':
        o->interval_ns = gt_parse_interval(arg);
        return o->interval_ns ? 0 : bad_value(err, "--interval", arg,
                                               "a time from 1ms to 10s, e.g. 100, 250ms, 0.5s");
    case 'f':
        return parse_format(arg, &o->out.format) == 0 ? 0
             : bad_value(err, "--format", arg, "text, csv or json");
    case 'n':
        return parse_count(arg, &o->out.count) == 0 ? 0
             : bad_value(err, "--count", arg, "a positive whole number");
    case 'd':
        return parse_duration(arg, &o->out.duration_s) == 0 ? 0
             : bad_value(err, "--duration", arg, "a positive time, e.g. 10, 10s, 500ms");
    }
    return -1;
}

int gt_options_parse(struct gt_options *o, int argc, char **argv, FILE *err)
{
    int c;

    memset(o, 0, sizeof(*o));
    o->interval_ns = 100000000ull;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":hVbi:f:n:d:r:", longopts, NULL)) != -1) {
        if (c == ':') {
            fprintf(err, "gputop: option '%s' needs a value\n", argv[optind - 1]);
            return -1;
        }
        if (c == '?') {
            fprintf(err, "gputop: unknown option '%s' (try --help)\n", argv[optind - 1]);
            return -1;
        }
        if (one_option(o, c, optarg, err) < 0)
            return -1;
    }
    if (optind < argc) {
        fprintf(err, "gputop: unexpected argument '%s' (try --help)\n", argv[optind]);
        return -1;
    }
    if (o->gpu && o->cmd != GT_CMD_CHECK_LAYOUT) {
        fprintf(err, "gputop: --gpu goes with --check-layout\n");
        return -1;
    }
    return 0;
}
