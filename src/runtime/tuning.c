/* Tunables: the parameters' bounds and names (from clperm.h's CLPERM_PARAM_MAP), the per-device
 * table of defaults, and the values each operation uses: the caller's setting, else the table's,
 * capped to what the device allows. */
#include <string.h>

#include "internal.h"

/* ---- the parameters ---- */

typedef struct param_info {
    const char *name;
    int lo, hi, flags;
} param_info;

static const param_info params[CLPERM__PARAM_MAX] = {
#define CLPERM_X_INFO(name, value, lo, hi, flags, text) [value] = {text, lo, hi, flags},
    CLPERM_PARAM_MAP(CLPERM_X_INFO)
#undef CLPERM_X_INFO
};

static const param_info *param_lookup(clperm_param param) {
    if ((int)param <= 0 || (int)param >= CLPERM__PARAM_MAX || !params[param].name) return NULL;
    return &params[param];
}

clperm_status clperm_param_bounds(clperm_param param, int *lo, int *hi) {
    CLPERM_RETURN_IF(!lo || !hi, CLPERM_ERROR_INVALID_ARGUMENT);
    const param_info *p = param_lookup(param);
    CLPERM_RETURN_IF(!p, CLPERM_ERROR_INVALID_PARAM);
    *lo = p->lo;
    *hi = p->hi;
    return CLPERM_SUCCESS;
}

const char *clperm_param_name(clperm_param param) {
    const param_info *p = param_lookup(param);
    return p ? p->name : NULL;
}

clperm_status clperm_param_from_name(const char *name, clperm_param *out) {
    CLPERM_RETURN_IF(!name || !out, CLPERM_ERROR_INVALID_ARGUMENT);
    for (int i = 1; i < CLPERM__PARAM_MAX; i++)
        if (params[i].name && strcmp(params[i].name, name) == 0) {
            *out = (clperm_param)i;
            return CLPERM_SUCCESS;
        }
    return CLPERM_ERROR_INVALID_PARAM;
}

static int is_pow2(int v) { return v > 0 && !(v & (v - 1)); }

clperm_status clperm__param_check(const clperm_profile *profile, clperm_param param, int value) {
    const param_info *p = param_lookup(param);
    CLPERM_RETURN_IF(!p, CLPERM_ERROR_INVALID_PARAM);
    if (value == 0 && !(p->flags & CLPERM_PARAM_NO_AUTO)) return CLPERM_SUCCESS;
    CLPERM_RETURN_IF(value < p->lo || value > p->hi, CLPERM_ERROR_PARAM_OUT_OF_BOUNDS);
    CLPERM_RETURN_IF((p->flags & CLPERM_PARAM_POW2) && !is_pow2(value), CLPERM_ERROR_PARAM_OUT_OF_BOUNDS);
    CLPERM_RETURN_IF((p->flags & CLPERM_PARAM_WG) && (size_t)value > profile->max_work_group_size,
                     CLPERM_ERROR_UNSUPPORTED);
    CLPERM_RETURN_IF(param == CLPERM_PARAM_SG_IMPL && !(profile->sg_impls_available & (1u << value)),
                     CLPERM_ERROR_UNSUPPORTED);
    /* Where loops are capped, a single pass's wait for earlier work-groups can reach the cap, and
     * so can a serial kernel's walk over thousands of items a work-item. */
    int lookback = (param == CLPERM_PARAM_SCAN_ALGORITHM && value == 2) ||
                   (param == CLPERM_PARAM_SHUFFLE_FUSION && value == CLPERM_FUSION_LOOKBACK) ||
                   (param == CLPERM_PARAM_SORT_ALGORITHM && value == 2);
    int serial = ((param == CLPERM_PARAM_SCAN_KERNEL || param == CLPERM_PARAM_SHUFFLE_KERNEL ||
                   param == CLPERM_PARAM_RNG_KERNEL || param == CLPERM_PARAM_SORT_KERNEL) &&
                  value == CLPERM_KERNEL_SERIAL) ||
                 (param == CLPERM_PARAM_PERMUTE_KERNEL && value == CLPERM_PERMUTE_KERNEL_SERIAL);
    CLPERM_RETURN_IF((lookback || serial) && profile->loop_limit, CLPERM_ERROR_UNSUPPORTED);
    return CLPERM_SUCCESS;
}

/* ---- the device table ----
 * Rows are applied in order to a context's tuning: the first row holds every default, and each
 * later row whose key matches the device overrides the fields it sets (0 leaves a field alone).
 * Keys: vendor (CLPERM_VENDOR_OTHER: any), device type (0: any) and a text that the device name,
 * driver version or platform version must contain (NULL: any). Each row names the section of
 * docs/performance.md whose figures chose it. */
typedef struct tuning_row {
    clperm_vendor vendor;
    cl_device_type type;
    const char *text;
    const char *source;
    int loop_limited; /* 1: only devices that end long loops early (clperm_profile.loop_limit) */
    clperm__tuning set;
} tuning_row;

static const tuning_row tuning_table[] = {
    {CLPERM_VENDOR_OTHER, 0, NULL, "defaults for devices not measured", 0,
     {.scan_kernel = CLPERM_KERNEL_WORK_GROUP, .scan_wg_size = 64, .scan_items_u32 = 8, .scan_items_u64 = 8,
      .scan_stage = 1, .scan_serial_u32 = 4096, .scan_serial_u64 = 2048, .scan_groups_per_cu = 4,
      .shuffle_kernel = CLPERM_KERNEL_WORK_GROUP, .shuffle_wg_size = 64, .shuffle_items = 8,
      .shuffle_serial_items = 4096, .sort_aspect = 1, .sort_auto = CLPERM_TILE_SORT_SHEAR, .rng_wg_size = 64,
      .rng_k = 0, .rng_kernel = CLPERM_KERNEL_WORK_GROUP, .sort_kernel = CLPERM_KERNEL_WORK_GROUP,
      .sort_wg_size = 64, .sort_items_32 = 8, .sort_wg_size_64 = 64, .sort_items_64 = 8, .sort_rank = 1,
      .sort_digit_bits = 8, .seg_reg_items = 8,
      .permute_kernel = CLPERM_PERMUTE_KERNEL_LOCAL, .perm_fusion = 2, .perm_tiles_4 = 1, .perm_tiles_8 = 1}},
    {CLPERM_VENDOR_OTHER, CL_DEVICE_TYPE_GPU, NULL, "GPUs not measured: work-groups of 256", 0,
     {.scan_wg_size = 256, .scan_items_u32 = 9, .scan_items_u64 = 5, .shuffle_wg_size = 256, .rng_wg_size = 256,
      .sort_wg_size = 256, .sort_items_32 = 12, .sort_wg_size_64 = 256}},
    {CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL,
     "Scan, Shuffle, Tile sorts (segments of 256: 8 x 32, m >= 4w), Generators on the NVIDIA H200", 0,
     {.scan_items_u32 = 31, .scan_items_u64 = 15, .scan_groups_per_cu = 8, .shuffle_items = 8, .sort_aspect = 4}},
    {CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL,
     "Offline permutations on the NVIDIA H200: the scheduled permutation's five passes beat its three "
     "(2^26 random, 4/8/16-byte items: 64.5/32.2/11.7 against 37.6/17.6/7.4 G items/s)", 0,
     {.perm_fusion = 1}},
    {CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL,
     "Offline permutations on the NVIDIA H200, local tiles per work-group: the bit-reversal of 4-byte items "
     "at 2^26 reaches 86.7% of copy with 4 tiles (68.2% with 1); the transpose keeps 1 (83.9%, 68.6% with 4), "
     "8-byte items 1 (102 to 104% of copy at any count)", 0,
     {.perm_rev_tiles_4 = 4}},
    {CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL,
     "Offline permutations on the NVIDIA H200, work-item rows per work-group: the transpose of 4-byte items "
     "with 4 rows (8 items a work-item) reaches 90 to 91% of the copy of its bytes at 2^26, 86 to 87% with 8", 0,
     {.perm_tr_rows_4 = 4}},
    {CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL,
     "Device-wide sort on the NVIDIA H200, 2^28 keys, the best tile per class: 512 x 16 u32 keys at 64 "
     "registers 36.4 G keys/s, 384 x 16 u32 keys with u32 values 29.7, 384 x 12 u64 keys 14.2 (256 x 12 "
     "12.9 since the tiles publish their counts before the scan), 256 x 20 u64 with u64 values 10.0", 0,
     {.sort_wg_size = 512, .sort_items_32 = 16, .sort_regs_32 = 64, .sort_wg_size_32v = 384, .sort_items_32v = 16,
      .sort_wg_size_64 = 384, .sort_items_64 = 12, .sort_wg_size_64v = 256, .sort_items_64v = 20}},
    {CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL,
     "Segmented sort's register network on the NVIDIA H100, 2^28 u32 keys: 16 keys a work-item (segments of "
     "256 / 1024 / 2048 at 259 / 169 / 137 G keys/s, 8 keys at 230 / 152 / 129)", 0,
     {.seg_reg_items = 16}},
    {CLPERM_VENDOR_AMD, CL_DEVICE_TYPE_GPU, NULL, "not measured: scan tiles sized for 64-wide wavefronts", 0,
     {.scan_items_u32 = 15, .scan_items_u64 = 7, .scan_groups_per_cu = 8, .shuffle_items = 16,
      .sort_items_32 = 16}},
    {CLPERM_VENDOR_INTEL, CL_DEVICE_TYPE_GPU, NULL, "not measured", 0,
     {.scan_items_u32 = 11, .scan_groups_per_cu = 8}},
    {CLPERM_VENDOR_OTHER, CL_DEVICE_TYPE_CPU, NULL,
     "Scan, Shuffle, Tile sorts, Generators, Offline permutations on PoCL 3.1 (serial kernels; bitonic "
     "and serial runs of tiles, as a CPU has no banks; no register network of segments: 24.6 ms for 2^20 u32 "
     "keys in segments of 2048, against 19.5 for the tile sort and 4.7 for the work-item-per-segment kernels)", 0,
     {.scan_kernel = CLPERM_KERNEL_SERIAL, .scan_items_u32 = 16, .scan_items_u64 = 16, .scan_stage = -1,
      .scan_serial_u32 = 8192, .scan_serial_u64 = 4096, .shuffle_kernel = CLPERM_KERNEL_SERIAL,
      .shuffle_items = 16, .sort_auto = CLPERM_TILE_SORT_BITONIC, .rng_k = 32, .rng_kernel = CLPERM_KERNEL_SERIAL,
      .sort_kernel = CLPERM_KERNEL_SERIAL, .permute_kernel = CLPERM_PERMUTE_KERNEL_SERIAL, .perm_fusion = 1,
      .seg_reg_items = -1}},
    {CLPERM_VENDOR_OTHER, 0, NULL,
     "devices that end a kernel's loops after a count (Mesa's llvmpipe: 65535 iterations in all; "
     "docs/devices.md): work-group kernels, whose loops are short, in place of the serial ones", 1,
     {.scan_kernel = CLPERM_KERNEL_WORK_GROUP, .scan_wg_size = 64, .scan_items_u32 = 8, .scan_items_u64 = 8,
      .scan_stage = 1, .shuffle_kernel = CLPERM_KERNEL_WORK_GROUP, .shuffle_wg_size = 64, .shuffle_items = 8,
      .rng_kernel = CLPERM_KERNEL_WORK_GROUP, .rng_wg_size = 64, .sort_kernel = CLPERM_KERNEL_WORK_GROUP,
      .sort_wg_size = 64, .sort_items_32 = 8, .sort_wg_size_64 = 64, .sort_items_64 = 8,
      .permute_kernel = CLPERM_PERMUTE_KERNEL_LOCAL, .perm_fusion = 2}},
    {CLPERM_VENDOR_OCLGRIND, 0, NULL, "a simulator, whatever type it reports: small work-group tiles keep the tests short", 0,
     {.scan_kernel = CLPERM_KERNEL_WORK_GROUP, .scan_wg_size = 64, .scan_items_u32 = 4, .scan_items_u64 = 4,
      .scan_stage = 1, .scan_serial_u32 = 256, .scan_serial_u64 = 256, .scan_groups_per_cu = 2,
      .shuffle_kernel = CLPERM_KERNEL_WORK_GROUP, .shuffle_wg_size = 64, .shuffle_items = 4,
      .shuffle_serial_items = 256, .sort_auto = CLPERM_TILE_SORT_SHEAR, .rng_wg_size = 64, .rng_k = 8,
      .rng_kernel = CLPERM_KERNEL_WORK_GROUP, .sort_kernel = CLPERM_KERNEL_WORK_GROUP, .sort_wg_size = 64,
      .sort_items_32 = 4, .sort_wg_size_64 = 64, .sort_items_64 = 4, .permute_kernel = CLPERM_PERMUTE_KERNEL_LOCAL, .perm_fusion = 2}},
};

static int row_matches(const tuning_row *r, const clperm_profile *p) {
    if (r->loop_limited && !p->loop_limit) return 0;
    if (r->vendor != CLPERM_VENDOR_OTHER && r->vendor != p->vendor) return 0;
    if (r->type && !(r->type & p->device_type)) return 0;
    if (r->text && !strstr(p->device_name, r->text) && !strstr(p->driver_version, r->text) &&
        !strstr(p->platform_version, r->text))
        return 0;
    return 1;
}

/* Overrides the fields of *t that the row sets. A field set to -1 in a row means "0" (off). */
#define TUNING_FIELDS(X)                                                                           \
    X(scan_kernel) X(scan_wg_size) X(scan_items_u32) X(scan_items_u64) X(scan_stage) X(scan_serial_u32)  \
    X(scan_serial_u64) X(scan_groups_per_cu) X(shuffle_kernel) X(shuffle_wg_size) X(shuffle_items)        \
    X(shuffle_serial_items) X(sort_aspect) X(sort_auto) X(rng_wg_size) X(rng_k) X(rng_kernel) X(sort_kernel)   \
    X(sort_wg_size) X(sort_items_32) X(sort_wg_size_32v) X(sort_items_32v) X(sort_wg_size_64) X(sort_items_64)  \
    X(sort_wg_size_64v) X(sort_items_64v) X(sort_regs_32) X(sort_regs_32v) X(sort_regs_64) X(sort_regs_64v)   \
    X(seg_reg_items) X(sort_rank) X(sort_digit_bits) X(permute_kernel) X(perm_fusion)                     \
    X(perm_tiles_4) X(perm_tiles_8) X(perm_rev_tiles_4) X(perm_rev_tiles_8) X(perm_tr_rows_4)

void clperm__tuning_init(const clperm_profile *p, clperm__tuning *t) {
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < sizeof tuning_table / sizeof tuning_table[0]; i++) {
        const tuning_row *r = &tuning_table[i];
        if (!row_matches(r, p)) continue;
#define CLPERM_X_SET(field)                                                                        \
    if (r->set.field) t->field = r->set.field < 0 ? 0 : r->set.field;
        TUNING_FIELDS(CLPERM_X_SET)
#undef CLPERM_X_SET
    }
}

/* ---- the values operations use ---- */

static int capped_wg(const clperm_ctx *ctx, int wg) {
    while ((size_t)wg > ctx->profile.max_work_group_size && wg > 1) wg >>= 1;
    return wg;
}

int clperm__scan_kernel(const clperm_ctx *ctx) {
    int k = ctx->params[CLPERM_PARAM_SCAN_KERNEL];
    return k ? k : ctx->tuning.scan_kernel;
}

/* Work-group size of the work-group scan kernels (and of the subgroup layer's builds). */
static int workgroup_wg_size(const clperm_ctx *ctx) {
    int wg = ctx->params[CLPERM_PARAM_SCAN_WG_SIZE];
    return wg ? wg : capped_wg(ctx, ctx->tuning.scan_wg_size);
}

int clperm__scan_wg_size(const clperm_ctx *ctx) {
    return clperm__scan_kernel(ctx) == CLPERM_KERNEL_SERIAL ? 1 : workgroup_wg_size(ctx);
}

int clperm__scan_items(const clperm_ctx *ctx, clperm_type type) {
    const clperm__tuning *tune = &ctx->tuning;
    int u64 = type == CLPERM_TYPE_U64;
    int items = ctx->params[CLPERM_PARAM_SCAN_ITEMS];
    if (clperm__scan_kernel(ctx) == CLPERM_KERNEL_SERIAL)
        return items ? items : (u64 ? tune->scan_serial_u64 : tune->scan_serial_u32);
    if (!items) items = u64 ? tune->scan_items_u64 : tune->scan_items_u32;
    return items <= 64 ? items : 64;
}

int clperm__scan_algorithm(const clperm_ctx *ctx) {
    int a = ctx->params[CLPERM_PARAM_SCAN_ALGORITHM];
    return a ? a : (ctx->profile.forward_progress ? 2 : 1);
}

uint64_t clperm__range_groups(const clperm_ctx *ctx, uint64_t tiles, uint64_t loops_per_tile) {
    uint64_t groups = (uint64_t)ctx->profile.compute_units * (uint64_t)ctx->tuning.scan_groups_per_cu;
    if (ctx->profile.loop_limit) {
        uint64_t per_group = ctx->profile.loop_limit / 2 / (loops_per_tile ? loops_per_tile : 1);
        if (per_group == 0) per_group = 1;
        uint64_t need = (tiles + per_group - 1) / per_group;
        if (need > groups) groups = need;
    }
    return groups ? groups : 1;
}

int clperm__shuffle_kernel(const clperm_ctx *ctx) {
    int k = ctx->params[CLPERM_PARAM_SHUFFLE_KERNEL];
    return k ? k : ctx->tuning.shuffle_kernel;
}

int clperm__shuffle_wg_size(const clperm_ctx *ctx) {
    if (clperm__shuffle_kernel(ctx) == CLPERM_KERNEL_SERIAL) return 1;
    int wg = ctx->params[CLPERM_PARAM_SHUFFLE_WG_SIZE];
    return wg ? wg : capped_wg(ctx, ctx->tuning.shuffle_wg_size);
}

int clperm__shuffle_items(const clperm_ctx *ctx) {
    int items = ctx->params[CLPERM_PARAM_SHUFFLE_ITEMS];
    if (clperm__shuffle_kernel(ctx) == CLPERM_KERNEL_SERIAL) return items ? items : ctx->tuning.shuffle_serial_items;
    if (!items) items = ctx->tuning.shuffle_items;
    return items <= 32 ? items : 32;
}

int clperm__shuffle_fusion(const clperm_ctx *ctx) {
    int f = ctx->params[CLPERM_PARAM_SHUFFLE_FUSION];
    return f ? f : (ctx->profile.forward_progress ? CLPERM_FUSION_LOOKBACK : CLPERM_FUSION_TWO_PASS);
}

int clperm__rng_kernel(const clperm_ctx *ctx) {
    int k = ctx->params[CLPERM_PARAM_RNG_KERNEL];
    return k ? k : ctx->tuning.rng_kernel;
}

int clperm__permute_kernel(const clperm_ctx *ctx) {
    int k = ctx->params[CLPERM_PARAM_PERMUTE_KERNEL];
    return k ? k : ctx->tuning.permute_kernel;
}

int clperm__permute_tiles(const clperm_ctx *ctx, clperm_permute_kind kind, size_t bytes) {
    const clperm__tuning *tu = &ctx->tuning;
    int t = ctx->params[CLPERM_PARAM_PERMUTE_TILES];
    int rev = kind == CLPERM_PERMUTE_BIT_REVERSAL ? (bytes == 4 ? tu->perm_rev_tiles_4 : bytes == 8 ? tu->perm_rev_tiles_8 : 0) : 0;
    if (!t) t = rev ? rev : bytes == 4 ? tu->perm_tiles_4 : bytes == 8 ? tu->perm_tiles_8 : 1;
    if (t < 1) t = 1;
    while (t > 1 && (cl_ulong)t * 1024 * bytes > ctx->profile.local_mem_bytes) t >>= 1;
    return t;
}

int clperm__permute_wg_rows(const clperm_ctx *ctx, clperm_permute_kind kind, size_t bytes) {
    if (kind != CLPERM_PERMUTE_TRANSPOSE && kind != CLPERM_PERMUTE_BIT_REVERSAL) return 8;
    int r = ctx->params[CLPERM_PARAM_PERMUTE_WG_ROWS];
    if (!r && kind == CLPERM_PERMUTE_TRANSPOSE && bytes == 4) r = ctx->tuning.perm_tr_rows_4;
    if (!r) r = 8;
    while (r > 4 && (size_t)r * 32 > ctx->profile.max_work_group_size) r >>= 1;
    return r;
}

int clperm__sort_width(const clperm_ctx *ctx) {
    int w = ctx->params[CLPERM_PARAM_SORT_WIDTH];
    if (w) return w;
    w = 1;
    while (w < 64 && (cl_uint)w * 2 <= ctx->profile.banks) w *= 2;
    return w;
}

/* The value clperm_ctx_get_param reports for each parameter. */
int clperm__param_value(const clperm_ctx *ctx, clperm_param param) {
    clperm_sg_impl impl;
    cl_uint width;
    clperm__sg_choice(ctx, (size_t)workgroup_wg_size(ctx), &impl, &width);
    switch (param) {
    case CLPERM_PARAM_SCAN_ALGORITHM: return clperm__scan_algorithm(ctx);
    case CLPERM_PARAM_SG_IMPL: return (int)impl;
    case CLPERM_PARAM_SG_WIDTH: return (int)width;
    case CLPERM_PARAM_SCAN_WG_SIZE: return clperm__scan_wg_size(ctx);
    case CLPERM_PARAM_SCAN_ITEMS: return clperm__scan_items(ctx, CLPERM_TYPE_U32);
    case CLPERM_PARAM_DISK_CACHE: return ctx->disk_cache;
    case CLPERM_PARAM_SCAN_KERNEL: return clperm__scan_kernel(ctx);
    case CLPERM_PARAM_SHUFFLE_FUSION: return clperm__shuffle_fusion(ctx);
    case CLPERM_PARAM_SHUFFLE_KERNEL: return clperm__shuffle_kernel(ctx);
    case CLPERM_PARAM_SHUFFLE_WG_SIZE: return clperm__shuffle_wg_size(ctx);
    case CLPERM_PARAM_SHUFFLE_ITEMS: return clperm__shuffle_items(ctx);
    case CLPERM_PARAM_SORT_WIDTH: return clperm__sort_width(ctx);
    case CLPERM_PARAM_RNG_KERNEL: return clperm__rng_kernel(ctx);
    case CLPERM_PARAM_SORT_ALGORITHM:
    case CLPERM_PARAM_SORT_KERNEL:
    case CLPERM_PARAM_SORT_RANK:
    case CLPERM_PARAM_SORT_DIGIT_BITS:
    case CLPERM_PARAM_SORT_WG_SIZE:
    case CLPERM_PARAM_SORT_ITEMS:
    case CLPERM_PARAM_SORT_REGS: return clperm__radix_param(ctx, param);
    case CLPERM_PARAM_SEGMENT_SORT: return clperm__segment_sort(ctx);
    case CLPERM_PARAM_PERMUTE_KERNEL: return clperm__permute_kernel(ctx);
    case CLPERM_PARAM_PERMUTE_TILES: return clperm__permute_tiles(ctx, CLPERM_PERMUTE_TRANSPOSE, 4);
    case CLPERM_PARAM_PERMUTE_WG_ROWS: return clperm__permute_wg_rows(ctx, CLPERM_PERMUTE_TRANSPOSE, 4);
    default: return ctx->params[param];
    }
}
