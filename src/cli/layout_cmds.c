/* --list-layouts and --check-layout: inspect layouts without a device. */
#include "gputop/gpu_clocks.h"
#include "gputop/cli.h"
#include "gputop/amd_gfx1151.h"
#include "gputop/catalog.h"
#include "gputop/engine.h"
#include "gputop/fdinfo.h"
#include "gputop/layout.h"
#include "gputop/mips_cm.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* "s" after a count other than one: "1 section", "2 sections". */
static const char *plural(size_t n)
{
    return n == 1 ? "" : "s";
}

int gt_cmd_list_layouts(FILE *out)
{
    size_t i, j, k;
    struct gt_diag d;
    char list[1024];

    for (i = 0; i < gt_embedded_layout_count(); i++) {
        struct gt_layout *l = gt_layout_load(gt_embedded_layout_name(i), &d);
        if (!l) {
            fprintf(out, "%-12s (broken: %s)\n", gt_embedded_layout_name(i), d.msg);
            continue;
        }
        fprintf(out, "%-12s %s\n", l->name, l->title);
        fprintf(out, "%-12s %zu section%s, %zu metric%s", "", l->nsections, plural(l->nsections),
                l->nmetrics, plural(l->nmetrics));
        for (j = 0; j < l->nmatches; j++) {
            fprintf(out, "; %s", l->matches[j].source);
            for (k = 0; k < l->matches[j].nids; k++)
                fprintf(out, " 0x%04llx", (unsigned long long)l->matches[j].ids[k]);
        }
        fputc('\n', out);
        gt_layout_section_list(l, list, sizeof(list));
        fprintf(out, "%-12s sections: %s\n", "", list);
        gt_layout_free(l);
    }
    return 0;
}

/* A device with a few of everything, so per-instance names resolve, and
 * the names Mali sources add beside the table (clock cycles, max clock). */
static int check_catalog(struct gt_catalog *c, const char *gpu)
{
    struct gt_device_desc d = { gpu, 4, 2, 128, 0 };

    gt_catalog_init(c);
    if (strcasecmp(gpu, "gfx1151") == 0) {
        struct gt_amd_device amd = gt_amd_gfx1151_default();
        return gt_amd_catalog_add(c, &amd, GT_AMD_KINDS_ALL);
    }
    if (strcmp(gpu, "mips-cm") == 0)
        return gt_mips_cm_catalog(c);
    if (strcmp(gpu, "drm-fdinfo") == 0)
        return gt_fdinfo_catalog_full(c);
    if (strcmp(gpu, "gpu-clocks") == 0)
        return gt_clk_catalog_full(c);
    if (gt_catalog_add_device(c, &d) < 0 ||
        gt_catalog_add(c, GT_MALI_GPU_CLOCK_CYCLES, "front-end", GT_COUNTER_DELTA, 1, 1.0) < 0 ||
        gt_catalog_add(c, GT_MALI_SC_CLOCK_CYCLES, "front-end", GT_COUNTER_DELTA, 1, 1.0) < 0 ||
        gt_catalog_add_constant(c, GT_MALI_MAX_CLOCK_HZ, 1e9) < 0)
        return -1;
    return gt_catalog_add_cpu(c, 2) < 0 ? -1 : gt_catalog_add_cpu_cores(c, 4);
}

static int check_against(struct gt_layout *l, const char *gpu, FILE *out, FILE *err)
{
    struct gt_catalog c;
    struct gt_engine *e;
    struct gt_diag d;
    size_t i, n;

    if (check_catalog(&c, gpu) < 0) {
        const struct gt_counter_table *t;
        fprintf(err, "gputop: no counter catalogue for GPU '%s' (known:", gpu);
        for (i = 0; (t = gt_counter_table_at(i)) != NULL; i++)
            fprintf(err, " %s,", t->gpu);
        fprintf(err, " gfx1151, mips-cm, drm-fdinfo, gpu-clocks)\n");
        gt_catalog_free(&c);
        return 1;
    }
    e = gt_layout_bind_names(l, &c) == 0 ? gt_engine_new(l, &c) : NULL;
    if (!e) {
        fprintf(err, "gputop: out of memory\n");
        gt_catalog_free(&c);
        return 1;
    }
    n = gt_engine_nunresolved(e);
    for (i = 0; i < n; i++) {
        const struct gt_unresolved *u = gt_engine_unresolved(e, i);
        size_t len = 0;
        const char *src = gt_layout_line(l, u->line, &len);
        gt_diag_clear(&d);
        gt_diag_set(&d, "unknown counter $%s (not in the %s catalogue)", u->name, gpu);
        gt_diag_at(&d, l->file, u->line, u->col, src, src ? len : 0);
        gt_report_diag(err, &d);
    }
    fprintf(out, "%s: checked against %s: %zu metric%s, %zu unresolved counter name%s\n",
            l->file, gpu, l->nmetrics, plural(l->nmetrics), n, plural(n));
    gt_engine_free(e);
    gt_catalog_free(&c);
    return n ? 1 : 0;
}

int gt_cmd_check_layout(const char *file, const char *gpu, FILE *out, FILE *err)
{
    struct gt_diag d;
    struct gt_layout *l = gt_layout_load(file, &d);
    size_t i;
    int status = 0;

    if (!l) {
        gt_report_diag(err, &d);
        return 1;
    }
    fprintf(out, "%s: layout %s (%s): %zu section%s, %zu group%s, %zu metric%s, %zu triage rule%s, "
            "%zu triage step%s\n", l->file, l->name, l->title, l->nsections, plural(l->nsections),
            l->ngroups, plural(l->ngroups), l->nmetrics, plural(l->nmetrics), l->ntriage,
            plural(l->ntriage), l->nsteps, plural(l->nsteps));
    if (gpu)
        status = check_against(l, gpu, out, err);
    else if (l->ngpus == 0)
        fprintf(out, "%s: no 'gpu' line; give --gpu NAME to check counter names\n", l->file);
    for (i = 0; !gpu && i < l->ngpus; i++)
        status |= check_against(l, l->gpus[i], out, err);
    gt_layout_free(l);
    return status;
}
