/*
 * The scheduled permutation's steps (Kasagi, Nakano, Ito, Sections 6 and 7).
 *
 *   clperm_perm_rows  row-wise permutation: each row of CLPERM_PM_LEN items is read (coalesced)
 *                     into local memory, permuted there by its schedule and written back
 *                     (coalesced); CLPERM_PM_GROUP rows per work-group.
 *   clperm_perm_cols  column-wise permutation of a rows x cols matrix in place, CLPERM_PM_WC
 *                     columns of CLPERM_PM_LEN items per work-group: read a row segment of WC
 *                     items at a time into local memory, each column permuted by its schedule,
 *                     written back the same way.
 *
 * A schedule word is S | D << CLPERM_PERM_SCHED_SHIFT (clperm_features.h): the item at position S
 * of the row (column) goes to position D.
 * Work-item x of a row handles the words x, x + WG, ...: the host ordered each row's words so
 * that any aligned 2^s consecutive ones have distinct S and distinct D modulo 2^s, which makes
 * both the gather from S and the scatter to D free of bank conflicts.
 *
 * Items wider than the local memory allows are moved in slices: CLPERM_PM_ITEM is the slice
 * (uint, ulong or uint4), CLPERM_PM_NS the slices of one item, and each slice of a row goes
 * through local memory in turn. Positions beyond src_items (the padding of the matrix past n)
 * are not read; beyond dst_items not written.
 *
 * Required: CLPERM_PM_LEN, CLPERM_PM_WG (work-group size), CLPERM_PM_ITEM, CLPERM_PM_NS; for the
 * rows CLPERM_PM_GROUP, for the columns CLPERM_PM_WC and CLPERM_PM_SKEW (the skew between
 * columns in local memory: w / WC for w banks).
 */
#ifndef CLPERM_PM_LEN
#error "CLPERM_PM_LEN must be defined"
#endif
#ifndef CLPERM_PM_WG
#error "CLPERM_PM_WG must be defined"
#endif
#ifndef CLPERM_PM_NS
#define CLPERM_PM_NS 1
#endif
#ifndef CLPERM_PM_GROUP
#define CLPERM_PM_GROUP 1
#endif
#ifndef CLPERM_PM_WC
#define CLPERM_PM_WC 1
#endif
#ifndef CLPERM_PM_SKEW
#define CLPERM_PM_SKEW 0
#endif

#define PP_LEN CLPERM_PM_LEN
#define PP_WG CLPERM_PM_WG
#define PP_NS CLPERM_PM_NS
#define PP_ATTRS __attribute__((reqd_work_group_size(PP_WG, 1, 1)))

#define PP_ROW_ITEMS (PP_LEN * CLPERM_PM_GROUP / PP_WG)
#define PP_COL_ITEMS (PP_LEN * CLPERM_PM_WC / PP_WG)

/* Both kernels share one program, built for one of them: the other's work-items may have no item
 * (PP_LEN below PP_WG), and an array of length 0 is not OpenCL C, so that kernel is left out. */

#if PP_ROW_ITEMS >= 1
__kernel PP_ATTRS void clperm_perm_rows(__global const pm_item *src, __global pm_item *dst,
                                        __global const uint *sched, ulong nrows, ulong src_items,
                                        ulong dst_items PM_TRACE_PARAMS) {
    __local pm_item buf[PP_LEN * CLPERM_PM_GROUP];
    const uint lid = get_local_id(0);
    const ulong row0 = get_group_id(0) * CLPERM_PM_GROUP, base = row0 * PP_LEN;
    const ulong valid = min((ulong)(PP_LEN * CLPERM_PM_GROUP), (nrows - row0) * PP_LEN);
    uint from[PP_ROW_ITEMS], to[PP_ROW_ITEMS];
    pm_item v[PP_ROW_ITEMS];
    PM_TRACE_BEGIN;
    for (uint q = 0; q < PP_ROW_ITEMS; q++) {
        uint x = lid + q * PP_WG, g = x / PP_LEN * PP_LEN;
        uint word = x < valid ? sched[base + x] : (x - g) * (1u + (1u << CLPERM_PERM_SCHED_SHIFT));
        from[q] = g + (word & CLPERM_PERM_SCHED_MASK);
        to[q] = g + (word >> CLPERM_PERM_SCHED_SHIFT);
    }
    for (uint s = 0; s < PP_NS; s++) {
        for (uint q = 0; q < PP_ROW_ITEMS; q++) {
            uint x = lid + q * PP_WG;
            ulong item = base + x;
            PM_ST(buf, x, x < valid && item < src_items ? src[item * PP_NS + s] : (pm_item)(0));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint q = 0; q < PP_ROW_ITEMS; q++) v[q] = PM_LD(buf, from[q]);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint q = 0; q < PP_ROW_ITEMS; q++) PM_ST(buf, to[q], v[q]);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint q = 0; q < PP_ROW_ITEMS; q++) {
            uint x = lid + q * PP_WG;
            ulong item = base + x;
            pm_item y = PM_LD(buf, x);
            if (x < valid && item < dst_items) dst[item * PP_NS + s] = y;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    PM_TRACE_END;
}
#endif

#if CLPERM_PM_WC > 1
/* Position p of strip column cc, skewed so that a row segment of WC items and any aligned run of
 * a column's positions lie in distinct banks. */
#define PP_COL_ADDR(cc, p) ((cc) * PP_LEN + pp_wrap((p) + (cc) * CLPERM_PM_SKEW))
inline uint pp_wrap(uint a) { return a >= PP_LEN ? a - PP_LEN : a; }
#else
#define PP_COL_ADDR(cc, p) (p)
#endif

#if PP_COL_ITEMS >= 1
__kernel PP_ATTRS void clperm_perm_cols(__global const pm_item *src, __global pm_item *dst,
                                        __global const uint *sched, ulong cols PM_TRACE_PARAMS) {
    __local pm_item buf[PP_LEN * CLPERM_PM_WC];
    const uint lid = get_local_id(0);
    const ulong c0 = get_group_id(0) * CLPERM_PM_WC;
    uint from[PP_COL_ITEMS], to[PP_COL_ITEMS];
    pm_item v[PP_COL_ITEMS];
    PM_TRACE_BEGIN;
    for (uint q = 0; q < PP_COL_ITEMS; q++) {
        uint x = lid + q * PP_WG, cc = x / PP_LEN, t = x - cc * PP_LEN;
        uint word = sched[(c0 + cc) * PP_LEN + t];
        from[q] = PP_COL_ADDR(cc, word & CLPERM_PERM_SCHED_MASK);
        to[q] = PP_COL_ADDR(cc, word >> CLPERM_PERM_SCHED_SHIFT);
    }
    for (uint s = 0; s < PP_NS; s++) {
        for (uint q = 0; q < PP_COL_ITEMS; q++) {
            uint x = lid + q * PP_WG, r = x / CLPERM_PM_WC, cc = x - r * CLPERM_PM_WC;
            PM_ST(buf, PP_COL_ADDR(cc, r), src[(r * cols + c0 + cc) * PP_NS + s]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint q = 0; q < PP_COL_ITEMS; q++) v[q] = PM_LD(buf, from[q]);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint q = 0; q < PP_COL_ITEMS; q++) PM_ST(buf, to[q], v[q]);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint q = 0; q < PP_COL_ITEMS; q++) {
            uint x = lid + q * PP_WG, r = x / CLPERM_PM_WC, cc = x - r * CLPERM_PM_WC;
            dst[(r * cols + c0 + cc) * PP_NS + s] = PM_LD(buf, PP_COL_ADDR(cc, r));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    PM_TRACE_END;
}
#endif
