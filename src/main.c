/* gputop: argument parsing, signals, and dispatch to the commands. */
#include "gputop/cli.h"

int main(int argc, char **argv)
{
    struct gt_options o;

    if (gt_options_parse(&o, argc, argv, stderr) < 0)
        return 2;
    switch (o.cmd) {
    case GT_CMD_HELP:
        gt_usage(stdout);
        return 0;
    case GT_CMD_VERSION:
        printf("gputop %s\n", gt_version());
        return 0;
    case GT_CMD_LIST_LAYOUTS:
        return gt_cmd_list_layouts(stdout);
    case GT_CMD_LIST_SOURCES:
        return gt_cmd_list_sources(stdout);
    case GT_CMD_PROBE:
        return gt_cmd_probe(&o, gt_sys_real(), stdout);
    case GT_CMD_CHECK_LAYOUT:
        return gt_cmd_check_layout(o.check_file, o.gpu, stdout, stderr);
    case GT_CMD_RUN:
        break;
    }
    return gt_cmd_run(&o, gt_install_stop_signals());
}
