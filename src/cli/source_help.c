/* What --help and --list-sources say of the sources: each type's own
 * usage and help strings, wrapped for an 80-column terminal. */
#include "gputop/cli.h"
#include "gputop/drm.h"
#include "gputop/sim.h"
#include "gputop/source.h"

#include <string.h>

#define WIDTH 79

/* The length of the token at text: a usage is broken before each '[' at
 * the outer level, prose at its spaces. */
static size_t token_len(const char *text, int usage)
{
    size_t n = 0;
    int depth = 0;

    if (!usage)
        return strcspn(text, " ");
    for (; text[n]; n++) {
        if (text[n] == '[' && depth++ == 0 && n > 0)
            break;
        if (text[n] == ']')
            depth--;
    }
    return n;
}

/* Writes text on from column *col, each line that would pass WIDTH broken
 * before a token and carried on at column indent. */
static void wrap(FILE *out, const char *text, int usage, size_t indent, size_t *col)
{
    const char *sep = "";

    while (*text) {
        size_t n = token_len(text, usage);
        if (*col > indent && *col + strlen(sep) + n > WIDTH) {
            fprintf(out, "\n%*s", (int)indent, "");
            *col = indent;
            sep = "";
        }
        fprintf(out, "%s%.*s", sep, (int)n, text);
        *col += strlen(sep) + n;
        text += n;
        sep = usage ? "" : " ";
        text += strspn(text, " ");
    }
}

void gt_usage_sources(FILE *out, size_t indent)
{
    size_t i, col;

    for (i = 0; gt_source_types[i]; i++) {
        const struct gt_source_type *t = gt_source_types[i];
        fprintf(out, "%*s", (int)indent, "");
        col = indent;
        wrap(out, t->usage, 1, indent + 2, &col);
        fprintf(out, "\n%*s", (int)indent + 2, "");
        col = indent + 2;
        wrap(out, t->help, 0, indent + 2, &col);
        fputc('\n', out);
        if (strcmp(t->name, "sim") == 0)   /* its families, GPUs and scenes */
            gt_sim_print_names(out, (int)indent + 2);
    }
}

int gt_cmd_list_sources(FILE *out)
{
    size_t i, col;
    char why[256];

    for (i = 0; gt_source_types[i]; i++) {
        const struct gt_source_type *t = gt_source_types[i];
        int ok = !t->available || t->available(gt_sys_real(), why, sizeof(why)) == 0;
        fprintf(out, "%-10s %-11s ", t->name, ok ? "available" : "unavailable");
        col = 23;
        wrap(out, t->help, 0, 23, &col);
        fprintf(out, "\n%23s", "");
        col = 23;
        wrap(out, t->usage, 1, 25, &col);
        fputc('\n', out);
        if (!ok)
            fprintf(out, "%23swhy: %s\n", "", why);
        if (strcmp(t->name, "sim") == 0)
            gt_sim_print_names(out, 23);
    }
    gt_drm_describe(gt_sys_real(), out);
    return 0;
}
