/*
 * Waiting on other work-groups, for the single-pass kernels (cl/common/lookback.h and the sort's
 * look-back), compiled after cl/common/subgroup.h.
 *
 * OpenCL does not promise that a work-group whose tile comes before ours is running, so no wait
 * may last for ever: a look-back reads a predecessor's word at most CLPERM_LOOKBACK_SPINS times,
 * then computes what the predecessor would have published from that tile's input itself (the
 * decoupled fallback of Smith, Levien and Owens). Where work-groups do make progress the bound is
 * never reached.
 *
 * Test-only (set by the host from CLPERM_TEST_LOOKBACK): every CLPERM_LOOKBACK_STALL_EVERY-th
 * tile, from tile 0, publishes never (CLPERM_LOOKBACK_STALL 1) or only after a long delay (2).
 */
#ifndef CLPERM_PROGRESS_H
#define CLPERM_PROGRESS_H

#ifndef CLPERM_LOOKBACK_SPINS
#define CLPERM_LOOKBACK_SPINS 16384
#endif
#ifndef CLPERM_LOOKBACK_STALL
#define CLPERM_LOOKBACK_STALL 0
#endif
#ifndef CLPERM_LOOKBACK_STALL_EVERY
#define CLPERM_LOOKBACK_STALL_EVERY 1
#endif

/* Reads a word another work-group publishes. On NVIDIA a volatile load (ld.volatile, served by
 * the L2 cache every time) instead of an atomic: many work-groups poll the same words, and atomics
 * on one address are serialised. Elsewhere an atomic, which race checkers such as Oclgrind
 * recognise. */
#if defined(CLPERM_NVIDIA) && CLPERM_NVIDIA
#define clperm__read_shared(p) (*(p))
#else
#define clperm__read_shared(p) atomic_or((p), 0u)
#endif

/* Test-only: how this tile publishes, 0 on time, 1 never, 2 late (the caller first waits, with
 * CLPERM__LATE_READS reads of a shared word). */
#define CLPERM__LATE_READS (8u * CLPERM_LOOKBACK_SPINS)
inline int clperm__withheld(uint tile) {
#if CLPERM_LOOKBACK_STALL
    return tile % CLPERM_LOOKBACK_STALL_EVERY == 0 ? CLPERM_LOOKBACK_STALL : 0;
#else
    (void)tile;
    return 0;
#endif
}

/* Before one of a tile's publications: 1 when it must not publish; a late tile returns 0 after
 * its wait, spent reading `word`. */
inline int clperm__publish_withheld(uint tile, volatile __global uint *word) {
    int w = clperm__withheld(tile);
    if (w == 2)
        for (uint i = 0; i < CLPERM__LATE_READS; i++) (void)clperm__read_shared(word);
    return w == 1;
}

#endif /* CLPERM_PROGRESS_H */
