/*
 * What the offline permutations' kernels share: the item type and the bank-conflict trace.
 *
 * Required: CLPERM_PM_ITEM, the type of one item or slice moved (uint, ulong, uint4).
 * CLPERM_PM_TRACE 1 records every local-memory access for the bank-conflict check: each
 * work-item writes, into its own record of pm_trace (cap + 1 words, in global-id order), the
 * number of steps and then one local address (in items) per step, or PM_IDLE for a step where it
 * made no access while the others of its group did. Work-items of a group run the same sequence
 * of steps, so step s of all of them is one access of the group.
 */
#ifndef CLPERM_PM_ITEM
#error "CLPERM_PM_ITEM must be defined"
#endif
#ifndef CLPERM_PM_TRACE
#define CLPERM_PM_TRACE 0
#endif

typedef CLPERM_PM_ITEM pm_item;

#define PM_IDLE 0xFFFFFFFFu
#if CLPERM_PM_TRACE
#define PM_TRACE_PARAMS , __global uint *pm_trace, uint pm_trace_cap
#define PM_TRACE_BEGIN                                                                             \
    __global uint *pm_rec = pm_trace + get_global_id(0) * (size_t)(pm_trace_cap + 1);              \
    uint pm_step = 0
#define PM_NOTE(addr) ((void)(pm_step < pm_trace_cap ? (pm_rec[1 + pm_step] = (uint)(addr)) : 0u), pm_step++)
#define PM_TRACE_END pm_rec[0] = pm_step
#else
#define PM_TRACE_PARAMS
#define PM_TRACE_BEGIN
#define PM_NOTE(addr) ((void)0)
#define PM_TRACE_END
#endif
#define PM_SKIP() PM_NOTE(PM_IDLE)

/* Every local access goes through these. */
#define PM_LD(arr, a) (PM_NOTE(a), (arr)[a])
#define PM_ST(arr, a, v)                                                                           \
    do {                                                                                           \
        PM_NOTE(a);                                                                                \
        (arr)[a] = (v);                                                                            \
    } while (0)
