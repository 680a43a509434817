/* Command-line parsing and --help. */
#include "gputop/cli.h"

#include <getopt.h>
#include <string.h>

#ifndef GPUTOP_VERSION
#define GPUTOP_VERSION "0.1"
#endif

void gt_usage(FILE *out)
{
    fputs(
"usage: gputop [options]\n"
"Live GPU hardware-counter monitor: the vendor guides' metrics as live bars.\n"
"\n"
"  --layout NAME|FILE      use a built-in layout or a layout file\n"
"  --list-layouts          list the built-in layouts and the devices they match\n"
"  --check-layout FILE     parse a layout, compile it, list unresolved counters\n"
"  --gpu NAME              with --check-layout: the counter catalogue to use\n"
"                          (T820, T830, G715, G720; default: the layout's own)\n"
"  --source SPEC           counter source (repeatable), e.g. sim:mali-g720\n"
"  -h, --help              show this help\n"
"  -V, --version           show the version\n"
"\n"
"See gputop(1) and gputop-layout(5).\n", out);
}

int gt_options_parse(struct gt_options *o, int argc, char **argv, FILE *err)
{
    enum { OPT_LAYOUT = 256, OPT_LIST_LAYOUTS, OPT_CHECK_LAYOUT, OPT_GPU, OPT_SOURCE };
    static const struct option longopts[] = {
        { "help", no_argument, 0, 'h' },
        { "version", no_argument, 0, 'V' },
        { "layout", required_argument, 0, OPT_LAYOUT },
        { "list-layouts", no_argument, 0, OPT_LIST_LAYOUTS },
        { "check-layout", required_argument, 0, OPT_CHECK_LAYOUT },
        { "gpu", required_argument, 0, OPT_GPU },
        { "source", required_argument, 0, OPT_SOURCE },
        { 0, 0, 0, 0 },
    };
    int c;

    memset(o, 0, sizeof(*o));
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': o->cmd = GT_CMD_HELP; break;
        case 'V': o->cmd = GT_CMD_VERSION; break;
        case OPT_LAYOUT: o->layout = optarg; break;
        case OPT_LIST_LAYOUTS: o->cmd = GT_CMD_LIST_LAYOUTS; break;
        case OPT_CHECK_LAYOUT: o->cmd = GT_CMD_CHECK_LAYOUT; o->check_file = optarg; break;
        case OPT_GPU: o->gpu = optarg; break;
        case OPT_SOURCE:
            if (o->nsources == GT_MAX_SOURCES) {
                fprintf(err, "gputop: at most %d --source options\n", GT_MAX_SOURCES);
                return -1;
            }
            o->sources[o->nsources++] = optarg;
            break;
        case ':':
            fprintf(err, "gputop: option '%s' needs a value\n", argv[optind - 1]);
            return -1;
        default:
            fprintf(err, "gputop: unknown option '%s' (try --help)\n", argv[optind - 1]);
            return -1;
        }
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

const char *gt_version(void) { return GPUTOP_VERSION; }
