/* Tunables: the parameters' bounds and names (from clperm.h's CLPERM_PARAM_MAP), which of them
 * the device can take, and how the families' device rows apply (src/runtime/rows.h). The values
 * each operation uses are its family's (src/<family>/<family>_tuning.c). */
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
    CLPERM_RETURN_IF(param == CLPERM_PARAM_SORT_ALGORITHM && value == 2 && !clperm__onesweep_runs(profile),
                     CLPERM_ERROR_UNSUPPORTED);
    return CLPERM_SUCCESS;
}

int clperm__onesweep_runs(const clperm_profile *p) {
    /* Its look-back words are 64 bits: read and written whole by 64-bit atomics, or on NVIDIA by
     * volatile accesses, which its compiler makes single 64-bit loads and stores. */
    return !p->loop_limit && (p->atomics64 || p->vendor == CLPERM_VENDOR_NVIDIA);
}

/* ---- the device rows ----
 * Each family keeps its rows beside its tunables (src/runtime/rows.h); here only which rows match
 * a device and the order they apply in. */

int clperm__row_matches(const clperm__row_key *key, const clperm_profile *p) {
    if (key->loop_limited && !p->loop_limit) return 0;
    if (key->vendor != CLPERM_VENDOR_OTHER && key->vendor != p->vendor) return 0;
    if (key->type && !(key->type & p->device_type)) return 0;
    if (key->text && !strstr(p->device_name, key->text) && !strstr(p->driver_version, key->text) &&
        !strstr(p->platform_version, key->text))
        return 0;
    return 1;
}

void clperm__rows_apply(const void *rows, size_t count, size_t stride, size_t offset, size_t fields,
                        const clperm_profile *p, int *out) {
    memset(out, 0, fields * sizeof *out);
    for (size_t i = 0; i < count; i++) {
        const unsigned char *row = (const unsigned char *)rows + i * stride;
        if (!clperm__row_matches((const clperm__row_key *)row, p)) continue;
        const int *set = (const int *)(row + offset);
        for (size_t f = 0; f < fields; f++)
            if (set[f]) out[f] = set[f] < 0 ? 0 : set[f];
    }
}

void clperm__tuning_init(const clperm_profile *p, clperm__tuning *t) {
    CLPERM__ROWS_APPLY(scan, p, &t->scan);
    CLPERM__ROWS_APPLY(shuffle, p, &t->shuffle);
    CLPERM__ROWS_APPLY(tile, p, &t->tile);
    CLPERM__ROWS_APPLY(rng, p, &t->rng);
    CLPERM__ROWS_APPLY(sort, p, &t->sort);
    CLPERM__ROWS_APPLY(permute, p, &t->permute);
}

/* ---- the values operations use ---- */

int clperm__capped_wg(const clperm_ctx *ctx, int wg) {
    while ((size_t)wg > ctx->profile.max_work_group_size && wg > 1) wg >>= 1;
    return wg;
}
