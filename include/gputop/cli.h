/* Command-line options and the commands main() dispatches to. */
#ifndef GPUTOP_CLI_H
#define GPUTOP_CLI_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include "gputop/batch.h"
#include "gputop/sys.h"

enum gt_command {
    GT_CMD_RUN,            /* the dashboard or batch output */
    GT_CMD_HELP,
    GT_CMD_VERSION,
    GT_CMD_LIST_LAYOUTS,
    GT_CMD_LIST_SOURCES,
    GT_CMD_CHECK_LAYOUT,
    GT_CMD_PROBE,
};

#define GT_MAX_SOURCES 8

struct gt_options {
    enum gt_command cmd;
    const char *layout;          /* --layout NAME|FILE */
    const char *check_file;      /* --check-layout FILE */
    const char *gpu;             /* --gpu NAME */
    const char *sources[GT_MAX_SOURCES];
    int nsources;
    int no_cpu;                  /* --no-cpu */
    int timer_sampling;          /* --timer-sampling */
    int batch;                   /* --batch */
    int batch_asked;             /* -f, -n or -d: records wanted, as top -n */
    uint64_t interval_ns;        /* --interval */
    const char *record;          /* --record FILE */
    int force;                   /* --force: --record may replace a capture */
    const char *serve;           /* --serve ADDR:PORT */
    const char *trace;           /* --trace FILE */
    uint64_t refresh_ns;         /* --refresh */
    int no_color, no_mouse;      /* --no-color, --no-mouse */
    int per_interval;            /* --per-interval: the dashboard's counts per interval */
    struct gt_batch_opts out;    /* --format --count --duration --section --metrics --per-second */
    const struct gt_sys *sys;    /* kernel seam for hardware sources; NULL: the real one */
    const char *proc_root;       /* --proc-root DIR: /proc read below it (Processes view) */
    int no_processes;            /* --no-processes: no /proc walk */
    const char *sys_root;        /* --sys-root DIR: gpu-clocks reads /sys below it */
    const char *thermal_zone;    /* --thermal-zone NAME: the GPU's zone */
    int no_clocks;               /* --no-clocks: no gpu-clocks beside the GPU */
    unsigned serve_processes;    /* --processes[=N]: top N clients on --serve; 0 none */
    int triage;                  /* --triage: a triage report instead of records */
};

/* Parses argv; on a usage error prints it to err and returns -1. */
int gt_options_parse(struct gt_options *o, int argc, char **argv, FILE *err);
void gt_usage(FILE *out);
/* Each source's usage and help, from column indent on (--help's part). */
void gt_usage_sources(FILE *out, size_t indent);
const char *gt_version(void);
/* A diagnostic (file:line:col, source line, caret) on err, after "gputop: ". */
void gt_report_diag(FILE *err, const struct gt_diag *d);

int gt_cmd_list_layouts(FILE *out);
int gt_cmd_list_sources(FILE *out);
/* Returns the process exit status: 0 clean, 1 errors or unresolved names. */
int gt_cmd_check_layout(const char *file, const char *gpu, FILE *out, FILE *err);
/* --probe: looks for Mali devices (or the one a --source mali:PATH
 * names) through sys and reports each step; 0 when one works end to end. */
int gt_cmd_probe(const struct gt_options *o, const struct gt_sys *sys, FILE *out);
/* Runs sources, sampler, engine and a view until done or *stop; returns
 * the exit status. */
int gt_cmd_run(const struct gt_options *o, volatile sig_atomic_t *stop);
/* Makes SIGINT, SIGTERM and SIGHUP set the returned flag (the run then
 * ends through every source's close) and SIGPIPE, SIGXFSZ write errors. */
volatile sig_atomic_t *gt_install_stop_signals(void);

/* --triage: samples for o->duration_s (default GT_TRIAGE_DEFAULT_S) or until
 * the source ends or *stop, then prints the report as text or (format
 * json) one JSON object. Returns 0; 1 with d set when no interval had the
 * data; -1 with d set out of memory. */
#define GT_TRIAGE_DEFAULT_S 10.0
struct gt_sampler;
struct gt_engine;
struct gt_layout;
struct gt_source;
int gt_triage_report(FILE *out, struct gt_sampler *s, struct gt_engine *e,
                     const struct gt_layout *l, struct gt_source *const *src, size_t nsrc,
                     const struct gt_batch_opts *o, volatile sig_atomic_t *stop,
                     struct gt_diag *d);

#endif
