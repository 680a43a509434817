/* The csv source: imports counter deltas from a CSV file (one column per
 * Streamline counter instance, or AMD gfx1151 counter instance with
 * gpu=gfx1151, one row per sample; gputop-capture(5)), as spreadsheets
 * save them too: a UTF-8 byte order mark and quoted fields are accepted.
 * Values are taken as the vendor tools report them, their scale already
 * applied; with the raw option they are hardware deltas and get it. */
#include "gputop/amd_gfx1151.h"
#include "gputop/catalog.h"
#include "gputop/kbase.h"
#include "gputop/mips_cm.h"
#include "gputop/source.h"
#include "csv_fields.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CSV_MAX_LINE    (4u << 20)
#define CSV_MAX_COLUMNS 65536
#define CSV_MAX_INST    1024        /* instances of one counter: cores, slices, clusters */
#define CSV_MAX_NAME    GT_CSV_MAX_NAME
#define CSV_SHOW        40          /* bytes of a bad field quoted in a message */

enum group_kind { G_DELTA, G_CONSTANT, G_CPU };

/* One counter named by the header: NAME, or NAME[0..n-1]. */
struct group {
    char name[CSV_MAX_NAME + 1];
    enum group_kind kind;
    struct gt_counter_def def;          /* the Mali or MIPS row, when has_def */
    int has_def;                        /* 0 for CPU and AMD counters */
    const struct gt_amd_counter_def *amd; /* gpu=gfx1151: the AMD row */
    const char *extra_block;            /* a name the Mali sources add beside the tables */
    int indexed;
    uint32_t ninst;
    size_t first_field;                 /* for messages */
    int counter;                        /* index in the catalogue */
    uint64_t value;                     /* constants: the first row's value */
};

/* One column after interval_ns. */
struct column {
    uint32_t group, inst;
    size_t col;                         /* 1-based byte column in the header */
};

struct line {
    char *p;
    size_t len, cap;
    unsigned long long no;              /* 1-based line number */
};

struct csv {
    FILE *f;
    char path[PATH_MAX];
    struct line ln;
    struct group *groups;
    size_t ngroups;
    struct column *cols;
    size_t ncols;
    uint32_t *slot;                     /* per column: snapshot slot, UINT32_MAX for constants */
    long data_off;                      /* where the first data row starts */
    unsigned long long data_line;       /* line number before it */
    unsigned long long rows;
    uint64_t t;                         /* accumulated interval_ns */
    char gpu[16];                       /* gpu= argument, "" if none */
    int raw;                            /* values are hardware deltas: apply the scale */
    int amd;                            /* gpu=gfx1151: AMD counter names */
    int ambiguous, ended;
    double maxclock;                    /* maxclock= in Hz, 0 if none */
};

static const char *const cpu_names[] = {
    "CPUTicksUser", "CPUTicksSystem", "CPUTicksTotal", "CyclesCPUCycles",
    "CPUCoreTicksUser", "CPUCoreTicksSystem", "CPUCoreTicksTotal",
};

/* What the Mali sources add beside the guide's tables (gputop/catalog.h):
 * the GPU's max clock and the interval's clock cycles, which the layouts'
 * busy shares (and so the triage) need. */
static const struct { const char *name, *block; } extra_names[] = {
    { GT_MALI_MAX_CLOCK_HZ, "constant" },
    { GT_MALI_GPU_CLOCK_CYCLES, "front-end" },
    { GT_MALI_SC_CLOCK_CYCLES, "front-end" },
};
#define NCPU (sizeof(cpu_names) / sizeof(cpu_names[0]))

/* ---- messages ---- */

static int fail_at(struct gt_diag *d, const struct csv *c, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "FILE:LINE[:COL]: message", all in d->msg, which is what a source's
 * caller prints. */
static int fail_at(struct gt_diag *d, const struct csv *c, size_t col, const char *fmt, ...)
{
    char msg[GT_DIAG_MSG];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (col)
        gt_diag_set(d, "%s:%llu:%zu: %s", c->path, c->ln.no, col, msg);
    else if (c->ln.no)
        gt_diag_set(d, "%s:%llu: %s", c->path, c->ln.no, msg);
    else
        gt_diag_set(d, "%s: %s", c->path, msg);
    return -1;
}

/* ---- lines and fields ---- */

/* Reads one line without its "\n" or "\r\n": 1 read, 0 end of file,
 * -1 on a read error or an overlong line. */
static int read_line(struct csv *c, struct gt_diag *d)
{
    int ch;

    c->ln.len = 0;
    while ((ch = getc_unlocked(c->f)) != EOF && ch != '\n') {
        if (c->ln.len >= CSV_MAX_LINE) {
            c->ln.no++;
            return fail_at(d, c, 0, "line longer than %u bytes", CSV_MAX_LINE);
        }
        if (c->ln.len + 1 >= c->ln.cap) {
            size_t cap = c->ln.cap ? c->ln.cap * 2 : 256;
            char *p = realloc(c->ln.p, cap);
            if (!p)
                return fail_at(d, c, 0, "out of memory");
            c->ln.p = p;
            c->ln.cap = cap;
        }
        c->ln.p[c->ln.len++] = (char)ch;
    }
    if (ferror(c->f))
        return fail_at(d, c, 0, "read error: %s", strerror(errno));
    if (ch == EOF && c->ln.len == 0)
        return 0;
    c->ln.no++;
    if (c->ln.len && c->ln.p[c->ln.len - 1] == '\r')
        c->ln.len--;
    return 1;
}

/* The next line with anything on it; empty lines are skipped. */
static int next_line(struct csv *c, struct gt_diag *d)
{
    int r;

    while ((r = read_line(c, d)) == 1)
        if (c->ln.len)
            return 1;
    return r;
}

/* ---- the header ---- */

static int is_name_char(char ch)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
           ch == '_';
}

/* Splits NAME or NAME[INDEX]; returns NULL or why the field is malformed. */
static const char *parse_column_name(const struct field *f, size_t *namelen, int *indexed,
                                     uint32_t *inst)
{
    size_t i = 0, n;
    uint64_t v = 0;

    if (f->len == 0)
        return "empty column name";
    if (f->p[0] == '$')
        return "column names are written without '$'";
    while (i < f->len && is_name_char(f->p[i]))
        i++;
    if (i == 0 || i > CSV_MAX_NAME)
        return "bad column name (expected NAME or NAME[INDEX])";
    *namelen = i;
    *indexed = 0;
    if (i == f->len)
        return NULL;
    if (f->p[i] != '[' || f->p[f->len - 1] != ']' || f->len - i < 3)
        return "bad column name (expected NAME or NAME[INDEX])";
    for (n = i + 1; n < f->len - 1; n++) {
        if (f->p[n] < '0' || f->p[n] > '9')
            return "bad instance index (expected NAME[INDEX], INDEX a number)";
        v = v * 10 + (uint64_t)(f->p[n] - '0');
        if (v >= CSV_MAX_INST)
            return "instance index too large (at most 1023)";
    }
    *indexed = 1;
    *inst = (uint32_t)v;
    return NULL;
}

/* The Mali tables, then the MIPS coherency manager's (gpu=mips-cm). */
static const struct gt_counter_table *table_at(size_t i)
{
    const struct gt_counter_table *t = gt_counter_table_at(i);

    if (t)
        return t;
    return gt_counter_table_at(i - 1) ? gt_mips_cm_counter_table() : NULL;
}

static const struct gt_counter_table *table_find(const char *gpu)
{
    return strcasecmp(gpu, "mips-cm") == 0 ? gt_mips_cm_counter_table() : gt_counter_table_find(gpu);
}

static void gpu_label(char *out, size_t len, const struct gt_counter_table *t)
{
    if (t == gt_mips_cm_counter_table())
        snprintf(out, len, "MIPS coherency manager");
    else
        snprintf(out, len, "Mali-%s", t->gpu);
}

static const char *closest_name(const char *name, int amd)
{
    const struct gt_counter_table *t;
    const char *best = NULL;
    size_t i, j, bd = SIZE_MAX, dd;

    for (i = 0; amd && i < gt_amd_gfx1151_ncounters; i++)
        if ((dd = gt_csv_distance(name, gt_amd_gfx1151_counters[i].name)) < bd) {
            bd = dd;
            best = gt_amd_gfx1151_counters[i].name;
        }
    for (i = 0; !amd && (t = table_at(i)) != NULL; i++)
        for (j = 0; j < t->ndefs; j++) {
            const char *n = gt_counter_table_def(t, j).name;
            if ((dd = gt_csv_distance(name, n)) < bd) {
                bd = dd;
                best = n;
            }
        }
    for (i = 0; i < NCPU; i++)
        if ((dd = gt_csv_distance(name, cpu_names[i])) < bd) {
            bd = dd;
            best = cpu_names[i];
        }
    return bd <= 3 + strlen(name) / 4 ? best : NULL;
}

/* 1 with *out set when t has a row named name, else 0. */
static int table_def(const struct gt_counter_table *t, const char *name, struct gt_counter_def *out)
{
    size_t j;

    for (j = 0; j < t->ndefs; j++) {
        struct gt_counter_def d = gt_counter_table_def(t, j);
        if (strcmp(d.name, name) == 0) {
            *out = d;
            return 1;
        }
    }
    return 0;
}

static int any_def(const char *name, struct gt_counter_def *out)
{
    const struct gt_counter_table *t;
    size_t i;

    for (i = 0; (t = table_at(i)) != NULL; i++)
        if (table_def(t, name, out))
            return 1;
    return 0;
}

static int is_cpu_name(const char *name)
{
    size_t i;

    for (i = 0; i < NCPU; i++)
        if (strcmp(cpu_names[i], name) == 0)
            return 1;
    return 0;
}

static const char *extra_block(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(extra_names) / sizeof(extra_names[0]); i++)
        if (strcmp(extra_names[i].name, name) == 0)
            return extra_names[i].block;
    return NULL;
}

static int unknown_name(struct csv *c, const struct field *f, const char *name, struct gt_diag *d)
{
    const char *near = closest_name(name, c->amd);

    if (!c->amd && gt_amd_gfx1151_find(name))
        return fail_at(d, c, f->col, "'%s' is an AMD gfx1151 counter: add gpu=gfx1151", name);
    if (strcmp(name, "CPUActivityUser") == 0 || strcmp(name, "CPUActivitySystem") == 0)
        return fail_at(d, c, f->col, "'%s' is computed from the CPUTicks* columns; give "
                       "CPUTicksUser, CPUTicksSystem and CPUTicksTotal instead", name);
    if (near)
        return fail_at(d, c, f->col, "unknown counter '%s' (did you mean '%s'?)", name, near);
    return fail_at(d, c, f->col, "unknown counter '%s'", name);
}

static int find_group(const struct csv *c, const char *name)
{
    size_t i;

    for (i = 0; i < c->ngroups; i++)
        if (strcmp(c->groups[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Registers a new counter name met in the header. */
static int new_group(struct csv *c, const char *name, const struct field *f, size_t fieldno,
                     struct gt_diag *d)
{
    struct group *g = &c->groups[c->ngroups];

    memset(g, 0, sizeof(*g));
    snprintf(g->name, sizeof(g->name), "%s", name);
    g->first_field = fieldno;
    g->counter = -1;
    if (is_cpu_name(name)) {
        g->kind = G_CPU;
    } else if (c->amd && (g->amd = gt_amd_gfx1151_find(name)) != NULL) {
        g->kind = g->amd->kind == GT_AMD_CONSTANT ? G_CONSTANT : G_DELTA;
    } else if (!c->amd && (g->has_def = any_def(name, &g->def)) != 0) {
        g->kind = strcmp(g->def.block, "constant") == 0 ? G_CONSTANT : G_DELTA;
    } else if (!c->amd && (g->extra_block = extra_block(name)) != NULL) {
        g->kind = strcmp(g->extra_block, "constant") == 0 ? G_CONSTANT : G_DELTA;
    } else {
        return unknown_name(c, f, name, d);
    }
    return (int)c->ngroups++;
}

static int header_column(struct csv *c, const struct field *f, size_t fieldno, struct gt_diag *d)
{
    char name[CSV_MAX_NAME + 1];
    size_t namelen;
    int indexed, gi;
    uint32_t inst = 0;
    const char *bad = f->bad ? f->bad : parse_column_name(f, &namelen, &indexed, &inst);
    struct column *col = &c->cols[c->ncols];

    if (f->bad)
        return fail_at(d, c, f->col, "field %zu: %s", fieldno, bad);
    if (bad)
        return fail_at(d, c, f->col, "field %zu: %s: '%.*s'", fieldno, bad,
                       (int)(f->len < CSV_SHOW ? f->len : CSV_SHOW), f->p);
    memcpy(name, f->p, namelen);
    name[namelen] = '\0';
    gi = find_group(c, name);
    if (gi < 0 && (gi = new_group(c, name, f, fieldno, d)) < 0)
        return -1;
    if (c->groups[gi].first_field != fieldno && c->groups[gi].indexed != indexed)
        return fail_at(d, c, f->col, "'%s' is given both with and without an instance index "
                       "(fields %zu and %zu)", name, c->groups[gi].first_field, fieldno);
    if (c->groups[gi].kind == G_CONSTANT && indexed)
        return fail_at(d, c, f->col, "constant '%s' takes no instance index", name);
    c->groups[gi].indexed = indexed;
    if (inst + 1 > c->groups[gi].ninst)
        c->groups[gi].ninst = inst + 1;
    col->group = (uint32_t)gi;
    col->inst = inst;
    col->col = f->col;
    c->ncols++;
    return 0;
}

static int cmp_column(const void *a, const void *b)
{
    const struct column *x = *(const struct column *const *)a;
    const struct column *y = *(const struct column *const *)b;

    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->inst != y->inst)
        return x->inst < y->inst ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Every counter's instances must be 0..n-1, each given once: sorted by
 * (counter, instance), neighbours reveal duplicates and gaps. */
static int check_instances(struct csv *c, struct gt_diag *d)
{
    const struct column **v = malloc(c->ncols * sizeof(*v));
    size_t i;
    int r = 0;

    if (!v)
        return fail_at(d, c, 0, "out of memory");
    for (i = 0; i < c->ncols; i++)
        v[i] = &c->cols[i];
    qsort(v, c->ncols, sizeof(*v), cmp_column);
    for (i = 0; i < c->ncols && r == 0; i++) {
        const struct group *g = &c->groups[v[i]->group];
        int first = i == 0 || v[i - 1]->group != v[i]->group;
        uint32_t expect = first ? 0 : v[i - 1]->inst + 1;
        if (!first && v[i]->inst == v[i - 1]->inst && g->indexed)
            r = fail_at(d, c, v[i]->col, "duplicate column '%s[%u]' (fields %zu and %zu)",
                        g->name, v[i]->inst, (size_t)(v[i - 1] - c->cols) + 2,
                        (size_t)(v[i] - c->cols) + 2);
        else if (!first && v[i]->inst == v[i - 1]->inst)
            r = fail_at(d, c, v[i]->col, "duplicate column '%s' (fields %zu and %zu)", g->name,
                        (size_t)(v[i - 1] - c->cols) + 2, (size_t)(v[i] - c->cols) + 2);
        else if (v[i]->inst != expect)
            r = fail_at(d, c, v[i]->col, "instance gap: '%s[%u]' is given but '%s[%u]' is not "
                        "(instances must be 0..n-1)", g->name, v[i]->inst, g->name, expect);
    }
    free(v);
    return r;
}

static int parse_header(struct csv *c, struct gt_diag *d)
{
    size_t pos = 0, n, fieldno = 1;
    struct field f;
    int r = next_line(c, d);

    if (r < 0)
        return -1;
    if (r == 0) {
        c->ln.no = 0;
        return fail_at(d, c, 0, "empty file (expected a header line 'interval_ns,NAME,...')");
    }
    /* A UTF-8 byte order mark, as spreadsheets save CSV files. */
    if (c->ln.len >= 3 && memcmp(c->ln.p, "\xEF\xBB\xBF", 3) == 0) {
        memmove(c->ln.p, c->ln.p + 3, c->ln.len - 3);
        c->ln.len -= 3;
    }
    n = gt_csv_count_fields(c->ln.p, c->ln.len);
    gt_csv_next_field(c->ln.p, c->ln.len, &pos, &f);
    if (f.bad || f.len != 11 || memcmp(f.p, "interval_ns", 11) != 0)
        return fail_at(d, c, f.col, "bad header: the first column must be 'interval_ns', "
                       "found '%.*s'", (int)(f.len < CSV_SHOW ? f.len : CSV_SHOW), f.p);
    if (n < 2)
        return fail_at(d, c, 0, "bad header: no counter columns after 'interval_ns'");
    if (n - 1 > CSV_MAX_COLUMNS)
        return fail_at(d, c, 0, "bad header: %zu counter columns (at most %d)", n - 1,
                       CSV_MAX_COLUMNS);
    c->cols = calloc(n - 1, sizeof(*c->cols));
    c->groups = calloc(n - 1, sizeof(*c->groups));
    if (!c->cols || !c->groups)
        return fail_at(d, c, 0, "out of memory");
    while (gt_csv_next_field(c->ln.p, c->ln.len, &pos, &f))
        if (header_column(c, &f, ++fieldno, d) < 0)
            return -1;
    return check_instances(c, d);
}

/* ---- the catalogue and the device description ---- */

/* The layout of a table's GPUs, as kbase picks it for the device. */
static const char *family_of(const char *gpu)
{
    const char *layout;

    if (strcasecmp(gpu, "mips-cm") == 0)
        return "mips-cm";
    layout = gt_mali_table_layout(gpu);
    return layout ? layout : "";
}

/* The table holding most of the header's Mali names, its ties joined in
 * gpu_names ("Mali-T820/T830"). NULL when there is no Mali name at all;
 * *ambiguous when tables of different families tie (names every GPU has). */
static const struct gt_counter_table *best_table(const struct csv *c, char *gpu_names, size_t len,
                                                 int *ambiguous)
{
    const struct gt_counter_table *t, *best = NULL;
    struct gt_counter_def row;
    size_t i, g, n, most = 0;

    gpu_names[0] = '\0';
    *ambiguous = 0;
    for (i = 0; (t = table_at(i)) != NULL; i++) {
        for (g = n = 0; g < c->ngroups; g++)
            n += c->groups[g].kind != G_CPU && table_def(t, c->groups[g].name, &row);
        if (n == 0 || n < most)
            continue;
        if (n > most) {
            most = n;
            best = t;
            *ambiguous = 0;
            gpu_label(gpu_names, len, t);
            continue;
        }
        *ambiguous |= strcmp(family_of(t->gpu), family_of(best->gpu)) != 0;
        if (strlen(gpu_names) + strlen(t->gpu) + 2 < len) {
            strcat(gpu_names, "/");
            strcat(gpu_names, t->gpu);
        }
    }
    return best;
}

/* Streamline, HWCPipe and libGPUCounters report a counter with its
 * scale applied (fragment threads are the raw count x4 on G715/G720), so
 * an export is read as it is; only raw hardware deltas take the scale. */
static int add_group(struct gt_catalog *cat, struct group *g, const struct gt_counter_table *t,
                     int raw)
{
    struct gt_counter_def *def = &g->def;
    struct gt_counter *k;

    if (g->kind == G_CPU)
        return g->counter = gt_catalog_add(cat, g->name,
                                           strncmp(g->name, "CPUCore", 7) == 0 ? "cpu" : "cluster",
                                           GT_COUNTER_DELTA, g->ninst, 1.0);
    if (g->kind == G_CONSTANT)
        return g->counter = gt_catalog_add_constant(cat, g->name, 0);
    if (g->extra_block)
        return g->counter = gt_catalog_add(cat, g->name, g->extra_block, GT_COUNTER_DELTA,
                                           g->ninst, 1.0);
    if (g->amd) {
        g->counter = gt_catalog_add(cat, g->name, g->amd->block, GT_COUNTER_DELTA, g->ninst, 1.0);
        if (g->counter >= 0)
            cat->counters[g->counter].hw_index = g->amd->event;
        return g->counter;
    }
    if (t)
        table_def(t, g->name, def);   /* the named GPU's row, else any_def's */
    g->counter = gt_catalog_add(cat, g->name, def->block, GT_COUNTER_DELTA, g->ninst,
                                raw ? def->scale : 1.0);
    if (g->counter < 0)
        return -1;
    k = &cat->counters[g->counter];
    k->hw_index = def->index;
    if (def->hw_name && def->hw_name[0] && !(k->hw_name = strdup(def->hw_name)))
        return -1;
    return g->counter;
}

static int add_cpu_ratio(struct csv *c, struct gt_catalog *cat, const char *name,
                         const char *num, const char *total, struct gt_diag *d)
{
    int n = gt_catalog_find(cat, num), t = gt_catalog_find(cat, total);

    if (n < 0 || t < 0)
        return 0;
    if (cat->counters[n].instances != cat->counters[t].instances) {
        c->ln.no = 1;
        return fail_at(d, c, 0, "%s has %u instances but %s has %u", num,
                       cat->counters[n].instances, total, cat->counters[t].instances);
    }
    if (gt_catalog_add_ratio(cat, name, n, t, 100.0) < 0)
        return fail_at(d, c, 0, "out of memory");
    return 0;
}

static uint32_t block_instances(const struct csv *c, const char *block)
{
    uint32_t n = 0;
    size_t g;

    for (g = 0; g < c->ngroups; g++)
        if (c->groups[g].kind == G_DELTA && c->groups[g].has_def &&
            strcmp(c->groups[g].def.block, block) == 0 &&
            c->groups[g].ninst > n)
            n = c->groups[g].ninst;
    return n;
}

/* A core or slice count the file does not give as a column is derived from
 * the instance counts, so layouts that divide by it still work. */
static int derive_constant(struct gt_catalog *cat, const struct gt_counter_table *t,
                           const char *name, uint32_t n)
{
    struct gt_counter_def row;

    if (!t || n == 0 || gt_catalog_find(cat, name) >= 0 || !table_def(t, name, &row))
        return 0;
    return gt_catalog_add_constant(cat, name, n) < 0 ? -1 : 0;
}

/* The table named by gpu=, or the one that fits the header best. */
static const struct gt_counter_table *pick_table(const struct csv *c, char *gpu, size_t len,
                                                 int *ambiguous)
{
    const struct gt_counter_table *t;

    if (!c->gpu[0])
        return best_table(c, gpu, len, ambiguous);
    t = table_find(c->gpu);
    *ambiguous = 0;
    if (t)
        gpu_label(gpu, len, t);
    return t;
}

/* gpu=gfx1151: the layout is amd-gfx1151; a CU count not given as the
 * cu_per_gpu column is TCP's instance count (one vector L0 per CU). */
static int describe_amd(struct csv *c, struct gt_source *s)
{
    int tcp = find_group(c, "TCP_REQ");

    snprintf(s->info.gpu, sizeof(s->info.gpu), "AMD gfx1151");
    snprintf(s->info.layout, sizeof(s->info.layout), "amd-gfx1151");
    snprintf(s->info.family, sizeof(s->info.family), "amd-gfx1151");
    s->info.gpu_id = 0x1586;
    if (tcp < 0 || !c->groups[tcp].indexed)
        return 0;
    s->info.shader_cores = c->groups[tcp].ninst;
    if (gt_catalog_find(&s->catalog, "cu_per_gpu") >= 0)
        return 0;
    return gt_catalog_add_constant(&s->catalog, "cu_per_gpu", c->groups[tcp].ninst) < 0 ? -1 : 0;
}

/* The GPU's counters the export has no column for: known but not read, so
 * a metric on one says why, and is told from one this GPU cannot have. */
static int mark_missing(const struct csv *c, struct gt_catalog *cat, const struct gt_counter_table *t)
{
    size_t j;

    for (j = 0; j < t->ndefs; j++) {
        const char *n = gt_counter_table_def(t, j).name;
        if (find_group(c, n) < 0 && gt_catalog_find(cat, n) < 0 &&
            gt_catalog_add_absent(cat, n, "not in the capture: no column for it") < 0)
            return -1;
    }
    return 0;
}

static int build_catalog(struct csv *c, struct gt_source *s, struct gt_diag *d)
{
    char gpu[sizeof(s->info.gpu)];
    int ambiguous = 0;
    const struct gt_counter_table *t = c->amd ? NULL : pick_table(c, gpu, sizeof(gpu), &ambiguous);
    size_t g;

    for (g = 0; g < c->ngroups; g++)
        if (add_group(&s->catalog, &c->groups[g], t, c->raw) < 0)
            return fail_at(d, c, 0, "cannot add counter '%s' (out of memory)", c->groups[g].name);
    if (add_cpu_ratio(c, &s->catalog, "CPUActivityUser", "CPUTicksUser", "CPUTicksTotal", d) < 0 ||
        add_cpu_ratio(c, &s->catalog, "CPUActivitySystem", "CPUTicksSystem", "CPUTicksTotal",
                      d) < 0 ||
        add_cpu_ratio(c, &s->catalog, "CPUCoreActivityUser", "CPUCoreTicksUser",
                      "CPUCoreTicksTotal", d) < 0 ||
        add_cpu_ratio(c, &s->catalog, "CPUCoreActivitySystem", "CPUCoreTicksSystem",
                      "CPUCoreTicksTotal", d) < 0)
        return -1;
    if (c->amd)
        return describe_amd(c, s) < 0 ? fail_at(d, c, 0, "out of memory") : 0;
    s->info.shader_cores = block_instances(c, "shadercore");
    s->info.l2_slices = block_instances(c, "memsys");
    if (derive_constant(&s->catalog, t, "MaliConstantsShaderCoreCount", s->info.shader_cores) < 0 ||
        derive_constant(&s->catalog, t, "MaliConstantsL2SliceCount", s->info.l2_slices) < 0)
        return fail_at(d, c, 0, "out of memory");
    memcpy(s->info.gpu, gpu, sizeof(gpu));
    c->ambiguous = ambiguous;
    if (t && !ambiguous && mark_missing(c, &s->catalog, t) < 0)
        return fail_at(d, c, 0, "out of memory");
    if (t && !ambiguous) {
        snprintf(s->info.layout, sizeof(s->info.layout), "%s", family_of(t->gpu));
        snprintf(s->info.family, sizeof(s->info.family), "%s", family_of(t->gpu));
    }
    return 0;
}

/* Slot per column; constants have none. */
static int map_slots(struct csv *c, const struct gt_catalog *cat, struct gt_diag *d)
{
    size_t i;

    c->slot = calloc(c->ncols ? c->ncols : 1, sizeof(*c->slot));
    if (!c->slot)
        return fail_at(d, c, 0, "out of memory");
    for (i = 0; i < c->ncols; i++) {
        const struct group *g = &c->groups[c->cols[i].group];
        c->slot[i] = g->kind == G_CONSTANT ? UINT32_MAX
                                           : cat->counters[g->counter].slot + c->cols[i].inst;
    }
    return 0;
}

/* ---- rows ---- */

/* Parses the current line as a data row into deltas (NULL: check only).
 * The first row sets the constants; later rows must repeat them. */
static int parse_row(struct csv *c, uint64_t *interval, uint64_t *deltas, struct gt_diag *d)
{
    size_t pos = 0, i = 0, n = gt_csv_count_fields(c->ln.p, c->ln.len);
    struct field f;
    const char *bad;
    uint64_t v;

    if (n != c->ncols + 1)
        return fail_at(d, c, 0, "%s row: %zu fields, the header has %zu",
                       n < c->ncols + 1 ? "short" : "long", n, c->ncols + 1);
    gt_csv_next_field(c->ln.p, c->ln.len, &pos, &f);
    if ((bad = f.bad ? f.bad : gt_csv_parse_u64(&f, interval)) != NULL)
        return fail_at(d, c, f.col, "field 1 (interval_ns): %s: '%.*s'", bad,
                       (int)(f.len < CSV_SHOW ? f.len : CSV_SHOW), f.p);
    for (i = 0; gt_csv_next_field(c->ln.p, c->ln.len, &pos, &f); i++) {
        struct group *g = &c->groups[c->cols[i].group];
        if ((bad = f.bad ? f.bad : gt_csv_parse_u64(&f, &v)) != NULL)
            return fail_at(d, c, f.col, "field %zu (%s): %s: '%.*s'", i + 2, g->name, bad,
                           (int)(f.len < CSV_SHOW ? f.len : CSV_SHOW), f.p);
        if (c->slot[i] != UINT32_MAX) {
            if (deltas)
                deltas[c->slot[i]] = v;
        } else if (c->rows == 0) {
            g->value = v;
        } else if (g->value != v) {
            return fail_at(d, c, f.col, "field %zu: constant %s is %llu here but %llu in the "
                           "first row", i + 2, g->name, (unsigned long long)v,
                           (unsigned long long)g->value);
        }
    }
    return 0;
}

/* Reads every row once so a bad file fails at open, naming its line,
 * and sets the constants from the first row. */
static int check_rows(struct csv *c, struct gt_diag *d)
{
    uint64_t interval, t = 0;
    int r;

    c->data_off = ftell(c->f);
    c->data_line = c->ln.no;
    if (c->data_off < 0)
        return fail_at(d, c, 0, "cannot tell the file position: %s", strerror(errno));
    while ((r = next_line(c, d)) == 1) {
        if (parse_row(c, &interval, NULL, d) < 0)
            return -1;
        if (interval > UINT64_MAX - t)
            return fail_at(d, c, 0, "the intervals add up to more than 2^64-1 ns");
        t += interval;
        c->rows++;
    }
    if (r < 0)
        return -1;
    if (c->rows == 0)
        return fail_at(d, c, 0, "no data rows after the header");
    if (fseek(c->f, c->data_off, SEEK_SET) != 0)
        return fail_at(d, c, 0, "cannot seek back to the first row: %s", strerror(errno));
    c->ln.no = c->data_line;
    return 0;
}

static void set_constants(struct csv *c, struct gt_source *s)
{
    size_t g;

    for (g = 0; g < c->ngroups; g++) {
        const struct group *gr = &c->groups[g];
        if (gr->kind != G_CONSTANT)
            continue;
        s->catalog.counters[gr->counter].value = (double)gr->value;
        if (strcmp(gr->name, "MaliConstantsShaderCoreCount") == 0)
            s->info.shader_cores = (uint32_t)gr->value;
        else if (strcmp(gr->name, "MaliConstantsL2SliceCount") == 0)
            s->info.l2_slices = (uint32_t)gr->value;
        else if (strcmp(gr->name, "MaliConstantsBusWidthBits") == 0)
            s->info.bus_width_bits = (uint32_t)gr->value;
        else if (strcmp(gr->name, "cu_per_gpu") == 0)
            s->info.shader_cores = (uint32_t)gr->value;
    }
}

/* ---- the source ---- */

static void csv_close(struct gt_source *s)
{
    struct csv *c = s->priv;

    if (!c)
        return;
    if (c->f)
        fclose(c->f);
    free(c->ln.p);
    free(c->groups);
    free(c->cols);
    free(c->slot);
    free(c);
    s->priv = NULL;
}

static const char *list_gpus(char *buf, size_t len)
{
    const struct gt_counter_table *t;
    size_t i, n = 0;

    buf[0] = '\0';
    for (i = 0; (t = table_at(i)) != NULL && n + strlen(t->gpu) + 3 < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", t->gpu);
    if (n + 10 < len)
        snprintf(buf + n, len - n, ", gfx1151");
    return buf;
}

static void describe(struct gt_source *s, const struct csv *c)
{
    size_t n = strlen(c->path);

    if (n >= sizeof(s->info.device))
        n = sizeof(s->info.device) - 1;
    memcpy(s->info.device, c->path, n);
    s->info.device[n] = '\0';
    snprintf(s->info.detail, sizeof(s->info.detail), "CSV import: %zu counters, %llu rows%s%s",
             s->catalog.ncounters, c->rows, c->raw ? ", raw deltas (vendor scale applied)" : "",
             c->ambiguous ? "; its counters fit several GPUs: add gpu=NAME or use --layout" : "");
    s->info.self_paced = 1;
}

/* maxclock=HZ: the GPU's max clock, which a vendor export does not carry
 * and the layouts' busy share of max-clock time needs; a column
 * MaliConstantsGPUMaxClockHz must agree with it. */
static int parse_maxclock(struct csv *c, const char *args, struct gt_diag *d)
{
    char buf[32], *end;

    if (!gt_args_get(args, "maxclock", buf, sizeof(buf)))
        return 0;
    c->maxclock = strtod(buf, &end);
    if (*end || !isfinite(c->maxclock) || c->maxclock < 1e6 || c->maxclock > 1e11) {
        gt_diag_set(d, "csv: maxclock '%s' is not a clock in Hz (1e6 to 1e11, e.g. "
                    "maxclock=850000000)", buf);
        return -1;
    }
    return 0;
}

static int apply_maxclock(struct csv *c, struct gt_source *s, struct gt_diag *d)
{
    int k = gt_catalog_find(&s->catalog, GT_MALI_MAX_CLOCK_HZ);

    if (!c->maxclock)
        return 0;
    if (k >= 0 && s->catalog.counters[k].value != c->maxclock)
        return fail_at(d, c, 0, "maxclock=%.0f but the file's %s is %.0f", c->maxclock,
                       GT_MALI_MAX_CLOCK_HZ, s->catalog.counters[k].value);
    if (k < 0 && gt_catalog_add_constant(&s->catalog, GT_MALI_MAX_CLOCK_HZ, c->maxclock) < 0)
        return fail_at(d, c, 0, "out of memory");
    return 0;
}

/* "FILE[,raw][,gpu=NAME]": the first bare word is the file, later bare
 * words are flags (gt_args_get would give the last bare word). */
static int parse_words(struct csv *c, const char *args, struct gt_diag *d)
{
    const char *p = args ? args : "";

    while (*p) {
        size_t n = strcspn(p, ",");
        if (n && !memchr(p, '=', n)) {
            if (!c->path[0] && n >= sizeof(c->path)) {
                gt_diag_set(d, "csv: file name longer than %zu bytes", sizeof(c->path) - 1);
                return -1;
            } else if (!c->path[0]) {
                memcpy(c->path, p, n);
                c->path[n] = '\0';
            } else if (n == 3 && memcmp(p, "raw", 3) == 0) {
                c->raw = 1;
            } else {
                gt_diag_set(d, "csv: unknown option '%.*s' (csv:FILE[,raw][,gpu=NAME][,maxclock=HZ])",
                            (int)n, p);
                return -1;
            }
        }
        p += n + (p[n] == ',');
    }
    if (!c->path[0]) {
        gt_diag_set(d, "csv: no file given (csv:FILE)");
        return -1;
    }
    return 0;
}

/* csv_open's arguments; the type lists them too, for --help's test. */
static const char *const csv_keys[] = { "", "gpu", "maxclock", NULL };

static int csv_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    struct csv *c;

    if (gt_args_check(args, csv_keys, "csv", d) < 0)
        return -1;
    c = calloc(1, sizeof(*c));
    if (!c) {
        gt_diag_fail(d, GT_ERR_NOMEM, "csv: out of memory");
        return -1;
    }
    s->priv = c;
    if (parse_words(c, args, d) < 0 || parse_maxclock(c, args, d) < 0) {
        csv_close(s);
        return -1;
    }
    /* gputop's own CSV: values, not counters (csv_values.c) */
    if (gt_csv_values_file(c->path)) {
        csv_close(s);
        s->type = &gt_source_csv_values;
        return s->type->open(s, args, d);
    }
    if (gt_args_get(args, "gpu", c->gpu, sizeof(c->gpu)))
        c->amd = strcasecmp(c->gpu, "gfx1151") == 0;
    if (c->gpu[0] && !c->amd && !table_find(c->gpu)) {
        char known[128];
        gt_diag_set(d, "csv: unknown gpu '%s' (known: %s)", c->gpu, list_gpus(known, sizeof(known)));
        csv_close(s);
        return -1;
    }
    c->f = fopen(c->path, "r");
    if (!c->f) {
        gt_diag_errno(d, errno, "%s: %s", c->path, strerror(errno));
        csv_close(s);
        return -1;
    }
    if (parse_header(c, d) < 0 || build_catalog(c, s, d) < 0 ||
        map_slots(c, &s->catalog, d) < 0 || check_rows(c, d) < 0) {
        csv_close(s);
        return -1;
    }
    set_constants(c, s);
    if (apply_maxclock(c, s, d) < 0) {
        csv_close(s);
        return -1;
    }
    describe(s, c);
    return 0;
}

static int csv_start(struct gt_source *s, struct gt_diag *d)
{
    (void)s;
    (void)d;
    return 0;
}

static enum gt_sample_result csv_sample(struct gt_source *s, struct gt_snapshot *out,
                                        struct gt_diag *d)
{
    struct csv *c = s->priv;
    uint64_t interval;
    int r;

    if (c->ended)
        return GT_SAMPLE_END;
    if (out->nslots < s->catalog.nslots) {
        gt_diag_set(d, "snapshot has %u slots, the catalogue needs %u", out->nslots,
                    s->catalog.nslots);
        return GT_SAMPLE_ERROR;
    }
    r = next_line(c, d);
    if (r <= 0) {
        c->ended = 1;
        return r == 0 ? GT_SAMPLE_END : GT_SAMPLE_ERROR;
    }
    memset(out->deltas, 0, (size_t)out->nslots * sizeof(*out->deltas));
    /* Checked at open; failing here means the file changed since. */
    if (parse_row(c, &interval, out->deltas, d) < 0) {
        c->ended = 1;
        return GT_SAMPLE_ERROR;
    }
    if (interval > UINT64_MAX - c->t) {
        c->ended = 1;
        return fail_at(d, c, 0, "the intervals add up to more than 2^64-1 ns");
    }
    out->t_start_ns = c->t;
    out->t_end_ns = c->t + interval;
    out->nsamples = 1;
    c->t = out->t_end_ns;
    return GT_SAMPLE_OK;
}

static int csv_available(const struct gt_sys *sys, char *why, size_t len)
{
    (void)sys;
    (void)why;
    (void)len;
    return 0;
}

const struct gt_source_type gt_source_csv = {
    .name = "csv",
    .usage = "csv:FILE[,raw][,gpu=NAME][,maxclock=HZ]",
    .help = "counter values from a CSV file as the vendor tools export them "
            "(gputop-capture(5)); NAME a Mali GPU (T760..T880, G52..G725), gfx1151 or "
            "mips-cm; raw: hardware deltas, which get the scale",
    .keys = csv_keys,
    .kind = GT_SOURCE_VIRTUAL,
    .recorded = 1,
    .available = csv_available,
    .open = csv_open,
    .start = csv_start,
    .sample = csv_sample,
    .close = csv_close,
};
