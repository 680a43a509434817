/* gputop: argument parsing, signals, and dispatch to the commands. */
#include "gputop/cli.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void install_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    /* A closed pipe (gputop | head) is a write error to end on, not a kill. */
    signal(SIGPIPE, SIG_IGN);
    /* Likewise the file-size limit (a full quota, ulimit -f) while
     * recording: the write fails with EFBIG and the user is told. */
    signal(SIGXFSZ, SIG_IGN);
}

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
    install_signals();
    return gt_cmd_run(&o, &stop_requested);
}
