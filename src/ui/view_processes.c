/* The Processes view (key P, in every layout): DRM clients from
 * /proc/PID/fdinfo as the watcher last read them, one row each, sorted by
 * any column (key o), filtered by what '/' is given (name, command line,
 * container, driver), with each one's whole command line, like nvtop's
 * and htop's process lists. Columns appear as the rows need them: CONTAINER when a process
 * runs in one, DEVICE when clients of two GPUs are listed, VRAM and GTT
 * when a driver prints those regions (amdgpu). */
#include "tui_internal.h"
#include "gputop/fdinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHOWN 256

enum {
    SORT_GPU, SORT_MEM, SORT_PID, SORT_NAME, SORT_CONTAINER, SORT_PRIV, SORT_VRAM, SORT_GTT,
    SORT_DEVICE, SORT_DRIVER, SORT_COMMAND, NSORTS
};

static const char *const sort_names[NSORTS] = {
    "GPU%", "memory", "pid", "name", "container", "private memory", "VRAM", "GTT", "device",
    "driver", "command",
};

/* Larger first for the sizes: the most memory on top. */
static int by_size(uint64_t a, uint64_t b)
{
    return a != b ? (a < b ? 1 : -1) : 0;
}

struct cols {
    int container, device, vram_gtt, over;
};

static int compare(const struct gt_fdinfo_row *x, const struct gt_fdinfo_row *y, int key)
{
    int c;

    switch (key) {
    case SORT_MEM:
        if ((c = by_size(x->mem_resident, y->mem_resident)) != 0)
            return c;
        break;
    case SORT_PRIV:
        if ((c = by_size(x->mem_private, y->mem_private)) != 0)
            return c;
        break;
    case SORT_VRAM:
        if ((c = by_size(x->mem_vram, y->mem_vram)) != 0)
            return c;
        break;
    case SORT_GTT:
        if ((c = by_size(x->mem_gtt, y->mem_gtt)) != 0)
            return c;
        break;
    case SORT_DEVICE:
        if ((c = strcmp(x->pdev, y->pdev)) != 0)
            return c;
        break;
    case SORT_DRIVER:
        if ((c = strcmp(x->driver, y->driver)) != 0)
            return c;
        break;
    case SORT_COMMAND:
        if ((c = strcmp(x->cmdline[0] ? x->cmdline : x->comm,
                        y->cmdline[0] ? y->cmdline : y->comm)) != 0)
            return c;
        break;
    case SORT_PID:
        break;
    case SORT_NAME:
        if ((c = strcmp(x->comm, y->comm)) != 0)
            return c;
        break;
    case SORT_CONTAINER:
        /* those in none last */
        if (!x->container[0] != !y->container[0])
            return x->container[0] ? -1 : 1;
        if ((c = strcmp(x->container, y->container)) != 0)
            return c;
        break;
    default:
        if (x->busy_pct != y->busy_pct)
            return x->busy_pct < y->busy_pct ? 1 : -1;
        break;
    }
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Insertion sort: qsort has no context argument, and a few hundred rows
 * at most are sorted a refresh. */
static void sort_rows(struct gt_fdinfo_row *rows, size_t n, int key)
{
    size_t i, j;

    for (i = 1; i < n; i++) {
        struct gt_fdinfo_row r = rows[i];
        for (j = i; j > 0 && compare(&rows[j - 1], &r, key) > 0; j--)
            rows[j] = rows[j - 1];
        rows[j] = r;
    }
}

static void mem_text(uint64_t b, int known, char *buf, size_t len)
{
    if (!known)
        snprintf(buf, len, "?");
    else if (b >= (1ull << 30))
        snprintf(buf, len, "%.1fG", (double)b / (1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(buf, len, "%.1fM", (double)b / (1ull << 20));
    else if (b)
        snprintf(buf, len, "%lluK", (unsigned long long)(b >> 10));
    else
        snprintf(buf, len, "-");
}

void tui_processes_next_sort(struct tui *t)
{
    t->procs_sort = (t->procs_sort + 1) % NSORTS;
}

/* '/' in the view: the rows whose name, command line, container, driver
 * or pid hold the text (any case). */
static size_t filter_rows(struct gt_fdinfo_row *rows, size_t n, const char *text)
{
    size_t i, k = 0;
    char pid[16];

    for (i = 0; i < n; i++) {
        snprintf(pid, sizeof(pid), "%d", rows[i].pid);
        if (!text[0] || gt_text_contains_nocase(rows[i].comm, text) ||
            gt_text_contains_nocase(rows[i].cmdline, text) ||
            gt_text_contains_nocase(rows[i].container, text) ||
            gt_text_contains_nocase(rows[i].driver, text) || strcmp(pid, text) == 0)
            rows[k++] = rows[i];
    }
    return k;
}

static struct cols columns(const struct gt_fdinfo_row *rows, size_t n)
{
    struct cols c = { 0, 0, 0, 0 };
    size_t i;

    for (i = 0; i < n; i++) {
        c.container |= rows[i].container[0] != '\0';
        c.vram_gtt |= rows[i].has_vram_gtt;
        c.over |= rows[i].over;
        c.device |= strcmp(rows[i].driver, rows[0].driver) != 0 ||
                    strcmp(rows[i].pdev, rows[0].pdev) != 0;
    }
    return c;
}

/* A row's text, or the heading's when r is NULL; *sort_x and *sort_w
 * get where the sorted column's title is. */
static void row_text(const struct tui *t, const struct cols *c, const struct gt_fdinfo_row *r,
                     char *line, size_t len, int *sort_x, int *sort_w)
{
    char res[16], priv[16], vram[16], gtt[16], busy[16];
    int n = 0, x[NSORTS], w[NSORTS] = { 4, 3, 3, 4, 9, 4, 4, 3, 6, 6, 7 };

    x[SORT_PID] = 4;
    n += snprintf(line + n, len - (size_t)n, "%7s  ", r ? "" : "PID");
    if (r && r->pid > 0)
        snprintf(line, len, "%7d  ", r->pid);
    else if (r)   /* a uid's row (gpu_work_period): no one process */
        snprintf(line, len, "%7s  ", "-");
    x[SORT_NAME] = n;
    n += snprintf(line + n, len - (size_t)n, "%-15.15s ", r ? r->comm : "NAME");
    x[SORT_CONTAINER] = n;
    x[SORT_DEVICE] = x[SORT_VRAM] = x[SORT_GTT] = -1;   /* columns shown only when needed */
    if (c->container)
        n += snprintf(line + n, len - (size_t)n, "%-20.20s ",
                      r ? (r->container[0] ? r->container : "-") : "CONTAINER");
    if (c->device) {
        x[SORT_DEVICE] = n;
        n += snprintf(line + n, len - (size_t)n, "%-12.12s ",
                      r ? (r->pdev[0] ? r->pdev : "-") : "DEVICE");
    }
    x[SORT_DRIVER] = n;
    n += snprintf(line + n, len - (size_t)n, "%-9.9s ", r ? r->driver : "DRIVER");
    if (r && r->over)
        snprintf(busy, sizeof(busy), ">100%%");
    else if (r)
        snprintf(busy, sizeof(busy), "%5.1f%%", r->busy_pct);
    x[SORT_GPU] = n + 2;
    n += snprintf(line + n, len - (size_t)n, "%6s ", r ? busy : "GPU%");
    if (r) {
        mem_text(r->mem_resident, 1, res, sizeof(res));
        mem_text(r->mem_private, r->has_private, priv, sizeof(priv));
    }
    x[SORT_MEM] = n + 4;
    x[SORT_PRIV] = n + 10;
    n += snprintf(line + n, len - (size_t)n, " %6s %6s", r ? res : "RES", r ? priv : "PRIV");
    if (c->vram_gtt) {
        x[SORT_VRAM] = n + 3;
        x[SORT_GTT] = n + 11;
        if (r) {
            mem_text(r->mem_vram, r->has_vram_gtt, vram, sizeof(vram));
            mem_text(r->mem_gtt, r->has_vram_gtt, gtt, sizeof(gtt));
        }
        n += snprintf(line + n, len - (size_t)n, " %6s %6s", r ? vram : "VRAM", r ? gtt : "GTT");
    }
    /* the whole command line last, where it has the room (comm is cut at
     * 15 characters by the kernel) */
    n += snprintf(line + n, len - (size_t)n, "  %-34.34s", r ? r->engines : "ENGINES");
    x[SORT_COMMAND] = n + 2;
    snprintf(line + n, len - (size_t)n, "  %s",
             r ? (r->cmdline[0] ? r->cmdline : r->comm) : "COMMAND");
    *sort_x = x[t->procs_sort];
    *sort_w = w[t->procs_sort];
}

/* The heading, the sorted column's title marked (reverse, and an arrow
 * or '*' so that it reads without colour too). */
static void draw_heading(struct tui *t, int y, const struct cols *c)
{
    char line[640];
    int sx, sw;

    row_text(t, c, NULL, line, sizeof(line), &sx, &sw);
    tui_put_clipped(t, y, 0, line, COLS, ST_HEADER);
    if (sx >= 0 && sx + sw < COLS) {
        char title[16];
        snprintf(title, sizeof(title), "%.*s", sw, line + sx);
        tui_put(t, y, sx, title, sw, ST_SELECTED);
        if (sx + sw + 1 < COLS && line[sx + sw] == ' ')
            tui_put(t, y, sx + sw, t->ascii ? "*" : "\u25bc", 1, ST_SELECTED);
    }
}

static void draw_row(struct tui *t, int y, const struct cols *c, const struct gt_fdinfo_row *r)
{
    char line[640];
    int sx, sw;

    row_text(t, c, r, line, sizeof(line), &sx, &sw);
    tui_put_clipped(t, y, 0, line, COLS, r->pid == t->procs_pid && r->pid > 0 ? ST_SELECTED
                                         : tui_level_style(r->over ? 100 : r->busy_pct));
}

/* The arrows move the selection over the rows as sorted; it follows its
 * pid, and starts on the first row. */
static size_t select_row(struct tui *t, const struct gt_fdinfo_row *rows, size_t n)
{
    size_t i;

    for (i = 0; i < n && rows[i].pid != t->procs_pid; i++)
        ;
    if (i == n)
        i = 0;
    if (t->procs_move < 0 && i > 0)
        i--;
    else if (t->procs_move > 0 && i + 1 < n)
        i++;
    t->procs_move = 0;
    if (rows[i].pid != t->procs_pid) {
        t->procs_pid = rows[i].pid;
        t->procs_nhist = 0;
    }
    return i;
}

/* Each update of the watcher adds the selected row's GPU% to its history. */
static void keep_history(struct tui *t, const struct gt_fdinfo_row *r, uint64_t updates)
{
    if (updates == t->procs_seen)
        return;
    t->procs_seen = updates;
    if (t->procs_nhist == TUI_PROCS_HIST) {
        memmove(t->procs_hist, t->procs_hist + 1, (TUI_PROCS_HIST - 1) * sizeof(double));
        t->procs_nhist--;
    }
    t->procs_hist[t->procs_nhist++] = r->busy_pct;
}

/* "pid 4242 glmark2: GPU% ▁▂▅▇█ last 12 s, min 3.0 max 97.5": the
 * selected row's history, on the line above the key hints. */
static void draw_history(struct tui *t, const struct gt_fdinfo_row *r)
{
    uint32_t cells[TUI_PROCS_HIST];
    char head[96], tail[64];
    double lo = 100, hi = 0;
    size_t i, n = t->procs_nhist;
    int x;

    if (LINES <= 4 || !n)
        return;
    for (i = 0; i < n; i++) {
        lo = t->procs_hist[i] < lo ? t->procs_hist[i] : lo;
        hi = t->procs_hist[i] > hi ? t->procs_hist[i] : hi;
    }
    snprintf(head, sizeof(head), " pid %d %.15s: GPU%% ", r->pid, r->comm);
    x = tui_put(t, LINES - 2, 0, head, -1, ST_PLAIN);
    gt_fmt_sparkline_cells(cells, t->procs_hist, n, 0, 100, t->ascii);
    if (x + (int)n < COLS)
        gt_cellbuf_chars(t->cells, LINES - 2, x, cells, (int)n, ST_PLAIN);
    snprintf(tail, sizeof(tail), "  last %zu s, min %.1f max %.1f", n, lo, hi);
    tui_put_clipped(t, LINES - 2, x + (int)n, tail, COLS - x - (int)n, ST_DIM);
}

/* Each driver's own switch (panfrost: 0/1; panthor: a mask, 3 for
 * engine time: panthor_drv.c, sysfs-driver-panthor-profiling). */
static int draw_profiling(struct tui *t, int y, int bits)
{
    static const struct { int bit; const char *why, *cmd; } advice[] = {
        { GT_FDINFO_PROF_PANFROST_OFF,
          " panfrost prints no engine time: its 'profiling' switch is off; to turn it on:",
          "   echo 1 | sudo tee /sys/bus/platform/drivers/panfrost/*/profiling" },
        { GT_FDINFO_PROF_PANTHOR_OFF,
          " panthor prints no engine time: its 'profiling' mask is 0; for engine time:",
          "   echo 3 | sudo tee /sys/bus/platform/drivers/panthor/*/profiling" },
        { GT_FDINFO_PROF_PANTHOR_CYCLES,
          " panthor prints cycles but no engine time (its 'profiling' mask is 1: cycles "
          "only); for engine time:",
          "   echo 3 | sudo tee /sys/bus/platform/drivers/panthor/*/profiling" },
    };
    size_t i;

    for (i = 0; i < sizeof(advice) / sizeof(advice[0]); i++) {
        if (!(bits & advice[i].bit))
            continue;
        tui_put_clipped(t, y++, 0, advice[i].why, COLS, ST_ALERT);
        tui_put_clipped(t, y++, 0, advice[i].cmd, COLS, ST_ALERT);
    }
    return y;
}

/* Why the list is empty, when it is. 1 when it said so. */
static int draw_empty(struct tui *t, int y, size_t n, uint64_t updates)
{
    char msg[512];
    const char *root;

    if (!updates) {
        tui_put_clipped(t, y, 0, " reading /proc ...", COLS, ST_DIM);
        return 1;
    }
    if (n)
        return 0;
    root = gt_fdinfo_watch_root(t->cfg->procs);
    if (!gt_fdinfo_watch_procs(t->cfg->procs)) {
        snprintf(msg, sizeof(msg), " no process directories below %s/proc: is --proc-root "
                 "right?", root);
        tui_put_clipped(t, y, 0, msg, COLS, ST_ALERT);
        return 1;
    }
    tui_put_clipped(t, y, 0, " no process has a GPU open (read from /proc/*/fdinfo; other "
                    "users' processes need root)", COLS, ST_DIM);
    /* Arm's kbase (/dev/mali0, Android) prints no fdinfo at all */
    if (gt_fdinfo_watch_kbase(t->cfg->procs)) {
        const char *why = gt_fdinfo_watch_gpu_work_why(t->cfg->procs);
        tui_put_clipped(t, y + 1, 0, " this GPU is driven by Arm's kbase (/dev/mali*), which "
                        "prints no per-process use in fdinfo", COLS, ST_DIM);
        snprintf(msg, sizeof(msg), " GPU time per app (power/gpu_work_period): %s",
                 why[0] ? why : "no app used the GPU in the last second");
        tui_put_clipped(t, y + 2, 0, msg, COLS, ST_DIM);
    }
    return 1;
}

/* The description line (above the key hints): what the columns mean. */
static void draw_note(struct tui *t, const struct cols *c)
{
    const char *note = c->over
        ? " >100%: the driver counted more engine time than passed (amdgpu sums its rings "
          "and contexts, panthor groups that ran at once)"
        : " RES resident, PRIV private (total less shared: a sum of PRIV counts no buffer "
          "shared with the compositor twice)";

    if (LINES > 4)
        tui_put_clipped(t, LINES - 2, 0, note, COLS, c->over ? ST_ALERT : ST_DIM);
}

void tui_draw_processes(struct tui *t)
{
    struct gt_fdinfo_row rows[MAX_SHOWN];
    struct cols c;
    int top = 2, h = LINES - 2, off = 0, y = 0;
    uint64_t updates = 0;
    size_t n = 0, i, total, sel;
    char head[256];

    if (t->cfg->procs)
        n = gt_fdinfo_watch_rows(t->cfg->procs, rows, MAX_SHOWN, &off, &updates);
    total = n;
    n = filter_rows(rows, n, t->search);
    sort_rows(rows, n, t->procs_sort);
    if (t->search[0])
        snprintf(head, sizeof(head), " Processes: %zu of %zu GPU clients match '%s', sorted by "
                 "%s (o: sort, /: filter, Esc: all, P: back)", n, total, t->search,
                 sort_names[t->procs_sort]);
    else
        snprintf(head, sizeof(head), " Processes: %zu GPU client%s, sorted by %s (o: sort, "
                 "/: filter, P: back)", n, n == 1 ? "" : "s", sort_names[t->procs_sort]);
    tui_put_clipped(t, top + y++, 0, head, COLS, ST_HEADING);
    if (!t->cfg->procs) {
        tui_put_clipped(t, top + y, 0, " not reading /proc (--no-processes)", COLS, ST_DIM);
        return;
    }
    y = draw_profiling(t, top + y, off) - top;
    if (draw_empty(t, top + y, n, updates))
        return;
    c = columns(rows, n);
    sel = select_row(t, rows, n);
    keep_history(t, &rows[sel], updates);
    draw_heading(t, top + y++, &c);
    for (i = 0; i < n && top + y < h; i++)
        draw_row(t, top + y++, &c, &rows[i]);
    /* engine time past 100 % needs its explanation more than a history */
    if (t->procs_nhist > 1 && !c.over)
        draw_history(t, &rows[sel]);
    else
        draw_note(t, &c);
}
