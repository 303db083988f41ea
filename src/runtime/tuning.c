/* Tunables: the parameters' bounds and names (from clperm.h's CLPERM_PARAM_MAP), which of them
 * the device can take, how the families' device rows apply (src/runtime/rows.h), and the
 * families' lists of tunables as one table. The values each operation uses are its family's
 * (src/<family>/<family>_tuning.c). */
#include <stddef.h>
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
 * a device, the order they apply in, and the families' lists as one table (clperm_tunable_info,
 * clperm_ctx_set_tunable and the tuning files, tuning_file.c). */

int clperm__row_matches(const clperm__row_key *key, const clperm_profile *p) {
    if (key->loop_limited && !p->loop_limit) return 0;
    if (key->vendor != CLPERM_VENDOR_OTHER && key->vendor != p->vendor) return 0;
    if (key->type && !(key->type & p->device_type)) return 0;
    if (key->text && !strstr(p->device_name, key->text) && !strstr(p->driver_version, key->text) &&
        !strstr(p->platform_version, key->text))
        return 0;
    return 1;
}

/* What kind of row a key makes: the first row of a table holds the defaults; a row with a text is
 * for devices by name (or driver or platform version); one with a vendor (other than the
 * simulator's) for a vendor's devices; the rest for classes of device. */
static clperm_tuning_source row_source(const clperm__row_key *key, size_t index) {
    if (index == 0) return CLPERM_TUNING_DEFAULTS;
    if (key->text) return CLPERM_TUNING_DEVICE_ROW;
    if (key->vendor != CLPERM_VENDOR_OTHER && key->vendor != CLPERM_VENDOR_OCLGRIND) return CLPERM_TUNING_VENDOR_ROW;
    return CLPERM_TUNING_CLASS_ROW;
}

#define TUNABLE_INFO(name, lo, hi, flags, text) {#name, lo, hi, flags, text},
#define FAMILY_TUNABLES(fam, LIST) static const clperm__tunable_def fam##_defs[] = {LIST(TUNABLE_INFO)};
FAMILY_TUNABLES(scan, CLPERM__SCAN_TUNABLES)
FAMILY_TUNABLES(shuffle, CLPERM__SHUFFLE_TUNABLES)
FAMILY_TUNABLES(tile, CLPERM__TILE_TUNABLES)
FAMILY_TUNABLES(rng, CLPERM__RNG_TUNABLES)
FAMILY_TUNABLES(sort, CLPERM__SORT_TUNABLES)
FAMILY_TUNABLES(permute, CLPERM__PERMUTE_TUNABLES)
#define FAMILY(fam)                                                                                \
    {#fam, fam##_defs, clperm__##fam##_tunables, offsetof(clperm__tuning, fam), clperm__##fam##_rows,     \
     &clperm__##fam##_rows_count, sizeof clperm__##fam##_rows[0], offsetof(clperm__##fam##_row, set)}

const clperm__family_def clperm__families[CLPERM__FAMILIES] = {FAMILY(scan), FAMILY(shuffle), FAMILY(tile),
                                                               FAMILY(rng),  FAMILY(sort),    FAMILY(permute)};

int clperm__family_index(const char *name) {
    for (int f = 0; name && f < CLPERM__FAMILIES; f++)
        if (strcmp(clperm__families[f].name, name) == 0) return f;
    return -1;
}

int clperm__tunable_index(int family, const char *name) {
    const clperm__family_def *fam = &clperm__families[family];
    for (size_t i = 0; name && i < fam->count; i++)
        if (strcmp(fam->tunables[i].name, name) == 0) return (int)i;
    return -1;
}

int clperm__tunable_valid(const clperm__tunable_def *d, int value, const clperm_profile *p) {
    if (value < d->lo || value > d->hi) return 0;
    if (value == 0) return 1;
    if ((d->flags & CLPERM_PARAM_POW2) && !is_pow2(value)) return 0;
    if ((d->flags & CLPERM_PARAM_SG_MULTIPLE) && p->sg_width && value % (int)p->sg_width) return 0;
    return 1;
}

int *clperm__family_values(clperm__tuning *t, int family) {
    return (int *)((char *)t + clperm__families[family].offset);
}

/* Applies family f's rows that match p, of the kinds up to `upto`, to out; its source is the
 * kind of the last row applied (and that row's text). */
static void family_apply(int f, const clperm_profile *p, clperm_tuning_source upto, int *out,
                         clperm__tuning_origin *origin) {
    const clperm__family_def *fam = &clperm__families[f];
    memset(out, 0, fam->count * sizeof *out);
    for (size_t i = 0; i < *fam->nrows; i++) {
        const unsigned char *row = (const unsigned char *)fam->rows + i * fam->stride;
        const clperm__row_key *key = (const clperm__row_key *)row;
        clperm_tuning_source kind = row_source(key, i);
        if (kind > upto || !clperm__row_matches(key, p)) continue;
        const int *set = (const int *)(row + fam->set_offset);
        for (size_t v = 0; v < fam->count; v++)
            if (set[v]) out[v] = set[v] < 0 ? 0 : set[v];
        origin->source = kind;
        origin->detail = key->source;
    }
}

void clperm__tuning_rows(const clperm_profile *p, clperm_tuning_source upto, clperm__tuning *t,
                         clperm__tuning_origin origins[CLPERM__FAMILIES]) {
    for (int f = 0; f < CLPERM__FAMILIES; f++) family_apply(f, p, upto, clperm__family_values(t, f), &origins[f]);
}

void clperm__tuning_init(const clperm_profile *p, clperm__tuning *t) {
    clperm__tuning_origin origins[CLPERM__FAMILIES];
    clperm__tuning_rows(p, CLPERM_TUNING_DEVICE_ROW, t, origins);
}

/* ---- the tunables as the API lists them ---- */

size_t clperm_tunable_count(void) {
    size_t n = 0;
    for (int f = 0; f < CLPERM__FAMILIES; f++) n += clperm__families[f].count;
    return n;
}

clperm_status clperm_tunable_info(size_t index, clperm_tunable *out) {
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    for (int f = 0; f < CLPERM__FAMILIES; f++) {
        const clperm__family_def *fam = &clperm__families[f];
        if (index < fam->count) {
            const clperm__tunable_def *d = &fam->tunables[index];
            out->family = fam->name;
            out->name = d->name;
            out->meaning = d->meaning;
            out->lo = d->lo;
            out->hi = d->hi;
            out->flags = d->flags;
            return CLPERM_SUCCESS;
        }
        index -= fam->count;
    }
    return CLPERM_ERROR_INVALID_PARAM;
}

const char *clperm_tuning_source_name(clperm_tuning_source source) {
    switch (source) {
    case CLPERM_TUNING_DEFAULTS: return "defaults";
    case CLPERM_TUNING_CLASS_ROW: return "class row";
    case CLPERM_TUNING_VENDOR_ROW: return "vendor row";
    case CLPERM_TUNING_DEVICE_ROW: return "device row";
    case CLPERM_TUNING_FILE: return "tuning file";
    case CLPERM_TUNING_SET: return "set";
    }
    return NULL;
}

/* ---- the values operations use ---- */

int clperm__table_kernel(const clperm_ctx *ctx, int kind) {
    return kind == CLPERM_KERNEL_SERIAL && ctx->profile.loop_limit ? CLPERM_KERNEL_WORK_GROUP : kind;
}

int clperm__capped_wg(const clperm_ctx *ctx, int wg) {
    while ((size_t)wg > ctx->profile.max_work_group_size && wg > 1) wg >>= 1;
    return wg;
}
