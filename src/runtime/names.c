/* Names of the public enums, for messages, the command line, the bench and the tests: the one
 * place where each value is spelled as text. */
#include "internal.h"

#define NAME_OF(table, v)                                                                          \
    ((int)(v) >= 0 && (size_t)(v) < sizeof(table) / sizeof((table)[0]) ? (table)[(int)(v)] : NULL)

const char *clperm_vendor_name(clperm_vendor v) {
    static const char *const names[] = {[CLPERM_VENDOR_OTHER] = "other", [CLPERM_VENDOR_NVIDIA] = "NVIDIA",
                                        [CLPERM_VENDOR_AMD] = "AMD", [CLPERM_VENDOR_INTEL] = "Intel",
                                        [CLPERM_VENDOR_POCL] = "PoCL", [CLPERM_VENDOR_OCLGRIND] = "Oclgrind"};
    const char *s = NAME_OF(names, v);
    return s ? s : "other";
}

const char *clperm_sg_source_name(clperm_sg_source s) {
    static const char *const names[] = {
        [CLPERM_SG_SOURCE_EMULATED] = "emulated",
        [CLPERM_SG_SOURCE_KHR] = "cl_khr_subgroups",
        [CLPERM_SG_SOURCE_INTEL] = "CL_DEVICE_SUB_GROUP_SIZES_INTEL",
        [CLPERM_SG_SOURCE_NV] = "CL_DEVICE_WARP_SIZE_NV",
        [CLPERM_SG_SOURCE_AMD] = "CL_DEVICE_WAVEFRONT_WIDTH_AMD",
        [CLPERM_SG_SOURCE_ENV] = "CLPERM_SUBGROUP_WIDTH",
        [CLPERM_SG_SOURCE_PARAM] = "parameter"};
    const char *n = NAME_OF(names, s);
    return n ? n : "unknown";
}

const char *clperm_sg_impl_name(clperm_sg_impl i) {
    static const char *const names[] = {[CLPERM_SG_IMPL_LOCAL] = "local", [CLPERM_SG_IMPL_KHR] = "khr",
                                        [CLPERM_SG_IMPL_PTX] = "ptx"};
    const char *n = NAME_OF(names, i);
    return n ? n : "unknown";
}

const char *clperm_type_name(clperm_type type) {
    static const char *const names[] = {[CLPERM_TYPE_U32] = "u32", [CLPERM_TYPE_U64] = "u64"};
    return NAME_OF(names, type);
}

const char *clperm_kernel_kind_name(clperm_kernel_kind kind) {
    static const char *const names[] = {[CLPERM_KERNEL_WORK_GROUP] = "work-group", [CLPERM_KERNEL_SERIAL] = "serial"};
    return NAME_OF(names, kind);
}

const char *clperm_shuffle_fusion_name(clperm_shuffle_fusion fusion) {
    static const char *const names[] = {[CLPERM_FUSION_SEPARATE] = "bijective0", [CLPERM_FUSION_TWO_PASS] = "bijective1",
                                        [CLPERM_FUSION_LOOKBACK] = "bijective2"};
    return NAME_OF(names, fusion);
}

const char *clperm_bijection_name(clperm_bijection bijection) {
    static const char *const names[] = {[CLPERM_BIJECTION_PHILOX] = "philox", [CLPERM_BIJECTION_LCG] = "lcg",
                                        [CLPERM_BIJECTION_FEISTEL] = "feistel"};
    return NAME_OF(names, bijection);
}

const char *clperm_shuffle_algorithm_name(clperm_shuffle_algorithm algorithm) {
    static const char *const names[] = {[CLPERM_SHUFFLE_BIJECTIVE] = "bijective", [CLPERM_SHUFFLE_BUCKETS] = "buckets"};
    return NAME_OF(names, algorithm);
}

const char *clperm_rng_family_name(clperm_rng_family family) {
    static const char *const names[] = {
        [CLPERM_RNG_FAMILY_AUTO] = "auto",         [CLPERM_RNG_FAMILY_CORRELATED] = "correlated",
        [CLPERM_RNG_FAMILY_THREE] = "three",       [CLPERM_RNG_FAMILY_SLOWMEM] = "slowmem",
        [CLPERM_RNG_FAMILY_ITERATED] = "iterated", [CLPERM_RNG_FAMILY_BUFFERED] = "buffered"};
    return NAME_OF(names, family);
}

const char *clperm_rng_output_name(clperm_rng_output output) {
    static const char *const names[] = {[CLPERM_RNG_OUT_U32] = "u32", [CLPERM_RNG_OUT_U64] = "u64",
                                        [CLPERM_RNG_OUT_FLOAT] = "float", [CLPERM_RNG_OUT_DOUBLE] = "double"};
    return NAME_OF(names, output);
}

const char *clperm_rng_scramble_name(clperm_rng_scramble scramble) {
    static const char *const names[] = {[CLPERM_RNG_SCRAMBLE_NONE] = "none", [CLPERM_RNG_SCRAMBLE_STARSTAR] = "starstar"};
    return NAME_OF(names, scramble);
}

const char *clperm_tile_sort_name(clperm_tile_sort algorithm) {
    static const char *const names[] = {
        [CLPERM_TILE_SORT_AUTO] = "auto",       [CLPERM_TILE_SORT_SHEAR] = "shear",
        [CLPERM_TILE_SORT_BITONIC] = "bitonic", [CLPERM_TILE_SORT_BITONIC_PADDED] = "bitonic-padded",
        [CLPERM_TILE_SORT_AS] = "as",           [CLPERM_TILE_PARTITION_COUNTING] = "counting",
        [CLPERM_TILE_SORT_AS_WIDE] = "as-wide"};
    return NAME_OF(names, algorithm);
}
