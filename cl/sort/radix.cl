/*
 * Device-wide LSD radix sort, work-group kernels. Compiled after cl/common/subgroup.h,
 * cl/common/progress.h, cl/sort/sort_key.h and cl/sort/radix_types.h (the key, value and count
 * options; R = 2^BITS digits).
 *
 * Required: CLPERM_SORT_ITEMS (keys per work-item per tile), CLPERM_SORT_RANK (how a tile ranks
 * its keys, below). Optional: CLPERM_SORT_ATOM64 (1: the look-back
 * words through cl_khr_int64_base_atomics; 0: volatile 64-bit loads and stores, which NVIDIA
 * makes single accesses), CLPERM_SORT_SUB (rank 3: keys per partitioned sub-segment),
 * CLPERM_SORT_TRACE (record local-memory accesses), CLPERM_SORT_IOTA (argsort: positions as
 * values), CLPERM_SORT_JOINT (values through local memory beside their keys, below).
 *
 * A key's digit is `bits` bits of its order-preserving form (sort_key.h, masks pos_xor and
 * neg_xor, which also make a descending sort) from `shift` up. A tile is WG * ITEMS keys.
 *
 * Kernels:
 *   clperm_radix_histogram  counts of every pass's digits over all keys at once (Onesweep's
 *                           first pass): per work-group in local memory, then added into
 *                           global u32 pairs (low word, carry into the high word).
 *   clperm_radix_bins       one work-group per pass: the exclusive scan of the pass's digit
 *                           counts (where each digit starts in the output), and whether one
 *                           digit holds every key; zeroes the counts.
 *   clperm_radix_onesweep   one pass: tiles in the order a counter hands them out; each ranks its
 *                           keys by digit in local memory, publishes its digit counts as soon as
 *                           they are known, looks back over earlier tiles' (decoupled look-back,
 *                           one digit per work-item, SORT_LOOK_WINDOW tiles' words at a time),
 *                           and writes its keys (and values) out, each digit's keys together.
 *                           The passes after the last digit that varies return at once
 *                           (SORT_RUN_SKIP).
 *   clperm_radix_finish     after the passes: the keys back from the temp buffers where an odd
 *                           number ran; positions as values where argsort ran no pass.
 *   clperm_radix_count      reduce-then-scan: the digit counts of each tile, digit-major.
 *   clperm_radix_scatter    reduce-then-scan: the Onesweep pass with the tile's offsets read from
 *                           the scanned counts instead of looked back for.
 *
 * Ranking a tile (CLPERM_SORT_RANK):
 *   1  subgroup votes: subgroup s takes keys s*W*ITEMS .. (s+1)*W*ITEMS - 1, W a round. For
 *      each key, one ballot per digit bit gives the lanes holding the same digit (match); its
 *      rank among them is the count of matching lanes below; the highest matching lane adds the
 *      match count to the subgroup's counter of that digit and hands the old count to the
 *      others. A scan over (digit, subgroup) counters then gives each key its rank in the tile.
 *   2  the same with NVIDIA's match.any.sync (sm_70 and later) instead of the ballots.
 *   3  presorted: a tile sort's stable partition (cl/tile) has already ordered every
 *      sub-segment of CLPERM_SORT_SUB keys by digit; the tile reads where each digit's run
 *      starts and ends in each sub-segment instead of ranking.
 *   4  as 1, the lanes holding the same digit found by each lane or-ing its bit into a word per
 *      (subgroup, digit) in local memory, read back after a subgroup barrier, instead of the
 *      ballots; the highest of them adds the count by an atomic and clears the word. Subgroups
 *      of at most 32.
 * Keys are stable in every form: the rank of a key among keys of its digit is the count of such
 * keys before it in the tile, and tiles are placed in order.
 */
#ifndef CLPERM_SORT_ITEMS
#error "CLPERM_SORT_ITEMS must be defined"
#endif
#ifndef CLPERM_SORT_RANK
#define CLPERM_SORT_RANK CLPERM_RANK_VOTES
#endif
#ifndef CLPERM_SORT_ATOM64
#define CLPERM_SORT_ATOM64 1
#endif
#ifndef CLPERM_SORT_IOTA
#define CLPERM_SORT_IOTA 0 /* 1: programs whose first pass can make the values (argsort) */
#endif
#ifndef CLPERM_SORT_INTO
#define CLPERM_SORT_INTO 0 /* 1: programs of clperm_sort_into (clperm_radix_onesweep) */
#endif
#ifndef CLPERM_SORT_TRACE
#define CLPERM_SORT_TRACE 0
#endif
/* 1 (GPUs): loops over a work-item's keys unroll, so that its keys stay in registers. 0 (CPUs, and
 * simulators): they stay loops, which compile much faster where barriers split them. */
#ifndef CLPERM_SORT_UNROLL
#define CLPERM_SORT_UNROLL 1
#endif
#if CLPERM_SORT_UNROLL
#define SORT_UNROLL _Pragma("unroll")
#else
#define SORT_UNROLL
#endif
#if CLPERM_SORT_RANK == CLPERM_RANK_MATCH && CLPERM_SG_IMPL != CLPERM_SG_USE_PTX
#error "match.any ranking needs the PTX subgroup implementation"
#endif
#if CLPERM_SORT_RANK == CLPERM_RANK_ORMASK && CLPERM_SG_WIDTH > 32
#error "the match words' ranking takes subgroups of at most 32"
#endif
#if CLPERM_SORT_RANK == CLPERM_RANK_ORMASK && CLPERM_SORT_TRACE
#error "the trace records the votes' ranking"
#endif
#if CLPERM_SORT_RANK == CLPERM_RANK_PRESORTED && !defined(CLPERM_SORT_SUB)
#error "presorted ranking needs CLPERM_SORT_SUB"
#endif

#if CLPERM_SORT_ATOM64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif

#if CLPERM_SG_WIDTH > 32
typedef ulong sort_mask;
#define SORT_MASK_BITS 64
#else
typedef uint sort_mask;
#define SORT_MASK_BITS 32
#endif
#define SORT_FULL_MASK ((sort_mask)(~(sort_mask)0) >> (SORT_MASK_BITS - CLPERM_SG_WIDTH))

#define SORT_WG CLPERM_WG_SIZE
#define SORT_ITEMS CLPERM_SORT_ITEMS
#define SORT_TILE (SORT_WG * SORT_ITEMS)
#define SORT_NSG (SORT_WG / CLPERM_SG_WIDTH)
#define SORT_PASSES_MAX ((SORT_KEY_BITS + CLPERM_SORT_BITS - 1) / CLPERM_SORT_BITS)
/* Digits per work-item where each takes a run of them. */
#define SORT_PER ((SORT_R + SORT_WG - 1) / SORT_WG)

/* Local memory shared by the ranking (per-subgroup digit counters, or the presorted ranking's
 * run bounds) and the exchange that reorders keys and then values: 8-byte words. */
#define SORT_MAX2(a, b) ((a) > (b) ? (a) : (b))
#if CLPERM_SORT_RANK == CLPERM_RANK_PRESORTED
#define SORT_NSUB (SORT_TILE / CLPERM_SORT_SUB)
#define SORT_RANK_BYTES (2 * SORT_NSUB * SORT_R * 4 + SORT_TILE * 4)
#elif CLPERM_SORT_RANK == CLPERM_RANK_ORMASK
#define SORT_RANK_BYTES (2 * SORT_NSG * SORT_R * 4) /* counters, then the match words */
#else
#define SORT_RANK_BYTES (SORT_NSG * SORT_R * 4)
#endif
/* Label programs whose tiles hold whole eights draw a tile's labels one word per eight items
 * into local memory after the ranking's words (SORT_LABEL_BYTES), for its work-items to read. */
#if CLPERM_SORT_LABELS && SORT_TILE % 8 == 0
#define SORT_LABEL_WORDS 1
#define SORT_LABEL_BYTES SORT_TILE
#else
#define SORT_LABEL_WORDS 0
#define SORT_LABEL_BYTES 0
#endif
/* CLPERM_SORT_JOINT (values, ranks other than 3, no trace): a tile's values go to local memory
 * beside its keys, in the same exchange, instead of after them in the keys' place. */
#ifndef CLPERM_SORT_JOINT
#define CLPERM_SORT_JOINT 0
#endif
#if CLPERM_SORT_JOINT && (!CLPERM_SORT_VALUE_BYTES || CLPERM_SORT_RANK == CLPERM_RANK_PRESORTED || CLPERM_SORT_TRACE)
#error "the joint exchange takes values, ranks other than 3 and no trace"
#endif
#if CLPERM_SORT_JOINT
#define SORT_JOINT_AT ((SORT_TILE * (int)sizeof(sort_key) + 15) / 16 * 16) /* the values' first byte */
#define SORT_XCHG_BYTES (SORT_JOINT_AT + SORT_TILE * CLPERM_SORT_VALUE_BYTES)
#else
#define SORT_XCHG_BYTES (SORT_TILE * SORT_MAX2((int)sizeof(sort_key), CLPERM_SORT_VALUE_BYTES))
#endif
#define SORT_LDS_BYTES SORT_MAX2(SORT_RANK_BYTES + SORT_LABEL_BYTES, SORT_XCHG_BYTES)
#define SORT_LDS_WORDS ((SORT_LDS_BYTES + 7) / 8)
/* The kernels' local words, aligned for 16-byte values. */
#define SORT_LDS_DECL __local ulong lds[SORT_LDS_WORDS] __attribute__((aligned(16)))

/* The digit of key k; mask = 2^bits - 1. */
#define SORT_DIGIT(k, pos_xor, neg_xor, shift, mask)                                               \
    ((uint)(SORT_ORDER((k), (pos_xor), (neg_xor)) >> (shift)) & (mask))

/* ---- the bank-conflict trace ------------------------------------------------------------------
 * In a trace build every local-memory access of the ranking and the exchange goes through
 * SORT_NOTE_F with its 32-bit word address (arrays at fixed bases, below): work-item g writes
 * record[1 + s] = the address of its step s (SORT_IDLE when it made none while its subgroup did)
 * and record[0] = its step count. Work-items of a subgroup run the same steps. */
#define SORT_IDLE 0xFFFFFFFFu
#define SORT_TB_LDS 0u
#define SORT_TB_TCOUNT (SORT_LDS_WORDS * 2u)
#define SORT_TB_TSTART (SORT_TB_TCOUNT + SORT_R)
#define SORT_TB_BASE (SORT_TB_TSTART + SORT_R)
#if CLPERM_SORT_TRACE
#define SORT_TRACE_PARAMS , __global uint *sort_trace, uint sort_trace_cap
#define SORT_TRACE_BEGIN                                                                           \
    __global uint *sort_rec = sort_trace + get_global_id(0) * (sort_trace_cap + 1);                 \
    uint sort_step = 0
#define SORT_TRACE_END sort_rec[0] = sort_step
/* In sort_tile, which gets the record, the step counter and the cap as parameters. */
#define SORT_NOTE_F(addr)                                                                          \
    (*sort_step_p < sort_trace_cap_f ? (sort_rec[1 + *sort_step_p] = (uint)(addr)) : 0u, (*sort_step_p)++)
#else
#define SORT_TRACE_PARAMS
#define SORT_TRACE_BEGIN
#define SORT_TRACE_END
#endif

/* ---- look-back words ----------------------------------------------------------------------
 * status[tile * R + digit] = epoch << 40 | flag << 38 | count: flag 1 the tile's count of the
 * digit, 2 the count over tiles 0 .. tile (inclusive prefix). A word of another epoch reads as
 * not yet published, so the words need no clearing between passes and calls. */
#define SORT_FLAG_AGG 1ul
#define SORT_FLAG_INCL 2ul
#define SORT_COUNT_MASK ((1ul << 38) - 1ul)

inline void sort_publish(volatile __global ulong *p, uint epoch, ulong flag, ulong count) {
    ulong w = ((ulong)epoch << 40) | (flag << 38) | count;
#if CLPERM_SORT_ATOM64
    atom_xchg(p, w);
#else
    *p = w;
#endif
}

inline ulong sort_peek(volatile __global ulong *p) {
#if CLPERM_SORT_ATOM64
    return atom_add(p, 0ul);
#else
    return *p;
#endif
}

/* Predecessor tiles whose words one look-back step reads at once. */
#ifndef SORT_LOOK_WINDOW
#define SORT_LOOK_WINDOW 4
#endif

/* Test-only (cl/common/progress.h): 1 when the tile withholds this publication; a late tile first
 * reads its word many times over. */
inline int sort_withheld(volatile __global ulong *p, uint tile) {
    int w = clperm__withheld(tile);
    if (w == 2)
        for (uint i = 0; i < CLPERM__LATE_READS; i++) (void)sort_peek(p);
    return w == 1;
}

/* Publishes a tile's count of one digit at word p, as soon as the tile has it: the aggregate, or
 * for tile 0 the inclusive prefix. */
inline void sort_publish_count(volatile __global ulong *p, uint tile, uint epoch, ulong count) {
    if (!sort_withheld(p, tile)) sort_publish(p, epoch, tile ? SORT_FLAG_AGG : SORT_FLAG_INCL, count);
}

/* The look-back's fallback (cl/common/progress.h): tile t's count of digit d from its keys. */
inline ulong sort_tile_count(const __global sort_key *kin, ulong n, uint t, uint d, sort_key px, sort_key nx,
                             uint shift, uint mask) {
    ulong base = (ulong)t * SORT_TILE, end = min(n, base + SORT_TILE), c = 0;
    for (ulong i = base; i < end; i++) c += SORT_DIGIT(SORT_KEY_AT(kin, i, px, nx), px, nx, shift, mask) == d;
    return c;
}

/* After sort_publish_count: walks back over earlier tiles' words of digit d (stride R),
 * SORT_LOOK_WINDOW tiles' words loaded at once, to the nearest inclusive prefix; publishes this
 * tile's inclusive prefix and returns the count of the digit over earlier tiles. A word still
 * unpublished after CLPERM_LOOKBACK_SPINS reads is counted from that tile's keys instead; from
 * there the walk goes on one word at a time, in a loop of its own (with the count inside the
 * window's loop the sort of u64 keys was 2.2% slower on the H100, with it apart 1.5%). */
inline ulong sort_look_back(volatile __global ulong *p, uint tile, ulong count, uint epoch,
                            const __global sort_key *kin, ulong n, uint d, sort_key px, sort_key nx, uint shift,
                            uint mask) {
    ulong excl = 0;
    volatile __global ulong *q = p;
    uint t = tile;
    int stalled = 0;
    /* The wait as it runs where work-groups make progress: a window of words at a time. */
    while (t > 0) {
        const uint m = min(t, (uint)SORT_LOOK_WINDOW);
        ulong w[SORT_LOOK_WINDOW];
        int found = 0;
#pragma unroll
        for (uint i = 0; i < SORT_LOOK_WINDOW; i++)
            if (i < m) w[i] = sort_peek(q - (ulong)(i + 1) * SORT_R);
        uint used = m;
#pragma unroll
        for (uint i = 0; i < SORT_LOOK_WINDOW; i++) {
            if (i < used && !found) {
                ulong x = w[i];
                for (uint spin = 0; (uint)(x >> 40) != epoch; spin++) {
                    if (spin == CLPERM_LOOKBACK_SPINS) {
                        used = i;
                        break;
                    }
                    x = sort_peek(q - (ulong)(i + 1) * SORT_R);
                }
                if (i < used) {
                    excl += x & SORT_COUNT_MASK;
                    found = ((x >> 38) & 3ul) == SORT_FLAG_INCL;
                }
            }
        }
        t -= used;
        q -= (ulong)used * SORT_R;
        if (found) break;
        if (used < m) {
            stalled = 1;
            break;
        }
    }
    /* A wait ran out: one word at a time, a tile still unpublished counted from its keys. */
    if (stalled) {
        for (; t > 0; t--) {
            q -= SORT_R;
            ulong x = sort_peek(q);
            for (uint spin = 0; (uint)(x >> 40) != epoch && spin < CLPERM_LOOKBACK_SPINS; spin++) x = sort_peek(q);
            if ((uint)(x >> 40) != epoch) {
                excl += sort_tile_count(kin, n, t - 1, d, px, nx, shift, mask);
            } else {
                excl += x & SORT_COUNT_MASK;
                if (((x >> 38) & 3ul) == SORT_FLAG_INCL) break;
            }
        }
    }
    if (tile && !sort_withheld(p, tile)) sort_publish(p, epoch, SORT_FLAG_INCL, excl + count);
    return excl;
}

/* ---- work-group helpers ------------------------------------------------------------------- */

/* out[d] = in[0] + ... + in[d-1] for d < R (each work-item a run of SORT_PER digits); the total
 * goes to *total. in and out may be the same. Ends with a barrier. */
inline void sort_scan_digits(__local uint *in, __local uint *out, __local uint *sg_tot, __local ulong *scr,
                             uint *total) {
    uint lid = (uint)get_local_id(0), first = lid * SORT_PER, sum = 0;
    for (uint i = 0; i < SORT_PER; i++) sum += first + i < SORT_R ? in[first + i] : 0u;
    uint incl = clperm_sg_scan_incl_add_u32(sum, scr);
    barrier(CLK_LOCAL_MEM_FENCE); /* in[] read; earlier readers of sg_tot are done */
    if (clperm_sg_lane() == clperm_sg_size() - 1) sg_tot[clperm_sg_id()] = incl;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint run = incl - sum, tot = 0;
    for (uint s = 0; s < clperm_sg_count(); s++) {
        uint t = sg_tot[s];
        run += s < clperm_sg_id() ? t : 0u;
        tot += t;
    }
    *total = tot;
    for (uint i = 0; i < SORT_PER; i++)
        if (first + i < SORT_R) {
            uint x = in[first + i];
            out[first + i] = run;
            run += x;
        }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Bits [shift, shift + bits) of an ordered key. On NVIDIA an instruction the compiler cannot merge
 * with another, so that a digit is computed again where it is needed rather than kept. */
inline uint sort_bits_of(sort_key k, uint shift, uint bits) {
#if CLPERM_NVIDIA
    uint d;
#if CLPERM_SORT_KEY_BYTES == 8
    ulong w;
    asm volatile("bfe.u64 %0, %1, %2, %3;" : "=l"(w) : "l"(k), "r"(shift), "r"(bits));
    d = (uint)w;
#else
    asm volatile("bfe.u32 %0, %1, %2, %3;" : "=r"(d) : "r"((uint)k), "r"(shift), "r"(bits));
#endif
    return d;
#else
    return (uint)(k >> shift) & ((1u << bits) - 1u);
#endif
}

/* ---- histogram of every pass ---------------------------------------------------------------- */

/* 1: where a work-item's keys of a full tile share a digit, one atomic counts them all. Keys of
 * at most 32 bits: on the H200 the histogram of 2^28 u32 keys below 2^20 took 0.40 ms with it
 * against 0.44, that of u64 keys below 2^32 0.76 against 0.66. */
#define SORT_HIST_SHARED (CLPERM_SORT_KEY_BYTES <= 4)

/* hist[2 * (p * R + d)] and [... + 1]: the low and high words of the count of digit d in pass p,
 * for the passes over bits [lo, hi). */
__kernel CLPERM_KERNEL_ATTRS void clperm_radix_histogram(const __global sort_key *keys, ulong off, ulong n,
                                                         ulong pos_xor, ulong neg_xor, uint lo, uint hi,
                                                         __global uint *hist) {
    __local uint lh[SORT_PASSES_MAX * SORT_R];
    const uint lid = (uint)get_local_id(0), passes = (hi - lo + CLPERM_SORT_BITS - 1) / CLPERM_SORT_BITS;
    const sort_key px = (sort_key)pos_xor, nx = (sort_key)neg_xor;
    keys += off;
    for (uint i = lid; i < passes * SORT_R; i += SORT_WG) lh[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
#if CLPERM_SORT_LABELS
    /* One pass of at most 8 bits: a work-item draws the labels of eight items at a time. */
    const ulong lkey = SORT_LABEL_KEY(px, nx), groups = (n + 7) / 8;
    const uint lmask = (1u << (hi - lo)) - 1u;
    for (ulong g = get_global_id(0); g < groups; g += get_global_size(0)) {
        const ulong w = clperm__bucket_label_word(lkey, g);
        const uint m = (uint)min((ulong)8, n - 8 * g);
        for (uint b = 0; b < m; b++) atomic_inc(&lh[(clperm__bucket_label_of(w, b) >> lo) & lmask]);
    }
#else
    /* A tile's keys in their ordered form; a full tile loads and counts them without a test a key,
     * and a digit its work-item's keys share (one that does not vary over the keys, as the high
     * digits of small keys) with one atomic (SORT_HIST_SHARED). */
    const ulong stride = (ulong)get_num_groups(0) * SORT_TILE;
    for (ulong base = (ulong)get_group_id(0) * SORT_TILE; base < n; base += stride) {
        sort_key k[SORT_ITEMS];
        const uint valid = (uint)min((ulong)SORT_TILE, n - base);
        const int full = valid == SORT_TILE;
        const __global sort_key *kt = keys + base + lid;
        sort_key all = (sort_key)~(sort_key)0, any = 0; /* of its keys, in a full tile */
        if (full) {
SORT_UNROLL
            for (uint j = 0; j < SORT_ITEMS; j++) {
                k[j] = SORT_ORDER(kt[j * SORT_WG], px, nx);
                all &= k[j];
                any |= k[j];
            }
        } else {
SORT_UNROLL
            for (uint j = 0; j < SORT_ITEMS; j++)
                k[j] = j * SORT_WG + lid < valid ? SORT_ORDER(kt[j * SORT_WG], px, nx) : (sort_key)0;
        }
        for (uint p = 0; p < passes; p++) {
            const uint shift = lo + p * CLPERM_SORT_BITS, bits = min((uint)CLPERM_SORT_BITS, hi - shift);
            __local uint *h = lh + p * SORT_R;
            if (SORT_HIST_SHARED && full && sort_bits_of(all ^ any, shift, bits) == 0) {
                atomic_add(&h[sort_bits_of(all, shift, bits)], SORT_ITEMS);
            } else if (full) {
SORT_UNROLL
                for (uint j = 0; j < SORT_ITEMS; j++) atomic_inc(&h[sort_bits_of(k[j], shift, bits)]);
            } else {
SORT_UNROLL
                for (uint j = 0; j < SORT_ITEMS; j++)
                    if (j * SORT_WG + lid < valid) atomic_inc(&h[sort_bits_of(k[j], shift, bits)]);
            }
        }
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < passes * SORT_R; i += SORT_WG) {
        uint c = lh[i];
        if (c) {
            uint old = atomic_add(&hist[2 * i], c);
            if (old + c < old) atomic_inc(&hist[2 * i + 1]);
        }
    }
}

/* Work-group p of P: bins[p * R + d] = the count of pass p's digits below d, from hist, which it
 * leaves zero for the next sort; bins[P * R + p] = 1 when one digit holds every key (the pass
 * would leave them where they are), else 0. */
__kernel CLPERM_KERNEL_ATTRS void clperm_radix_bins(__global uint *hist, __global ulong *bins) {
    __local ulong lb[SORT_R];
    const uint lid = (uint)get_local_id(0);
    __global uint *h = hist + 2 * (ulong)get_group_id(0) * SORT_R;
    for (uint d = lid; d < SORT_R; d += SORT_WG) {
        lb[d] = (ulong)h[2 * d] | ((ulong)h[2 * d + 1] << 32);
        h[2 * d] = 0;
        h[2 * d + 1] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        ulong run = 0, most = 0;
        for (uint d = 0; d < SORT_R; d++) {
            ulong c = lb[d];
            lb[d] = run;
            run += c;
            most = max(most, c);
        }
        bins[(ulong)get_num_groups(0) * SORT_R + get_group_id(0)] = most == run;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < SORT_R; d += SORT_WG) bins[(ulong)get_group_id(0) * SORT_R + d] = lb[d];
}

/* ---- reduce-then-scan counts ---------------------------------------------------------------- */

/* counts[d * tiles + t] = the keys of digit d in tile t (block is unused: the serial kernels' block
 * length). */
__kernel CLPERM_KERNEL_ATTRS void clperm_radix_count(const __global sort_key *keys, ulong off, ulong n,
                                                     ulong pos_xor, ulong neg_xor, uint shift, uint bits,
                                                     __global sort_count *counts, uint tiles, ulong block) {
    __local uint lh[SORT_R];
    const uint lid = (uint)get_local_id(0), tile = (uint)get_group_id(0), mask = (1u << bits) - 1u;
    const sort_key px = (sort_key)pos_xor, nx = (sort_key)neg_xor;
    const ulong base = (ulong)tile * SORT_TILE;
    const uint valid = (uint)min((ulong)SORT_TILE, n - base);
    keys += off;
    (void)block;
    for (uint d = lid; d < SORT_R; d += SORT_WG) lh[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
SORT_UNROLL
    for (uint j = 0; j < SORT_ITEMS; j++) {
        uint e = j * SORT_WG + lid;
        if (e < valid) atomic_inc(&lh[SORT_DIGIT(SORT_KEY_AT(keys, base + e, px, nx), px, nx, shift, mask)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < SORT_R; d += SORT_WG) counts[(ulong)d * tiles + tile] = lh[d];
}

/* ---- a tile's pass ---------------------------------------------------------------------------
 * sort_tile ranks the tile's keys, gets each digit's output position from `prefix` (look-back or
 * scanned counts, below), and writes keys and values out. */

#define SORT_PREFIX_LOOKBACK 1
#define SORT_PREFIX_COUNTS 2
#define SORT_PREFIX_LOCAL 3 /* run[d]: where the digit's next key goes; advanced past the tile */

#if CLPERM_SORT_RANK != CLPERM_RANK_PRESORTED
/* The lanes of the subgroup whose key has digit d. */
inline sort_mask sort_match(uint d, __local ulong *scr) {
#if CLPERM_SORT_RANK == CLPERM_RANK_MATCH
    uint m;
    asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(m) : "r"(d));
    return m;
#else
    sort_mask m = SORT_FULL_MASK;
SORT_UNROLL
    for (uint b = 0; b < CLPERM_SORT_BITS; b++) {
        int bit = (d >> b) & 1u;
        sort_mask v = (sort_mask)clperm_sg_ballot(bit, scr);
        m &= bit ? v : ~v;
    }
    return m;
#endif
}

/* Subgroup barrier with local-memory ordering, the form each implementation has. */
inline void sort_sg_sync(__local ulong *scr) {
#if CLPERM_SG_IMPL == CLPERM_SG_USE_PTX
    asm volatile("bar.warp.sync -1;" ::: "memory");
#elif CLPERM_SG_IMPL == CLPERM_SG_USE_KHR
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
#else
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    (void)scr;
}
#endif

/* Value e of the tile at base: 0 past its valid ones, its position where iota (argsort). */
inline sort_val sort_tile_value(const __global sort_val *vin, ulong base, uint e, uint valid, int iota) {
    return e >= valid ? (sort_val)0 : iota ? (sort_val)(base + e) : vin[base + e];
}

inline void
sort_tile(const __global sort_key *kin, __global sort_key *kout, const __global sort_val *vin,
          __global sort_val *vout, ulong n, sort_key px, sort_key nx, uint shift, uint bits, uint label_xor,
          int iota, uint tile, int prefix, volatile __global ulong *status, uint epoch, const __global ulong *bins,
          const __global sort_count *offsets, uint tiles, __local ulong *run, __local ulong *lds,
          __local uint *tcount, __local uint *tstart, __local ulong *obase, __local uint *sg_tot,
          __local ulong *scr
#if CLPERM_SORT_TRACE
          , __global uint *sort_rec, uint *sort_step_p, uint sort_trace_cap_f
#endif
) {
    const uint lid = (uint)get_local_id(0), mask = (1u << bits) - 1u;
    const ulong base = (ulong)tile * SORT_TILE;
    const uint valid = (uint)min((ulong)SORT_TILE, n - base);
    __local uint *lw = (__local uint *)lds;
    uint total;
    (void)label_xor, (void)vin, (void)vout, (void)iota;
#if CLPERM_SORT_TRACE
    (void)sort_rec, (void)sort_step_p, (void)sort_trace_cap_f;
#endif
#if CLPERM_SORT_TRACE
#define SORT_T(addr) SORT_NOTE_F(addr)
#else
#define SORT_T(addr) 0u
#endif
#if SORT_LABEL_WORDS
    /* The tile's labels, a word per eight items drawn once (clperm__bucket_label_word), read
     * below a byte per item. */
    __local uint *labw = (__local uint *)((__local uchar *)lds + SORT_RANK_BYTES);
    for (uint g = lid; g < SORT_TILE / 8; g += SORT_WG) {
        const ulong w = clperm__bucket_label_word(SORT_LABEL_KEY(px, nx), base / 8 + g);
        vstore2((uint2)((uint)w, (uint)(w >> 32)), g, labw);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#define SORT_TILE_KEY(e) ((sort_key)((labw[(e) >> 2] >> (8u * ((e)&3u))) & 0xFFu))
#else
#define SORT_TILE_KEY(e) SORT_KEY_AT(kin, base + (e), px, nx)
#endif
    /* key j of this work-item is tile element pos[j]; rank[j] its place in the tile's order. */
    sort_key key[SORT_ITEMS];
    uint rank[SORT_ITEMS];
#if CLPERM_SORT_RANK != CLPERM_RANK_PRESORTED
    const uint sg = clperm_sg_id(), lane = clperm_sg_lane();
#define SORT_POS(j) (sg * (CLPERM_SG_WIDTH * SORT_ITEMS) + (j) * CLPERM_SG_WIDTH + lane)
    const sort_mask below = ((sort_mask)1 << lane) - (sort_mask)1;
    __local uint *cnt = lw + sg * SORT_R; /* this subgroup's digit counters */
    for (uint i0 = 0; i0 < SORT_RANK_BYTES / 4; i0 += SORT_WG) {
        uint i = i0 + lid;
        if (i < SORT_RANK_BYTES / 4) {
            SORT_T(SORT_TB_LDS + i);
            lw[i] = 0;
        } else {
            SORT_T(SORT_IDLE);
        }
    }
    /* The keys in their ordered form, padding all ones (its digit the largest: it sorts last);
     * a digit is taken from its key again wherever it is needed (SORT_DIG). A full tile loads
     * without tests, each load at the first one's place plus a constant, so that no 64-bit
     * offset or test a key is kept for the values' loads at the end. */
    const int full = valid == SORT_TILE;
    const uint pos0 = SORT_POS(0);
#if CLPERM_SORT_LABELS
#define SORT_KEY_J(j) SORT_TILE_KEY(pos0 + (j) * CLPERM_SG_WIDTH)
#else
    const __global sort_key *kt = kin + base + pos0;
#define SORT_KEY_J(j) kt[(j) * CLPERM_SG_WIDTH]
#endif
    if (full) {
SORT_UNROLL
        for (uint j = 0; j < SORT_ITEMS; j++) key[j] = SORT_ORDER(SORT_KEY_J(j), px, nx);
    } else {
SORT_UNROLL
        for (uint j = 0; j < SORT_ITEMS; j++)
            key[j] = pos0 + j * CLPERM_SG_WIDTH < valid ? SORT_ORDER(SORT_KEY_J(j), px, nx) : ~(sort_key)0;
    }
#define SORT_DIG(j) sort_bits_of(key[j], shift, bits)
#if CLPERM_SORT_VALUE_BYTES && CLPERM_NVIDIA
    /* The tile's values into L2 while the keys are ranked, one 128-byte line a work-item, so
     * that their loads after the keys' writes find them there. */
    if (!iota)
        for (uint e = lid * (128u / (uint)sizeof(sort_val)); e < valid; e += SORT_WG * (128u / (uint)sizeof(sort_val)))
            asm volatile("prefetch.global.L2 [%0];" ::"l"(vin + base + e));
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Rank within the subgroup, round by round. */
#if CLPERM_SORT_RANK == CLPERM_RANK_ORMASK
    __local uint *mw = lw + SORT_NSG * SORT_R + sg * SORT_R; /* this subgroup's match words */
#endif
SORT_UNROLL
    for (uint j = 0; j < SORT_ITEMS; j++) {
        uint d = SORT_DIG(j);
#if CLPERM_SORT_RANK == CLPERM_RANK_ORMASK
        /* The lanes of digit d: each ors its bit into the digit's word; the leader adds their
         * count to the counter in one atomic (on the H200 faster than its load and store). */
        atomic_or(&mw[d], 1u << lane);
        sort_sg_sync(scr);
        sort_mask m = mw[d];
        uint leader = (uint)(SORT_MASK_BITS - 1) - (uint)clz(m), old = 0;
        if (lane == leader) old = atomic_add(&cnt[d], (uint)popcount(m));
#else
        sort_mask m = sort_match(d, scr);
        uint leader = (uint)(SORT_MASK_BITS - 1) - (uint)clz(m), old = 0;
        if (lane == leader) {
            SORT_T(SORT_TB_LDS + sg * SORT_R + d);
            old = cnt[d];
            SORT_T(SORT_TB_LDS + sg * SORT_R + d);
            cnt[d] = old + (uint)popcount(m);
        } else {
            SORT_T(SORT_IDLE);
            SORT_T(SORT_IDLE);
        }
#endif
        old = clperm_sg_shuffle_u32(old, leader, scr);
#if CLPERM_SORT_RANK == CLPERM_RANK_ORMASK
        /* Every lane has read the word (its leader came from it): cleared for the next round. */
        if (lane == leader) mw[d] = 0;
#endif
        rank[j] = old + (uint)popcount(m & below);
        sort_sg_sync(scr);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Per digit: the subgroups' counts become their exclusive prefixes; the tile's count. */
    for (uint d0 = 0; d0 < SORT_R; d0 += SORT_WG) {
        uint d = d0 + lid;
        if (d < SORT_R) {
            uint acc = 0;
            for (uint s = 0; s < SORT_NSG; s++) {
                SORT_T(SORT_TB_LDS + s * SORT_R + d);
                uint c = lw[s * SORT_R + d];
                SORT_T(SORT_TB_LDS + s * SORT_R + d);
                lw[s * SORT_R + d] = acc;
                acc += c;
            }
            SORT_T(SORT_TB_TCOUNT + d);
            tcount[d] = acc;
            /* Published now, before the scan and the exchange, so that later tiles looking back
             * find it sooner. */
            if (prefix == SORT_PREFIX_LOOKBACK) sort_publish_count(status + (ulong)tile * SORT_R + d, tile, epoch, acc);
        } else {
            for (uint s = 0; s < 2 * SORT_NSG + 1; s++) SORT_T(SORT_IDLE);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    sort_scan_digits(tcount, tstart, sg_tot, scr, &total);
SORT_UNROLL
    for (uint j = 0; j < SORT_ITEMS; j++) {
        uint d = SORT_DIG(j);
        SORT_T(SORT_TB_TSTART + d);
        SORT_T(SORT_TB_LDS + sg * SORT_R + d);
        rank[j] += tstart[d] + cnt[d];
    }
#else /* presorted */
#define SORT_POS(j) ((j) * SORT_WG + lid)
    uint dig[SORT_ITEMS];
    /* Per sub-segment and label: where its run starts and ends (both 0 when absent). The labels
     * of the tile's keys go to lab[] to find the runs' edges. */
    __local uint *rstart = lw, *rend = lw + SORT_NSUB * SORT_R, *lab = lw + 2 * SORT_NSUB * SORT_R;
    for (uint i = lid; i < 2 * SORT_NSUB * SORT_R; i += SORT_WG) lw[i] = 0;
SORT_UNROLL
    for (uint j = 0; j < SORT_ITEMS; j++) {
        uint e = SORT_POS(j);
        key[j] = e < valid ? SORT_TILE_KEY(e) : (sort_key)0;
        dig[j] = e < valid ? SORT_DIGIT(key[j], px, nx, shift, mask) : mask;
        lab[e] = dig[j] ^ label_xor;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
SORT_UNROLL
    for (uint j = 0; j < SORT_ITEMS; j++) {
        uint e = SORT_POS(j), s = e / CLPERM_SORT_SUB, q = e % CLPERM_SORT_SUB, l = lab[e];
        if (e < valid) {
            if (q == 0 || lab[e - 1] != l) rstart[s * SORT_R + l] = q;
            if (q == CLPERM_SORT_SUB - 1 || e + 1 == valid || lab[e + 1] != l) rend[s * SORT_R + l] = q + 1;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Per digit: the tile's count; rend[] becomes what a key adds to its place in its
     * sub-segment to get its rank among the tile's keys of its digit. */
    for (uint d = lid; d < SORT_R; d += SORT_WG) {
        uint l = d ^ label_xor, acc = 0;
        for (uint s = 0; s < SORT_NSUB; s++) {
            uint a = rstart[s * SORT_R + l], c = rend[s * SORT_R + l] - a;
            rend[s * SORT_R + l] = acc - a;
            acc += c;
        }
        tcount[d] = acc;
        if (prefix == SORT_PREFIX_LOOKBACK) sort_publish_count(status + (ulong)tile * SORT_R + d, tile, epoch, acc);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    sort_scan_digits(tcount, tstart, sg_tot, scr, &total);
SORT_UNROLL
    for (uint j = 0; j < SORT_ITEMS; j++) {
        uint e = SORT_POS(j);
        rank[j] = tstart[dig[j]] + rend[(e / CLPERM_SORT_SUB) * SORT_R + (dig[j] ^ label_xor)] + e % CLPERM_SORT_SUB;
    }
#endif
#if CLPERM_SORT_RANK != CLPERM_RANK_PRESORTED
    /* Keys to their tile ranks in local memory, where the counters just read were (hence the
     * barrier), before the look-back: the writes overlap its wait. */
    __local sort_key *xk = (__local sort_key *)lds;
    const uint kw = (uint)sizeof(sort_key) / 4u; /* trace: words per key */
    (void)kw;
#if CLPERM_SORT_JOINT
    /* The values beside the keys. */
    __local sort_val *xj = (__local sort_val *)((__local uchar *)lds + SORT_JOINT_AT);
    sort_val v[SORT_ITEMS];
SORT_UNROLL
    for (uint j = 0; j < SORT_ITEMS; j++) v[j] = sort_tile_value(vin, base, SORT_POS(j), valid, iota);
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
SORT_UNROLL
    for (uint j = 0; j < SORT_ITEMS; j++) {
        SORT_T(SORT_TB_LDS + kw * rank[j]);
        xk[rank[j]] = key[j];
#if CLPERM_SORT_JOINT
        xj[rank[j]] = v[j];
#endif
    }
#endif
    /* Where each digit's keys of this tile start in the output, less the digit's start in the
     * tile: a key at tile rank r goes to obase[digit] + r. */
    for (uint d = lid; d < SORT_R; d += SORT_WG) {
        ulong before;
        if (prefix == SORT_PREFIX_LOOKBACK) {
            before = bins[d] + sort_look_back(status + (ulong)tile * SORT_R + d, tile, tcount[d], epoch, kin, n,
                                              d, px, nx, shift, mask);
        } else if (prefix == SORT_PREFIX_COUNTS) {
            before = offsets[(ulong)d * tiles + tile];
        } else {
            before = run[d];
            run[d] = before + tcount[d];
        }
        obase[d] = before - tstart[d];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if CLPERM_SORT_RANK == CLPERM_RANK_PRESORTED
    /* The keys are already in the tile's order: each goes straight out. */
SORT_UNROLL
    for (uint j = 0; j < SORT_ITEMS; j++)
        if (!CLPERM_SORT_LABELS && SORT_POS(j) < valid) kout[obase[dig[j]] + rank[j]] = key[j];
#if CLPERM_SORT_VALUE_BYTES
SORT_UNROLL
    for (uint j = 0; j < SORT_ITEMS; j++)
        if (SORT_POS(j) < valid) vout[obase[dig[j]] + rank[j]] = vin[base + SORT_POS(j)];
#endif
#else
    /* Out in rank order: consecutive work-items write consecutive places of one digit's run. */
    uint od[SORT_ITEMS];
    __global sort_key *ko = kout + lid;
SORT_UNROLL
    for (uint j = 0; j < SORT_ITEMS; j++) {
        uint i = j * SORT_WG + lid;
        SORT_T(SORT_TB_LDS + kw * i);
        sort_key k = xk[i];
        od[j] = sort_bits_of(k, shift, bits);
        if (full || i < valid) {
            SORT_T(SORT_TB_BASE + 2 * od[j]);
            if (!CLPERM_SORT_LABELS) ko[obase[od[j]] + j * SORT_WG] = SORT_UNORDER(k, px, nx);
#if CLPERM_SORT_JOINT
            vout[obase[od[j]] + i] = xj[i];
#endif
        } else {
            SORT_T(SORT_IDLE);
        }
    }
#if CLPERM_SORT_VALUE_BYTES && !CLPERM_SORT_JOINT
    __local sort_val *xv = (__local sort_val *)lds;
    sort_val v[SORT_ITEMS];
    const __global sort_val *vt = vin + base + pos0;
    if (full && !iota) {
SORT_UNROLL
        for (uint j = 0; j < SORT_ITEMS; j++) v[j] = vt[j * CLPERM_SG_WIDTH];
    } else {
SORT_UNROLL
        for (uint j = 0; j < SORT_ITEMS; j++) v[j] = sort_tile_value(vin, base, SORT_POS(j), valid, iota);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
SORT_UNROLL
    for (uint j = 0; j < SORT_ITEMS; j++) xv[rank[j]] = v[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    __global sort_val *vo = vout + lid;
SORT_UNROLL
    for (uint j = 0; j < SORT_ITEMS; j++) {
        uint i = j * SORT_WG + lid;
        if (full || i < valid) vo[obase[od[j]] + j * SORT_WG] = xv[i];
    }
#endif
#endif
#undef SORT_POS
#undef SORT_T
#undef SORT_TILE_KEY
#undef SORT_KEY_J
#undef SORT_DIG
}

#if CLPERM_SORT_TRACE
#define SORT_TILE_TRACE , sort_rec, &sort_step, sort_trace_cap
#else
#define SORT_TILE_TRACE
#endif

/* How a pass or clperm_radix_finish runs (its `run` argument): */
#define SORT_RUN_SKIP 1u /* the passes after the last digit that varies (clperm_radix_bins'
                          * flags after its P * R starts) return at once */
#define SORT_RUN_IOTA 2u /* pass 0 takes each key's position for its value (CLPERM_SORT_IOTA's
                          * programs only) */
#define SORT_RUN_INTO 4u /* out of place (clperm_sort_into): the last pass that moves keys
                          * writes the output, and the input is only read */

/* The passes up to the last one whose digit varies (all `passes` without SORT_RUN_SKIP): the
 * ones that move keys. */
inline uint sort_passes_moving(const __global ulong *bins, uint passes, uint run) {
    if (!(run & SORT_RUN_SKIP)) return passes;
    uint last = 0;
    /* Unrolled to the most passes a key has, so that the loads go out together. */
#pragma unroll
    for (uint q = 0; q < SORT_PASSES_MAX; q++)
        if (q < passes && bins[(ulong)passes * SORT_R + q] == 0) last = q + 1;
    return last;
}

/* One Onesweep pass of `passes`: bins + pass * R holds this pass's digit starts
 * (clperm_radix_bins); status R words per tile; tile numbers come from *counter less tile_base.
 * kin, kout, vin, vout: the buffers it reads and writes; with CLPERM_SORT_INTO (clperm_sort_into)
 * those where an even number of passes moves keys, the ones after them where an odd number does
 * (the host chooses both, src/sort/radix.c). */
__kernel CLPERM_KERNEL_ATTRS void clperm_radix_onesweep(const __global sort_key *kin, __global sort_key *kout,
                                                        const __global sort_val *vin, __global sort_val *vout,
                                                        const __global sort_key *kin_odd, __global sort_key *kout_odd,
                                                        const __global sort_val *vin_odd, __global sort_val *vout_odd,
                                                        ulong off, ulong n, ulong pos_xor, ulong neg_xor, uint shift,
                                                        uint bits, uint label_xor, volatile __global uint *counter,
                                                        uint tile_base, volatile __global ulong *status, uint epoch,
                                                        const __global ulong *bins, uint pass, uint passes,
                                                        uint run SORT_TRACE_PARAMS) {
    SORT_LDS_DECL;
    __local uint tcount[SORT_R], tstart[SORT_R], sg_tot[CLPERM_SG_MAX_COUNT], tile_sh, moving_sh;
    __local ulong obase[SORT_R];
    CLPERM_SG_SCRATCH_DECL(scr);
    SORT_TRACE_BEGIN;
    /* Every work-group takes its tile number, a skipped pass's too: the next pass counts on it.
     * The passes' flags are read in the same wait. */
    if (get_local_id(0) == 0) {
        tile_sh = atomic_inc(counter) - tile_base;
        moving_sh = sort_passes_moving(bins, passes, run);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint moving = moving_sh;
    /* After the last digit that varies, nothing moves. A pass of a digit that does not vary
     * before it runs as any other (a copy here would cost the pass kernel registers). */
    if (pass >= moving) {
        SORT_TRACE_END;
        return;
    }
    const int iota = CLPERM_SORT_IOTA && (run & SORT_RUN_IOTA) && pass == 0;
    bins += (ulong)pass * SORT_R;
#define SORT_PASS_TILE(ki, ko, vi, vo)                                                                              \
    sort_tile((ki) + off, (ko) + off, (vi) + off, (vo) + off, n, (sort_key)pos_xor, (sort_key)neg_xor, shift, bits, \
              label_xor, iota, tile_sh, SORT_PREFIX_LOOKBACK, status, epoch, bins, 0, 0, 0, lds, tcount, tstart,    \
              obase, sg_tot, scr SORT_TILE_TRACE)
#if CLPERM_SORT_INTO
    /* The tile twice, on a branch every work-item takes alike: each copy takes its buffers from
     * the arguments where it uses them (a choice between them held them in registers, and the
     * u64 keys' passes took 3% longer). */
    if (moving & 1u)
        SORT_PASS_TILE(kin_odd, kout_odd, vin_odd, vout_odd);
    else
#endif
        SORT_PASS_TILE(kin, kout, vin, vout);
#undef SORT_PASS_TILE
    (void)kin_odd, (void)kout_odd, (void)vin_odd, (void)vout_odd;
    SORT_TRACE_END;
}

/* Bytes [first, first + bytes) of src to dst by the whole grid, 16 at a time between a head and
 * a tail of single bytes: the two are buffers (or sub-buffers) whose starts lie on 16-byte
 * boundaries, so the same `first` aligns both. */
inline void sort_copy_bytes(__global uchar *dst, const __global uchar *src, ulong first, ulong bytes) {
    const ulong g = get_global_id(0), gs = get_global_size(0);
    const ulong head = min(bytes, (16 - first % 16) % 16), body = (bytes - head) / 16;
    dst += first;
    src += first;
    for (ulong i = g; i < head; i += gs) dst[i] = src[i];
    __global uint4 *d4 = (__global uint4 *)(dst + head);
    const __global uint4 *s4 = (const __global uint4 *)(src + head);
    for (ulong i = g; i < body; i += gs) d4[i] = s4[i];
    for (ulong i = head + 16 * body + g; i < bytes; i += gs) dst[i] = src[i];
}

/* After the passes (clperm_radix_onesweep's `run` and `passes`): in place, where an odd number
 * moved the keys, they (and their values) come back from buffer 1 to 0; with SORT_RUN_INTO (0 the
 * output, 1 the input) where none moved them, they are copied out. Where none moved them and
 * SORT_RUN_IOTA is set, v0 gets the positions. With passes 0 and SORT_RUN_IOTA: v0 = 0, 1, ...,
 * n - 1. */
__kernel CLPERM_KERNEL_ATTRS void clperm_radix_finish(__global sort_key *k0, const __global sort_key *k1,
                                                      __global sort_val *v0, const __global sort_val *v1, ulong off,
                                                      ulong n, const __global ulong *bins, uint passes, uint run) {
    const uint moved = sort_passes_moving(bins, passes, run);
    const int copy = (run & SORT_RUN_INTO) ? moved == 0 : (moved & 1u) != 0;
    const int iota = CLPERM_SORT_IOTA && (run & SORT_RUN_IOTA) && moved == 0;
    (void)v0, (void)v1, (void)iota;
    if (copy && !CLPERM_SORT_LABELS)
        sort_copy_bytes((__global uchar *)k0, (const __global uchar *)k1, off * sizeof(sort_key), n * sizeof(sort_key));
#if CLPERM_SORT_VALUE_BYTES
    if (iota) {
        for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) v0[off + i] = (sort_val)i;
    } else if (copy) {
        sort_copy_bytes((__global uchar *)v0, (const __global uchar *)v1, off * sizeof(sort_val), n * sizeof(sort_val));
    }
#endif
}

/* The reduce-then-scan pass: offsets holds the exclusive scan of clperm_radix_count's counts;
 * iota: the keys' positions are their values. */
__kernel CLPERM_KERNEL_ATTRS void clperm_radix_scatter(const __global sort_key *kin, __global sort_key *kout,
                                                       const __global sort_val *vin, __global sort_val *vout,
                                                       ulong off, ulong n, ulong pos_xor, ulong neg_xor, uint shift,
                                                       uint bits, uint label_xor, const __global sort_count *offsets,
                                                       uint tiles, ulong block, uint iota SORT_TRACE_PARAMS) {
    SORT_LDS_DECL;
    __local uint tcount[SORT_R], tstart[SORT_R], sg_tot[CLPERM_SG_MAX_COUNT];
    __local ulong obase[SORT_R];
    CLPERM_SG_SCRATCH_DECL(scr);
    SORT_TRACE_BEGIN;
    (void)block;
    kin += off;
    kout += off;
    vin += off;
    vout += off;
    sort_tile(kin, kout, vin, vout, n, (sort_key)pos_xor, (sort_key)neg_xor, shift, bits, label_xor,
              CLPERM_SORT_IOTA && iota != 0,
              (uint)get_group_id(0), SORT_PREFIX_COUNTS, 0, 0, 0, offsets, tiles, 0, lds, tcount, tstart, obase,
              sg_tot, scr SORT_TILE_TRACE);
    SORT_TRACE_END;
}

/* ---- one segment per work-group (the segmented sort's segments longer than a tile) ----------
 * Work-group g sorts keys [list[2e], list[2e] + list[2e + 1]), e = first + g, on its own: per pass, the digit
 * counts of the segment, their scan into run[], then its tiles in order, each placed at run[]
 * and advancing it. Passes alternate between keys and tkeys (the same offsets); after an odd
 * number the segment is copied back. The passes cover bits [lo, hi). */
#if CLPERM_SORT_RANK != CLPERM_RANK_PRESORTED && !CLPERM_SORT_TRACE && !CLPERM_SORT_LABELS
__kernel CLPERM_KERNEL_ATTRS void clperm_radix_segments(__global sort_key *keys, __global sort_key *tkeys,
                                                        __global sort_val *vals, __global sort_val *tvals,
                                                        const __global ulong *list, ulong first, ulong pos_xor,
                                                        ulong neg_xor, uint lo, uint hi) {
    SORT_LDS_DECL;
    __local uint tcount[SORT_R], tstart[SORT_R], sg_tot[CLPERM_SG_MAX_COUNT];
    __local ulong obase[SORT_R], run[SORT_R];
    CLPERM_SG_SCRATCH_DECL(scr);
    const uint lid = (uint)get_local_id(0);
    list += 2 * (first + get_group_id(0));
    const ulong base = list[0], len = list[1];
    const uint tiles = (uint)((len + SORT_TILE - 1) / SORT_TILE);
    const sort_key px = (sort_key)pos_xor, nx = (sort_key)neg_xor;
    __global sort_key *kb[2] = {keys + base, tkeys + base};
    __global sort_val *vb[2] = {vals + base, tvals + base};
    uint pass = 0;
    for (uint shift = lo; shift < hi; shift += CLPERM_SORT_BITS, pass++) {
        const uint bits = min((uint)CLPERM_SORT_BITS, hi - shift), mask = (1u << bits) - 1u;
        __global sort_key *kin = kb[pass & 1];
        __local uint *lh = (__local uint *)lds;
        for (uint d = lid; d < SORT_R; d += SORT_WG) lh[d] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (ulong i = lid; i < len; i += SORT_WG) atomic_inc(&lh[SORT_DIGIT(kin[i], px, nx, shift, mask)]);
        barrier(CLK_LOCAL_MEM_FENCE);
        uint total;
        sort_scan_digits(lh, tstart, sg_tot, scr, &total);
        for (uint d = lid; d < SORT_R; d += SORT_WG) run[d] = tstart[d];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint t = 0; t < tiles; t++) {
            sort_tile(kin, kb[!(pass & 1)], vb[pass & 1], vb[!(pass & 1)], len, px, nx, shift, bits, 0, 0, t,
                      SORT_PREFIX_LOCAL, 0, 0, 0, 0, 0, run, lds, tcount, tstart, obase, sg_tot, scr);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
    if (pass & 1) {
        for (ulong i = lid; i < len; i += SORT_WG) {
            keys[base + i] = tkeys[base + i];
#if CLPERM_SORT_VALUE_BYTES
            vals[base + i] = tvals[base + i];
#endif
        }
    }
}
#endif
