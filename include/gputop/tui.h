/* The live dashboard. */
#ifndef GPUTOP_TUI_H
#define GPUTOP_TUI_H

#include <signal.h>
#include <stdint.h>
#include "gputop/diag.h"
#include "gputop/engine.h"
#include "gputop/export.h"
#include "gputop/sampler.h"
#include "gputop/source.h"

struct gt_fdinfo_watch;

struct gt_tui_config {
    const struct gt_layout *layout;
    struct gt_engine *engine;
    struct gt_sampler *sampler;
    struct gt_source *const *sources;
    size_t nsources;
    uint64_t refresh_ns;       /* screen refresh period (default 250 ms) */
    int per_second;            /* counts as rates at start */
    int no_color, no_mouse;
    const char *section;       /* shown first (gt_layout_find_section); NULL:
                                  the one with the triage line */
    const char *metrics;       /* only metrics matching this glob; NULL: all */
    struct gt_fdinfo_watch *procs;  /* the Processes view's data; NULL: none */
    struct gt_tap tap;         /* also gets every snapshot taken, evaluated */
    /* Exports running beside the dashboard, shown in its header (NULL: none):
     * the Prometheus URL (also said once in the footer), the capture being
     * recorded and the trace being written. */
    const char *serve_url, *record_file, *trace_file;
};

/* Runs until 'q' or *stop. Returns 0; 1 when no terminal could be opened
 * (why is in d; the caller falls back to batch output); -1 on error. */
int gt_tui_run(const struct gt_tui_config *cfg, volatile sig_atomic_t *stop, struct gt_diag *d);

#endif
