/* The Mali kbase source's parts: GPU-properties parsing and naming
 * (kbase_props.c), the device (kbase_dev.c), the two counter readers
 * (kbase_vinstr.c for the legacy hwcnt reader, kbase_kinstr.c for
 * kinstr_prfcnt), and the frame they both decode a dump into
 * (kbase_frame.c), which kbase_source.c maps onto the catalogue. */
#ifndef GPUTOP_KBASE_H
#define GPUTOP_KBASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "gputop/diag.h"
#include "gputop/source.h"
#include "gputop/sys.h"

/* ---- what the device says about its GPU ---- */

struct gt_kbase_gpu {
    uint64_t gpu_id;          /* RAW_GPU_ID (u32 or u64 as the kernel sent it) */
    uint32_t product_key;     /* model: 0x0830 old style; (gpu_id >> 16) & 0xF00F new */
    uint64_t core_mask;       /* present shader cores (OR of the coherency groups) */
    uint32_t shader_cores;    /* popcount(core_mask): $MaliConstantsShaderCoreCount */
    uint32_t l2_slices;       /* $MaliConstantsL2SliceCount */
    uint32_t bus_width_bits;  /* $MaliConstantsBusWidthBits, 0 if unknown */
    uint32_t major_rev, minor_rev;
    uint32_t freq_khz_max;    /* 0 if not given */
    /* Set by gt_kbase_identify: */
    char name[48];            /* "Mali-T830", "Immortalis-G720", "Mali (unknown, id 0x....)" */
    const char *table;        /* counter table ("T830", "G715", "G720"), NULL if none */
    const char *layout;       /* built-in layout name, NULL if none */
    int csf;                  /* command-stream front end (G715, G720); 0 for Job Manager */
    uint32_t values_per_block;/* 64 (T8xx) or 128 (G715, G720) */
};

/* Parses the packed (key, value) buffer of GET_GPUPROPS. Every length and
 * size code is checked; an error names the byte offset. Returns 0 or -1. */
int gt_kbase_props_parse(const void *buf, size_t len, struct gt_kbase_gpu *g,
                         struct gt_diag *d);
/* Parses the fixed 536-byte struct of the pre-r21 GET_PROPS call (header
 * included). Returns 0 or -1. */
int gt_kbase_props_parse_pre_r21(const void *buf, size_t len, struct gt_kbase_gpu *g,
                                 struct gt_diag *d);
/* Names the GPU from its id and core count and picks its table and layout.
 * Returns 1 when gputop has a layout for it, 0 when it does not (name
 * still set, with the raw id). */
int gt_kbase_identify(struct gt_kbase_gpu *g);
/* "Mali-T830 MP4", "Mali-G52 MP2", "Mali-G715 MC7": Arm writes the core
 * count MPn for Midgard, Bifrost and the first Valhall GPUs (two-digit
 * G numbers) and MCn from the G310 / G510 / G610 / G710 on. */
void gt_mali_name_cores(char *buf, size_t len, const char *name, unsigned cores);
/* The layout of the GPUs read with counter table TABLE ("G52":
 * "mali-bifrost"), as gt_kbase_identify picks it; NULL for no such table.
 * For imports that name the GPU by its table (csv:...,gpu=G52). */
const char *gt_mali_table_layout(const char *table);
/* A Mali GPU as a user names it, "G78", "mali-g78", "Immortalis-G720"
 * (any case), and what gputop reads it with: the model's name, counter
 * table and layout (both NULL when gputop has no table for it) and
 * product key. With several parts of one name (Mali-G715 MC7 and
 * Immortalis-G715 from 10 cores) the one a GPU of cores cores is. 0, or
 * -1 for a name no model has. */
struct gt_mali_model {
    const char *name, *table, *layout;
    uint32_t key;
};
int gt_mali_model_find(const char *name, uint32_t cores, struct gt_mali_model *out);
/* The i-th model gputop has a counter table for (a name may come twice,
 * for two core counts); -1 past the last. */
int gt_mali_model_at(size_t i, struct gt_mali_model *out);
/* The layout gt_kbase_identify chose, or "raw" (the raw view: every
 * counter delivered, by block and index) for a GPU with no counter table;
 * and why, in one line, for --probe. */
const char *gt_kbase_layout_name(const struct gt_kbase_gpu *g);
void gt_kbase_layout_why(const struct gt_kbase_gpu *g, char *out, size_t len);
/* The logical index (rank among present cores) of physical core p, or -1
 * when p is not present. */
int gt_kbase_core_rank(uint64_t core_mask, unsigned p);

/* ---- an open device ---- */

enum gt_kbase_api {
    GT_KBASE_API_PRE_R21,     /* UK 10.x legacy encoding */
    GT_KBASE_API_JM,          /* Job Manager, 11.x */
    GT_KBASE_API_CSF,         /* command-stream front end, 1.x */
};

struct gt_kbase_dev {
    const struct gt_sys *sys;
    int fd;
    char path[64];
    enum gt_kbase_api api;
    uint16_t major, minor;    /* interface version the kernel reported */
    struct gt_kbase_gpu gpu;
};

/* Opens the device node, agrees an interface version (pre-r21, then Job
 * Manager, then CSF), sets the context flags, reads and parses the GPU
 * properties and names the GPU. Returns 0, or -1 with d saying what to do. */
int  gt_kbase_dev_open(struct gt_kbase_dev *dev, const struct gt_sys *sys, const char *path,
                       struct gt_diag *d);
void gt_kbase_dev_close(struct gt_kbase_dev *dev);
/* The reader to use: 1 legacy, 2 kinstr_prfcnt; forced is 0 (choose), 1
 * or 2. -1 with why set when the kernel has none (or not the forced one). */
int  gt_kbase_choose(const struct gt_kbase_dev *dev, int forced, char *why, size_t len);

/* For --probe: the device's description, and an open mali source's reader
 * and enabled counters. */
struct gt_source;
void gt_kbase_describe_dev(const struct gt_kbase_dev *dev, FILE *out);
void gt_kbase_describe_source(const struct gt_source *s, FILE *out);
/* For --probe, before the list of unavailable metrics: the counters the
 * open reader cannot deliver, and why. Nothing when it delivers all. */
void gt_kbase_describe_limits(const struct gt_source *s, FILE *out);
/* The mali source's probe op (gt_source_type.probe): each /dev/maliN, or
 * the node ARGS name, opened and sampled. */
enum gt_probe_result gt_kbase_probe(const struct gt_probe *p, const char *args);

/* 1 when the kernel's (major, minor) is at or past (11, jm_minor) on a Job
 * Manager kernel or (1, csf_minor) on a CSF one; 0 on pre-r21 kernels.
 * Versions compare as pairs: a JM 12.0 is past 11.40. */
int gt_kbase_since(const struct gt_kbase_dev *dev, unsigned jm_minor, unsigned csf_minor);
/* 1 when the kernel version lies in the range whose kinstr_prfcnt is known
 * to misbehave (JM 11.34..11.36, CSF 1.10..1.16). */
int gt_kbase_kinstr_buggy(const struct gt_kbase_dev *dev);
/* 1 when kinstr_prfcnt's block_state OFF / PROTECTED bits mean something:
 * from the versions that define them (JM 11.41, CSF 1.23), as Arm's own
 * client trusts them. */
int gt_kbase_block_state_trusted(const struct gt_kbase_dev *dev);

/* ---- a decoded dump ---- */

enum { GT_KB_FE, GT_KB_TILER, GT_KB_MEMSYS, GT_KB_SHADER, GT_KB_NBLOCKS };
#define GT_KB_MAX_VALUES 128

#define GT_KB_FRAME_OVERFLOW  (1u << 0)  /* the kernel's ring filled; counts still whole */
#define GT_KB_FRAME_ERROR     (1u << 1)  /* the kernel flagged the sample as erroneous */
#define GT_KB_FRAME_SATURATED (1u << 2)  /* a 32-bit legacy value hit 0xFFFFFFFF */

#define GT_KB_STATE_OFF       (1u << 0)  /* powered off: its zeros mean nothing */
#define GT_KB_STATE_PROTECTED (1u << 1)  /* protected mode: no data */
#define GT_KB_STATE_MISSING   (1u << 2)  /* the dump held no block for it */

/* One dump: per block type and instance, GT_KB_MAX_VALUES u64 deltas
 * (indices as in the counter tables, header values 0..3 included). Shader
 * instances are logical: instance i is the i-th present core. */
struct gt_kbase_frame {
    uint64_t ts_start_ns, ts_end_ns;     /* kernel time of the interval */
    uint64_t cycles[2];                  /* GPU top clock, shader-core clock */
    uint32_t ncycles;                    /* clock domains present (0..2) */
    uint32_t flags;                      /* GT_KB_FRAME_* */
    uint32_t merged;                     /* extra kernel samples summed in (ring drained) */
    uint32_t ninst[GT_KB_NBLOCKS];       /* 1, 1, l2_slices, shader_cores */
    uint32_t base[GT_KB_NBLOCKS];        /* first instance row of each block type */
    uint32_t nrows;                      /* sum of ninst */
    uint8_t *state;                      /* nrows GT_KB_STATE_* bits */
    uint64_t *values;                    /* nrows * GT_KB_MAX_VALUES */
};

int  gt_kbase_frame_init(struct gt_kbase_frame *f, const struct gt_kbase_gpu *g);
void gt_kbase_frame_free(struct gt_kbase_frame *f);
/* Marks every row missing and zeroes flags, cycles and timestamps; the
 * values are left: a row is written whole by its first block of a dump
 * (gt_kbase_frame_begin_row), and a missing row reads as zeros. */
void gt_kbase_frame_clear(struct gt_kbase_frame *f);
/* The row a dump's block goes into: 1 when this is the row's first block
 * since the clear, its values then to be written (=) over [0, n) and its
 * tail past n zeroed here, else 0, the values to be added (a drained
 * ring's samples summed into one frame). */
int gt_kbase_frame_begin_row(struct gt_kbase_frame *f, int block, uint32_t inst, unsigned n,
                             uint64_t **row);
static inline uint64_t *gt_kbase_frame_row(struct gt_kbase_frame *f, int block, uint32_t inst)
{
    return f->values + (size_t)(f->base[block] + inst) * GT_KB_MAX_VALUES;
}

/* Counters to enable: bit (i % 64) of mask[block][i / 64] for index i. */
struct gt_kbase_enable {
    uint64_t mask[GT_KB_NBLOCKS][2];
};

/* ---- from a dump to the catalogue (kbase_map.c), shared with panfrost ---- */

/* Adds a dump in the legacy block order (front end, tiler, one block per
 * L2 slice, then one per physical core position up to shader_blocks,
 * holes included; 64 32-bit values a block) into f. enabled holds each
 * block type's legacy mask (bit k: values 4k..4k+3), for the saturation
 * check. Used by the legacy kbase reader and by panfrost, whose dump has
 * the same layout. */
void gt_kbase_decode_legacy(struct gt_kbase_frame *f, const struct gt_kbase_gpu *g,
                            const uint8_t *dump, uint32_t shader_blocks,
                            const uint32_t enabled[GT_KB_NBLOCKS]);

/* One catalogue counter read from the hardware blocks. */
struct gt_kbase_hw_map {
    uint32_t counter;          /* index in the catalogue */
    uint32_t slot, instances;
    uint16_t block, index;
};

/* One value a sample copies: its index in the frame's values, its slot. */
struct gt_kbase_copy {
    uint32_t value, slot;
};

struct gt_kbase_map {
    struct gt_kbase_hw_map *map;
    size_t n;
    struct gt_kbase_copy *copy;  /* map's values, in frame order (gt_kbase_map_plan) */
    size_t ncopy;
};

struct gt_catalog;
struct gt_snapshot;
/* Maps every hardware counter of c (blocks "front-end", "tiler",
 * "memsys", "shadercore") to its block and index. 0 or -1 (no memory). */
int  gt_kbase_map_build(struct gt_kbase_map *m, const struct gt_catalog *c);
void gt_kbase_map_free(struct gt_kbase_map *m);
/* Lists the values m copies out of frames shaped like f, in the frames'
 * order. 0 or -1 (no memory; the list is then empty). */
int  gt_kbase_map_plan(struct gt_kbase_map *m, const struct gt_kbase_frame *f);
/* Writes f's values into out's slots, as planned (zeros for rows f's dump
 * did not hold). */
void gt_kbase_map_copy(const struct gt_kbase_map *m, struct gt_kbase_frame *f,
                       struct gt_snapshot *out);

/* ---- the two readers ---- */

struct gt_kbase_reader;

struct gt_kbase_reader_ops {
    const char *name;            /* "legacy hwcnt reader", "kinstr_prfcnt" */
    /* Starts counting; the next sample covers the time from here. */
    int  (*start)(struct gt_kbase_reader *r, struct gt_diag *d);
    /* Takes a dump now and decodes it into f (cleared first). 0; -1 with
     * d set when the reader or device is in trouble (it is reopened before
     * the next sample); GT_KB_AGAIN with d set when no sample could be
     * taken but the reader is sound (a suspended GPU): just try later. */
    int  (*sample)(struct gt_kbase_reader *r, struct gt_kbase_frame *f, struct gt_diag *d);
    /* Periodic mode (period_ns set): takes the oldest sample the kernel
     * wrote at its period and decodes it into f (cleared first) with the
     * kernel's timestamps; 0, GT_KB_EMPTY when none is waiting, or -1 as
     * sample() fails. */
    int  (*next)(struct gt_kbase_reader *r, struct gt_kbase_frame *f, struct gt_diag *d);
    /* Stops counting and adds every sample still in the ring, the STOP
     * sample included, into f (not cleared); returns how many, -1 on an
     * error. Counting is over; close() follows. */
    int  (*finish)(struct gt_kbase_reader *r, struct gt_kbase_frame *f, struct gt_diag *d);
    /* Optional: a new period (not 0) for a reader counting already; 0 or
     * -1 with d set. NULL: the reader is set up again instead. */
    int  (*set_period)(struct gt_kbase_reader *r, uint64_t ns, struct gt_diag *d);
    /* Stops, unmaps and closes; safe after a failed start. */
    void (*close)(struct gt_kbase_reader *r);
};

#define GT_KB_AGAIN 1
#define GT_KB_EMPTY 2

/* DUMP_INTERVAL_MIN_NS of both readers: a shorter period is raised to it. */
#define GT_KB_PERIOD_MIN_NS 100000ull

struct gt_kbase_reader {
    const struct gt_kbase_reader_ops *ops;
    const struct gt_kbase_dev *dev;
    uint32_t values_per_block;   /* what the reader delivers: 64 legacy, else the kernel's */
    uint32_t values[GT_KB_NBLOCKS];  /* values per block, by block type (ENUM_INFO's) */
    uint32_t shader_instances;   /* shader blocks the kernel counts: cores, or fls64(mask) */
    int physical_idx;            /* kinstr: shader block_idx found to be physical positions */
    uint32_t ncycles;            /* clock domains it reports (0..2) */
    uint32_t buffers;            /* ring size in dumps */
    /* 0: a dump is taken at each sample(); else the period the kernel
     * dumps at by itself from start() (kinstr: given to open; the legacy
     * reader: set before start) */
    uint64_t period_ns;
    void *priv;
};

/* Each sets up its reader on dev with the given counters enabled and fills
 * r; -1 with d set (the message names the ioctl and errno and, where the
 * cause is usual, what to do). */
int gt_kbase_vinstr_open(struct gt_kbase_reader *r, const struct gt_kbase_dev *dev,
                         const struct gt_kbase_enable *en, struct gt_diag *d);
int gt_kbase_kinstr_open(struct gt_kbase_reader *r, const struct gt_kbase_dev *dev,
                         const struct gt_kbase_enable *en, struct gt_diag *d);
/* kinstr_prfcnt's mode is fixed at set-up: periodic at period_ns (0:
 * manual). */
int gt_kbase_kinstr_open_periodic(struct gt_kbase_reader *r, const struct gt_kbase_dev *dev,
                                  const struct gt_kbase_enable *en, uint64_t period_ns,
                                  struct gt_diag *d);

#endif
