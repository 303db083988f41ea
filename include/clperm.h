/*
 * clperm: random permutations, conflict-free local-memory data movement and subgroup-shared
 * random number generators for every OpenCL device.
 *
 * This header is the manual. Conventions that hold for every function below:
 *
 * - Every function returns a clperm_status: 0 (CLPERM_SUCCESS) on success, an OpenCL error code
 *   (negative cl_int, passed through unchanged) when the OpenCL runtime failed, or one of the
 *   library's own codes (-1000 and below). clperm_status_name() and clperm_status_string() turn
 *   any of them into text.
 * - The library never prints, aborts or exits. When a program fails to build, the compiler's log
 *   is kept in the context: clperm_ctx_build_log().
 * - Arguments are checked before anything is enqueued. A call that fails enqueues nothing and
 *   writes nothing to the caller's buffers or output pointers.
 * - Device operations are asynchronous: they enqueue kernels on the context's command queue and
 *   return. Each takes an event wait list (num_events, events), as clEnqueueNDRangeKernel does,
 *   and can return an event for its completion through `event` (NULL if not wanted); the caller
 *   owns a returned event and releases it with clReleaseEvent(). No operation waits for the
 *   queue, so a wait list may hold user events, or events of other queues of the same
 *   cl_context, that complete only after the call returns (the diagnostic *_conflicts functions
 *   excepted: they read their trace back).
 * - Thread safety: a context may be used from several threads at once; operations on one context
 *   are serialised internally. Freeing a context while another thread uses it is an error of the
 *   caller's.
 * - Sizes are 64-bit counts of items, not bytes.
 */
#ifndef CLPERM_H
#define CLPERM_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <stddef.h>
#include <stdint.h>

#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif

#include "clperm_features.h"
#include "clperm_bijection.h"
#include "clperm_version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(CLPERM_SHARED_BUILD)
#define CLPERM_API __declspec(dllexport)
#elif defined(__GNUC__)
#define CLPERM_API __attribute__((visibility("default")))
#else
#define CLPERM_API
#endif

/* ---------------------------------------------------------------------------------------------
 * Status codes. The values are pinned: a code keeps its number in every later version.
 * ------------------------------------------------------------------------------------------- */

/* X(name, value, message) */
#define CLPERM_STATUS_MAP(X)                                                                       \
    X(SUCCESS, 0, "success")                                                                       \
    X(ERROR_INVALID_ARGUMENT, -1000, "invalid argument")                                           \
    X(ERROR_INVALID_CONTEXT, -1001, "context handle is NULL or has been freed")                    \
    X(ERROR_OUT_OF_HOST_MEMORY, -1002, "out of host memory")                                       \
    X(ERROR_NO_DEVICE, -1003, "no OpenCL device found")                                            \
    X(ERROR_DEVICE_NOT_FOUND, -1004, "no OpenCL device matches the selector (CLPERM_DEVICE)")      \
    X(ERROR_INVALID_BUFFER, -1005, "buffer is NULL or not a valid OpenCL buffer")                  \
    X(ERROR_BUFFER_TOO_SMALL, -1006, "buffer is smaller than n items")                             \
    X(ERROR_BUFFER_CONTEXT, -1007, "buffer belongs to another OpenCL context")                     \
    X(ERROR_BUFFER_READ_ONLY, -1008, "output buffer was created read-only")                        \
    X(ERROR_SIZE_OVERFLOW, -1009, "size overflows the device's address range")                     \
    X(ERROR_INVALID_TYPE, -1010, "unsupported element type for this operation")                    \
    X(ERROR_INVALID_PARAM, -1011, "unknown parameter")                                             \
    X(ERROR_PARAM_OUT_OF_BOUNDS, -1012, "parameter value out of bounds")                           \
    X(ERROR_UNSUPPORTED, -1013, "not supported by this device")                                    \
    X(ERROR_BUILD_FAILED, -1014, "kernel program failed to build (see clperm_ctx_build_log)")      \
    X(ERROR_QUEUE_OUT_OF_ORDER, -1015, "command queue is out-of-order; clperm needs an in-order queue") \
    X(ERROR_INVALID_EVENT_LIST, -1016, "event wait list is inconsistent with its length or holds another context's event")               \
    X(ERROR_INTERNAL, -1017, "a limit inside the library was exceeded (please report it)")             \
    X(ERROR_BUFFER_OVERLAP, -1018, "buffers that must be distinct share memory")                       \
    X(ERROR_DIST_MISMATCH, -1019, "ranks disagree on arguments that must match, or their blocks do not add up to n") \
    X(ERROR_MPI, -1020, "an MPI call failed")                                                          \
    X(ERROR_NOT_PERMUTATION, -1021, "index array is not a permutation of 0..n-1 (an index repeats or is out of range)") \
    X(ERROR_TUNING_FILE, -1022, "tuning file unreadable, malformed, out of bounds or without an entry for this device")

typedef enum clperm_status_code {
#define CLPERM_X_ENUM(name, value, msg) CLPERM_##name = value,
    CLPERM_STATUS_MAP(CLPERM_X_ENUM)
#undef CLPERM_X_ENUM
} clperm_status_code;

typedef int clperm_status;

/* "CLPERM_ERROR_BUFFER_TOO_SMALL", "CL_OUT_OF_RESOURCES", ... or "CLPERM_UNKNOWN_STATUS".
 * Never NULL; the string is static. */
CLPERM_API const char *clperm_status_name(clperm_status status);
/* A one-line English description of the status. Never NULL; the string is static. */
CLPERM_API const char *clperm_status_string(clperm_status status);

/* The library version as "MAJOR.MINOR.PATCH" (also CLPERM_VERSION_STRING at compile time). */
CLPERM_API const char *clperm_version(void);

/* ---------------------------------------------------------------------------------------------
 * Contexts
 * ------------------------------------------------------------------------------------------- */

typedef struct clperm_ctx clperm_ctx;

/* Wraps the application's own OpenCL objects. The context, device and queue are retained (and
 * released by clperm_ctx_free), never owned. The queue must belong to `context` and `device` and
 * be in-order. Writes the new context to *out on success only. The first context on a device in
 * a process builds and runs a small probe kernel (clperm_profile.loop_limit) on a queue of its
 * own in `context`, never on the caller's queue; its failure is returned. */
CLPERM_API clperm_status clperm_ctx_create(clperm_ctx **out, cl_context context, cl_device_id device,
                                           cl_command_queue queue);

/* Creates its own OpenCL context and in-order queue (with profiling enabled) on the default
 * device: the one named by the environment variable CLPERM_DEVICE if set (see
 * clperm_ctx_create_device), else the first GPU of any platform, else the first CPU device, else
 * the first device of any type. */
CLPERM_API clperm_status clperm_ctx_create_default(clperm_ctx **out);

/* Creates its own OpenCL context and queue on the device chosen by `selector`:
 *   "3"                  the fourth device in the order of `clperm devices` (all platforms,
 *                        platform order, then device order; clperm_device_count());
 *   "NVIDIA" / "pthread" the first device whose platform or device name contains the text
 *                        (case-insensitive);
 *   "Portable:pthread"   platform name contains the part before ':', device name the part after.
 * Returns CLPERM_ERROR_DEVICE_NOT_FOUND when nothing matches. */
CLPERM_API clperm_status clperm_ctx_create_device(clperm_ctx **out, const char *selector);

/* Number of OpenCL devices on all platforms (0 is not an error). */
CLPERM_API clperm_status clperm_device_count(size_t *count);

/* Releases everything the context holds (programs, scratch buffers, retained OpenCL objects) after
 * the commands it enqueued have finished. NULL is a no-op. */
CLPERM_API void clperm_ctx_free(clperm_ctx *ctx);

/* Gives back the device memory of n items that a context keeps between calls (the bucket shuffle's
 * buffer, CLPERM_COUNTER_SCRATCH_BYTES); the next call that needs it allocates it again. Safe
 * while commands are queued: OpenCL frees the memory once they finish. */
CLPERM_API clperm_status clperm_ctx_release_scratch(clperm_ctx *ctx);

/* The OpenCL objects the context works with (not retained for the caller). NULL for an invalid
 * context. */
CLPERM_API cl_context clperm_ctx_cl_context(const clperm_ctx *ctx);
CLPERM_API cl_device_id clperm_ctx_cl_device(const clperm_ctx *ctx);
CLPERM_API cl_command_queue clperm_ctx_cl_queue(const clperm_ctx *ctx);

/* The compiler log of the last program build that failed in this context (empty if none). The
 * string belongs to the context and stays valid until the next failed build or clperm_ctx_free. */
CLPERM_API const char *clperm_ctx_build_log(const clperm_ctx *ctx);

/* ---------------------------------------------------------------------------------------------
 * Device profile: what the context decided about its device, once, at creation.
 * ------------------------------------------------------------------------------------------- */

typedef enum clperm_vendor {
    CLPERM_VENDOR_OTHER = 0,
    CLPERM_VENDOR_NVIDIA = 1,
    CLPERM_VENDOR_AMD = 2,
    CLPERM_VENDOR_INTEL = 3,
    CLPERM_VENDOR_POCL = 4,
    CLPERM_VENDOR_OCLGRIND = 5
} clperm_vendor;

/* How the subgroup width was found. */
typedef enum clperm_sg_source {
    CLPERM_SG_SOURCE_EMULATED = 0, /* no hardware subgroups: emulated in local memory   */
    CLPERM_SG_SOURCE_KHR = 1,      /* cl_khr_subgroups, clGetKernelSubGroupInfo           */
    CLPERM_SG_SOURCE_INTEL = 2,    /* CL_DEVICE_SUB_GROUP_SIZES_INTEL                      */
    CLPERM_SG_SOURCE_NV = 3,       /* CL_DEVICE_WARP_SIZE_NV                               */
    CLPERM_SG_SOURCE_AMD = 4,      /* CL_DEVICE_WAVEFRONT_WIDTH_AMD                        */
    CLPERM_SG_SOURCE_ENV = 5,      /* CLPERM_SUBGROUP_WIDTH environment variable           */
    CLPERM_SG_SOURCE_PARAM = 6     /* set with clperm_ctx_set_param                        */
} clperm_sg_source;

/* How kernels implement subgroup operations (broadcast, shuffle, scan, reduce, vote). */
typedef enum clperm_sg_impl {
    CLPERM_SG_IMPL_LOCAL = CLPERM_SG_USE_LOCAL, /* local memory and work-group barriers: everywhere */
    CLPERM_SG_IMPL_KHR = CLPERM_SG_USE_KHR,     /* subgroup built-ins (cl_khr_subgroups, 2.x+)     */
    CLPERM_SG_IMPL_PTX = CLPERM_SG_USE_PTX      /* NVIDIA inline PTX: shfl.sync, vote.sync          */
} clperm_sg_impl;

typedef struct clperm_profile {
    char platform_name[128];
    char platform_version[128];
    char device_name[128];
    char device_version[128];
    char driver_version[128];
    char opencl_c_version[64];
    clperm_vendor vendor;
    cl_device_type device_type;
    cl_uint compute_units;
    cl_ulong global_mem_bytes;
    cl_ulong max_alloc_bytes;
    cl_ulong local_mem_bytes;
    size_t max_work_group_size;
    cl_uint banks;               /* local memory banks assumed for conflict-free layouts      */
    int forward_progress;        /* 1: started work-groups run to completion concurrently (a
                                  * look-back's wait never ends in its fallback); 0: unknown */
    cl_uint sg_width;            /* subgroup width kernels are built for                      */
    clperm_sg_source sg_source;  /* how sg_width was found                                    */
    clperm_sg_impl sg_impl;      /* the implementation chosen                                 */
    unsigned sg_impls_available; /* bit (1 << impl) for every clperm_sg_impl the device runs  */
    int sg_verified;             /* 1 once a built kernel confirmed sg_width                  */
    cl_uint loop_limit;          /* 0, or the iterations after which the device ends a kernel's
                                  * loops, all counted together, without an error (found by a
                                  * probe: Mesa's llvmpipe, 65535). There clperm runs no kernel
                                  * whose loops could reach it: docs/devices.md              */
    int atomics64;               /* 1: 64-bit global atomics (cl_khr_int64_base_atomics)       */
    cl_uint local_report_scale;  /* the device's CL_KERNEL_LOCAL_MEM_SIZE over what a kernel
                                  * declares (a probe: Rusticl on llvmpipe reports 2x); 1     */
    int sg_lockstep;             /* 1: the runtime's subgroup built-ins wait for the whole
                                  * work-group, so one subgroup may not call them alone (PoCL's
                                  * CPU drivers: docs/devices.md); the look-back then walks
                                  * with one work-item                                        */
    cl_uint registers_per_block; /* NVIDIA: the registers a work-group may hold
                                  * (CL_DEVICE_REGISTERS_PER_BLOCK_NV); 0 elsewhere          */
    cl_ulong cache_bytes;        /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (0: not reported)        */
} clperm_profile;

/* Copies the context's device profile into *out. */
CLPERM_API clperm_status clperm_ctx_profile(const clperm_ctx *ctx, clperm_profile *out);

/* Names for the enums above ("NVIDIA", "khr", "ptx", ...). Never NULL ("other", "unknown"). */
CLPERM_API const char *clperm_vendor_name(clperm_vendor vendor);
CLPERM_API const char *clperm_sg_source_name(clperm_sg_source source);
CLPERM_API const char *clperm_sg_impl_name(clperm_sg_impl impl);

/* ---------------------------------------------------------------------------------------------
 * Tunables: an enum and an int. 0 means "choose for this device"; clperm_ctx_get_param returns
 * the value actually used. Setting a parameter affects later calls on the context only.
 * ------------------------------------------------------------------------------------------- */

/* Kernel kinds, the values of CLPERM_PARAM_*_KERNEL. */
typedef enum clperm_kernel_kind {
    CLPERM_KERNEL_WORK_GROUP = 1, /* tiles of work-groups through the subgroup layer (GPUs)   */
    CLPERM_KERNEL_SERIAL = 2      /* one work-item per tile, no barriers (CPUs)                */
} clperm_kernel_kind;

/* Shuffle kernel fusion (Section 6 of the shuffling paper), the values of
 * CLPERM_PARAM_SHUFFLE_FUSION; the permutation is the same at every level. */
typedef enum clperm_shuffle_fusion {
    CLPERM_FUSION_SEPARATE = 1, /* Bijective0: separate passes with O(n) temporaries           */
    CLPERM_FUSION_TWO_PASS = 2, /* Bijective1: fused, with a two-pass scan                     */
    CLPERM_FUSION_LOOKBACK = 3  /* Bijective2: fused single pass with decoupled look-back      */
} clperm_shuffle_fusion;

/* Kernel kinds of the regular offline permutations, the values of CLPERM_PARAM_PERMUTE_KERNEL. */
typedef enum clperm_permute_kernel {
    CLPERM_PERMUTE_KERNEL_LOCAL = 1,  /* 32 x 32 tiles through local memory, conflict-free (GPUs) */
    CLPERM_PERMUTE_KERNEL_BLOCKED = 2, /* the same tiles straight from src to dst, a work-item an
                                          item; the shuffles one work-item per item            */
    CLPERM_PERMUTE_KERNEL_SERIAL = 3   /* one work-item moves a run of tiles through a private
                                          buffer, whole runs at a time (CPUs)                   */
} clperm_permute_kernel;

/* Names of the enums of this header, for messages and command lines: "work-group", "serial";
 * "bijective0", "bijective1", "bijective2" (the paper's names). Like every clperm_*_name function
 * below: a static string, or NULL for a value the enum does not have. */
CLPERM_API const char *clperm_kernel_kind_name(clperm_kernel_kind kind);
CLPERM_API const char *clperm_shuffle_fusion_name(clperm_shuffle_fusion fusion);

/* Flags of CLPERM_PARAM_MAP's entries. */
#define CLPERM_PARAM_POW2 1    /* values must be powers of two                               */
#define CLPERM_PARAM_WG 2      /* values above the device's work-group limit are unsupported */
#define CLPERM_PARAM_NO_AUTO 4 /* 0 is a value, not "auto"                                   */
#define CLPERM_PARAM_SG_MULTIPLE 8 /* device tunables: 0 or a multiple of the subgroup width */
#define CLPERM_PARAM_REGISTERS 16  /* device tunables: a register cap per work-item, 0 for none  */

/* The tunables, one line each: X(NAME, enum value (pinned), lowest, highest, flags, name for the
 * command line and clperm_param_name). What they mean:
 *   SCAN_ALGORITHM   1 reduce-then-scan (three passes), 2 single pass with decoupled look-back
 *                    (the default where loops are not capped, clperm_profile.loop_limit: a wait
 *                    for an earlier tile is bounded, then the waiting work-group computes that
 *                    tile's sum itself, so no device's scheduling can hang it).
 *   SG_IMPL          a clperm_sg_impl the device can run (CLPERM_ERROR_UNSUPPORTED if not).
 *   SG_WIDTH         subgroup width (the hardware's width for the khr and ptx implementations).
 *   SCAN_WG_SIZE     work-group size of the scan's work-group kernels.
 *   SCAN_ITEMS       items each work-item scans per tile (the work-group kernels keep at most 64
 *                    in registers; the serial kernels scan that many in a loop).
 *   DISK_CACHE       on-disk program cache: 1 on (the default unless CLPERM_CACHE_DIR is "off"),
 *                    0 off: the one parameter where 0 is a value rather than "auto".
 *   SCAN_KERNEL      a clperm_kernel_kind for the scan.
 *   SHUFFLE_FUSION   a clperm_shuffle_fusion.
 *   SHUFFLE_KERNEL   a clperm_kernel_kind for the shuffle.
 *   SHUFFLE_WG_SIZE  work-group size of the shuffle's work-group kernels.
 *   SHUFFLE_ITEMS    domain indices per work-item per tile (the work-group kernels use at most 32;
 *                    the serial kernels take that many per tile).
 *   SORT_WIDTH       tile sorts: the widest tile (the model's w: banks and work-items); auto: up
 *                    to the device's local-memory banks, shaped by the device's table (NVIDIA:
 *                    m >= 4w). Set: the widest w up to the value with w <= m (for
 *                    CLPERM_TILE_SORT_AS_WIDE a cap on w, which there follows from m, a power of
 *                    four <= w).
 *   SORT_TILES       tile sorts: tiles per work-group; auto: enough tiles of w work-items to fill
 *                    32 lanes (it depends on the tile, so clperm_ctx_get_param returns 0;
 *                    clperm_sort_tile_shape reports the count used).
 *   RNG_KERNEL       generator fills: a clperm_kernel_kind (work-group: k work-items share each
 *                    generator in local memory; serial: one work-item per generator, its state
 *                    in private memory). Both give the same items.
 *   SORT_ALGORITHM   device-wide sort (clperm_sort): 1 reduce-then-scan passes (a count, a scan
 *                    of the counts and a scatter per digit; any device), 2 Onesweep (one
 *                    histogram of every digit, then one pass per digit with decoupled look-back,
 *                    its waits bounded as the scan's; the default where loops are not capped and
 *                    the 64-bit look-back words are read whole: NVIDIA, or 64-bit atomics,
 *                    clperm_profile.atomics64; elsewhere CLPERM_ERROR_UNSUPPORTED), 3 a counting
 *                    sort for the keys it takes: 8- and 16-bit keys alone (no values, no argsort)
 *                    ordered by every bit, whose sorted order is each value's count of copies
 *                    (a count of every value, a scan, the keys written back: no temp buffer);
 *                    other jobs run the default of 1 and 2. Auto: 3 for those keys from 64
 *                    keys a value on (2^14 8-bit keys, 2^22 16-bit keys; its fixed work grows
 *                    with the values) where the device can run it, else as 2 and 1 say.
 *                    clperm_ctx_get_param reports the algorithm of u32 keys unless 3 is set.
 *                    The same keys under every algorithm.
 *   SORT_KERNEL      a clperm_kernel_kind for the device-wide sort (serial: one work-item per
 *                    block of keys, private counters; Onesweep runs work-group kernels only).
 *   SORT_RANK        how a work-group kernel ranks its tile's keys by digit: 1 subgroup votes
 *                    (one ballot per digit bit gives the lanes of equal digit; per-subgroup
 *                    counters), 2 NVIDIA's match.any instead of the ballots (inline PTX;
 *                    CLPERM_ERROR_UNSUPPORTED elsewhere), 3 the tile sorts' stable partition
 *                    (clperm_partition_segments, Afshani and Sitchinava's w-way partition) as a
 *                    step before the scatter (keys alone or with u32 values; docs/performance.md
 *                    has what it costs), 4 as 1 with the lanes of equal digit found by each
 *                    or-ing its bit into a local word per digit instead of the ballots
 *                    (subgroups of at most 32; NVIDIA's row, but for 16-byte values).
 *   SORT_DIGIT_BITS  bits per digit of the device-wide sort (auto: 8).
 *   SORT_WG_SIZE     work-group size of the device-wide sort's work-group kernels: a multiple
 *                    of the subgroup width (384 is allowed), else CLPERM_ERROR_UNSUPPORTED.
 *   SORT_ITEMS       keys per work-item per tile of the sort's work-group kernels (at most 32),
 *                    or keys per block of its serial kernels in units of 256 (auto: about eight
 *                    blocks per compute unit, at least 4096 keys; clperm_ctx_get_param reports
 *                    that least block, 16).
 *   PERMUTE_KERNEL   the regular offline permutations (transpose, bit-reversal, perfect shuffle):
 *                    a clperm_permute_kernel (local tiles in the diagonal arrangement, GPUs;
 *                    blocked, each work-group's tile straight from src to dst through the
 *                    caches; serial, work-items of one moving runs of tiles, CPUs). All give
 *                    the same items.
 *   PERMUTE_TILES    the local-tile transpose and bit-reversal: 32 x 32 tiles per work-group
 *                    (1, 2 or 4), all loaded before the group's one barrier (more bytes in
 *                    flight per work-group). Auto: the device's table by item size (4- or
 *                    8-byte items; 1 for 16-byte ones and where the table has no figure). Set or
 *                    not, it is halved until the tiles fit in the device's local memory (4 tiles
 *                    of 16-byte items need 64 KiB); clperm_ctx_get_param reports the count for
 *                    4-byte items. The blocked kernels and the perfect shuffle (1024 items per
 *                    work-group already) do not use it. The same items at every value.
 *   PERMUTE_WG_ROWS  the local-tile transpose and bit-reversal: rows of 32 work-items per
 *                    work-group (4, 8 or 16: work-groups of 128, 256 or 512), each work-item
 *                    moving 32 / rows items of every tile. Auto: the device's table (NVIDIA: 4
 *                    for the transpose of 4-byte items), else 8; halved while the work-group is
 *                    above the device's limit. clperm_ctx_get_param reports the value for the
 *                    transpose of 4-byte items. The same items at every value.
 *   SORT_REGS        NVIDIA: the most registers per work-item of the device-wide sort's
 *                    work-group kernels (-cl-nv-maxrregcount; they are then built without
 *                    their required work-group size, which ptxas would obey over the cap), so
 *                    that more work-groups fit each multiprocessor. Auto: the device's table by
 *                    class of job (NVIDIA: 64 for 32-bit keys alone, with their 512 x 20 tile),
 *                    else no cap; lowered to what a work-group may hold (the registers of a
 *                    block over its work-items in fours of warps). Ignored on other devices.
 *                    clperm_ctx_get_param reports the value for u32 keys alone (0: no cap).
 *                    The same keys at every value.
 *   SEGMENT_SORT     clperm_sort_segmented's short segments of 4-byte keys over all their bits
 *                    (up to 4096 keys alone, 2048 with values on 48 KiB of local memory):
 *                    1 the tile sorts (CLPERM_TILE_SORT_AUTO; stable), 2 a bitonic network held
 *                    in registers, work-items trading keys through subgroup shuffles and local
 *                    memory (keys alone: not stable, which keys alone cannot show; with values:
 *                    stable, a sort of (compressed key, place) words, its ties put in order
 *                    where they lie; keys tied in their high bits over a wide range take one
 *                    or two sorts more). Auto: 2 where the
 *                    device's table gives the network's keys per work-item (GPUs and other
 *                    devices but CPUs), else 1. The same keys and values at every value. */
#define CLPERM_PARAM_MAP(X)                                                                        \
    X(SCAN_ALGORITHM, 1, 1, 2, 0, "scan_algorithm")                                                \
    X(SG_IMPL, 2, 1, 3, 0, "sg_impl")                                                              \
    X(SG_WIDTH, 3, 1, 64, CLPERM_PARAM_POW2, "sg_width")                                           \
    X(SCAN_WG_SIZE, 4, 4, 1024, CLPERM_PARAM_POW2 | CLPERM_PARAM_WG, "scan_wg_size")               \
    X(SCAN_ITEMS, 5, 1, 65536, 0, "scan_items")                                                    \
    X(DISK_CACHE, 6, 0, 1, CLPERM_PARAM_NO_AUTO, "disk_cache")                                     \
    X(SCAN_KERNEL, 7, 1, 2, 0, "scan_kernel")                                                      \
    X(SHUFFLE_FUSION, 8, 1, 3, 0, "shuffle_fusion")                                                \
    X(SHUFFLE_KERNEL, 9, 1, 2, 0, "shuffle_kernel")                                                \
    X(SHUFFLE_WG_SIZE, 10, 4, 1024, CLPERM_PARAM_POW2 | CLPERM_PARAM_WG, "shuffle_wg_size")        \
    X(SHUFFLE_ITEMS, 11, 1, 65536, 0, "shuffle_items")                                             \
    X(SORT_WIDTH, 12, 1, 64, CLPERM_PARAM_POW2 | CLPERM_PARAM_WG, "sort_width")                    \
    X(SORT_TILES, 13, 1, 64, CLPERM_PARAM_POW2, "sort_tiles")                                      \
    X(RNG_KERNEL, 14, 1, 2, 0, "rng_kernel")                                                       \
    X(SORT_ALGORITHM, 15, 1, 3, 0, "sort_algorithm")                                               \
    X(SORT_KERNEL, 16, 1, 2, 0, "sort_kernel")                                                     \
    X(SORT_RANK, 17, CLPERM_RANK_VOTES, CLPERM_RANK_ORMASK, 0, "sort_rank")                     \
    X(SORT_DIGIT_BITS, 18, 1, 8, 0, "sort_digit_bits")                                             \
    X(SORT_WG_SIZE, 19, 32, 1024, CLPERM_PARAM_WG, "sort_wg_size")                                \
    X(SORT_ITEMS, 20, 1, 65536, 0, "sort_items")                                                   \
    X(PERMUTE_KERNEL, 21, 1, 3, 0, "permute_kernel")                                               \
    X(PERMUTE_TILES, 22, 1, 4, CLPERM_PARAM_POW2, "permute_tiles")                                \
    X(PERMUTE_WG_ROWS, 23, 4, 16, CLPERM_PARAM_POW2, "permute_wg_rows")                            \
    X(SORT_REGS, 24, 16, 255, 0, "sort_regs")                                                      \
    X(SEGMENT_SORT, 25, 1, 2, 0, "segment_sort")

typedef enum clperm_param {
#define CLPERM_X_ENUM(name, value, lo, hi, flags, text) CLPERM_PARAM_##name = value,
    CLPERM_PARAM_MAP(CLPERM_X_ENUM)
#undef CLPERM_X_ENUM
} clperm_param;

/* Sets a tunable: 0 means "choose for this device" (except CLPERM_PARAM_DISK_CACHE), else a
 * value within clperm_param_bounds and its flags. CLPERM_ERROR_INVALID_PARAM for an unknown
 * parameter, CLPERM_ERROR_PARAM_OUT_OF_BOUNDS for a value outside them,
 * CLPERM_ERROR_UNSUPPORTED where the device cannot run it. */
CLPERM_API clperm_status clperm_ctx_set_param(clperm_ctx *ctx, clperm_param param, int value);
/* The value used: the caller's setting, else the device's choice. */
CLPERM_API clperm_status clperm_ctx_get_param(const clperm_ctx *ctx, clperm_param param, int *value);
/* Accepted values of `param`, inclusive; 0 (auto) is always accepted as well. */
CLPERM_API clperm_status clperm_param_bounds(clperm_param param, int *lo, int *hi);
/* "scan_algorithm", ... for a parameter; NULL for an unknown one. */
CLPERM_API const char *clperm_param_name(clperm_param param);
/* The parameter called `name` (as clperm_param_name gives it); CLPERM_ERROR_INVALID_PARAM if
 * none is. */
CLPERM_API clperm_status clperm_param_from_name(const char *name, clperm_param *out);

/* ---------------------------------------------------------------------------------------------
 * Device tuning: the per-device values behind the parameters' "auto" (docs/tuning.md). Each
 * family of operations ("scan", "shuffle", "tile", "rng", "sort", "permute") lists its tunables.
 * A context takes them, later sources over earlier ones, from the defaults, the built-in rows for
 * its class of device (GPU, CPU, ...), for its vendor and for its device by name, and then a
 * tuning file as `clperm tune` writes it: the file named by the environment variable
 * CLPERM_TUNING_FILE ("off": none), else $XDG_CONFIG_HOME/clperm/tuning.json or
 * ~/.config/clperm/tuning.json where it exists. A file that cannot be read, is malformed, names an
 * unknown tunable or a value out of bounds, or has no entry for the device is ignored whole (with
 * a message under CLPERM_DEBUG). Parameters set with clperm_ctx_set_param still take precedence.
 * No value changes results: every operation gives the same bits at every setting.
 * ------------------------------------------------------------------------------------------- */

typedef struct clperm_tunable {
    const char *family;  /* "scan", ...                                      */
    const char *name;    /* "wg_size", ...                                   */
    const char *meaning; /* one line                                         */
    int lo, hi;          /* the values it takes, inclusive                   */
    int flags;           /* CLPERM_PARAM_POW2: 0 or a power of two;
                          * CLPERM_PARAM_SG_MULTIPLE: 0 or a multiple of the
                          * device's subgroup width (0 only where lo is 0);
                          * CLPERM_PARAM_REGISTERS: a register cap          */
} clperm_tunable;

/* Number of tunables of all families, and tunable `index` (0 .. count - 1; families in the order
 * above, each's tunables in its own order). CLPERM_ERROR_INVALID_PARAM past the end. */
CLPERM_API size_t clperm_tunable_count(void);
CLPERM_API clperm_status clperm_tunable_info(size_t index, clperm_tunable *out);
/* A tunable's value on the context; setting one affects later calls only. Unknown family or
 * name: CLPERM_ERROR_INVALID_PARAM; a value outside [lo, hi] or against its flags:
 * CLPERM_ERROR_PARAM_OUT_OF_BOUNDS, nothing changed. */
CLPERM_API clperm_status clperm_ctx_get_tunable(const clperm_ctx *ctx, const char *family, const char *name,
                                                int *value);
CLPERM_API clperm_status clperm_ctx_set_tunable(clperm_ctx *ctx, const char *family, const char *name, int value);

/* Where a family's values came from. */
typedef enum clperm_tuning_source {
    CLPERM_TUNING_DEFAULTS = 0,   /* the defaults for devices not measured                 */
    CLPERM_TUNING_CLASS_ROW = 1,  /* a built-in row for a class of device (GPUs, CPUs, ...) */
    CLPERM_TUNING_VENDOR_ROW = 2, /* a built-in row for the vendor's devices               */
    CLPERM_TUNING_DEVICE_ROW = 3, /* a built-in row for the device by name (or driver)     */
    CLPERM_TUNING_FILE = 4,       /* a tuning file                                         */
    CLPERM_TUNING_SET = 5         /* clperm_ctx_set_tunable                                */
} clperm_tuning_source;

/* "defaults", "class row", "vendor row", "device row", "tuning file", "set"; NULL for others. */
CLPERM_API const char *clperm_tuning_source_name(clperm_tuning_source source);
/* The source of `family`'s values and, in *detail (may be NULL; valid while the context lives and
 * its tuning is not changed), what the row says of its figures or the file's path. */
CLPERM_API clperm_status clperm_ctx_tuning_source(const clperm_ctx *ctx, const char *family,
                                                  clperm_tuning_source *source, const char **detail);
/* Starts the values of `family` (NULL: every family) over from the built-in rows up to `upto`
 * (CLPERM_TUNING_CLASS_ROW: the defaults and the class rows only, as `clperm tune
 * --ignore-database` starts; CLPERM_TUNING_DEVICE_ROW: every row, without a file); the other
 * families keep theirs. An unknown family: CLPERM_ERROR_INVALID_PARAM. */
CLPERM_API clperm_status clperm_ctx_reset_tuning(clperm_ctx *ctx, const char *family, clperm_tuning_source upto);
/* Applies the entry of the tuning file at `path` for the context's device (its name and driver
 * version) over the values it has. CLPERM_ERROR_TUNING_FILE, nothing changed, when the file
 * cannot be read, is malformed, names an unknown family or tunable or a value out of bounds, or
 * has no entry for the device; CLPERM_ERROR_UNSUPPORTED in a build without cJSON. */
CLPERM_API clperm_status clperm_ctx_load_tuning(clperm_ctx *ctx, const char *path);

/* Counters kept by the context, for diagnosis and tests. */
typedef enum clperm_counter {
    CLPERM_COUNTER_PROGRAMS_BUILT = 1,     /* programs compiled from source               */
    CLPERM_COUNTER_DISK_CACHE_HITS = 2,    /* programs loaded from the disk cache          */
    CLPERM_COUNTER_DISK_CACHE_REJECTS = 3, /* disk-cache entries found corrupt and rebuilt */
    CLPERM_COUNTER_SG_FALLBACKS = 4,       /* subgroup choices found wrong after a build   */
    CLPERM_COUNTER_SCRATCH_ALLOCS = 5,     /* scratch buffer (re)allocations               */
    CLPERM_COUNTER_SCRATCH_BYTES = 6,      /* device scratch memory the context holds now  */
    CLPERM_COUNTER_TEMP_BYTES = 7          /* device memory the last operation allocated for
                                            * itself alone (released when it completes)   */
} clperm_counter;

CLPERM_API clperm_status clperm_ctx_counter(const clperm_ctx *ctx, clperm_counter counter,
                                            uint64_t *value);

/* ---------------------------------------------------------------------------------------------
 * Element types
 * ------------------------------------------------------------------------------------------- */

typedef enum clperm_type {
    CLPERM_TYPE_U32 = CLPERM_KIND_U32, /* cl_uint  */
    CLPERM_TYPE_U64 = CLPERM_KIND_U64  /* cl_ulong */
} clperm_type;

/* Size in bytes of one item of `type`, 0 for an unknown type. */
CLPERM_API size_t clperm_type_size(clperm_type type);
/* "u32", "u64". */
CLPERM_API const char *clperm_type_name(clperm_type type);

/* ---------------------------------------------------------------------------------------------
 * Scan and reduction: dst[i] = src[0] + ... + src[i-1] (exclusive) or + src[i] (inclusive),
 * wrapping modulo 2^32 or 2^64. `src` and `dst` hold at least n items of `type`; they may be the
 * same buffer (in-place). n = 0 enqueues no kernel and writes nothing. The scan uses scratch
 * memory of O(n / tile) items, allocated once per context and grown when a larger n needs more.
 * ------------------------------------------------------------------------------------------- */

CLPERM_API clperm_status clperm_scan_exclusive(clperm_ctx *ctx, clperm_type type, cl_mem src,
                                               cl_mem dst, uint64_t n, cl_uint num_events,
                                               const cl_event *events, cl_event *event);

CLPERM_API clperm_status clperm_scan_inclusive(clperm_ctx *ctx, clperm_type type, cl_mem src,
                                               cl_mem dst, uint64_t n, cl_uint num_events,
                                               const cl_event *events, cl_event *event);

/* dst[0] = src[0] + ... + src[n-1] (one item of `type` written at the start of dst). The sum of
 * no items is 0: n = 0 writes a 0. */
CLPERM_API clperm_status clperm_reduce_sum(clperm_ctx *ctx, clperm_type type, cl_mem src,
                                           uint64_t n, cl_mem dst, cl_uint num_events,
                                           const cl_event *events, cl_event *event);

/* ---------------------------------------------------------------------------------------------
 * Random permutations by bijective functions (Mitchell, Stokes, Frank, Holmes: "Bandwidth-optimal
 * random shuffling for GPUs"). A keyed bijection f of [0, D), D >= n (D = 2^b for VariablePhilox
 * and the LCG, D = a * 2^h within about sqrt(n) of n for the Feistel), is evaluated at every i of
 * [0, D); the values f(i) < n, kept in increasing order of i, form the permutation:
 *
 *     perm[j] = the j-th value f(i) < n        out[j] = in[perm[j]]
 *
 * perm depends only on (n, seed, options): clperm_shuffle on any device, clperm_shuffle_host and
 * clperm_perm_index give the same permutation, bit for bit. The bijections themselves are in
 * clperm_bijection.h, which compiles as C and as OpenCL C.
 * ------------------------------------------------------------------------------------------- */

typedef enum clperm_bijection {
    /* VariablePhilox: a Philox-style Feistel cipher on b bits, then a transposition chosen by the
     * key, which the paper lacks: without it every permutation at n = 2^k is even */
    CLPERM_BIJECTION_PHILOX = CLPERM_BIJ_PHILOX,
    /* f(x) = (a x + c) mod 2^b: fast, but only ~n^2 permutations; fails the statistical tests
     * (kept as the paper's baseline) */
    CLPERM_BIJECTION_LCG = CLPERM_BIJ_LCG,
    /* a Feistel network over a x 2^h with alternating radices, a domain within ~sqrt(n) of n
     * (clperm_bijection.h) */
    CLPERM_BIJECTION_FEISTEL = CLPERM_BIJ_FEISTEL
} clperm_bijection;

/* "philox", "lcg", "feistel". */
CLPERM_API const char *clperm_bijection_name(clperm_bijection bijection);

/* How the permutation is made from the seed (clperm_shuffle_opts.algorithm). The options choose
 * it, never the device: a seed gives the same permutation on the host and on every device.
 *
 * CLPERM_SHUFFLE_BUCKETS, random buckets (Rao; Sandelius): item i draws a label of b bits, the
 * top b bits of byte i mod 8 of SplitMix64's output at i / 8 in a stream keyed by (seed, n)
 * (one output labels eight items), b = floor(log2 n) - 8
 * within [0, 8] (so a bucket holds 256 items or more on average); the items are partitioned
 * stably by label into 2^b buckets (one pass of the device-wide sort, the labels drawn in its
 * kernels and never stored); then each bucket of m items, starting at s, is permuted by the
 * bijection of (m, a seed of its own) under the options' bijection and rounds, restricted to
 * [0, m) by cycle-walking (clperm_bijection_walk): out[s + j] = tmp[s + walk(j)]. Why it is uniform: were the labels independent and uniform and
 * each bucket's permutation uniform, every item would get an independent uniform label and a
 * uniform place among the items of its label, a law no relabelling of the items changes, so
 * every permutation would be equally likely (docs/shuffle-buckets.md). What is pseudo-random:
 * the labels (SplitMix64) and the buckets' bijections, as in the bijective algorithm. Each item
 * moves twice, but both passes stream through memory (the second reads within one bucket, which
 * caches hold), where the bijective algorithm reads at random: faster once the items pass the
 * device's cache (on an H200 at 2^28 1.9x for 4-byte items; on CPUs from 2^24 or 2^26), slower
 * below (docs/performance.md), hence not the default. No random access: the
 * clperm_perm_index functions and clperm_bijection_init refuse it. Extra device memory: n items
 * (4-, 8- and 16-byte items, and permutations), else n 4-byte (8-byte beyond 2^32) indices,
 * kept by the context for later calls (clperm_ctx_release_scratch gives them back); in place,
 * items of other sizes need n more for the call. */
typedef enum clperm_shuffle_algorithm {
    CLPERM_SHUFFLE_BIJECTIVE = CLPERM_SHUF_BIJECTIVE, /* the bijection's compaction (above)      */
    CLPERM_SHUFFLE_BUCKETS = CLPERM_SHUF_BUCKETS      /* random buckets, each by a bijection      */
} clperm_shuffle_algorithm;

/* "bijective", "buckets". */
CLPERM_API const char *clperm_shuffle_algorithm_name(clperm_shuffle_algorithm algorithm);

/* Options that change the permutation. A NULL pointer means the defaults (all fields 0). */
typedef struct clperm_shuffle_opts {
    clperm_bijection bijection; /* 0: CLPERM_BIJECTION_FEISTEL                                 */
    int rounds;                 /* Feistel rounds: 0 = 8 (twice the most rounds that fail the
                                 * chi-squared test, docs/performance.md); VariablePhilox
                                 * rounds: 0 = 24 (the paper's recommendation); else 1..64.
                                 * Must be 0 for the LCG.                                      */
    clperm_shuffle_algorithm algorithm; /* 0: CLPERM_SHUFFLE_BIJECTIVE                          */
} clperm_shuffle_opts;

/* The key of the bijection for (n, seed, opts), for use with clperm_bijection.h in one's own
 * kernels or host code. n <= 2^63. The round keys come from SplitMix64 seeded with a mix of seed. */
CLPERM_API clperm_status clperm_bijection_init(clperm_bijection_key *key, uint64_t n, uint64_t seed,
                                               const clperm_shuffle_opts *opts);

/* Sets the CLPERM_BIJECTION_KEY_ARGS (6) kernel parameters that CLPERM_BIJECTION_KEY_PARAMS
 * declares (clperm_bijection.h), starting at parameter index `first`, to `key`. Returns the first
 * OpenCL error, if any. */
CLPERM_API clperm_status clperm_bijection_set_kernel_args(cl_kernel kernel, cl_uint first,
                                                          const clperm_bijection_key *key);

/* Out-of-place shuffle: dst[j] = src[perm[j]] for j < n, items of elem_size bytes (any size >= 1;
 * 1, 2, 4, 8 and 16 bytes have fast paths). src and dst must be different buffers, each holding
 * at least n items. Extra device memory: O(n / tile) words of scan state kept in the context
 * (with the default fusion level). n = 0 and n = 1 are valid (n = 1 copies the item). */
CLPERM_API clperm_status clperm_shuffle(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t n,
                                        size_t elem_size, uint64_t seed, const clperm_shuffle_opts *opts,
                                        cl_uint num_events, const cl_event *events, cl_event *event);

/* In-place shuffle of the first n items of buf: the same result as clperm_shuffle into a
 * temporary buffer of n items, which is then copied back and released. */
CLPERM_API clperm_status clperm_shuffle_inplace(clperm_ctx *ctx, cl_mem buf, uint64_t n, size_t elem_size,
                                                uint64_t seed, const clperm_shuffle_opts *opts,
                                                cl_uint num_events, const cl_event *events,
                                                cl_event *event);

/* dst[j] = perm[j] for j < n, as CLPERM_TYPE_U32 (n <= 2^32 only) or CLPERM_TYPE_U64 indices. */
CLPERM_API clperm_status clperm_permutation(clperm_ctx *ctx, clperm_type type, cl_mem dst, uint64_t n,
                                            uint64_t seed, const clperm_shuffle_opts *opts,
                                            cl_uint num_events, const cl_event *events, cl_event *event);

/* The same operations on the host, single-threaded, with no OpenCL device. dst and src must not
 * overlap. Need no context; thread-safe. */
CLPERM_API clperm_status clperm_shuffle_host(const void *src, void *dst, uint64_t n, size_t elem_size,
                                             uint64_t seed, const clperm_shuffle_opts *opts);
CLPERM_API clperm_status clperm_permutation_host(clperm_type type, void *dst, uint64_t n, uint64_t seed,
                                                 const clperm_shuffle_opts *opts);

/* Random access to perm without computing all of it. Creating the index evaluates the bijection
 * once over its domain and keeps one count per block of 1024 values (8 bytes per 1024 items); each
 * query then costs at most 1024 bijection evaluations. The index is read-only after creation:
 * queries may run from several threads at once. */
typedef struct clperm_perm_index clperm_perm_index;

CLPERM_API clperm_status clperm_perm_index_create(clperm_perm_index **out, uint64_t n, uint64_t seed,
                                                  const clperm_shuffle_opts *opts);
/* *src_index = perm[j]: the input that lands at output j (j < n). */
CLPERM_API clperm_status clperm_perm_index_at(const clperm_perm_index *index, uint64_t j,
                                              uint64_t *src_index);
/* *dst_index = the output position where input i lands: perm[*dst_index] = i (i < n). */
CLPERM_API clperm_status clperm_perm_index_inverse(const clperm_perm_index *index, uint64_t i,
                                                   uint64_t *dst_index);
/* NULL is a no-op. */
CLPERM_API void clperm_perm_index_free(clperm_perm_index *index);

/* ---------------------------------------------------------------------------------------------
 * Permutation quality: the statistical tests of Section 5 of the shuffling paper, usable on
 * permutations from any source. A permutation of n items is n uint32_t values, a sample of
 * `count` permutations is count * n values, one permutation after another. Each value must be a
 * permutation of 0..n-1, else CLPERM_ERROR_INVALID_ARGUMENT and *out is left alone.
 * ------------------------------------------------------------------------------------------- */

typedef struct clperm_chi2_result {
    double statistic; /* sum over the 120 permutations of (observed - expected)^2 / expected   */
    int dof;          /* 119                                                                    */
    double p_value;   /* P(chi^2_dof >= statistic) under uniformity                             */
} clperm_chi2_result;

/* Pearson's chi-squared test of uniformity over all 120 permutations of 5 items. count >= 1. */
CLPERM_API clperm_status clperm_quality_chi2_5(const uint32_t *perms, uint64_t count,
                                               clperm_chi2_result *out);

typedef struct clperm_mmd_result {
    double statistic;           /* unbiased MMD^2 estimate against the uniform distribution, eq. 5  */
    double expected_kernel;     /* E[K(I, sigma)] for uniform sigma (the subtracted product)       */
    double kernel_variance;     /* Var K(sigma, sigma') under uniformity                           */
    double threshold_hoeffding; /* |statistic| below this accepts uniformity at level alpha, eq. 6 */
    double threshold_normal;    /* the same from the normal approximation, eq. 7                   */
    int pass_hoeffding;         /* 1 when |statistic| < threshold_hoeffding                        */
    int pass_normal;            /* 1 when |statistic| < threshold_normal                           */
} clperm_mmd_result;

/* MMD test with the Mallows kernel K(s, s') = exp(-lambda n_dis(s, s') / (n choose 2)) (the paper
 * uses lambda = 5), pairing permutations 2i and 2i+1. n >= 2, count even and >= 2, lambda > 0,
 * 0 < alpha < 1. n_dis is counted in O(n log n) per pair. */
CLPERM_API clperm_status clperm_quality_mmd(const uint32_t *perms, uint32_t n, uint64_t count,
                                            double lambda, double alpha, clperm_mmd_result *out);

typedef struct clperm_cycles_result {
    double statistic;      /* Pearson's chi-squared of the cycle counts against their exact law  */
    int dof;               /* bins - 1; 0 when the sample is too small for two bins (then
                              statistic 0 and p_value 1)                                          */
    double p_value;        /* P(chi^2_dof >= statistic) under uniformity                          */
    double mean_cycles;    /* the sample's mean cycle count (H_n = 1 + 1/2 + ... + 1/n expected)  */
    uint64_t odd;          /* odd permutations in the sample (n - cycles odd)                     */
    double parity_p_value; /* two-sided exact binomial test of odd ~ Binomial(count, 1/2)        */
} clperm_cycles_result;

/* Cycle structure of a sample against the uniform distribution on n >= 2 items, two tests that
 * look at what the n = 5 chi-squared and the MMD cannot see at large n:
 * - parity: under uniformity a permutation is odd with probability 1/2, independently; a
 *   generator of even permutations only (VariablePhilox at n = 2^k) gives odd = 0;
 * - cycle count: P(c cycles) = |s(n, c)| / n! (unsigned Stirling numbers of the first kind). The
 *   counts are binned from the smaller cycle counts up, each bin closed once its expected count
 *   reaches 5 (the last bin takes the rest and joins the one before if short), and compared with
 *   the exact law by Pearson's chi-squared.
 * count >= 1. Costs O(count n) for the sample and O(n log n) for the law. Each permutation must
 * be one of 0..n-1, else CLPERM_ERROR_INVALID_ARGUMENT and *out is left alone. Thread-safe. */
CLPERM_API clperm_status clperm_quality_cycles(const uint32_t *perms, uint32_t n, uint64_t count,
                                               clperm_cycles_result *out);

/* ---------------------------------------------------------------------------------------------
 * Tile sorts in local memory (Afshani and Sitchinava: "Sorting and permuting without bank
 * conflicts on GPUs"). The keys are cut into segments of `segment` consecutive keys (the last one
 * may be shorter) and each segment is sorted ascending in place by one work-group, in a tile of
 * w rows (one local-memory bank and one work-item each) by m columns, w * m >= segment, padded.
 *
 * Order: u32 and u64 by value, i32 and i64 signed, f32 and f64 by IEEE 754 totalOrder: -NaN <
 * -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN (NaNs by their bits, the sign bit deciding which
 * end): the keys' bits mapped to an unsigned order (the sign bit flipped for i32, i64 and
 * positive floats, every bit flipped for negative floats) and compared as unsigned. With values
 * (one u32 per key, moved with its key) the sort is stable: equal keys keep their input order.
 * Without values equal keys are indistinguishable.
 * ------------------------------------------------------------------------------------------- */

typedef enum clperm_key_type {
    CLPERM_KEY_U32 = CLPERM_KEYKIND_U32,
    CLPERM_KEY_I32 = CLPERM_KEYKIND_I32,
    CLPERM_KEY_F32 = CLPERM_KEYKIND_F32,
    CLPERM_KEY_U64 = CLPERM_KEYKIND_U64,
    CLPERM_KEY_I64 = CLPERM_KEYKIND_I64,
    CLPERM_KEY_F64 = CLPERM_KEYKIND_F64,
    /* 8- and 16-bit keys: clperm_sort and clperm_sort_host only (one or two passes of 8 bits);
     * the tile sorts, partitions, segmented and distributed sorts return
     * CLPERM_ERROR_INVALID_TYPE for them. F16 is IEEE 754 binary16 (cl_half), in the same
     * totalOrder as f32. */
    CLPERM_KEY_U8 = CLPERM_KEYKIND_U8,
    CLPERM_KEY_I8 = CLPERM_KEYKIND_I8,
    CLPERM_KEY_U16 = CLPERM_KEYKIND_U16,
    CLPERM_KEY_I16 = CLPERM_KEYKIND_I16,
    CLPERM_KEY_F16 = CLPERM_KEYKIND_F16
} clperm_key_type;

/* Size in bytes of one key of `type`, 0 for an unknown type. */
CLPERM_API size_t clperm_key_size(clperm_key_type type);

typedef enum clperm_tile_sort {
    CLPERM_TILE_SORT_AUTO = 0,           /* the fastest for the device: SHEAR on GPUs, BITONIC
                                            on CPUs (no banks there)                            */
    CLPERM_TILE_SORT_SHEAR = 1,          /* Shearsort on the diagonal arrangement: no conflicts */
    CLPERM_TILE_SORT_BITONIC = 2,        /* bitonic network in local memory, plain indexing     */
    CLPERM_TILE_SORT_BITONIC_PADDED = 3, /* the same with one pad word after every w words      */
    CLPERM_TILE_SORT_AS = 4,             /* Afshani-Sitchinava, Lemma 1 (w <= sqrt(m)): five row
                                            sorts whatever w; narrow tiles, small segments      */
    CLPERM_TILE_PARTITION_COUNTING = 5,  /* partitions only, O(m) by counting sorts of the rows,
                                            no bank conflicts, NOT stable, keys only (values
                                            NULL): Afshani-Sitchinava Corollary 1 (Lemma 1,
                                            w = 2^bits, m >= w * w) or Theorem 1 (square tiles
                                            w = m >= 2^bits, m a power of four), whichever tile
                                            holds the segment in fewer keys                     */
    CLPERM_TILE_SORT_AS_WIDE = 6         /* Afshani-Sitchinava, Theorem 1 (w = m, super-rows of
                                            sqrt(m) rows sorted by Lemma 1) and Theorem 2
                                            (w > m: columns by a bitonic network across the
                                            work-items, m x m blocks by Theorem 1); m a power of
                                            four, so segments up to 512 on 32-wide devices      */
} clperm_tile_sort;

/* "auto", "shear", "bitonic", "bitonic-padded", "as", "counting", "as-wide". */
CLPERM_API const char *clperm_tile_sort_name(clperm_tile_sort algorithm);

typedef struct clperm_tile_shape {
    uint32_t w;              /* rows = banks = work-items per tile                              */
    uint32_t m;              /* columns: keys per work-item                                     */
    uint32_t tiles_per_group; /* tiles per work-group (w * tiles_per_group work-items)          */
    uint64_t local_bytes;    /* local memory per tile                                           */
    uint32_t tiles_per_cu;   /* tiles that fit the local memory the device reports
                                (CL_DEVICE_LOCAL_MEM_SIZE; GPUs may hold several times that)    */
} clperm_tile_shape;

/* The largest segment `algorithm` sorts in one tile on the device, for `type` with or without
 * values. */
CLPERM_API clperm_status clperm_sort_segment_max(clperm_ctx *ctx, clperm_key_type type, int with_values,
                                                 clperm_tile_sort algorithm, uint64_t *out);

/* The tile `algorithm` uses for segments of `segment` keys (1 <= segment <= the maximum): w <= m,
 * w * w <= m for CLPERM_TILE_SORT_AS, m <= w and m a power of four for CLPERM_TILE_SORT_AS_WIDE
 * (see CLPERM_PARAM_SORT_WIDTH). */
CLPERM_API clperm_status clperm_sort_tile_shape(clperm_ctx *ctx, clperm_key_type type, int with_values,
                                                uint64_t segment, clperm_tile_sort algorithm,
                                                clperm_tile_shape *out);

/* Sorts keys[0 .. n) segment by segment in place; values is NULL or holds n u32 values moved with
 * their keys. n = 0 enqueues nothing. Errors (nothing written): unknown type or algorithm,
 * segment 0 or above clperm_sort_segment_max, buffers too small, values == keys. */
CLPERM_API clperm_status clperm_sort_segments(clperm_ctx *ctx, clperm_key_type type, cl_mem keys,
                                              cl_mem values, uint64_t n, uint64_t segment,
                                              clperm_tile_sort algorithm, cl_uint num_events,
                                              const cl_event *events, cl_event *event);

/* The same on the host: the reference the device is checked against. Keys without values come
 * out the same whatever the algorithm; with values too, since the sort is stable. */
CLPERM_API clperm_status clperm_sort_segments_host(clperm_key_type type, void *keys, uint32_t *values,
                                                   uint64_t n, uint64_t segment);

/* Stable partition of each segment by a label of `bits` bits (1..8): the bits [shift, shift +
 * bits) of the key's order-preserving unsigned form (the key itself for u32 and u64, the sign bit
 * flipped for i32, totalOrder bits for f32). Keys of label 0 come first, then label 1, ..., each
 * label's keys in input order, values moved with their keys: the step of an LSD radix sort. Runs
 * the tile sort `algorithm` on (label, position). Errors as clperm_sort_segments, and
 * shift + bits beyond the key's width.
 * With CLPERM_TILE_PARTITION_COUNTING the labels come out in the same order but the keys of one
 * label do not keep their input order; values must be NULL. Its tile is the shortest of
 * Corollary 1's 2^bits x m (m >= 4^bits) and Theorem 1's square s^2 x s^2 (s^2 >= 2^bits) that
 * holds the segment and fits the device's width and local memory: on 32-wide GPUs with 48 KiB,
 * segments up to 256 for 4 bits (16 x 16). The order within a label is fixed by the algorithm and
 * the tile: the same on every device that takes the same tile (clperm_partition_conflicts reports
 * it), and it may differ where a narrower device or less local memory leads to another. */
CLPERM_API clperm_status clperm_partition_segments(clperm_ctx *ctx, clperm_key_type type, cl_mem keys,
                                                   cl_mem values, uint64_t n, uint64_t segment,
                                                   unsigned shift, unsigned bits,
                                                   clperm_tile_sort algorithm, cl_uint num_events,
                                                   const cl_event *events, cl_event *event);

/* The largest segment clperm_partition_segments takes with `algorithm` and labels of `bits`
 * bits, for keys of `type` without values. */
CLPERM_API clperm_status clperm_partition_segment_max(clperm_ctx *ctx, clperm_key_type type, unsigned bits,
                                                      clperm_tile_sort algorithm, uint64_t *out);

/* The same on the host. */
CLPERM_API clperm_status clperm_partition_segments_host(clperm_key_type type, void *keys,
                                                        uint32_t *values, uint64_t n,
                                                        uint64_t segment, unsigned shift,
                                                        unsigned bits);

/* Bank conflicts of a tile sort, measured: the kernel built with every local-memory access
 * recorded, run on `n` keys from the host (NULL: zeros; the algorithms are data-oblivious), and
 * the record checked in the model: w banks, bank = word address mod w, the w work-items of a
 * tile accessing together at each step. A conflict is one access serialised behind another to
 * the same bank at a different address. Blocking; for tests and reports, not for speed. */
typedef struct clperm_conflict_report {
    clperm_tile_shape shape;
    uint64_t tiles;     /* tiles traced                                                      */
    uint64_t steps;     /* access steps, summed over tiles                                   */
    uint64_t accesses;  /* word accesses, summed over tiles                                  */
    uint64_t conflicts; /* serialised accesses: sum over steps and banks of (addresses - 1)  */
    uint32_t max_ways;  /* the most distinct addresses one bank saw in one step              */
} clperm_conflict_report;

CLPERM_API clperm_status clperm_sort_conflicts(clperm_ctx *ctx, clperm_key_type type, int with_values,
                                               uint64_t segment, clperm_tile_sort algorithm,
                                               const void *keys, uint64_t n, clperm_conflict_report *out);

/* The same for clperm_partition_segments (keys only); the counting partition's accesses depend on
 * the labels, so pass the keys to check. */
CLPERM_API clperm_status clperm_partition_conflicts(clperm_ctx *ctx, clperm_key_type type, uint64_t segment,
                                                    unsigned shift, unsigned bits, clperm_tile_sort algorithm,
                                                    const void *keys, uint64_t n, clperm_conflict_report *out);

/* Transposes `count` matrices of rows x cols items of `type` (row-major, one after another) from
 * src into dst, where each becomes cols x rows. One matrix per work-group of w work-items (the
 * device's banks, or CLPERM_PARAM_SORT_WIDTH), staged in local memory in the diagonal
 * arrangement (item (r, c) at r*cp + (c + r) mod cp, rows and columns padded to multiples of w as
 * rp and cp): both the row-major reads and the column-major writes are free of bank conflicts.
 * rows and cols 1..65536 with rp * cp items fitting local memory; src != dst. count = 0 enqueues
 * nothing. */
CLPERM_API clperm_status clperm_transpose_tiles(clperm_ctx *ctx, clperm_type type, cl_mem src, cl_mem dst,
                                                uint64_t count, uint32_t rows, uint32_t cols,
                                                cl_uint num_events, const cl_event *events,
                                                cl_event *event);

/* The bank conflicts of clperm_transpose_tiles for one shape, measured as for the sorts
 * (clperm_sort_conflicts; shape.m is items per work-item). */
CLPERM_API clperm_status clperm_transpose_conflicts(clperm_ctx *ctx, clperm_type type, uint32_t rows,
                                                    uint32_t cols, clperm_conflict_report *out);

/* ---------------------------------------------------------------------------------------------
 * Device-wide sort and segmented sort: a stable LSD radix sort of keys of any clperm_key_type,
 * in the tile sorts' order (above), ascending or descending, keys alone or with a u32 or u64
 * value per key moved with its key. Stable: keys of equal order keep their input order, so the
 * result is unique and every device gives the host's (clperm_sort_host) bit for bit.
 *
 * Where loops are not capped (clperm_profile.loop_limit) the work-group kernels run
 * Onesweep (Adinets and Merrill, 2022): one pass over the keys counts every digit, then one pass
 * per digit ranks each tile's keys in local memory, finds the tile's place by decoupled look-back
 * over earlier tiles and writes the keys out in digit order. Elsewhere, and on CPUs, each digit
 * takes a count, a scan of the counts (clperm_scan_exclusive's kernels) and a stable scatter.
 * CLPERM_PARAM_SORT_* choose and shape the kernels; docs/performance.md has the figures.
 * ------------------------------------------------------------------------------------------- */

/* What the sort orders by. A NULL pointer means ascending by every bit of the key. */
typedef struct clperm_sort_order {
    int descending;  /* 0 ascending, 1 descending; stable either way                          */
    unsigned bit_lo; /* only the bits [bit_lo, bit_hi) of the order-preserving form of the key */
    unsigned bit_hi; /* (the unsigned bits the tile sorts compare); bit_hi 0 means the key's
                      * width. Keys equal in those bits keep their input order. Fewer bits,
                      * fewer passes: keys known to be below 2^20 sort with bit_hi = 20.     */
} clperm_sort_order;

/* One sort: the keys and values, sorted in place. */
typedef struct clperm_sort_request {
    clperm_key_type key_type;
    cl_mem keys;             /* n keys                                                         */
    clperm_type value_type;  /* 0: keys only; CLPERM_TYPE_U32 or CLPERM_TYPE_U64              */
    cl_mem values;           /* n values (NULL when value_type is 0), a buffer other than keys */
    uint64_t n;              /* 0 .. as many as the device's buffers hold (64-bit positions)   */
    clperm_sort_order order; /* all zero: ascending by every bit                               */
    cl_mem temp_keys;        /* NULL, or a caller's buffer of at least n keys that the sort may
                              * overwrite; NULL: allocated for the call and released after it */
    cl_mem temp_values;      /* the same for values (unused without values)                    */
    int argsort;             /* 1: values are written, not read: each key takes its position
                              * 0 .. n - 1 along, so values end as the stable permutation that
                              * sorts the keys (CLPERM_TYPE_U32 for n <= 2^32, or U64). The first
                              * pass makes the positions; no fill before it. clperm_sort only.  */
} clperm_sort_request;

/* Sorts req->keys[0 .. n) (and req->values with them) in place. Device memory beyond the
 * caller's buffers: one buffer of n keys and one of n values (temp_keys and temp_values, or
 * allocated per call: CLPERM_COUNTER_TEMP_BYTES), and O(n / tile) words of counters kept in the
 * context (CLPERM_COUNTER_SCRATCH_BYTES). Errors (nothing enqueued, nothing written): unknown
 * key or value type (CLPERM_ERROR_INVALID_TYPE), a buffer too small or read-only, two of keys,
 * values and temp buffers the same (CLPERM_ERROR_INVALID_ARGUMENT) or sharing memory
 * (CLPERM_ERROR_BUFFER_OVERLAP), values without a value type, a bit range outside the key, req
 * NULL (CLPERM_ERROR_INVALID_ARGUMENT), a configuration the device cannot run
 * (CLPERM_ERROR_UNSUPPORTED). n = 0 and n = 1 enqueue no kernel (argsort fills its one value).
 * The passes alternate between the caller's buffers and the temp buffers: should the runtime
 * refuse an enqueue partway (out of resources), the keys and values hold the same pairs as
 * before, sorted by some of the digits (with argsort, the values may then hold anything).
 * Onesweep's first pass, which counts every digit, also shows the high digits no key differs in:
 * their passes are skipped on the device (keys below 2^20 sort in three passes of 8 bits, without
 * a bit range). In place, an odd number of passes ends with a copy from the temp buffers back to
 * the caller's; clperm_sort_into never needs one. */
CLPERM_API clperm_status clperm_sort(clperm_ctx *ctx, const clperm_sort_request *req, cl_uint num_events,
                                     const cl_event *events, cl_event *event);

/* The same sort out of place: req->keys (and req->values) are read and left as they were, the
 * sorted keys go to out_keys and their values to out_values (n of each, buffers other than the
 * request's). With argsort the positions go to out_values and req->values may be NULL. Onesweep
 * chooses on the device which buffer its first pass writes, so that the last pass that moves keys
 * writes out_keys whatever the number of passes (the in-place sort copies back after an odd
 * number). Device memory and errors as clperm_sort, and out_keys NULL, out_values given without
 * values or missing with them, or either the same as (or sharing memory with) another buffer of
 * the request (CLPERM_ERROR_INVALID_ARGUMENT or CLPERM_ERROR_BUFFER_OVERLAP). Should the runtime
 * refuse an enqueue partway, out_keys and out_values may hold anything; the input stays. */
CLPERM_API clperm_status clperm_sort_into(clperm_ctx *ctx, const clperm_sort_request *req, cl_mem out_keys,
                                          cl_mem out_values, cl_uint num_events, const cl_event *events,
                                          cl_event *event);

/* Segments of a segmented sort: count + 1 offsets, u32 or u64, in a device buffer. Segment i is
 * keys [offsets[i], offsets[i + 1]); offsets must not decrease and offsets[count] <= n. Keys
 * before offsets[0] and from offsets[count] on are left alone. */
typedef struct clperm_segments {
    cl_mem offsets;
    clperm_type offset_type; /* CLPERM_TYPE_U32 or CLPERM_TYPE_U64 */
    uint64_t count;          /* number of segments; 0 sorts nothing                          */
} clperm_segments;

/* Sorts every segment of req's keys (and values) in place, each on its own, stable, in req's
 * order. Segments of any lengths, empty ones included. Short segments go to the tile sorts,
 * grouped by size so that a work-group sorts segments of about its tile's length (4-byte keys,
 * up to 4096 a segment alone and 2048 with values, to a bitonic network held in registers:
 * CLPERM_PARAM_SEGMENT_SORT); longer ones
 * to a work-group each; the longest to the device-wide sort. The offsets are checked on the
 * device before anything is written to the caller's buffers: a kernel that writes only to the
 * context's scratch, then a blocking read of a few words, so this call waits for the commands
 * before it (and for the events given) to finish. Offsets that decrease or pass n:
 * CLPERM_ERROR_INVALID_ARGUMENT, nothing written. Other errors as clperm_sort, and an offsets
 * buffer smaller than count + 1 offsets. Device memory: as clperm_sort for the longest segments
 * (temp buffers of n keys and values are used only when a segment is longer than a tile) and
 * O(count) words of scratch. */
CLPERM_API clperm_status clperm_sort_segmented(clperm_ctx *ctx, const clperm_sort_request *req,
                                               const clperm_segments *segments, cl_uint num_events,
                                               const cl_event *events, cl_event *event);

/* The same on the host, the reference the device is checked against: a stable merge sort in the
 * same order. keys and values (NULL when value_type is 0) hold n items; thread-safe, no context. */
typedef struct clperm_sort_host_request {
    clperm_key_type key_type;
    void *keys;
    clperm_type value_type;
    void *values;
    uint64_t n;
    clperm_sort_order order;
} clperm_sort_host_request;

CLPERM_API clperm_status clperm_sort_host(const clperm_sort_host_request *req);
/* offsets: count + 1 items of offset_type in host memory, as for clperm_sort_segmented. */
CLPERM_API clperm_status clperm_sort_segmented_host(const clperm_sort_host_request *req, const void *offsets,
                                                    clperm_type offset_type, uint64_t count);

/* Bank conflicts of the tile ranking and reorder of the sort's work-group kernel (the one
 * CLPERM_PARAM_SORT_RANK and the other parameters choose; the votes where the device's row
 * takes rank 4, CLPERM_ERROR_UNSUPPORTED where the parameter sets it): the kernel built with every
 * local-memory word access recorded, run for the first digit of `n` keys from the host (u32,
 * ascending), and the record checked in the model of clperm_sort_conflicts with 32 banks and
 * the subgroup width's work-items accessing together (shape.w 32, shape.m the keys per
 * work-item). The scatter through local memory depends on the keys: random keys and keys of few
 * distinct values give different counts. Blocking; for tests and reports. */
CLPERM_API clperm_status clperm_sort_rank_conflicts(clperm_ctx *ctx, const uint32_t *keys, uint64_t n,
                                                    clperm_conflict_report *out);
/* Bank conflicts of the segmented sort's register network (CLPERM_PARAM_SEGMENT_SORT 2) on one
 * work-group of segments of `segment` u32 keys (2..4096): its exchanges through local memory
 * recorded and checked as for clperm_sort_rank_conflicts (shape.w 32, shape.m the keys per
 * work-item). Exchanges within a subgroup go through shuffles where the device has them, and are
 * not counted. The addresses do not depend on the keys. CLPERM_ERROR_UNSUPPORTED where the
 * network is off or its work-group is not whole subgroups of 32. Blocking; for tests and
 * reports. */
CLPERM_API clperm_status clperm_sort_segmented_conflicts(clperm_ctx *ctx, uint64_t segment,
                                                         clperm_conflict_report *out);

/* ---------------------------------------------------------------------------------------------
 * Offline permutations (Kasagi, Nakano, Ito: "Offline permutation on the CUDA-enabled GPU"):
 * moving n items of src into dst along a permutation P known in advance, dst[P(i)] = src[i].
 * Items are elem_size bytes: 4, 8 or 16 (CLPERM_ERROR_INVALID_TYPE otherwise); they are moved,
 * never interpreted. src and dst hold at least n items and do not overlap
 * (CLPERM_ERROR_BUFFER_OVERLAP) unless a function says otherwise. n = 0 enqueues nothing.
 *
 * - Conventional: from an index array, destination-designated (scatter) or source-designated
 *   (gather): one pass, but its scattered side wastes most of every memory transaction when
 *   nearby items go far apart.
 * - Regular, with no index array: transpose, bit-reversal, perfect shuffle. Each reads and
 *   writes global memory in whole aligned segments through a local tile of 32 x 32 items in the
 *   diagonal arrangement (item (r, c) at r*32 + (r + c) mod 32; the shuffle's two halves skewed
 *   by half a bank group), so the local accesses are free of bank conflicts: one pass at about
 *   copy speed, and no memory beyond src and dst.
 * - Scheduled (Sections 6 and 7): any permutation, from a plan made once on the host; every run
 *   takes the same time whatever the permutation (clperm_perm_plan_create).
 * ------------------------------------------------------------------------------------------- */

/* Destination-designated: dst[p[i]] = src[i] for i < n, p holding n indices of index_type
 * (CLPERM_TYPE_U32 or CLPERM_TYPE_U64). p is taken as it is: it should be a permutation of
 * 0..n-1, which is not checked (the check would cost a pass and a wait; clperm_perm_plan_create
 * and the host references check). An index >= n is skipped, so nothing outside dst's first n
 * items is written, and where p repeats an index the item that lands there is unspecified.
 * Errors (nothing enqueued): elem_size or index_type unsupported, a buffer NULL, from another
 * context or too small, dst read-only; CLPERM_ERROR_BUFFER_OVERLAP when dst shares memory with src
 * or p. */
CLPERM_API clperm_status clperm_permute_scatter(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t n,
                                                size_t elem_size, clperm_type index_type, cl_mem p,
                                                cl_uint num_events, const cl_event *events, cl_event *event);

/* Source-designated: dst[i] = src[q[i]] for i < n (q = P^-1 moves the items as p does above).
 * An index >= n leaves dst[i] unwritten. Errors as clperm_permute_scatter. */
CLPERM_API clperm_status clperm_permute_gather(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t n,
                                               size_t elem_size, clperm_type index_type, cl_mem q,
                                               cl_uint num_events, const cl_event *events, cl_event *event);

/* Transpose of a rows x cols matrix (row-major): dst (cols x rows, row-major) gets
 * dst[c * rows + r] = src[r * cols + c]. Any shape: partial tiles at the edges are handled, a
 * single row or column is a copy. rows * cols = 0 enqueues nothing; CLPERM_ERROR_SIZE_OVERFLOW
 * when rows * cols overflows. (clperm_transpose_tiles transposes many small matrices at once.) */
CLPERM_API clperm_status clperm_transpose(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t rows, uint64_t cols,
                                          size_t elem_size, cl_uint num_events, const cl_event *events,
                                          cl_event *event);

/* Bit-reversal of n = 2^k items: dst[rev_k(i)] = src[i], rev_k reversing the k low bits (its own
 * inverse). n must be a power of two (1 included); else CLPERM_ERROR_INVALID_ARGUMENT. */
CLPERM_API clperm_status clperm_permute_bit_reversal(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t n,
                                                     size_t elem_size, cl_uint num_events,
                                                     const cl_event *events, cl_event *event);

/* Perfect shuffle of n = 2^k items: the k-bit index rotated left by one, dst[rotl_k(i)] = src[i]:
 * the first and second halves interleaved, dst[2j] = src[j], dst[2j + 1] = src[n/2 + j].
 * inverse != 0 runs the inverse (the unshuffle, dst[rotr_k(i)] = src[i]). n a power of two. */
CLPERM_API clperm_status clperm_permute_shuffle(clperm_ctx *ctx, cl_mem src, cl_mem dst, uint64_t n,
                                                size_t elem_size, int inverse, cl_uint num_events,
                                                const cl_event *events, cl_event *event);

/* Host references of the above, single-threaded, bit for bit what the devices write: they need
 * no context and are thread-safe. dst and src must not overlap. The index-array versions check
 * that p (q) is a permutation of 0..n-1 first and return CLPERM_ERROR_NOT_PERMUTATION, writing
 * nothing, when it is not. */
CLPERM_API clperm_status clperm_permute_scatter_host(const void *src, void *dst, uint64_t n, size_t elem_size,
                                                     clperm_type index_type, const void *p);
CLPERM_API clperm_status clperm_permute_gather_host(const void *src, void *dst, uint64_t n, size_t elem_size,
                                                    clperm_type index_type, const void *q);
CLPERM_API clperm_status clperm_transpose_host(const void *src, void *dst, uint64_t rows, uint64_t cols,
                                               size_t elem_size);
CLPERM_API clperm_status clperm_permute_bit_reversal_host(const void *src, void *dst, uint64_t n, size_t elem_size);
CLPERM_API clperm_status clperm_permute_shuffle_host(const void *src, void *dst, uint64_t n, size_t elem_size,
                                                     int inverse);

/* Bank conflicts of the regular permutations, measured as for the sorts (clperm_sort_conflicts):
 * the kernel for (kind, elem_size) built with every local-memory access recorded, run on one
 * to a few tiles, and the record checked in the model of w = 128 / elem_size banks of
 * elem_size-byte words (32, 16, 8: the hardware's 32 four-byte banks serve a warp's 8- and
 * 16-byte accesses a half and a quarter warp at a time), bank = item address mod w, w
 * consecutive work-items accessing together. For the transpose the matrix is rows x cols (each at
 * most 4096), for the others n = rows items (a power of two, 1024 .. 2^22: the tiled kernels;
 * cols ignored); else CLPERM_ERROR_INVALID_ARGUMENT. naive != 0 measures the same kernel with a
 * plain row-major tile instead of the diagonal arrangement: the failing case. The transpose and
 * the bit-reversal run with the context's tiles per work-group (CLPERM_PARAM_PERMUTE_TILES), and
 * out->tiles is the number of work-groups traced. Blocking. */
typedef enum clperm_permute_kind {
    CLPERM_PERMUTE_TRANSPOSE = 1,
    CLPERM_PERMUTE_BIT_REVERSAL = 2,
    CLPERM_PERMUTE_SHUFFLE = 3,
    CLPERM_PERMUTE_UNSHUFFLE = 4
} clperm_permute_kind;

CLPERM_API clperm_status clperm_permute_conflicts(clperm_ctx *ctx, clperm_permute_kind kind, size_t elem_size,
                                                  uint64_t rows, uint64_t cols, int naive,
                                                  clperm_conflict_report *out);

/* ---- The scheduled permutation (Sections 6 and 7) ----
 * The items are seen as a matrix of `rows` rows of `cols` items (rows * cols >= n: the
 * permutation is extended by the identity over the padding, which never reaches dst). Three
 * steps move them: a row-wise permutation puts each item in the column of its colour, a
 * column-wise permutation takes it to its destination row, a row-wise permutation to its
 * destination column. The colours are a König edge colouring of the multigraph from source rows
 * to destination rows (items of one colour have distinct destination rows). Each row-wise step
 * runs in local memory in an order scheduled so that every step of a group of work-items touches
 * distinct banks (a colouring of the banks' multigraph per row). Every global access is coalesced
 * and the work does not depend on P.
 *
 * Shape: cols is a power of two, rows a multiple of the device's bank count (32 on GPUs), both at
 * most the longest row the device's local memory holds in 4-byte words (12288 for 48 KiB) and at
 * most 65536; the smallest such matrix that holds n, the squarest of equals. n above rows_max *
 * cols_max (about 2^26.6 items on 48 KiB devices) gives CLPERM_ERROR_UNSUPPORTED. Items wider than
 * the local memory's row are moved in 4- or 8-byte slices, one after another.
 *
 * Passes over the data (fusion): 1, the paper's five: row-wise, transpose, row-wise, transpose,
 * row-wise; 2, three: row-wise, a column-wise step that permutes strips of columns in local
 * memory in place (no transposes), row-wise. Device memory: the schedules, one 32-bit word per
 * padded item and step (S | D << 16: the paper's two 16-bit indices), 12 bytes per padded item;
 * and scratch the plan allocates on the first execute for an item size and keeps for that size
 * until it is freed: one buffer of rows * cols items for fusion 2, two for fusion 1. */
typedef struct clperm_perm_plan clperm_perm_plan;

/* Progress of a long host computation: fraction in [0, 1], nondecreasing, called from the thread
 * that created the plan. */
typedef void (*clperm_progress_fn)(void *user, double fraction);

typedef struct clperm_perm_plan_opts {
    clperm_progress_fn progress; /* NULL: none                                               */
    void *user;                  /* passed to progress                                       */
    int threads;                 /* host threads that build the plan: 0 = the online CPUs    */
    int fusion;                  /* 0: the device's default, else 1 or 2 (see above)         */
} clperm_perm_plan_opts;

/* Makes a plan for P from p (host memory, n indices of index_type, dst[p[i]] = src[i]): checks
 * that p is a permutation (CLPERM_ERROR_NOT_PERMUTATION otherwise, before any colouring or device
 * work), colours, schedules and uploads the schedules; blocking. opts NULL means the defaults.
 * Writes *out on success only; the caller frees it with clperm_perm_plan_free before freeing ctx.
 * Cost on the host: O(n log cols) for the colouring, O(n log(cols / banks)) for the schedules,
 * spread over opts->threads threads; clperm_perm_plan_query reports the times. The context is not
 * locked meanwhile: other threads may use it. n >= 1. */
CLPERM_API clperm_status clperm_perm_plan_create(clperm_ctx *ctx, clperm_perm_plan **out, clperm_type index_type,
                                                 const void *p, uint64_t n, const clperm_perm_plan_opts *opts);

/* The same from a device buffer p (read back first, blocking). */
CLPERM_API clperm_status clperm_perm_plan_create_device(clperm_ctx *ctx, clperm_perm_plan **out,
                                                        clperm_type index_type, cl_mem p, uint64_t n,
                                                        const clperm_perm_plan_opts *opts);

/* dst[P(i)] = src[i] for i < n, items of elem_size bytes (4, 8 or 16), as many times as wanted.
 * src and dst hold at least n items; they may be the same buffer (in place), but not partly
 * overlap (CLPERM_ERROR_BUFFER_OVERLAP). The first execute
 * for an item size allocates the plan's scratch. Executions of one plan are serialised by its
 * context; the plan itself is read-only once made. */
CLPERM_API clperm_status clperm_perm_plan_execute(clperm_perm_plan *plan, cl_mem src, cl_mem dst, size_t elem_size,
                                                  cl_uint num_events, const cl_event *events, cl_event *event);

typedef struct clperm_perm_plan_info {
    uint64_t n;
    uint32_t rows, cols;      /* the matrix (rows * cols >= n)                                 */
    uint32_t banks;           /* the schedules are conflict-free for this many banks of 4-byte
                                 words, for 4-, 8- and 16-byte items                           */
    int fusion;               /* 1 or 2                                                        */
    uint64_t schedule_bytes;  /* device memory of the schedules                                */
    uint64_t scratch_bytes;   /* device scratch the plan holds now (for every item size used)  */
    double seconds_check;     /* host time: checking p and inverting it                        */
    double seconds_colour;    /* the König colouring                                           */
    double seconds_schedule;  /* the per-row schedules of the three steps                      */
    double seconds_upload;    /* writing the schedules to the device                           */
    double seconds_total;     /* all of clperm_perm_plan_create                                */
    int threads;              /* host threads used                                             */
} clperm_perm_plan_info;

CLPERM_API clperm_status clperm_perm_plan_query(const clperm_perm_plan *plan, clperm_perm_plan_info *out);

/* Device bytes the plan needs to execute on items of elem_size bytes (0: the schedules alone):
 * schedules plus the scratch for that size (clperm_perm_plan_query: what it holds now). */
CLPERM_API clperm_status clperm_perm_plan_bytes(const clperm_perm_plan *plan, size_t elem_size, uint64_t *bytes);

/* Releases the plan's device memory. NULL is a no-op. */
CLPERM_API void clperm_perm_plan_free(clperm_perm_plan *plan);

/* Bank conflicts of the plan's row-wise steps and of its column-wise step (fusion 2), measured as
 * for clperm_permute_conflicts on up to `rows_traced` rows of each step (0: 4) with the plan's
 * own schedules and items of elem_size bytes. naive != 0 runs the same kernels with no schedule
 * (work-item j moves item j straight to its destination): the failing case. Blocking. */
CLPERM_API clperm_status clperm_perm_plan_conflicts(clperm_perm_plan *plan, size_t elem_size, uint32_t rows_traced,
                                                    int naive, clperm_conflict_report *out);


/* ---------------------------------------------------------------------------------------------
 * Subgroup-shared random number generators (clperm_rng.h)
 *
 * k work-items share one binary linear generator of 32k state bits (64k for the buffered
 * family) in local memory, each drawing its own stream; the parameters are full-period tables
 * found and proved by tools/rng_search (period 2^n - 1), scored in docs/rng-quality.md.
 * Unscrambled, every table fails at most dab_monobit2 of dieharder's whole battery (the weight
 * dependency of linear generators, which the starstar scrambler removes); the default (three,
 * k = 32, starstar) passes all of it. No table's words copy more than 1 low bit of the draw
 * before: the tables found before that bound, whose words copied up to 6 (iterated) or 9 to 13
 * (correlated) bits, failed sts_serial.
 * ------------------------------------------------------------------------------------------- */

typedef enum clperm_rng_family {
    CLPERM_RNG_FAMILY_AUTO = 0,                           /* the device's default (clperm_rng_default) */
    CLPERM_RNG_FAMILY_CORRELATED = CLPERM_RNG_CORRELATED, /* two inputs, shift and rotate (Listing 2)  */
    CLPERM_RNG_FAMILY_THREE = CLPERM_RNG_THREE,           /* plus a third unshifted input (Listing 3)  */
    CLPERM_RNG_FAMILY_SLOWMEM = CLPERM_RNG_SLOWMEM,       /* two inputs used twice (Listing 4)         */
    CLPERM_RNG_FAMILY_ITERATED = CLPERM_RNG_ITERATED,     /* two correlated passes per draw (Listing 5) */
    CLPERM_RNG_FAMILY_BUFFERED = CLPERM_RNG_BUFFERED      /* a register per work-item doubles the state
                                                             (Listing 6)                               */
} clperm_rng_family;

typedef enum clperm_rng_output {
    CLPERM_RNG_OUT_U32 = CLPERM_RNG_OUTPUT_U32,      /* cl_uint: one draw                              */
    CLPERM_RNG_OUT_U64 = CLPERM_RNG_OUTPUT_U64,      /* cl_ulong: two draws, the first in the high half */
    CLPERM_RNG_OUT_FLOAT = CLPERM_RNG_OUTPUT_FLOAT,  /* float in [0, 1): a draw's top 24 bits / 2^24    */
    CLPERM_RNG_OUT_DOUBLE = CLPERM_RNG_OUTPUT_DOUBLE /* double in [0, 1): a u64's top 53 bits / 2^53    */
} clperm_rng_output;

/* Output scramblers: a non-linear function applied to each word as it is drawn. The state, its
 * period, the streams, jump-ahead and saved states are the same with and without; only what a
 * draw returns differs. Why: the words themselves are linear in the state, so every output bit
 * satisfies a recurrence of order n (rank and linear-complexity tests fail beyond n bits), and the
 * weights of successive draws depend on each other (dieharder's dab_monobit2 fails at k = 8, 16
 * and 32); docs/rng-quality.md has the tests. */
typedef enum clperm_rng_scramble {
    CLPERM_RNG_SCRAMBLE_NONE = CLPERM_RNG_SCRAMBLER_NONE,        /* the state word itself        */
    CLPERM_RNG_SCRAMBLE_STARSTAR = CLPERM_RNG_SCRAMBLER_STARSTAR /* rotl(x * 5, 7) * 9 of the word
                                                                  * (xoshiro128**'s scrambler): a
                                                                  * bijection of the word, two
                                                                  * multiplies and a rotate     */
} clperm_rng_scramble;

/* "auto", "correlated", "three", "slowmem", "iterated", "buffered"; "u32", "u64", "float",
 * "double"; "none", "starstar". */
CLPERM_API const char *clperm_rng_family_name(clperm_rng_family family);
CLPERM_API const char *clperm_rng_output_name(clperm_rng_output output);
CLPERM_API const char *clperm_rng_scramble_name(clperm_rng_scramble scramble);

/* A generator: family, k (8, 16, 32 or 64 work-items sharing it) and the output scrambler.
 * scramble 0 is CLPERM_RNG_SCRAMBLE_NONE, so a spec written as {family, k} draws the state words
 * as before the scrambler existed. */
typedef struct clperm_rng_spec {
    clperm_rng_family family;
    uint32_t k;
    clperm_rng_scramble scramble;
} clperm_rng_spec;

/* The scrambler of the default generator (clperm_rng_default, and a NULL spec): starstar. It
 * costs two multiplies and a rotate per number, in registers: on the H200 the fill of 2^28 u32
 * ran at 992 G/s scrambled against 1004 G/s plain for the default k = 32 (1.3%; at most 3.7% at
 * any k), and draws inside a kernel at the same rate (docs/rng-quality.md, "Scrambled output").
 * A spec written as {family, k} still draws the state words themselves. */
#define CLPERM_RNG_DEFAULT_SCRAMBLE CLPERM_RNG_SCRAMBLE_STARSTAR

/* Draws per fill block: a fill of n items is cut into blocks of k * CLPERM_RNG_FILL_STEPS items,
 * block g drawn by the generator of clperm_rng_key(seed, stream, g) (clperm_rng.h): fills of
 * different streams, or of one stream's blocks, never share a generator's seeding. */
#define CLPERM_RNG_FILL_STEPS 256

/* The device's default generator: k = the device's subgroup width where it is 8..64 (else 32),
 * the family the tables rank best at that k, and CLPERM_RNG_DEFAULT_SCRAMBLE. Any k runs on any
 * device; give the spec explicitly for the same numbers on every device. */
CLPERM_API clperm_status clperm_rng_default(clperm_ctx *ctx, clperm_rng_spec *out);

/* State bits n of a generator (period 2^n - 1); 0 for an unknown family, k or scrambler. */
CLPERM_API uint32_t clperm_rng_state_bits(const clperm_rng_spec *spec);

/* Fills dst with n items of `output` from generator `spec` (NULL: the device's default), seeded
 * from (seed, stream, block) by SplitMix64; the layout is in CLPERM_RNG_FILL_STEPS. n = 0
 * enqueues nothing. Errors (nothing written): bad spec or output, dst too small or read-only. */
CLPERM_API clperm_status clperm_rng_fill(clperm_ctx *ctx, const clperm_rng_spec *spec, clperm_rng_output output,
                                         cl_mem dst, uint64_t n, uint64_t seed, uint64_t stream,
                                         cl_uint num_events, const cl_event *events, cl_event *event);

/* The same fill on the host: bit for bit what every device writes. spec must be given. */
CLPERM_API clperm_status clperm_rng_fill_host(const clperm_rng_spec *spec, clperm_rng_output output, void *dst,
                                              uint64_t n, uint64_t seed, uint64_t stream);

/* ---- states and jump-ahead, on the host ----
 * A state is clperm_rng_state_bits(spec) / 32 words: the k words of the generator (word j is
 * work-item j's), then, for the buffered family, the k registers. Every state except zero lies
 * on the one cycle of length 2^n - 1. A "draw" updates all k words once (ITERATED: both passes);
 * kernels load and save states with clperm_rng_load and clperm_rng_save (clperm_rng.h). */

/* The state stream `stream` of `seed` starts from: the one clperm_rng_init uses, and block 0 of
 * a fill. */
CLPERM_API clperm_status clperm_rng_seed_host(const clperm_rng_spec *spec, uint64_t seed, uint64_t stream,
                                              uint32_t *state);

/* Advances state by `draws` draws; out (NULL: discard) gets the k numbers of each, draw by draw:
 * the new state words, through spec->scramble. */
CLPERM_API clperm_status clperm_rng_draw_host(const clperm_rng_spec *spec, uint32_t *state, uint32_t *out,
                                              uint64_t draws);

/* Advances state by 2^log2_draws draws (the state times A^(2^log2_draws)): x^(2^j) modulo the
 * characteristic polynomial (found by Berlekamp-Massey), applied in n draws. log2_draws is
 * taken modulo n, since A^(2^n) = A. Cost: 4 ms at n = 1024 and log2_draws = 64, 20 ms at
 * 1023; 0.8 s at n = 4096 and 4095 (one x86 core). */
CLPERM_API clperm_status clperm_rng_jump_host(const clperm_rng_spec *spec, uint32_t *state, uint32_t log2_draws);

/* `count` states spaced 2^log2_spacing draws apart, from the seeded state of (seed, stream):
 * states[i] = A^(i * 2^log2_spacing) times that state (count * state words in all). While
 * count * 2^log2_spacing <= 2^n - 1, the first 2^log2_spacing draws of the streams are disjoint
 * stretches of the cycle: no stream overlaps another. */
CLPERM_API clperm_status clperm_rng_states_host(const clperm_rng_spec *spec, uint64_t seed, uint64_t stream,
                                                uint32_t log2_spacing, uint64_t count, uint32_t *states);

/* For users' kernels: the device-side source (the tables and clperm_rng.h) to put before their
 * own, and the build options that select `spec` (NULL: default) on the context's device, its
 * scrambler included, with warp synchronisation where the hardware allows it. buf gets at most cap bytes, NUL-terminated;
 * CLPERM_ERROR_BUFFER_TOO_SMALL when it does not fit. */
CLPERM_API const char *clperm_rng_device_source(size_t *length);
CLPERM_API clperm_status clperm_rng_build_options(clperm_ctx *ctx, const clperm_rng_spec *spec, char *buf,
                                                  size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* CLPERM_H */
