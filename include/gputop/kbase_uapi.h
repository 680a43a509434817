/* The Arm Mali kbase driver's user interface on /dev/mali*, as facts:
 * ioctl numbers and struct layouts (LP64 and arm32 alike: fixed-width
 * fields, pointers carried as u64). Every number and size is checked at
 * compile time against the values the kernel headers give. */
#ifndef GPUTOP_KBASE_UAPI_H
#define GPUTOP_KBASE_UAPI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

/* ---- device ioctls, magic 0x80 ---- */

struct gt_kbase_version_check {
    uint16_t major, minor;
};

struct gt_kbase_set_flags {
    uint32_t create_flags;
};
#define GT_KBASE_CONTEXT_SYSTEM_MONITOR_SUBMIT_DISABLED 2u

struct gt_kbase_get_gpuprops {
    uint64_t buffer;        /* user pointer; 0 asks for the size needed */
    uint32_t size;
    uint32_t flags;         /* must be 0 */
};

struct gt_kbase_hwcnt_reader_setup {
    uint32_t buffer_count;  /* power of two, 1..32 */
    uint32_t fe_bm, shader_bm, tiler_bm, mmu_l2_bm;
};

struct gt_kbase_kinstr_prfcnt_enum_info {
    uint32_t info_item_size, info_item_count;
    uint64_t info_list_ptr;
};

union gt_kbase_kinstr_prfcnt_setup {
    struct {
        uint32_t request_item_count, request_item_size;
        uint64_t requests_ptr;
    } in;
    struct {
        uint32_t prfcnt_metadata_item_size, prfcnt_mmap_size_bytes;
    } out;
};

#define GT_KBASE_IOCTL_VERSION_CHECK_JM  _IOWR(0x80, 0, struct gt_kbase_version_check)
#define GT_KBASE_IOCTL_VERSION_CHECK_CSF _IOWR(0x80, 52, struct gt_kbase_version_check)
#define GT_KBASE_IOCTL_SET_FLAGS         _IOW(0x80, 1, struct gt_kbase_set_flags)
#define GT_KBASE_IOCTL_GET_GPUPROPS      _IOW(0x80, 3, struct gt_kbase_get_gpuprops)
#define GT_KBASE_IOCTL_HWCNT_READER_SETUP _IOW(0x80, 8, struct gt_kbase_hwcnt_reader_setup)
#define GT_KBASE_IOCTL_KINSTR_PRFCNT_ENUM_INFO \
    _IOWR(0x80, 56, struct gt_kbase_kinstr_prfcnt_enum_info)
#define GT_KBASE_IOCTL_KINSTR_PRFCNT_SETUP _IOWR(0x80, 57, union gt_kbase_kinstr_prfcnt_setup)

/* ---- pre-r21 ("UK" API 10.x): one encoding for every call, the function
 * id overflowing into the type byte; each struct starts with a header whose
 * ret field the kernel sets. ---- */

union gt_uk_header {
    uint32_t id;
    uint32_t ret;
    uint64_t sizer;
};

struct gt_uk_version_check {
    union gt_uk_header header;
    uint16_t major, minor;
    uint32_t pad;
};

struct gt_uk_set_flags {
    union gt_uk_header header;
    uint32_t create_flags;
    uint32_t pad;
};

#define GT_UK_GPUPROPS_SIZE 536
struct gt_uk_gpuprops {
    union gt_uk_header header;
    uint8_t props[GT_UK_GPUPROPS_SIZE - 8];   /* fixed struct, offsets below */
};
/* Absolute offsets inside struct gt_uk_gpuprops. */
#define GT_UK_PROPS_L2_NUM_SLICES   58    /* u8 */
#define GT_UK_PROPS_L2_FEATURES     136   /* u32 */
#define GT_UK_PROPS_GPU_ID          240   /* u32 */
#define GT_UK_PROPS_NUM_CORE_GROUPS 268   /* u32 */
#define GT_UK_PROPS_CORE_MASK(i)    (280 + 16 * (i))  /* u64, i < 16 */

struct gt_uk_hwcnt_reader_setup {
    union gt_uk_header header;
    uint32_t buffer_count, jm_bm, shader_bm, tiler_bm, mmu_l2_bm;
    int32_t fd;             /* out */
};

#define GT_UK_FUNC_VERSION_CHECK 0
#define GT_UK_FUNC_SET_FLAGS     530
#define GT_UK_FUNC_GPU_PROPS     526
#define GT_UK_FUNC_HWCNT_READER_SETUP 548
#define GT_UK_IOCTL(func, size) \
    ((unsigned long)((3u << 30) | ((unsigned)(size) << 16) | (0x80u << 8)) + (unsigned)(func))
#define GT_UK_IOCTL_VERSION_CHECK \
    GT_UK_IOCTL(GT_UK_FUNC_VERSION_CHECK, sizeof(struct gt_uk_version_check))
#define GT_UK_IOCTL_SET_FLAGS GT_UK_IOCTL(GT_UK_FUNC_SET_FLAGS, sizeof(struct gt_uk_set_flags))
#define GT_UK_IOCTL_GPU_PROPS GT_UK_IOCTL(GT_UK_FUNC_GPU_PROPS, sizeof(struct gt_uk_gpuprops))
#define GT_UK_IOCTL_HWCNT_READER_SETUP \
    GT_UK_IOCTL(GT_UK_FUNC_HWCNT_READER_SETUP, sizeof(struct gt_uk_hwcnt_reader_setup))

/* ---- GET_GPUPROPS buffer: packed (u32 key, value) pairs, key =
 * (prop id << 2) | size code (0 u8, 1 u16, 2 u32, 3 u64) ---- */
enum {
    GT_KBASE_PROP_PRODUCT_ID = 1,
    GT_KBASE_PROP_MINOR_REVISION = 3,
    GT_KBASE_PROP_MAJOR_REVISION = 4,
    GT_KBASE_PROP_GPU_FREQ_KHZ_MAX = 6,
    GT_KBASE_PROP_L2_LOG2_CACHE_SIZE = 14,
    GT_KBASE_PROP_L2_NUM_L2_SLICES = 15,
    GT_KBASE_PROP_RAW_SHADER_PRESENT = 25,
    GT_KBASE_PROP_RAW_L2_PRESENT = 27,
    GT_KBASE_PROP_RAW_L2_FEATURES = 29,
    GT_KBASE_PROP_RAW_CORE_FEATURES = 30,
    GT_KBASE_PROP_RAW_GPU_ID = 55,
    GT_KBASE_PROP_RAW_THREAD_FEATURES = 59,
    GT_KBASE_PROP_COHERENCY_NUM_GROUPS = 61,
    GT_KBASE_PROP_COHERENCY_NUM_CORE_GROUPS = 62,
    GT_KBASE_PROP_COHERENCY_GROUP_0 = 64,     /* .. 79: u64 core masks */
    GT_KBASE_PROP_NUM_EXEC_ENGINES = 82,
};

/* ---- legacy hardware-counter reader fd ("vinstr"), magic 0xBE ---- */

struct gt_kbase_hwcnt_reader_metadata {
    uint64_t timestamp;     /* ns, end of the interval */
    uint32_t event_id;
    uint32_t buffer_idx;
};

struct gt_kbase_hwcnt_reader_metadata_cycles {
    struct gt_kbase_hwcnt_reader_metadata md;
    uint64_t top;           /* GPU top-level clock cycles in the interval */
    uint64_t shader_cores;
};

struct gt_kbase_hwcnt_reader_api_version {
    uint32_t version;
    uint32_t features;      /* bit 0: top cycles, bit 1: shader-core cycles */
};
#define GT_KBASE_HWCNT_FEATURE_CYCLES_TOP    (1u << 0)
#define GT_KBASE_HWCNT_FEATURE_CYCLES_SHADER (1u << 1)

#define GT_KBASE_HWCNT_READER_GET_HWVER       _IOR(0xBE, 0x00, uint32_t)
#define GT_KBASE_HWCNT_READER_GET_BUFFER_SIZE _IOR(0xBE, 0x01, uint32_t)
#define GT_KBASE_HWCNT_READER_DUMP            _IOW(0xBE, 0x10, uint32_t)
#define GT_KBASE_HWCNT_READER_CLEAR           _IOW(0xBE, 0x11, uint32_t)
#define GT_KBASE_HWCNT_READER_GET_BUFFER \
    _IOR(0xBE, 0x20, struct gt_kbase_hwcnt_reader_metadata)
#define GT_KBASE_HWCNT_READER_GET_BUFFER_WITH_CYCLES \
    _IOR(0xBE, 0x20, struct gt_kbase_hwcnt_reader_metadata_cycles)
#define GT_KBASE_HWCNT_READER_PUT_BUFFER \
    _IOW(0xBE, 0x21, struct gt_kbase_hwcnt_reader_metadata)
#define GT_KBASE_HWCNT_READER_PUT_BUFFER_WITH_CYCLES \
    _IOW(0xBE, 0x21, struct gt_kbase_hwcnt_reader_metadata_cycles)
#define GT_KBASE_HWCNT_READER_SET_INTERVAL    _IOW(0xBE, 0x30, uint32_t)
#define GT_KBASE_HWCNT_READER_GET_API_VERSION _IOW(0xBE, 0xFF, uint32_t)
#define GT_KBASE_HWCNT_READER_GET_API_VERSION_WITH_FEATURES \
    _IOW(0xBE, 0xFF, struct gt_kbase_hwcnt_reader_api_version)

/* Values per block in a legacy dump (u32 each); blocks in the v5 order
 * FE, tiler, memsys x L2 slices, shader x (highest present core + 1). */
#define GT_KBASE_LEGACY_VALUES_PER_BLOCK 64

/* ---- kinstr_prfcnt ---- */

enum {
    GT_PRFCNT_BLOCK_FE = 0,
    GT_PRFCNT_BLOCK_TILER = 1,
    GT_PRFCNT_BLOCK_MEMORY = 2,
    GT_PRFCNT_BLOCK_SHADER_CORE = 3,
    GT_PRFCNT_BLOCK_FW = 4,
    GT_PRFCNT_BLOCK_CSG = 5,
};

/* item_type = (list type << 12) | subtype */
enum {
    GT_PRFCNT_ITEM_NONE = 0x0000,          /* sentinel */
    GT_PRFCNT_ENUM_BLOCK = 0x0000,
    GT_PRFCNT_ENUM_REQUEST = 0x0001,
    GT_PRFCNT_ENUM_SAMPLE_INFO = 0x0002,
    GT_PRFCNT_REQUEST_MODE = 0x1000,
    GT_PRFCNT_REQUEST_ENABLE = 0x1001,
    GT_PRFCNT_REQUEST_SCOPE = 0x1002,
    GT_PRFCNT_SAMPLE_META = 0x2000,
    GT_PRFCNT_SAMPLE_CLOCK = 0x2001,
    GT_PRFCNT_SAMPLE_BLOCK = 0x2002,
};

enum { GT_PRFCNT_MODE_MANUAL = 0, GT_PRFCNT_MODE_PERIODIC = 1 };

struct gt_prfcnt_enum_item {
    uint16_t item_type, item_version;
    uint32_t pad;
    union {
        struct {
            uint8_t block_type, set;
            uint8_t pad[2];
            uint16_t num_instances, num_values;
            uint64_t counter_mask[2];
        } block;
        struct {
            uint16_t request_item_type;
            uint16_t pad;
            uint32_t versions_mask;
        } request;
        struct {
            uint32_t num_clock_domains;
        } sample_info;
    } u;
};

struct gt_prfcnt_request_item {
    uint16_t item_type, item_version;
    uint32_t pad;
    union {
        struct {
            uint8_t mode;
            uint8_t pad[7];
            uint64_t period_ns;
        } mode;
        struct {
            uint8_t block_type, set;
            uint8_t pad[6];
            uint64_t enable_mask[2];
        } enable;
        struct {
            uint8_t scope;
            uint8_t pad[15];
        } scope;
    } u;
};

#define GT_PRFCNT_SAMPLE_FLAG_OVERFLOW (1u << 0)
#define GT_PRFCNT_SAMPLE_FLAG_ERROR    (1u << 30)

#define GT_PRFCNT_BLOCK_STATE_ON          (1u << 0)
#define GT_PRFCNT_BLOCK_STATE_OFF         (1u << 1)
#define GT_PRFCNT_BLOCK_STATE_AVAILABLE   (1u << 2)
#define GT_PRFCNT_BLOCK_STATE_UNAVAILABLE (1u << 3)
#define GT_PRFCNT_BLOCK_STATE_NORMAL      (1u << 4)
#define GT_PRFCNT_BLOCK_STATE_PROTECTED   (1u << 5)

struct gt_prfcnt_metadata_item {
    uint16_t item_type, item_version;
    uint32_t pad;
    union {
        struct {
            uint64_t timestamp_start, timestamp_end, seq, user_data;
            uint32_t flags;
            uint32_t pad;
        } sample;
        struct {
            uint32_t num_domains;
            uint32_t pad;
            uint64_t cycles[4];
        } clock;
        struct {
            uint8_t block_type, block_idx, set, pad;
            uint32_t block_state;
            uint32_t values_offset;   /* bytes from the mmap base */
            uint32_t pad2;
        } block;
    } u;
};

enum {
    GT_PRFCNT_CMD_START = 1,
    GT_PRFCNT_CMD_STOP = 2,
    GT_PRFCNT_CMD_SAMPLE_SYNC = 3,
    GT_PRFCNT_CMD_DISCARD = 5,
};

struct gt_prfcnt_control_cmd {
    uint16_t cmd;
    uint16_t pad[3];
    uint64_t user_data;
};

struct gt_prfcnt_sample_access {
    uint64_t sequence;
    uint64_t sample_offset_bytes;
};

#define GT_KINSTR_PRFCNT_CMD        _IOW(0xBF, 0x00, struct gt_prfcnt_control_cmd)
#define GT_KINSTR_PRFCNT_GET_SAMPLE _IOR(0xBF, 0x01, struct gt_prfcnt_sample_access)
#define GT_KINSTR_PRFCNT_PUT_SAMPLE _IOW(0xBF, 0x10, struct gt_prfcnt_sample_access)

/* The kernel keeps 32 sample buffers, one held back for STOP. */
#define GT_PRFCNT_RING_SAMPLES 32

/* ---- the numbers and sizes the kernel headers give ---- */
_Static_assert(sizeof(struct gt_kbase_version_check) == 4, "version_check");
_Static_assert(sizeof(struct gt_kbase_get_gpuprops) == 16, "get_gpuprops");
_Static_assert(sizeof(struct gt_kbase_hwcnt_reader_setup) == 20, "hwcnt_reader_setup");
_Static_assert(sizeof(struct gt_kbase_kinstr_prfcnt_enum_info) == 16, "enum_info");
_Static_assert(sizeof(union gt_kbase_kinstr_prfcnt_setup) == 16, "prfcnt_setup");
_Static_assert(GT_KBASE_IOCTL_VERSION_CHECK_JM == 0xC0048000u, "VERSION_CHECK");
_Static_assert(GT_KBASE_IOCTL_VERSION_CHECK_CSF == 0xC0048034u, "VERSION_CHECK csf");
_Static_assert(GT_KBASE_IOCTL_SET_FLAGS == 0x40048001u, "SET_FLAGS");
_Static_assert(GT_KBASE_IOCTL_GET_GPUPROPS == 0x40108003u, "GET_GPUPROPS");
_Static_assert(GT_KBASE_IOCTL_HWCNT_READER_SETUP == 0x40148008u, "HWCNT_READER_SETUP");
_Static_assert(GT_KBASE_IOCTL_KINSTR_PRFCNT_ENUM_INFO == 0xC0108038u, "ENUM_INFO");
_Static_assert(GT_KBASE_IOCTL_KINSTR_PRFCNT_SETUP == 0xC0108039u, "SETUP");
_Static_assert(sizeof(struct gt_uk_version_check) == 16, "uk version_check");
_Static_assert(sizeof(struct gt_uk_set_flags) == 16, "uk set_flags");
_Static_assert(sizeof(struct gt_uk_gpuprops) == 536, "uk gpuprops");
_Static_assert(sizeof(struct gt_uk_hwcnt_reader_setup) == 32, "uk hwcnt_reader_setup");
_Static_assert(GT_UK_IOCTL_VERSION_CHECK == 0xC0108000u, "uk VERSION_CHECK");
_Static_assert(GT_UK_IOCTL_SET_FLAGS == 0xC0108212u, "uk SET_FLAGS");
_Static_assert(GT_UK_IOCTL_GPU_PROPS == 0xC218820Eu, "uk GPU_PROPS");
_Static_assert(GT_UK_IOCTL_HWCNT_READER_SETUP == 0xC0208224u, "uk HWCNT_READER_SETUP");
_Static_assert(GT_KBASE_HWCNT_READER_GET_HWVER == 0x8004BE00u, "GET_HWVER");
_Static_assert(GT_KBASE_HWCNT_READER_GET_BUFFER_SIZE == 0x8004BE01u, "GET_BUFFER_SIZE");
_Static_assert(GT_KBASE_HWCNT_READER_DUMP == 0x4004BE10u, "DUMP");
_Static_assert(GT_KBASE_HWCNT_READER_CLEAR == 0x4004BE11u, "CLEAR");
_Static_assert(GT_KBASE_HWCNT_READER_GET_BUFFER == 0x8010BE20u, "GET_BUFFER");
_Static_assert(GT_KBASE_HWCNT_READER_GET_BUFFER_WITH_CYCLES == 0x8020BE20u, "GET_BUFFER cyc");
_Static_assert(GT_KBASE_HWCNT_READER_PUT_BUFFER == 0x4010BE21u, "PUT_BUFFER");
_Static_assert(GT_KBASE_HWCNT_READER_PUT_BUFFER_WITH_CYCLES == 0x4020BE21u, "PUT_BUFFER cyc");
_Static_assert(GT_KBASE_HWCNT_READER_SET_INTERVAL == 0x4004BE30u, "SET_INTERVAL");
_Static_assert(GT_KBASE_HWCNT_READER_GET_API_VERSION == 0x4004BEFFu, "GET_API_VERSION");
_Static_assert(GT_KBASE_HWCNT_READER_GET_API_VERSION_WITH_FEATURES == 0x4008BEFFu,
               "GET_API_VERSION_WITH_FEATURES");
_Static_assert(sizeof(struct gt_prfcnt_enum_item) == 32, "enum item");
_Static_assert(offsetof(struct gt_prfcnt_enum_item, u.block.num_values) == 14, "num_values");
_Static_assert(offsetof(struct gt_prfcnt_enum_item, u.block.counter_mask) == 16, "mask");
_Static_assert(sizeof(struct gt_prfcnt_request_item) == 32, "request item");
_Static_assert(offsetof(struct gt_prfcnt_request_item, u.mode.period_ns) == 16, "period");
_Static_assert(offsetof(struct gt_prfcnt_request_item, u.enable.enable_mask) == 16, "enable");
_Static_assert(sizeof(struct gt_prfcnt_metadata_item) == 48, "metadata item");
_Static_assert(offsetof(struct gt_prfcnt_metadata_item, u.sample.flags) == 40, "flags");
_Static_assert(offsetof(struct gt_prfcnt_metadata_item, u.clock.cycles) == 16, "cycles");
_Static_assert(offsetof(struct gt_prfcnt_metadata_item, u.block.block_state) == 12, "state");
_Static_assert(offsetof(struct gt_prfcnt_metadata_item, u.block.values_offset) == 16, "offset");
_Static_assert(sizeof(struct gt_prfcnt_control_cmd) == 16, "control cmd");
_Static_assert(sizeof(struct gt_prfcnt_sample_access) == 16, "sample access");
_Static_assert(GT_KINSTR_PRFCNT_CMD == 0x4010BF00u, "CMD");
_Static_assert(GT_KINSTR_PRFCNT_GET_SAMPLE == 0x8010BF01u, "GET_SAMPLE");
_Static_assert(GT_KINSTR_PRFCNT_PUT_SAMPLE == 0x4010BF10u, "PUT_SAMPLE");

#endif
