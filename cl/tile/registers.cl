/*
 * Short segments of 4-byte keys, keys alone, by Batcher's bitonic network held in registers; after
 * cl/common/subgroup.h and cl/sort/sort_key.h.
 *
 * A work-group holds CLPERM_WG_SIZE * CLPERM_RS_N places: work-item t the places t*N .. t*N + N-1,
 * one segment every CLPERM_RS_T places (the segment padded with the largest ordered key to T, a
 * power of two). The network is the form in which every compare-exchange puts the smaller key at
 * the lower place: each merge of runs of k/2 into runs of k first compares mirrored places, i
 * against i ^ (k - 1), then halves as usual, i against i ^ j. Places of one work-item meet in its
 * registers; places of two work-items of one subgroup through the subgroup layer's shuffles
 * (CLPERM_RS_SPAN lanes apart at most); the others through local memory, each work-item's N keys
 * in N + 1 words (N odd: N), so that the 32 words of a subgroup's store or load lie in distinct
 * banks, in two buffers taken in turn, so that one barrier an exchange suffices.
 *
 * Keys alone: not stable; equal keys may trade places, which keys alone cannot show (keys of one
 * ordered form have the same bits).
 *
 * With values (CLPERM_RS_VALUES): stable, by a sort of 32-bit words that carry a place (B = log2 T
 * bits) beside a compressed key (C = 32 - B bits). The segment's least and greatest keys lo and
 * hi (by subgroup shuffles, then local atomics) give the shift s that brings hi - lo below 2^C; a
 * word is ((key - lo) >> s, place), padding the largest. Equal words never occur. Where s is 0
 * the compressed keys are the keys, and the sort gives the stable order of (key, place) at once;
 * else each run of one compressed key (a tie the dropped bits may break; random keys at T = 2048
 * make about one pair a segment) is put in (key, place) order where it lies, each place counting
 * the run's places that go before it. A run longer than CLPERM_RS_FIX (keys that tie in their
 * high bits over a wide range, such as small keys beside a few large ones), or a work-item with
 * more places in runs than CLPERM_RS_MANY (keys in small groups that tie in their high bits),
 * sends the whole work-group to a second sort, of (the word's run, numbered by a scan of the
 * places where runs start; the dropped bits; the place in the first sort); where a segment has
 * too many runs for that word (2^(32 - B - s) or more; at T = 2048 with hi - lo >= 2^31, over
 * 1024), to two more, least significant digit first: (the dropped bits, place), then
 * (compressed key, the place that sort gave). A work-item finds what a word names in a third
 * local buffer, by place: the ordered keys (after a second sort, the first sort's words). Those
 * reads go where the keys send them (a bank conflict is possible; the trace records the keys-alone
 * network). Once the keys are sorted, the values are read at their own places into the exchange
 * buffers, and each place takes the one its word names: a work-item writes only the places it
 * read, so no barrier over global memory is needed.
 *
 * Options:
 *   CLPERM_RS_N      keys per work-item, a power of two
 *   CLPERM_RS_T      places per segment, a power of two, N <= T <= CLPERM_WG_SIZE * N
 *   CLPERM_RS_POS, CLPERM_RS_NEG  the masks of CLPERM_KEY_ORDER (clperm_features.h, cl/sort/sort_key.h): named in
 *                    the options, so that u32 keys in ascending order take no instruction for it
 *   CLPERM_RS_LIST   1: segment g of the launch is keys [rs_list[2e], + rs_list[2e + 1]),
 *                    e = rs_first + g, g < n (the segmented sort's lists); 0: keys [g*seg, + seg)
 *   CLPERM_RS_TRACE  1: every local-memory access recorded for the bank-conflict count, as
 *                    cl/tile/common.h records (two more arguments: the trace and its capacity);
 *                    keys alone
 *   CLPERM_RS_VALUES 0 keys alone, else the bytes of a value (4 or 8), moved with its key (an
 *                    argument after the keys); CLPERM_RS_LOGT then gives log2 T
 */
#ifndef CLPERM_RS_N
#error "CLPERM_RS_N must be defined"
#endif
#ifndef CLPERM_RS_T
#error "CLPERM_RS_T must be defined"
#endif
#if !defined(CLPERM_RS_POS) || !defined(CLPERM_RS_NEG)
#error "CLPERM_RS_POS and CLPERM_RS_NEG must be defined"
#endif
#ifndef CLPERM_RS_LIST
#define CLPERM_RS_LIST 0
#endif
#ifndef CLPERM_RS_TRACE
#define CLPERM_RS_TRACE 0
#endif
#ifndef CLPERM_RS_VALUES
#define CLPERM_RS_VALUES 0
#endif
#if CLPERM_RS_VALUES && (!defined(CLPERM_RS_LOGT) || (1 << CLPERM_RS_LOGT) != CLPERM_RS_T || CLPERM_RS_TRACE)
#error "CLPERM_RS_VALUES needs CLPERM_RS_LOGT, log2 of CLPERM_RS_T, and no trace"
#endif
#if CLPERM_SG_IMPL == CLPERM_SG_USE_PTX ||                                                         \
    (CLPERM_SG_IMPL == CLPERM_SG_USE_KHR && (defined(cl_khr_subgroup_shuffle) || defined(cl_intel_subgroups)))
#define CLPERM_RS_SPAN CLPERM_SG_WIDTH
#else
#define CLPERM_RS_SPAN 1
#endif
/* Loops over a work-item's registers unroll in full on NVIDIA (cl/tile/common.h says why not
 * elsewhere), and rare ones not at all (ROLLED). Whole segments load through a uint4 pointer, and
 * store through one on NVIDIA, whose compiler makes four 32-bit accesses of vload4 and vstore4 on
 * a uint pointer (it cannot see the alignment); elsewhere they store by vstore4, since Oclgrind
 * (21.10) takes a vector stored through such a cast for uninitialised. */
#if defined(CLPERM_NVIDIA) && CLPERM_NVIDIA
#define CLPERM_RS_UNROLL _Pragma("unroll")
#define CLPERM_RS_ROLLED _Pragma("unroll 1")
#define CLPERM_RS_STORE4(v, q, p) (((__global uint4 *)(p))[q] = (v))
#else
#define CLPERM_RS_UNROLL
#define CLPERM_RS_ROLLED
#define CLPERM_RS_STORE4(v, q, p) vstore4(v, q, p)
#endif

#define CLPERM_RS_W (CLPERM_RS_T / CLPERM_RS_N)        /* work-items per segment */
#define CLPERM_RS_G (CLPERM_WG_SIZE / CLPERM_RS_W)     /* segments per work-group */
#define CLPERM_RS_S (CLPERM_RS_N + 1 - (CLPERM_RS_N & 1)) /* local words per work-item */

/* Values: their type, and whole segments' values loaded into local memory (l, q) and stored from
 * registers v as vectors of CLPERM_RS_VW, as the keys are. */
#if CLPERM_RS_VALUES == 8
#define CLPERM_RS_VALUE_PARAMS , __global ulong *values
#define CLPERM_RS_VT ulong
#define CLPERM_RS_VW 2
#define CLPERM_RS_VEC(v, q) ((ulong2)(v[2 * (q)], v[2 * (q) + 1]))
#define CLPERM_RS_VEC_T ulong2
#define CLPERM_RS_VSTORE_N vstore2
#elif CLPERM_RS_VALUES == 4
#define CLPERM_RS_VALUE_PARAMS , __global uint *values
#define CLPERM_RS_VT uint
#define CLPERM_RS_VW 4
#define CLPERM_RS_VEC(v, q) ((uint4)(v[4 * (q)], v[4 * (q) + 1], v[4 * (q) + 2], v[4 * (q) + 3]))
#define CLPERM_RS_VEC_T uint4
#define CLPERM_RS_VSTORE_N vstore4
#elif CLPERM_RS_VALUES == 0
#define CLPERM_RS_VALUE_PARAMS
#else
#error "CLPERM_RS_VALUES must be 0, 4 or 8"
#endif
#if CLPERM_RS_VALUES
#define CLPERM_RS_VLOAD(l, q, p) CLPERM_RS_VSTORE_N(((const __global CLPERM_RS_VEC_T *)(p))[q], q, l)
#endif
#if CLPERM_RS_VALUES && defined(CLPERM_NVIDIA) && CLPERM_NVIDIA
#define CLPERM_RS_VSTORE(v, q, p) (((__global CLPERM_RS_VEC_T *)(p))[q] = CLPERM_RS_VEC(v, q))
#elif CLPERM_RS_VALUES
#define CLPERM_RS_VSTORE(v, q, p) CLPERM_RS_VSTORE_N(CLPERM_RS_VEC(v, q), q, p)
#endif
/* With values: the places of a segment (B bits), their mask M, and the word of local buffer rs_at
 * that holds place p of the segment whose first work-item is f. */
#if CLPERM_RS_VALUES
#define CLPERM_RS_M ((uint)CLPERM_RS_T - 1u)
#define CLPERM_RS_AT(f, p) (((f) + (p) / CLPERM_RS_N) * CLPERM_RS_S + (p) % CLPERM_RS_N)
/* A word's compressed key has C bits, the largest (padding's) CMAX; RUN(w) is that key where w
 * holds a real key (a place below len), else ~0 (which no compressed key is). Runs of up to FIX
 * places are put in order where they are; a longer one sends the work-group to more sorts. */
#define CLPERM_RS_C (32u - CLPERM_RS_LOGT)
#define CLPERM_RS_CMAX (0xFFFFFFFFu >> CLPERM_RS_LOGT)
#define CLPERM_RS_RUN(w) (((w) & CLPERM_RS_M) < len ? (w) >> CLPERM_RS_LOGT : ~0u)
#define CLPERM_RS_FIX 16u
/* A work-item with more places in runs than this sends the work-group to pass 3: their loop costs
 * a subgroup the most places one of its work-items holds, which a few pairs in random keys must
 * not reach. */
#define CLPERM_RS_MANY (3u * CLPERM_RS_N / 4u)
/* Key k at a place below len (real) or past it: its compressed form, and the low s bits the
 * compression dropped (padding the largest of each); lo and s are the segment's. */
#define CLPERM_RS_HIGH(k, real) ((real) ? ((k) - lo) >> s : CLPERM_RS_CMAX)
#define CLPERM_RS_LOW(k, real) ((real) ? ((k) - lo) & ((1u << s) - 1u) : (1u << s) - 1u)
#endif

#if CLPERM_RS_LIST
#define CLPERM_RS_LIST_PARAMS , const __global ulong *rs_list, ulong rs_first
#else
#define CLPERM_RS_LIST_PARAMS
#endif

/* The trace: per work-item a record of cap + 1 words, word 0 the steps made, word 1 + s the word
 * address of step s (src/tile/tile.h). Every work-item makes the same steps. */
#if CLPERM_RS_TRACE
#define CLPERM_RS_TRACE_PARAMS , __global uint *rs_trace, uint rs_trace_cap
#define CLPERM_RS_NOTE(addr)                                                                       \
    (rs_step < rs_trace_cap ? (rs_rec[1 + rs_step] = (uint)(addr)) : 0u, rs_step++)
#else
#define CLPERM_RS_TRACE_PARAMS
#define CLPERM_RS_NOTE(addr) 0u
#endif

/* A key's ordered form and back: the mask that gives a key whose sign agrees with it. */
#define CLPERM_RS_ORDER(k) CLPERM_KEY_ORDER(k, 32, CLPERM_RS_POS, CLPERM_RS_NEG)
#define CLPERM_RS_UNORDER(o) ((((o) ^ CLPERM_RS_POS) >> 31) ? (o) ^ CLPERM_RS_NEG : (o) ^ CLPERM_RS_POS)

/* Compare-exchange of registers x < y: the smaller to x. */
#define CLPERM_RS_CX(a, x, y)                                                                      \
    do {                                                                                           \
        uint rs_lo = min(a[x], a[y]), rs_hi = max(a[x], a[y]);                                     \
        a[x] = rs_lo;                                                                              \
        a[y] = rs_hi;                                                                              \
    } while (0)

__kernel __attribute__((reqd_work_group_size(CLPERM_WG_SIZE, 1, 1))) void
clperm_sort_registers(__global uint *keys CLPERM_RS_VALUE_PARAMS, ulong n,
                      ulong seg CLPERM_RS_LIST_PARAMS CLPERM_RS_TRACE_PARAMS) {
    __local uint xb[2][CLPERM_WG_SIZE * CLPERM_RS_S] __attribute__((aligned(8)));
#if CLPERM_RS_VALUES
    __local uint rs_at[CLPERM_WG_SIZE * CLPERM_RS_S];
#endif
#if CLPERM_RS_SPAN > 1
    CLPERM_SG_SCRATCH_DECL(scr);
    const uint lane = clperm_sg_lane();
#endif
    const uint t = (uint)get_local_id(0), r = t % CLPERM_RS_W, i0 = r * CLPERM_RS_N;
    const ulong g = (ulong)get_group_id(0) * CLPERM_RS_G + t / CLPERM_RS_W;
#if CLPERM_RS_LIST
    const ulong base = g < n ? rs_list[2 * (rs_first + g)] : 0;
    const uint len = g < n ? (uint)min(seg, rs_list[2 * (rs_first + g) + 1]) : 0u;
#else
    const ulong base = g * seg;
    const uint len = base < n ? (uint)min(seg, n - base) : 0u;
#endif
#if CLPERM_RS_TRACE
    __global uint *rs_rec = rs_trace + ((size_t)get_group_id(0) * CLPERM_WG_SIZE + t) * (rs_trace_cap + 1);
    uint rs_step = 0;
#endif
    uint a[CLPERM_RS_N];
    /* Whole segments of T keys start at multiples of T, so of 16 bytes: vector loads. */
#if CLPERM_RS_N >= 4 && !CLPERM_RS_LIST
    if (len == CLPERM_RS_T) {
        CLPERM_RS_UNROLL for (uint q = 0; q < CLPERM_RS_N / 4; q++) {
            uint4 v = ((const __global uint4 *)(keys + base + i0))[q];
            a[4 * q] = CLPERM_RS_ORDER(v.x);
            a[4 * q + 1] = CLPERM_RS_ORDER(v.y);
            a[4 * q + 2] = CLPERM_RS_ORDER(v.z);
            a[4 * q + 3] = CLPERM_RS_ORDER(v.w);
        }
    } else
#endif
    {
        CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) a[e] =
            i0 + e < len ? CLPERM_RS_ORDER(keys[base + i0 + e]) : 0xFFFFFFFFu;
    }

#if CLPERM_RS_VALUES
    /* The segment's least and greatest key (padding aside) give its range, and the shift s that
     * fits the range into the word's C bits beside the place: the key's compressed form is
     * (key - lo) >> s, padding the largest. The keys are kept by place. */
#if CLPERM_RS_W > CLPERM_RS_SPAN
    __local uint rs_lo[CLPERM_RS_G], rs_hi[CLPERM_RS_G];
#endif
    __local uint rs_fall;
#if CLPERM_RS_SPAN == 1
    __local uint rs_tot[CLPERM_WG_SIZE]; /* pass 3's count of run starts: a work-item's */
#elif CLPERM_RS_W > CLPERM_RS_SPAN
    __local uint rs_tot[CLPERM_WG_SIZE / CLPERM_RS_SPAN]; /* a subgroup's */
#endif
    const uint f = t - r;
    if (t == 0) rs_fall = 0u;
    uint lo = 0xFFFFFFFFu, hi = 0u;
    CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) {
        rs_at[t * CLPERM_RS_S + e] = a[e];
        if (i0 + e < len) lo = min(lo, a[e]), hi = max(hi, a[e]);
    }
    /* Over the segment's lanes of a subgroup by shuffles; over its subgroups by local atomics. */
#if CLPERM_RS_SPAN > 1
    CLPERM_RS_UNROLL for (uint d = 1; d < CLPERM_RS_W && d < CLPERM_RS_SPAN; d <<= 1) {
        lo = min(lo, clperm_sg_shuffle_u32(lo, lane ^ d, scr));
        hi = max(hi, clperm_sg_shuffle_u32(hi, lane ^ d, scr));
    }
#endif
#if CLPERM_RS_W > CLPERM_RS_SPAN
    const uint sg = t / CLPERM_RS_W;
    if (r == 0) {
        rs_lo[sg] = 0xFFFFFFFFu;
        rs_hi[sg] = 0u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (r % CLPERM_RS_SPAN == 0 && lo <= hi) {
        atomic_min(&rs_lo[sg], lo);
        atomic_max(&rs_hi[sg], hi);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    lo = rs_lo[sg];
    hi = rs_hi[sg];
#endif
    const uint range = hi - lo; /* a segment of padding alone: 1 */
    const uint s = range >> CLPERM_RS_C ? 32u - (uint)clz(range) - CLPERM_RS_C : 0u;
    CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) a[e] =
        CLPERM_RS_HIGH(a[e], i0 + e < len) << CLPERM_RS_LOGT | (i0 + e);
    /* pass 0 sorts (compressed key, place); where that left a run too long to put in order, pass
     * 3 sorts its words again by run and dropped bits, or where those do not fit a word, pass 1
     * sorts (the dropped bits, place) and pass 2 (compressed key, the place pass 1 gave). */
    uint pass = 0;
#endif
    uint ping = 0;
    for (;;) {
        CLPERM_RS_UNROLL for (uint k = 2; k <= CLPERM_RS_T; k <<= 1) {
            CLPERM_RS_UNROLL for (uint j = k >> 1; j > 0; j >>= 1) {
                const int mirror = j == (k >> 1);
                if (j < CLPERM_RS_N) {
                    CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) if ((e & j) == 0) {
                        if (mirror)
                            CLPERM_RS_CX(a, e, e ^ (k - 1));
                        else
                            CLPERM_RS_CX(a, e, e ^ j);
                    }
                    continue;
                }
                /* Work-items d apart; the mirrored compare reads the partner's registers reversed. */
                const uint d = j / CLPERM_RS_N, m = mirror ? k / CLPERM_RS_N - 1 : d;
                const int lower = (t & d) == 0;
                uint b[CLPERM_RS_N];
#if CLPERM_RS_SPAN > 1
                if (d < CLPERM_RS_SPAN) {
                    CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) b[e] =
                        clperm_sg_shuffle_u32(a[mirror ? CLPERM_RS_N - 1 - e : e], lane ^ m, scr);
                } else
#endif
                {
                    __local uint *x = xb[ping];
                    ping ^= 1;
                    CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) {
                        CLPERM_RS_NOTE(t * CLPERM_RS_S + e);
                        x[t * CLPERM_RS_S + e] = a[e];
                    }
                    barrier(CLK_LOCAL_MEM_FENCE);
                    CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) {
                        uint at = (t ^ m) * CLPERM_RS_S + (mirror ? CLPERM_RS_N - 1 - e : e);
                        CLPERM_RS_NOTE(at);
                        b[e] = x[at];
                    }
                }
                CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) a[e] =
                    lower ? min(a[e], b[e]) : max(a[e], b[e]);
            }
        }
#if CLPERM_RS_VALUES
        if (pass == 0) {
            /* Runs of one compressed key (of real keys, where the compression dropped bits) are
             * put in (key, place) order: each place of a run counts the run's places that go
             * before it (read from one exchange buffer) and writes its word there in the other. A
             * run longer than CLPERM_RS_FIX sends the work-group to pass 3 (or 1 and 2): a place
             * whose word matches the one FIX places away is in one, and a place that walks FIX
             * places either way without leaving its run finds it so. The places of runs, rare
             * in random keys, take a loop of their own that is not unrolled, so that it holds few
             * registers. */
            __local uint *x = xb[ping], *y = xb[ping ^ 1];
            CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) x[t * CLPERM_RS_S + e] = a[e];
            barrier(CLK_LOCAL_MEM_FENCE);
            uint runs = 0, long_run = 0; /* runs, bit e: place i0 + e is in a run */
            /* Bit 0 of rs_fall: a run too long, or a work-item with more places in runs than
             * pass 3 costs; bit 1: a segment whose pass 3 words would not fit. */
            if (s) {
                CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) {
                    const uint p = i0 + e, c = CLPERM_RS_RUN(a[e]);
                    const uint before = e   ? CLPERM_RS_RUN(a[e - 1])
                                        : p ? CLPERM_RS_RUN(x[CLPERM_RS_AT(f, p - 1)]) : ~0u;
                    const uint after = e + 1 < CLPERM_RS_N   ? CLPERM_RS_RUN(a[e + 1])
                                       : p + 1 < CLPERM_RS_T ? CLPERM_RS_RUN(x[CLPERM_RS_AT(f, p + 1)])
                                                             : ~0u;
                    if (c != ~0u && (c == before || c == after)) runs |= 1u << e;
                }
            }
            /* The subgroup's loop lasts as long as its longest: one work-item with too many
             * places in runs sends it to pass 3. */
#if CLPERM_RS_SPAN > 1
            long_run = (uint)clperm_sg_any(popcount(runs) > CLPERM_RS_MANY, scr);
#else
            long_run = (uint)popcount(runs) > CLPERM_RS_MANY;
#endif
            for (uint m = runs; m && !long_run; m &= m - 1) {
                const uint p = i0 + 31 - (uint)clz(m & (0u - m)), w = x[CLPERM_RS_AT(f, p)];
                const uint c = CLPERM_RS_RUN(w);
                if ((p >= CLPERM_RS_FIX && CLPERM_RS_RUN(x[CLPERM_RS_AT(f, p - CLPERM_RS_FIX)]) == c) ||
                    (p + CLPERM_RS_FIX < CLPERM_RS_T &&
                     CLPERM_RS_RUN(x[CLPERM_RS_AT(f, p + CLPERM_RS_FIX)]) == c)) {
                    long_run = 1;
                    break;
                }
                const uint kw = rs_at[CLPERM_RS_AT(f, w & CLPERM_RS_M)];
                uint first = p, last = p, rank = 0;
                for (; first > 0 && p - first < CLPERM_RS_FIX; first--) {
                    const uint u = x[CLPERM_RS_AT(f, first - 1)];
                    if (CLPERM_RS_RUN(u) != c) break;
                    rank += rs_at[CLPERM_RS_AT(f, u & CLPERM_RS_M)] <= kw;
                }
                for (; last + 1 < CLPERM_RS_T && last - p < CLPERM_RS_FIX; last++) {
                    const uint u = x[CLPERM_RS_AT(f, last + 1)];
                    if (CLPERM_RS_RUN(u) != c) break;
                    rank += rs_at[CLPERM_RS_AT(f, u & CLPERM_RS_M)] < kw;
                }
                if (last - first >= CLPERM_RS_FIX)
                    long_run = 1;
                else
                    y[CLPERM_RS_AT(f, first + rank)] = w;
            }
#if CLPERM_RS_SPAN > 1
            if (clperm_sg_any((int)long_run, scr) && lane == 0) atomic_or(&rs_fall, 1u);
#else
            if (long_run) atomic_or(&rs_fall, 1u);
#endif
            barrier(CLK_LOCAL_MEM_FENCE);
            const uint fall = rs_fall;
            if (!(fall & 1u)) {
                CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) if (runs >> e & 1) a[e] =
                    y[CLPERM_RS_AT(f, i0 + e)];
                break;
            }
            /* Pass 3 sorts (the word's run, the bits the compression dropped, its place in pass
             * 0), which keeps equal keys in pass 0's order. A run is numbered by the run starts
             * (places whose compressed key differs from the place before) up to its place, counted
             * over the segment by a scan: in registers, over the subgroup, then over the
             * segment's subgroups. Where a segment's runs do not fit the word (2^(32 - B - s) or
             * more), the work-group takes passes 1 and 2 instead. The words wait in the other
             * buffer, a loop not unrolled making them; pass 0's words are then kept by place. */
            uint prev = i0 ? x[CLPERM_RS_AT(f, i0 - 1)] >> CLPERM_RS_LOGT : ~0u, starts = 0;
            CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) {
                const uint c = a[e] >> CLPERM_RS_LOGT;
                starts |= (uint)(c != prev) << e;
                prev = c;
            }
            const uint own = (uint)popcount(starts);
#if CLPERM_RS_SPAN > 1
            uint seen = clperm_sg_scan_incl_add_u32(own, scr);
#if CLPERM_RS_W < CLPERM_RS_SPAN
            const uint ahead = clperm_sg_shuffle_u32(seen, (lane - r - 1) & (CLPERM_RS_SPAN - 1), scr);
            if (lane != r) seen -= ahead; /* the lanes of the subgroup's segments before this one */
#elif CLPERM_RS_W > CLPERM_RS_SPAN
            if (lane == CLPERM_RS_SPAN - 1) rs_tot[t / CLPERM_RS_SPAN] = seen;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint j = f / CLPERM_RS_SPAN; j < t / CLPERM_RS_SPAN; j++) seen += rs_tot[j];
#endif
#else
            rs_tot[t] = own;
            barrier(CLK_LOCAL_MEM_FENCE);
            uint seen = 0;
            for (uint j = f; j <= t; j++) seen += rs_tot[j];
#endif
            if (r == CLPERM_RS_W - 1 && (seen - 1u) >> (32u - CLPERM_RS_LOGT - s)) atomic_or(&rs_fall, 2u);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (!(rs_fall & 2u)) {
                seen -= own;
                CLPERM_RS_ROLLED for (uint e = 0; e < CLPERM_RS_N; e++) {
                    const uint at = x[t * CLPERM_RS_S + e] & CLPERM_RS_M;
                    seen += starts >> e & 1u;
                    y[t * CLPERM_RS_S + e] =
                        ((seen - 1u) << s | CLPERM_RS_LOW(rs_at[CLPERM_RS_AT(f, at)], at < len)) << CLPERM_RS_LOGT |
                        (i0 + e);
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) {
                    rs_at[t * CLPERM_RS_S + e] = a[e];
                    a[e] = y[t * CLPERM_RS_S + e];
                }
                pass = 3;
                continue;
            }
            CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) {
                a[e] = CLPERM_RS_LOW(rs_at[t * CLPERM_RS_S + e], i0 + e < len) << CLPERM_RS_LOGT | (i0 + e);
            }
            pass = 1;
            continue;
        }
        if (pass == 1) {
            /* (compressed key, the place pass 1 gave); pass 1's words kept by that place. */
            uint h[CLPERM_RS_N];
            CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) {
                const uint p = a[e] & CLPERM_RS_M;
                h[e] = CLPERM_RS_HIGH(rs_at[CLPERM_RS_AT(f, p)], p < len);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) {
                rs_at[t * CLPERM_RS_S + e] = a[e];
                a[e] = h[e] << CLPERM_RS_LOGT | (i0 + e);
            }
            pass = 2;
            continue;
        }
#endif
        break;
    }
#if CLPERM_RS_TRACE
    rs_rec[0] = rs_step;
#endif
#if CLPERM_RS_VALUES
    /* The values, read at their own places once every exchange is done, wait in the exchange
     * buffers (both, as one array of values); then each place takes the key and the value of the
     * place its word names. */
    {
        __local CLPERM_RS_VT *vb = (__local CLPERM_RS_VT *)xb;
        barrier(CLK_LOCAL_MEM_FENCE);
#if CLPERM_RS_N >= 4 && !CLPERM_RS_LIST
        if (len == CLPERM_RS_T) {
            CLPERM_RS_UNROLL for (uint q = 0; q < CLPERM_RS_N / CLPERM_RS_VW; q++)
                CLPERM_RS_VLOAD(vb + t * CLPERM_RS_S, q, values + base + i0);
        } else
#endif
        {
            CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) if (i0 + e < len) vb[t * CLPERM_RS_S + e] =
                values[base + i0 + e];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        CLPERM_RS_VT v[CLPERM_RS_N];
        CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) {
            /* After pass 2 the key comes back from its compressed form and the bits pass 1 sorted;
             * after pass 3 from pass 0's word at the place pass 3's word names, and the dropped
             * bits. */
            uint p = a[e] & CLPERM_RS_M, k = rs_at[CLPERM_RS_AT(f, p)];
            if (pass == 2) {
                p = k & CLPERM_RS_M;
                k = lo + ((a[e] >> CLPERM_RS_LOGT) << s | k >> CLPERM_RS_LOGT);
            } else if (pass == 3) {
                p = k & CLPERM_RS_M;
                k = lo + ((k >> CLPERM_RS_LOGT) << s | (a[e] >> CLPERM_RS_LOGT & ((1u << s) - 1u)));
            }
            a[e] = k;
            v[e] = i0 + e < len ? vb[CLPERM_RS_AT(f, p)] : 0;
        }
#if CLPERM_RS_N >= 4 && !CLPERM_RS_LIST
        if (len == CLPERM_RS_T) {
            CLPERM_RS_UNROLL for (uint q = 0; q < CLPERM_RS_N / CLPERM_RS_VW; q++)
                CLPERM_RS_VSTORE(v, q, values + base + i0);
        } else
#endif
        {
            CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) if (i0 + e < len) values[base + i0 + e] = v[e];
        }
    }
#endif

#if CLPERM_RS_N >= 4 && !CLPERM_RS_LIST
    if (len == CLPERM_RS_T) {
        CLPERM_RS_UNROLL for (uint q = 0; q < CLPERM_RS_N / 4; q++) {
            uint4 v = (uint4)(CLPERM_RS_UNORDER(a[4 * q]), CLPERM_RS_UNORDER(a[4 * q + 1]),
                              CLPERM_RS_UNORDER(a[4 * q + 2]), CLPERM_RS_UNORDER(a[4 * q + 3]));
            CLPERM_RS_STORE4(v, q, keys + base + i0);
        }
        return;
    }
#endif
    CLPERM_RS_UNROLL for (uint e = 0; e < CLPERM_RS_N; e++) if (i0 + e < len) keys[base + i0 + e] =
        CLPERM_RS_UNORDER(a[e]);
}
