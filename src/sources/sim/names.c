/* The names sim: takes, listed from the tables that define them (the
 * families, the Mali models with a counter table, each model's scenes), so
 * that messages, --help and --list-sources never fall behind them. */
#include "gputop/kbase.h"
#include "gputop/sim.h"
#include "../mali/sim_model.h"

#include <string.h>

static void add(char *buf, size_t len, const char *word)
{
    size_t n = strlen(buf);

    if (n + 1 < len)
        snprintf(buf + n, len - n, "%s%s", n ? ", " : "", word);
}

void gt_sim_family_list(char *buf, size_t len)
{
    size_t i;

    buf[0] = '\0';
    for (i = 0; i < sim_family_count(); i++)
        add(buf, len, sim_family_at(i)->name);
    add(buf, len, "amd-gfx1151");
    add(buf, len, "mips-cm");
}

/* Brand dropped ("Mali-G57" is G57), each name once. */
void gt_sim_gpu_list(char *buf, size_t len)
{
    struct gt_mali_model g;
    char word[32];
    size_t i, n;

    buf[0] = '\0';
    for (i = 0; gt_mali_model_at(i, &g) == 0; i++) {
        const char *dash = strchr(g.name, '-');
        snprintf(word, sizeof(word), "%s", dash ? dash + 1 : g.name);
        n = strlen(word);
        /* whole words only: G78 is not G78AE */
        const char *at = buf;
        while ((at = strstr(at, word)) && !((at == buf || at[-1] == ' ') &&
                                            (at[n] == ',' || at[n] == '\0')))
            at += n;
        if (!at)
            add(buf, len, word);
    }
    add(buf, len, "gfx1151");
}

void gt_sim_scene_list(char *buf, size_t len)
{
    size_t i;

    buf[0] = '\0';
    for (i = 0; i < NSCENES; i++)
        add(buf, len, scene_names[i]);
    add(buf, len, "cycle");
    add(buf, len, sim_variant_names());
}

/* "label: a, b, c" folded at commas to fit 80 columns. */
static void print_wrapped(FILE *out, int indent, const char *label, const char *list)
{
    int col = fprintf(out, "%*s%s:", indent, "", label);
    const char *p = list;

    while (*p) {
        size_t n = strcspn(p, ",");
        int more = p[n] == ',';
        if (col + 1 + (int)n + more > 80)
            col = fprintf(out, "\n%*s", indent + 1, "") - 1;
        col += fprintf(out, " %.*s%s", (int)n, p, more ? "," : "");
        p += n + more;
        p += strspn(p, " ");
    }
    fputc('\n', out);
}

void gt_sim_print_names(FILE *out, int indent)
{
    char buf[512];

    gt_sim_family_list(buf, sizeof(buf));
    print_wrapped(out, indent, "sim families", buf);
    gt_sim_gpu_list(buf, sizeof(buf));
    print_wrapped(out, indent, "sim GPUs (any table gputop has)", buf);
    gt_sim_scene_list(buf, sizeof(buf));
    print_wrapped(out, indent, "sim scenes (Mali)", buf);
    print_wrapped(out, indent, "sim:amd-gfx1151 scenes", gt_sim_amd_scenes());
    print_wrapped(out, indent, "sim:mips-cm scenes", gt_sim_cm_scenes());
}
