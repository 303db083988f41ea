/*
 * Work-group sums through the subgroup layer (cl/common/subgroup.h, compiled before this): the
 * exclusive prefix and the total of one value per work-item. Shared by the scan, the shuffle's
 * compaction and anything else that adds across a work-group.
 *
 * Required: CLPERM_T (uint or ulong, the type summed) and CLPERM_TS (u32 or u64, its name in the
 * subgroup layer's functions). The caller declares sg_tot (CLPERM_SG_MAX_COUNT values) and the
 * layer's scratch.
 */
#ifndef CLPERM_WG_SCAN_H
#define CLPERM_WG_SCAN_H

#ifndef CLPERM_T
#error "CLPERM_T must be defined"
#endif
#ifndef CLPERM_TS
#error "CLPERM_TS must be defined"
#endif

typedef CLPERM_T clperm_t;

#define clperm__sg_scan_incl CLPERM_CAT(clperm_sg_scan_incl_add_, CLPERM_TS)
#define clperm__sg_reduce CLPERM_CAT(clperm_sg_reduce_add_, CLPERM_TS)

/* Exclusive prefix of x over the work-group; *total receives the sum over the work-group. */
inline clperm_t clperm__wg_scan_excl(clperm_t x, clperm_t *total, __local clperm_t *sg_tot,
                                     __local ulong *scr) {
    clperm_t incl = clperm__sg_scan_incl(x, scr);
    uint sg = clperm_sg_id(), count = clperm_sg_count();
    barrier(CLK_LOCAL_MEM_FENCE); /* earlier readers of sg_tot are done */
    if (clperm_sg_lane() == clperm_sg_size() - 1) sg_tot[sg] = incl;
    barrier(CLK_LOCAL_MEM_FENCE);
    clperm_t pre = 0, tot = 0;
    for (uint s = 0; s < count; s++) {
        clperm_t t = sg_tot[s];
        pre += s < sg ? t : (clperm_t)0;
        tot += t;
    }
    *total = tot;
    return pre + incl - x;
}

inline clperm_t clperm__wg_reduce(clperm_t x, __local clperm_t *sg_tot, __local ulong *scr) {
    clperm_t r = clperm__sg_reduce(x, scr);
    uint count = clperm_sg_count();
    barrier(CLK_LOCAL_MEM_FENCE);
    if (clperm_sg_lane() == 0) sg_tot[clperm_sg_id()] = r;
    barrier(CLK_LOCAL_MEM_FENCE);
    clperm_t tot = 0;
    for (uint s = 0; s < count; s++) tot += sg_tot[s];
    return tot;
}

#endif /* CLPERM_WG_SCAN_H */
