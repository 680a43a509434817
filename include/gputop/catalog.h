/* Counter catalogues: what a source can count, by Streamline name, and how
 * a snapshot's flat array of per-instance deltas is laid out. */
#ifndef GPUTOP_CATALOG_H
#define GPUTOP_CATALOG_H

#include <stddef.h>
#include <stdint.h>

/* One row of a generated static table (src/sources/mali/tables.c). */
struct gt_counter_def {
    const char *name;      /* Streamline name without '$', e.g. "MaliGPUCyclesGPUActive" */
    const char *block;     /* "front-end", "tiler", "shadercore", "memsys", "constant", ... */
    int         index;     /* counter index within the block, -1 if none */
    const char *hw_name;   /* hardware counter name, "" if none */
    double      scale;     /* multiplier the vendor tools apply to the raw value */
    int         in_guide;  /* 1 if the vendor guide uses this name */
};

/* A table is either plain rows (defs) or packed rows that get() decodes
 * (the generated Mali tables, kept small for the static phone binary);
 * read rows through gt_counter_table_def() either way. */
struct gt_counter_table {
    const char *gpu;                       /* "T820", "G78", "G710", "mips-cm" */
    const struct gt_counter_def *defs;     /* plain rows, or NULL */
    size_t ndefs;                          /* rows either way */
    const void *packed;                    /* packed rows, or NULL */
    void (*get)(const struct gt_counter_table *t, size_t i, struct gt_counter_def *out);
};

/* Row i (< t->ndefs); its strings live as long as the table. */
static inline struct gt_counter_def gt_counter_table_def(const struct gt_counter_table *t,
                                                         size_t i)
{
    struct gt_counter_def d;

    if (t->get)
        t->get(t, i, &d);
    else
        d = t->defs[i];
    return d;
}

/* Static tables compiled into the binary. */
const struct gt_counter_table *gt_counter_table_find(const char *gpu);
const struct gt_counter_table *gt_counter_table_at(size_t i); /* NULL past the end */

enum gt_counter_kind {
    GT_COUNTER_DELTA,      /* monotonic count; snapshot holds deltas */
    GT_COUNTER_CONSTANT,   /* fixed value from the device description */
    GT_COUNTER_RATIO,      /* value = scale * delta / delta(denominator) */
};

/* A counter a running source provides. */
struct gt_counter {
    char    *name;         /* Streamline name without '$' */
    char    *block;        /* aggregation block, matched by layout rules */
    enum gt_counter_kind kind;
    uint32_t slot;         /* first slot in gt_snapshot.deltas */
    uint32_t instances;    /* slots used: cores, slices, clusters; 1 for globals */
    double   scale;
    double   value;        /* GT_COUNTER_CONSTANT only */
    int      denominator;  /* GT_COUNTER_RATIO only: index of the counter divided by */
    int      hw_index;     /* index in its hardware block, -1 if none */
    char    *hw_name;      /* NULL if none */
    int      estimated;    /* 1: its deltas are estimates, scaled from part of
                              the interval (counters multiplexed: rotated
                              over fewer hardware counters) */
};

struct gt_catalog {
    struct gt_counter *counters;
    size_t ncounters, cap;
    uint32_t nslots;       /* total slots a snapshot of this catalogue needs */
    /* Name index kept by the functions below (open addressing: counter
     * index + 1, 0 empty); it covers the first nhashed counters, and
     * lookups fall back to a scan when counters were added otherwise. */
    uint32_t *hash;
    size_t hash_cap, nhashed;
    /* Counters the source knows but cannot read here, with why ("needs
     * root: ..."): metrics using them say so instead of "no counter". */
    struct gt_absent { char *name, *reason; } *absent;
    size_t nabsent;
};

void gt_catalog_init(struct gt_catalog *c);
void gt_catalog_free(struct gt_catalog *c);
/* Adds a counter and assigns its slots; returns its index or -1 (no memory,
 * or the name is already present). */
int  gt_catalog_add(struct gt_catalog *c, const char *name, const char *block,
                    enum gt_counter_kind kind, uint32_t instances, double scale);
int  gt_catalog_add_constant(struct gt_catalog *c, const char *name, double value);
/* A counter read as scale * numerator / denominator (both counters already
 * in c, with equal instance counts); it shares the numerator's slots. */
int  gt_catalog_add_ratio(struct gt_catalog *c, const char *name, int numerator,
                          int denominator, double scale);
int  gt_catalog_find(const struct gt_catalog *c, const char *name);
/* Records that name exists on this device but is out of reach, and why.
 * Returns 0 or -1 (no memory). */
int  gt_catalog_add_absent(struct gt_catalog *c, const char *name, const char *reason);
/* The reason recorded for name, or NULL. */
const char *gt_catalog_absent_reason(const struct gt_catalog *c, const char *name);
/* What an instance of a block is called: "shader core", "L2 slice", "CPU
 * cluster", "CPU"; brief: "core", "slice", "cluster", "cpu"; another
 * block by its own name, none ("") as "instance". */
const char *gt_catalog_block_noun(const char *block, int brief);
/* "shader core 4", "L2 slice 1" (brief: "core 4", "slice 1") into buf
 * (at most len bytes); returns buf. number is the instance's own (a
 * shader core's physical number: gt_engine_instance_number). */
const char *gt_catalog_instance_name(const char *block, uint32_t number, int brief, char *buf,
                                     size_t len);
/* Adds every non-constant row of a static table, with per-block instance
 * counts from instances_for(block); constants named in the table are added
 * with the values from constant_for(name), or skipped when it returns NAN.
 * Returns 0 or -1. */
int  gt_catalog_add_table(struct gt_catalog *c, const struct gt_counter_table *t,
                          uint32_t (*instances_for)(const char *block, void *arg),
                          double (*constant_for)(const char *name, void *arg),
                          void *arg);
/* Appends every counter of src (slots renumbered); returns 0 or -1. */
int  gt_catalog_merge(struct gt_catalog *dst, const struct gt_catalog *src);


/* The CPU counters the guides' "CPU performance" rows use, one instance
 * per CPU cluster: $CPUActivityUser (percent of time in user space, a
 * ratio of the tick counters CPUTicksUser / CPUTicksTotal),
 * $CPUActivitySystem, and $CyclesCPUCycles. Returns 0 or -1. */
int gt_catalog_add_cpu(struct gt_catalog *c, uint32_t nclusters);
/* The same tick counters and ratios per CPU ($CPUCoreTicksUser ...
 * $CPUCoreActivitySystem, block "cpu"), as the cpu source gives them. */
int gt_catalog_add_cpu_cores(struct gt_catalog *c, uint32_t ncpus);

/* Names Mali sources add beside the guides' counter tables: the GPU and
 * shader-core clock cycles of the interval (when the kernel sends them) and
 * the GPU's max clock in Hz (when the kernel reports it). Layouts derive the
 * GPU's busy share and clock from them (man/gputop-layout.5). */
#define GT_MALI_GPU_CLOCK_CYCLES "MaliGPUClockCycles"
#define GT_MALI_SC_CLOCK_CYCLES  "MaliShaderCoreClockCycles"
#define GT_MALI_MAX_CLOCK_HZ     "MaliConstantsGPUMaxClockHz"

/* What a GPU source knows of its device, for building its catalogue. */
struct gt_device_desc {
    const char *gpu;          /* counter table name: "T830", "G720", ... */
    uint32_t shader_cores;    /* present cores ($MaliConstantsShaderCoreCount) */
    uint32_t l2_slices;       /* $MaliConstantsL2SliceCount */
    uint32_t bus_width_bits;  /* $MaliConstantsBusWidthBits; 0 = unknown (left out) */
    int max_hw_index;         /* counters at this block index or above are left
                                 out (a reader that cannot deliver them); 0: none */
};

/* Adds a GPU's counter table with one instance per shader core (block
 * "shadercore") and per L2 slice ("memsys"), and its constants. Returns 0,
 * or -1 when the table is unknown or memory runs out. */
int gt_catalog_add_device(struct gt_catalog *c, const struct gt_device_desc *d);

#endif
