/* Command-line options and the commands that run without a source. */
#ifndef GPUTOP_CLI_H
#define GPUTOP_CLI_H

#include <stdio.h>

enum gt_command {
    GT_CMD_RUN,            /* the dashboard or batch output */
    GT_CMD_HELP,
    GT_CMD_VERSION,
    GT_CMD_LIST_LAYOUTS,
    GT_CMD_CHECK_LAYOUT,
};

#define GT_MAX_SOURCES 8

struct gt_options {
    enum gt_command cmd;
    const char *layout;          /* --layout NAME|FILE */
    const char *check_file;      /* --check-layout FILE */
    const char *gpu;             /* --gpu NAME */
    const char *sources[GT_MAX_SOURCES];
    int nsources;
};

/* Parses argv; on a usage error prints it to err and returns -1. */
int gt_options_parse(struct gt_options *o, int argc, char **argv, FILE *err);
void gt_usage(FILE *out);

int gt_cmd_list_layouts(FILE *out);
/* Returns the process exit status: 0 clean, 1 errors or unresolved names. */
int gt_cmd_check_layout(const char *file, const char *gpu, FILE *out, FILE *err);

#endif
