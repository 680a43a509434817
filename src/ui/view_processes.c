/* The Processes view (key P, in every layout): DRM clients from
 * /proc/PID/fdinfo as the watcher last read them, one row each, sorted by
 * GPU use, memory, pid or name (key o), like nvtop's process list. */
#include "tui_internal.h"
#include "gputop/fdinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHOWN 256

static const char *const sort_names[] = { "GPU%", "memory", "pid", "name" };

static int compare(const struct gt_fdinfo_row *x, const struct gt_fdinfo_row *y, int key)
{
    switch (key) {
    case 1:
        if (x->mem_bytes != y->mem_bytes)
            return x->mem_bytes < y->mem_bytes ? 1 : -1;
        break;
    case 2:
        break;
    case 3: {
        int c = strcmp(x->comm, y->comm);
        if (c)
            return c;
        break;
    }
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

static void mem_text(uint64_t b, char *buf, size_t len)
{
    if (b >= (1ull << 30))
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
    t->procs_sort = (t->procs_sort + 1) % (int)(sizeof(sort_names) / sizeof(sort_names[0]));
}

static void draw_row(struct tui *t, int y, const struct gt_fdinfo_row *r)
{
    char line[256], mem[16];

    mem_text(r->mem_bytes, mem, sizeof(mem));
    snprintf(line, sizeof(line), "%7d  %-15.15s %-9.9s %5.1f%%  %7s  %s", r->pid, r->comm,
             r->driver, r->busy_pct, mem, r->engines);
    tui_put_clipped(t, y, 0, line, COLS, tui_level_style(r->busy_pct));
}

void tui_draw_processes(struct tui *t)
{
    struct gt_fdinfo_row rows[MAX_SHOWN];
    int top = 2, h = LINES - 4, off = 0, y = 0;
    uint64_t updates = 0;
    size_t n = 0, i;
    char head[160];

    if (t->cfg->procs)
        n = gt_fdinfo_watch_rows(t->cfg->procs, rows, MAX_SHOWN, &off, &updates);
    sort_rows(rows, n, t->procs_sort);
    snprintf(head, sizeof(head), " Processes: %zu GPU client%s, sorted by %s (o: sort, P: back)",
             n, n == 1 ? "" : "s", sort_names[t->procs_sort]);
    tui_put_clipped(t, top + y++, 0, head, COLS, ST_HEADING);
    if (!t->cfg->procs) {
        tui_put_clipped(t, top + y, 0, " not reading /proc (--no-processes)", COLS, ST_DIM);
        return;
    }
    if (off) {
        tui_put_clipped(t, top + y++, 0, " panfrost/panthor print no engine time: their "
                        "'profiling' switch is off; to turn it on:", COLS, ST_ALERT);
        tui_put_clipped(t, top + y++, 0, "   echo 1 | sudo tee "
                        "/sys/bus/platform/drivers/{panfrost,panthor}/*/profiling", COLS,
                        ST_ALERT);
    }
    if (!updates) {
        tui_put_clipped(t, top + y, 0, " reading /proc ...", COLS, ST_DIM);
        return;
    }
    if (!n) {
        tui_put_clipped(t, top + y, 0, " no process has a GPU open (read from "
                        "/proc/*/fdinfo; other users' processes need root)", COLS, ST_DIM);
        return;
    }
    tui_put_clipped(t, top + y++, 0, "    PID  NAME            DRIVER     GPU%   MEMORY  ENGINES",
                    COLS, ST_HEADER);
    for (i = 0; i < n && y < h; i++)
        draw_row(t, top + y++, &rows[i]);
}
