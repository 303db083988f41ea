/*
 * clperm's portable subgroup layer (OpenCL C 1.2).
 *
 * One interface, three implementations chosen by CLPERM_SG_IMPL (clperm_features.h names them):
 *   1  local memory and work-group barriers (any device; CLPERM_SG_WIDTH is emulated)
 *   2  OpenCL subgroup built-ins (cl_khr_subgroups; shuffles through cl_khr_subgroup_shuffle or
 *      cl_intel_subgroups when present)
 *   3  NVIDIA inline PTX (shfl.sync, vote.sync); CLPERM_SG_WIDTH must be 32
 *
 * Required: CLPERM_WG_SIZE (work-items per work-group, one-dimensional), CLPERM_SG_WIDTH.
 *
 * Rules for callers, the same for every implementation so that code runs on all three:
 * - Every function here must be reached by all work-items of the work-group together, in
 *   work-group-uniform control flow (the local-memory implementation uses barriers), except those
 *   marked "subgroup-uniform", which every work-item of one subgroup must reach together and which
 *   must not be used under CLPERM_SG_IMPL 1 in divergent code.
 * - `scr` is a __local buffer of CLPERM_SG_SCRATCH words declared by the kernel
 *   (CLPERM_SG_SCRATCH_DECL(name)). It may be shared by consecutive calls; each call starts with
 *   the barrier it needs.
 */
#ifndef CLPERM_SUBGROUP_H
#define CLPERM_SUBGROUP_H

#ifndef CLPERM_WG_SIZE
#error "CLPERM_WG_SIZE must be defined"
#endif
#ifndef CLPERM_SG_WIDTH
#error "CLPERM_SG_WIDTH must be defined"
#endif
#ifndef CLPERM_SG_IMPL
#define CLPERM_SG_IMPL 1
#endif
#ifndef CLPERM_SG_REQD
#define CLPERM_SG_REQD 0
#endif

#define CLPERM_CAT_(a, b) a##b
#define CLPERM_CAT(a, b) CLPERM_CAT_(a, b)

#if CLPERM_SG_IMPL == CLPERM_SG_USE_PTX && CLPERM_SG_WIDTH != 32
#error "the PTX subgroup implementation needs CLPERM_SG_WIDTH 32"
#endif
#if CLPERM_SG_IMPL != CLPERM_SG_USE_KHR && (CLPERM_WG_SIZE % CLPERM_SG_WIDTH) != 0
#error "CLPERM_WG_SIZE must be a multiple of CLPERM_SG_WIDTH"
#endif

#if CLPERM_SG_IMPL == CLPERM_SG_USE_KHR
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#ifdef cl_khr_subgroup_shuffle
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle : enable
#endif
#ifdef cl_intel_subgroups
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
#endif
#endif

/* Kernel attributes: the work-group size, and the subgroup size where it can be required. */
#if CLPERM_SG_IMPL == CLPERM_SG_USE_KHR && CLPERM_SG_REQD
#define CLPERM_KERNEL_ATTRS                                                                        \
    __attribute__((reqd_work_group_size(CLPERM_WG_SIZE, 1, 1)))                                    \
    __attribute__((intel_reqd_sub_group_size(CLPERM_SG_WIDTH)))
#elif CLPERM_NO_REQD_WG
#define CLPERM_KERNEL_ATTRS
#else
#define CLPERM_KERNEL_ATTRS __attribute__((reqd_work_group_size(CLPERM_WG_SIZE, 1, 1)))
#endif

/* Upper bound on the number of subgroups in a work-group. */
#if CLPERM_SG_IMPL == CLPERM_SG_USE_KHR
#define CLPERM_SG_MAX_COUNT CLPERM_WG_SIZE
#else
#define CLPERM_SG_MAX_COUNT (CLPERM_WG_SIZE / CLPERM_SG_WIDTH)
#endif

#define CLPERM_SG_SCRATCH CLPERM_WG_SIZE
#define CLPERM_SG_SCRATCH_DECL(name) __local ulong name[CLPERM_SG_SCRATCH]

/* ---- memory ordering ---------------------------------------------------------------------- */
/* Orders this work-item's earlier global-memory accesses before its later ones as seen by other
 * work-groups. NVIDIA's OpenCL mem_fence does not do that between work-groups (seen on an H200):
 * there the PTX fence is issued directly. The host sets CLPERM_NVIDIA to 1 on NVIDIA devices. */
#if defined(CLPERM_NVIDIA) && CLPERM_NVIDIA
#define clperm_fence_global() asm volatile("membar.gl;" ::: "memory")
#else
#define clperm_fence_global() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

/* ---- position ---------------------------------------------------------------------------- */

#if CLPERM_SG_IMPL == CLPERM_SG_USE_KHR
inline uint clperm_sg_lane(void) { return get_sub_group_local_id(); }
inline uint clperm_sg_id(void) { return get_sub_group_id(); }
inline uint clperm_sg_size(void) { return get_sub_group_size(); }
inline uint clperm_sg_count(void) { return get_num_sub_groups(); }
#else
inline uint clperm_sg_lane(void) { return (uint)get_local_id(0) % CLPERM_SG_WIDTH; }
inline uint clperm_sg_id(void) { return (uint)get_local_id(0) / CLPERM_SG_WIDTH; }
inline uint clperm_sg_size(void) { return CLPERM_SG_WIDTH; }
inline uint clperm_sg_count(void) { return CLPERM_WG_SIZE / CLPERM_SG_WIDTH; }
#endif

/* ---- NVIDIA PTX primitives ------------------------------------------------------------------ */
#if CLPERM_SG_IMPL == CLPERM_SG_USE_PTX
inline uint clperm__ptx_shfl_idx(uint x, uint src) {
    uint r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(src));
    return r;
}
inline uint clperm__ptx_shfl_up(uint x, uint delta) {
    uint r;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;" : "=r"(r) : "r"(x), "r"(delta));
    return r;
}
inline uint clperm__ptx_shfl_xor(uint x, uint mask) {
    uint r;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(mask));
    return r;
}
inline uint clperm__ptx_ballot(int p) {
    uint r;
    asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.s32 q, %1, 0;\n\tvote.sync.ballot.b32 %0, q, 0xffffffff;\n\t}"
                 : "=r"(r)
                 : "r"(p));
    return r;
}
inline ulong clperm__ptx_shfl_idx64(ulong x, uint src) {
    return upsample(clperm__ptx_shfl_idx((uint)(x >> 32), src), clperm__ptx_shfl_idx((uint)x, src));
}
inline ulong clperm__ptx_shfl_up64(ulong x, uint d) {
    return upsample(clperm__ptx_shfl_up((uint)(x >> 32), d), clperm__ptx_shfl_up((uint)x, d));
}
inline ulong clperm__ptx_shfl_xor64(ulong x, uint m) {
    return upsample(clperm__ptx_shfl_xor((uint)(x >> 32), m), clperm__ptx_shfl_xor((uint)x, m));
}
#endif

/* ---- votes ---------------------------------------------------------------------------------- */

#if CLPERM_SG_IMPL == CLPERM_SG_USE_LOCAL
/* Lowest lane of the subgroup whose predicate holds, or the subgroup size if none does. */
inline uint clperm_sg_first_lane(int p, __local ulong *scr) {
    uint lid = (uint)get_local_id(0), lane = clperm_sg_lane(), base = lid - lane;
    barrier(CLK_LOCAL_MEM_FENCE);
    scr[lid] = p ? lane : CLPERM_SG_WIDTH;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint best = CLPERM_SG_WIDTH;
    for (uint i = 0; i < CLPERM_SG_WIDTH; i++) best = min(best, (uint)scr[base + i]);
    return best;
}
inline int clperm_sg_any(int p, __local ulong *scr) { return clperm_sg_first_lane(p, scr) < CLPERM_SG_WIDTH; }
inline int clperm_sg_all(int p, __local ulong *scr) { return clperm_sg_first_lane(!p, scr) == CLPERM_SG_WIDTH; }
/* Bit i set when lane i's predicate holds (subgroups of at most 64 lanes). */
inline ulong clperm_sg_ballot(int p, __local ulong *scr) {
    uint lid = (uint)get_local_id(0), lane = clperm_sg_lane(), base = lid - lane;
    barrier(CLK_LOCAL_MEM_FENCE);
    scr[lid] = p ? (ulong)1 << lane : (ulong)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong bits = 0;
    for (uint i = 0; i < CLPERM_SG_WIDTH; i++) bits |= scr[base + i];
    return bits;
}
#elif CLPERM_SG_IMPL == CLPERM_SG_USE_KHR
inline uint clperm_sg_first_lane(int p, __local ulong *scr) {
    return sub_group_reduce_min(p ? get_sub_group_local_id() : get_sub_group_size());
}
inline int clperm_sg_any(int p, __local ulong *scr) { return sub_group_any(p); }
inline int clperm_sg_all(int p, __local ulong *scr) { return sub_group_all(p); }
inline ulong clperm_sg_ballot(int p, __local ulong *scr) {
    return sub_group_reduce_add(p ? (ulong)1 << get_sub_group_local_id() : (ulong)0);
}
#else /* PTX */
inline uint clperm_sg_first_lane(int p, __local ulong *scr) {
    uint b = clperm__ptx_ballot(p);
    return b ? 31 - clz(b & (0u - b)) : 32u;
}
inline int clperm_sg_any(int p, __local ulong *scr) { return clperm__ptx_ballot(p) != 0; }
inline int clperm_sg_all(int p, __local ulong *scr) { return clperm__ptx_ballot(p) == 0xffffffffu; }
inline ulong clperm_sg_ballot(int p, __local ulong *scr) { return clperm__ptx_ballot(p); }
#endif

/* ---- data movement and arithmetic, for T = uint (u32) and ulong (u64) --------------------- */
/*
 * clperm_sg_broadcast_<t>(x, src, scr)  x of lane `src` (src the same on every lane)
 * clperm_sg_shuffle_<t>(x, src, scr)    x of lane `src` (src may differ per lane; < width)
 * clperm_sg_scan_incl_add_<t>(x, scr)   x of lanes 0..lane, summed (wrapping)
 * clperm_sg_scan_excl_add_<t>(x, scr)   x of lanes 0..lane-1, summed; 0 on lane 0
 * clperm_sg_reduce_add_<t>(x, scr)      x of every lane, summed, on every lane
 */

#if CLPERM_SG_IMPL == CLPERM_SG_USE_LOCAL

#define CLPERM__SG_DEFINE(T, S)                                                                    \
    inline T clperm_sg_shuffle_##S(T x, uint src, __local ulong *scr) {                            \
        uint lid = (uint)get_local_id(0);                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        scr[lid] = x;                                                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        return (T)scr[lid - clperm_sg_lane() + (src & (CLPERM_SG_WIDTH - 1))];                     \
    }                                                                                              \
    inline T clperm_sg_broadcast_##S(T x, uint src, __local ulong *scr) {                          \
        return clperm_sg_shuffle_##S(x, src, scr);                                                 \
    }                                                                                              \
    inline T clperm_sg_scan_incl_add_##S(T x, __local ulong *scr) {                                \
        uint lid = (uint)get_local_id(0), lane = clperm_sg_lane();                                 \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        scr[lid] = x;                                                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        for (uint d = 1; d < CLPERM_SG_WIDTH; d <<= 1) {                                           \
            T y = lane >= d ? (T)scr[lid - d] : (T)0;                                              \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
            x += y;                                                                                \
            scr[lid] = x;                                                                          \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        return x;                                                                                  \
    }                                                                                              \
    inline T clperm_sg_reduce_add_##S(T x, __local ulong *scr) {                                   \
        (void)clperm_sg_scan_incl_add_##S(x, scr);                                                 \
        return (T)scr[get_local_id(0) - clperm_sg_lane() + CLPERM_SG_WIDTH - 1];                   \
    }

#elif CLPERM_SG_IMPL == CLPERM_SG_USE_KHR

#if defined(cl_khr_subgroup_shuffle)
#define CLPERM__KHR_SHUFFLE(T, x, src, scr) sub_group_shuffle(x, src)
#elif defined(cl_intel_subgroups)
#define CLPERM__KHR_SHUFFLE(T, x, src, scr) intel_sub_group_shuffle(x, src)
#else
#define CLPERM__KHR_SHUFFLE(T, x, src, scr) clperm__khr_shuffle_local_##T(x, src, scr)
#endif

#define CLPERM__SG_DEFINE(T, S)                                                                    \
    inline T clperm__khr_shuffle_local_##T(T x, uint src, __local ulong *scr) {                    \
        uint lid = (uint)get_local_id(0);                                                          \
        sub_group_barrier(CLK_LOCAL_MEM_FENCE);                                                    \
        scr[lid] = x;                                                                              \
        sub_group_barrier(CLK_LOCAL_MEM_FENCE);                                                    \
        return (T)scr[lid - get_sub_group_local_id() + src];                                       \
    }                                                                                              \
    inline T clperm_sg_shuffle_##S(T x, uint src, __local ulong *scr) {                            \
        return CLPERM__KHR_SHUFFLE(T, x, src, scr);                                                \
    }                                                                                              \
    inline T clperm_sg_broadcast_##S(T x, uint src, __local ulong *scr) {                          \
        return sub_group_broadcast(x, src);                                                        \
    }                                                                                              \
    inline T clperm_sg_scan_incl_add_##S(T x, __local ulong *scr) {                                \
        return sub_group_scan_inclusive_add(x);                                                    \
    }                                                                                              \
    inline T clperm_sg_reduce_add_##S(T x, __local ulong *scr) { return sub_group_reduce_add(x); }

#else /* PTX */

#define CLPERM__SG_DEFINE(T, S)                                                                    \
    inline T clperm_sg_shuffle_##S(T x, uint src, __local ulong *scr) {                            \
        return (T)CLPERM_CAT(clperm__ptx_shfl_idx, CLPERM__PTX_W_##S)(x, src);                     \
    }                                                                                              \
    inline T clperm_sg_broadcast_##S(T x, uint src, __local ulong *scr) {                          \
        return clperm_sg_shuffle_##S(x, src, scr);                                                 \
    }                                                                                              \
    inline T clperm_sg_scan_incl_add_##S(T x, __local ulong *scr) {                                \
        uint lane = clperm_sg_lane();                                                              \
        for (uint d = 1; d < 32; d <<= 1) {                                                        \
            T y = (T)CLPERM_CAT(clperm__ptx_shfl_up, CLPERM__PTX_W_##S)(x, d);                     \
            if (lane >= d) x += y;                                                                 \
        }                                                                                          \
        return x;                                                                                  \
    }                                                                                              \
    inline T clperm_sg_reduce_add_##S(T x, __local ulong *scr) {                                   \
        for (uint m = 1; m < 32; m <<= 1) x += (T)CLPERM_CAT(clperm__ptx_shfl_xor, CLPERM__PTX_W_##S)(x, m); \
        return x;                                                                                  \
    }
#define CLPERM__PTX_W_u32
#define CLPERM__PTX_W_u64 64

#endif

CLPERM__SG_DEFINE(uint, u32)
CLPERM__SG_DEFINE(ulong, u64)

inline uint clperm_sg_scan_excl_add_u32(uint x, __local ulong *scr) {
    return clperm_sg_scan_incl_add_u32(x, scr) - x;
}
inline ulong clperm_sg_scan_excl_add_u64(ulong x, __local ulong *scr) {
    return clperm_sg_scan_incl_add_u64(x, scr) - x;
}

#endif /* CLPERM_SUBGROUP_H */
