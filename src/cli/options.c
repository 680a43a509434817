/* Command-line parsing and --help. */
#include "gputop/cli.h"
#include "gputop/duration.h"
#include "gputop/sampler.h"

#include <errno.h>
#include <getopt.h>
#include <ctype.h>
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
"  --source SPEC           counter source, repeatable:\n", out);
    gt_usage_sources(out, 28);
    fputs(
"                          a comma may replace the colon: sim,scene=game\n"
"  --no-cpu                do not add the cpu source beside the GPU source\n"
"  --no-processes          no Processes view (P): /proc/*/fdinfo is not read\n"
"  --proc-root DIR         read /proc below DIR for the Processes view and\n"
"                            drm-fdinfo (a container's /proc, a test tree)\n"
"  --sys-root DIR          read the GPU's clock, temperature and power files\n"
"                            (/sys) below DIR (a test tree)\n"
"  --thermal-zone NAME     the GPU's thermal zone, by type (G3D) or directory\n"
"                            (thermal_zone3); default: the first whose type\n"
"                            says G3D, gpu-thermal, gpu or mali\n"
"  --no-clocks             no Power & clocks section, header figures or\n"
"                            findings: gpu-clocks is not added beside a GPU\n"
"                            device, the simulator's clocks are not shown\n"
"  --list-sources          list the sources and whether they can run here\n"
"  --probe                 find the Mali or AMD GPU and every DRM device, say\n"
"                          what it is, test its counters and how late the\n"
"                          sampler wakes up (1 ms period); with --source:\n"
"                          each source named (sim:mali-g715 too); mips-cm:\n"
"                          the CM's revision, base, counters, register state\n"
"                          and, on idle counters, each event counted with\n"
"                          qualifier 0 and all ones\n"
"  --layout NAME|FILE      use a built-in layout or a layout file\n"
"  --list-layouts          list the built-in layouts and the devices they match\n"
"  --check-layout FILE     parse a layout, compile it, list unresolved counters\n"
"  --gpu NAME              with --check-layout: the counter catalogue to use\n"
"                          (a Mali GPU: T760..T880, G52..G725; gfx1151,\n"
"                          mips-cm, drm-fdinfo; default: the layout's own)\n"
"Sampling:\n"
"  -i, --interval TIME     sample period, 1ms..10s (default 100ms; a bare number\n"
"                          is milliseconds)\n"
"  --timer-sampling        take every sample on gputop's timer, even where the\n"
"                          kernel can time them (kbase's periodic modes)\n"
"  --record FILE           also write every raw sample to a capture file; says\n"
"                          on exit how fast it grew (sim, -i 1ms: 4 MB/s)\n"
"  --force                 let --record replace a FILE that holds data\n"
"Exports (beside the dashboard or batch output):\n"
"  --serve ADDR:PORT       Prometheus metrics at http://ADDR:PORT/metrics; the\n"
"                          address is 127.0.0.1 unless given (:9100, [::1]:9100)\n"
"  --processes[=N]         with --serve: per-process GPU busy and memory of the\n"
"                            N busiest DRM clients (default 10, up to 256),\n"
"                            labelled pid, comm, container, driver, drm_pdev\n"
"  --trace FILE            write a Trace Event Format timeline for\n"
"                          ui.perfetto.dev or chrome://tracing (converts a\n"
"                          capture with --source replay:CAP --trace FILE)\n"
"Dashboard:\n"
"  -r, --refresh TIME      screen refresh period, 10ms..10s (default 250ms, i.e.\n"
"                          4 Hz; a bare number is milliseconds)\n"
"  --per-interval          counts per sampling interval, not per second (key t)\n"
"  --no-color              no colours (also when NO_COLOR is set)\n"
"  --no-mouse              do not take mouse clicks on the section tabs\n"
"  (keys in a replay)      space pause/play, . and , one sample on/back, + and -\n"
"                          faster/slower, Home/End first/last, [ and ] -/+ 10%\n"
"Batch output (automatic when stdout is not a terminal, or with -f, -n or -d):\n"
"  -b, --batch             print records instead of the dashboard\n"
"  -f, --format FMT        text, csv, json (JSON Lines; default text) or none\n"
"                          (no records: for --serve or --trace alone)\n"
"  -n, --count N           stop after N records; exit 1 if fewer than N had data\n"
"  -d, --duration TIME     stop after TIME (a bare number is seconds)\n"
"  --section NAME|KEY      only this section (hotkey, title or unique prefix);\n"
"                          the dashboard opens on it\n"
"  --metrics PATTERN       only metrics whose title or ref matches the glob\n"
"                          (the dashboard too)\n"
"  --per-second            counts as rates per second (units become e.g. bytes/s;\n"
"                          the dashboard's default)\n"
"  --precision N|full      significant digits of values (default 6; integers are\n"
"                          whole); full: every digit needed to read back exactly\n"
"  --per-core              also a column per shader core, L2 slice or cluster\n"
"Triage report:\n"
"  --triage                sample for -d TIME (default 10s, with progress; a\n"
"                          replay: or csv: recording to its end) and print the\n"
"                          held verdict with a timeline, each interval's own\n"
"                          verdicts, side findings, evidence (min/median/max)\n"
"                          and the guides' next steps; -f json: one object\n"
"TIME is a number with a unit, ns, us, ms, s, m (minutes), h or d: 100ms, 2m, 1h.\n"
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

static int parse_precision(const char *s, int *digits)
{
    uint64_t n;

    if (strcmp(s, "full") == 0) {
        *digits = GT_DIGITS_FULL;
        return 0;
    }
    if (parse_count(s, &n) < 0 || n > 17)
        return -1;
    *digits = (int)n;
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
    else if (strcmp(s, "none") == 0)
        *f = GT_FORMAT_NONE;
    else
        return -1;
    return 0;
}

enum {
    OPT_LAYOUT = 256, OPT_LIST_LAYOUTS, OPT_CHECK_LAYOUT, OPT_GPU, OPT_SOURCE, OPT_NO_CPU,
    OPT_TIMER_SAMPLING,
    OPT_LIST_SOURCES, OPT_RECORD, OPT_SECTION, OPT_METRICS, OPT_PER_SECOND,
    OPT_NO_COLOR, OPT_NO_MOUSE, OPT_PROBE, OPT_PRECISION, OPT_PER_CORE, OPT_SERVE, OPT_TRACE,
    OPT_PROC_ROOT, OPT_NO_PROCESSES, OPT_PROCESSES, OPT_SYS_ROOT, OPT_THERMAL_ZONE,
    OPT_NO_CLOCKS,
    OPT_TRIAGE, OPT_FORCE, OPT_PER_INTERVAL,
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
    { "timer-sampling", no_argument, 0, OPT_TIMER_SAMPLING },
    { "list-sources", no_argument, 0, OPT_LIST_SOURCES },
    { "probe", no_argument, 0, OPT_PROBE },
    { "proc-root", required_argument, 0, OPT_PROC_ROOT },
    { "sys-root", required_argument, 0, OPT_SYS_ROOT },
    { "thermal-zone", required_argument, 0, OPT_THERMAL_ZONE },
    { "no-clocks", no_argument, 0, OPT_NO_CLOCKS },
    { "no-processes", no_argument, 0, OPT_NO_PROCESSES },
    { "processes", optional_argument, 0, OPT_PROCESSES },
    { "triage", no_argument, 0, OPT_TRIAGE },
    { "interval", required_argument, 0, 'i' },
    { "record", required_argument, 0, OPT_RECORD },
    { "force", no_argument, 0, OPT_FORCE },
    { "serve", required_argument, 0, OPT_SERVE },
    { "trace", required_argument, 0, OPT_TRACE },
    { "batch", no_argument, 0, 'b' },
    { "format", required_argument, 0, 'f' },
    { "count", required_argument, 0, 'n' },
    { "duration", required_argument, 0, 'd' },
    { "section", required_argument, 0, OPT_SECTION },
    { "metrics", required_argument, 0, OPT_METRICS },
    { "per-second", no_argument, 0, OPT_PER_SECOND },
    { "per-interval", no_argument, 0, OPT_PER_INTERVAL },
    { "precision", required_argument, 0, OPT_PRECISION },
    { "per-core", no_argument, 0, OPT_PER_CORE },
    { "refresh", required_argument, 0, 'r' },
    { "no-color", no_argument, 0, OPT_NO_COLOR },
    { "no-colour", no_argument, 0, OPT_NO_COLOR },
    { "no-mouse", no_argument, 0, OPT_NO_MOUSE },
    { 0, 0, 0, 0 },
};

/* The option as the user spelt it ("-i", "--interval", "--int"), from
 * where getopt found its value, so the message points at what was typed. */
static void typed_name(char *buf, size_t len, char **argv, const char *arg)
{
    const char *word = argv[optind - 1];

    if (arg == word && optind >= 2)
        snprintf(buf, len, "%s", argv[optind - 2]);
    else if (strncmp(word, "--", 2) == 0)
        snprintf(buf, len, "%.*s", (int)strcspn(word, "="), word);
    else
        snprintf(buf, len, "-%c", arg[-1]);
}

static int bad_value(FILE *err, const char *opt, const char *val, const char *why)
{
    fprintf(err, "gputop: %s %s: %s\n", opt, val, why);
    return -1;
}

/* A time option: a bare number is in bare units; the value must lie in
 * [lo, hi] nanoseconds (hi 0: no upper limit). */
static int time_value(FILE *err, const char *opt, const char *arg, uint64_t bare,
                      uint64_t lo, uint64_t hi, const char *examples, uint64_t *ns)
{
    char range[96], a[24], b[24];

    if (gt_parse_duration(arg, bare, ns) < 0) {
        snprintf(range, sizeof(range), "not a duration (use e.g. %s)", examples);
        return bad_value(err, opt, arg, range);
    }
    if (*ns >= lo && (!hi || *ns <= hi))
        return 0;
    if (!hi)
        return bad_value(err, opt, arg, "must be longer than 0");
    gt_format_duration(a, sizeof(a), lo);
    gt_format_duration(b, sizeof(b), hi);
    snprintf(range, sizeof(range), "out of range (%s to %s)", a, b);
    return bad_value(err, opt, arg, range);
}

static int duration_option(struct gt_options *o, int c, const char *arg, const char *opt,
                           FILE *err)
{
    uint64_t ns;

    switch (c) {
    case 'i':
        return time_value(err, opt, arg, GT_NS_PER_MS, GT_INTERVAL_MIN_NS, GT_INTERVAL_MAX_NS,
                          "100ms, 0.5s", &o->interval_ns);
    case 'r':
        return time_value(err, opt, arg, GT_NS_PER_MS, 10 * GT_NS_PER_MS, 10 * GT_NS_PER_S,
                          "100ms, 0.5s", &o->refresh_ns);
    }
    if (time_value(err, opt, arg, GT_NS_PER_S, 1, 0, "10s, 500ms, 2m, 1h", &ns) < 0)
        return -1;
    o->out.duration_s = (double)ns / 1e9;
    return 0;
}

/* --processes[=N]: how many clients the endpoint exports. */
static int processes_option(struct gt_options *o, const char *arg, const char *opt, FILE *err)
{
    char *end;
    unsigned long n;

    if (!arg) {
        o->serve_processes = 10;
        return 0;
    }
    n = strtoul(arg, &end, 10);
    if (*arg < '0' || *arg > '9' || *end || n < 1 || n > 256)
        return bad_value(err, opt, arg, "not a number of processes from 1 to 256");
    o->serve_processes = (unsigned)n;
    return 0;
}

static int one_option(struct gt_options *o, int c, const char *arg, const char *opt, FILE *err)
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
    case OPT_TIMER_SAMPLING: o->timer_sampling = 1; return 0;
    case OPT_PROC_ROOT: o->proc_root = arg; return 0;
    case OPT_SYS_ROOT: o->sys_root = arg; return 0;
    case OPT_THERMAL_ZONE: o->thermal_zone = arg; return 0;
    case OPT_NO_CLOCKS: o->no_clocks = 1; return 0;
    case OPT_NO_PROCESSES: o->no_processes = 1; return 0;
    case OPT_PROCESSES: return processes_option(o, arg, opt, err);
    case OPT_RECORD: o->record = arg; return 0;
    case OPT_FORCE: o->force = 1; return 0;
    case OPT_SERVE: o->serve = arg; return 0;
    case OPT_TRACE: o->trace = arg; return 0;
    case OPT_SECTION: o->out.section = arg; return 0;
    case OPT_METRICS: o->out.pattern = arg; return 0;
    case OPT_PER_SECOND: o->out.per_second = 1; return 0;
    case OPT_PER_INTERVAL: o->per_interval = 1; return 0;
    case OPT_PER_CORE: o->out.per_core = 1; return 0;
    case OPT_TRIAGE: o->triage = 1; return 0;
    case 'b': o->batch = 1; return 0;
    case OPT_NO_COLOR: o->no_color = 1; return 0;
    case OPT_NO_MOUSE: o->no_mouse = 1; return 0;
    case 'i': case 'r':
        return duration_option(o, c, arg, opt, err);
    case 'd':
        o->batch_asked = 1;
        return duration_option(o, c, arg, opt, err);
    case OPT_SOURCE:
        if (o->nsources == GT_MAX_SOURCES) {
            fprintf(err, "gputop: at most %d --source options\n", GT_MAX_SOURCES);
            return -1;
        }
        o->sources[o->nsources++] = arg;
        return 0;
    case 'f':
        o->batch_asked = 1;
        return parse_format(arg, &o->out.format) == 0 ? 0
             : bad_value(err, opt, arg, "not text, csv, json or none");
    case 'n':
        o->batch_asked = 1;
        return parse_count(arg, &o->out.count) == 0 ? 0
             : bad_value(err, opt, arg, "not a positive whole number");
    case OPT_PRECISION:
        return parse_precision(arg, &o->out.digits) == 0 ? 0
             : bad_value(err, opt, arg, "not 'full' or a number of digits from 1 to 17");
    }
    return -1;
}

/* "-b", "--no-cpu": an option, not a value; "-" (stdin) and "-1" are not. */
static int looks_like_option(const char *s)
{
    return s[0] == '-' && (s[1] == '-' ? s[2] != '\0' : isalpha((unsigned char)s[1]) != 0);
}

int gt_options_parse(struct gt_options *o, int argc, char **argv, FILE *err)
{
    int c;

    memset(o, 0, sizeof(*o));
    o->interval_ns = 100000000ull;
    opterr = 0;
    /* 0, not 1: glibc then forgets the cluster a failed parse stopped in
     * (it would read on in that argv). */
    optind = 0;
    while ((c = getopt_long(argc, argv, ":hVbi:f:n:d:r:", longopts, NULL)) != -1) {
        if (c == ':') {
            fprintf(err, "gputop: option '%s' needs a value\n", argv[optind - 1]);
            return -1;
        }
        if (c == '?') {
            fprintf(err, "gputop: unknown option '%s' (try --help)\n", argv[optind - 1]);
            return -1;
        }
        char opt[64] = "";
        /* "-i --no-cpu": the value forgotten, the next option is no value. */
        if (optarg && optarg == argv[optind - 1] && looks_like_option(optarg)) {
            fprintf(err, "gputop: option '%s' needs a value ('%s' is an option)\n",
                    argv[optind - 2], optarg);
            return -1;
        }
        if (optarg)
            typed_name(opt, sizeof(opt), argv, optarg);
        if (one_option(o, c, optarg, opt, err) < 0)
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
    if (o->serve_processes && (!o->serve || o->no_processes)) {
        fprintf(err, "gputop: --processes exports per-process series on the --serve "
                     "endpoint: %s\n", o->serve ? "not with --no-processes"
                                                : "give --serve ADDR:PORT too");
        return -1;
    }
    return 0;
}
