/*
 * The counting sort of 8- and 16-bit keys alone (clperm_sort's algorithm 3, src/sort/count.c).
 * Keys that are equal in every bit cannot be told apart, so sorted keys are the values in order,
 * each as many times as it occurs: the counts of every value, their scan, and the keys written
 * back from the scan. Each key is read once from memory and written once, where a radix sort of
 * 16-bit keys reads and writes them twice and ranks them twice. Compiled after clperm_features.h.
 *
 * Options: CLPERM_WG_SIZE (1, or a power of two up to the values' count); CLPERM_COUNT_KEY_BYTES
 * (1 or 2); CLPERM_COUNT_RANGE_BITS (log2 of the values a work-group counts in local memory: the
 * values are taken in ranges of that many, by their high bits); CLPERM_COUNT_U (vectors of keys
 * a work-item writes); CLPERM_COUNT_PACKED (1: two 16-bit counters to a word of local memory,
 * work-group kernels only); CLPERM_COUNT_WIDE (1: 2^32 keys or more); CLPERM_COUNT_SCAN_WG and
 * CLPERM_COUNT_SCAN_BLOCK (the scan's work-items, and the values each of its work-groups takes);
 * CLPERM_COUNT_WINDOW (counts of the scan a work-group of the write kernel may keep in local
 * memory).
 *
 * Values are the keys' order-preserving form (CLPERM_KEY_ORDER, its masks giving the direction).
 * The buffer's keys [off, off + n) are read and written in whole vectors of COUNT_V keys where a
 * vector lies inside them (buffers are aligned past 16 bytes), key by key at the two ends.
 */
#if CLPERM_COUNT_KEY_BYTES == 2
typedef ushort count_key;
typedef ushort8 count_vec;
#define COUNT_V 8
#define COUNT_VSTORE vstore8
#define COUNT_VLOAD vload8
#else
typedef uchar count_key;
typedef uchar16 count_vec;
#define COUNT_V 16
#define COUNT_VSTORE vstore16
#define COUNT_VLOAD vload16
#endif
#define COUNT_KEY_BITS (8 * CLPERM_COUNT_KEY_BYTES)
#define COUNT_T (1u << COUNT_KEY_BITS)            /* values */
#define COUNT_B (1u << CLPERM_COUNT_RANGE_BITS)   /* values a work-group counts */
#define COUNT_WG CLPERM_WG_SIZE
#define COUNT_ATTRS __attribute__((reqd_work_group_size(COUNT_WG, 1, 1)))
#define COUNT_ORDER(k, px, nx) ((uint)CLPERM_KEY_ORDER((uint)(k), COUNT_KEY_BITS, (px), (nx)))

/* The key whose form is v: the form's masks undone, the one that leaves the key's sign as it
 * picked (the form is one-to-one, so exactly one does). */
static inline count_key count_key_of(uint v, uint px, uint nx) {
    uint k = v ^ px;
    return (count_key)((k >> (COUNT_KEY_BITS - 1)) == 0u ? k : v ^ nx);
}

/* hist[2 v] and hist[2 v + 1] (low and high words) += d, d a 64-bit two's complement: the sums
 * come out exact once every addition is done, whatever their order. */
static inline void count_hist_add(__global uint *hist, ulong v, ulong d) {
#if CLPERM_COUNT_WIDE
    const uint lo = (uint)d, old = atomic_add(&hist[2 * v], lo);
    const uint hi = (uint)(d >> 32) + (old + lo < old ? 1u : 0u);
    if (hi) atomic_add(&hist[2 * v + 1], hi);
#else
    atomic_add(&hist[2 * v], (uint)d); /* fewer than 2^32 keys: the low words, modulo 2^32, suffice */
#endif
}

#if CLPERM_COUNT_PACKED
/* Two 16-bit counters to a 32-bit word of local memory (bins 2 w and 2 w + 1, low and high half),
 * so that twice the values fit. A counter past 65535 hands 65536 to hist (base: the global bin of
 * local bin 0), and every case is seen in the values the atomics return: the word as a whole
 * wrapping (up, or down when a carry is taken back) is the high counter's 65536; the low half
 * wrapping is the low counter's, and its carry into the high half is taken back. */
#define COUNT_WORDS (COUNT_B / 2u)
static inline void count_local_add(__local uint *lh, __global uint *hist, ulong base, uint b, uint c) {
    const uint w = b >> 1, delta = c << ((b & 1u) << 4), old = atomic_add(&lh[w], delta);
    if (old + delta < old) count_hist_add(hist, base + (b | 1u), 65536ul);
    if ((b & 1u) == 0u && (old & 0xFFFFu) + c > 0xFFFFu) {
        count_hist_add(hist, base + b, 65536ul);
        if (atomic_sub(&lh[w], 0x10000u) < 0x10000u) count_hist_add(hist, base + (b | 1u), (ulong)-65536l);
    }
}
#define COUNT_LOCAL_ADD(b, c) count_local_add(lh, hist, base, (b), (c))
#else
#define COUNT_WORDS COUNT_B
#if COUNT_WG == 1
#define COUNT_LOCAL_ADD(b, c) (lh[b] += (c))
#else
#define COUNT_LOCAL_ADD(b, c) atomic_add(&lh[b], (c))
#endif
#endif

/* The whole vectors of the keys [off, off + n): [*first, *end), empty when none. */
static inline void count_vectors(ulong off, ulong n, ulong *first, ulong *end) {
    *first = (off + COUNT_V - 1) / COUNT_V;
    *end = (off + n) / COUNT_V;
    if (*end < *first) *end = *first;
}

/* Work-group g counts the keys of chunk g / R (chunk_vecs whole vectors, R ranges of values)
 * whose values lie in range g % R, and adds the counts to hist[2 v] and hist[2 v + 1] (low and
 * high words); the keys outside whole vectors are counted with chunk 0. Equal neighbours in a vector are counted
 * at once, so that keys mostly equal do not queue on one counter. */
__kernel COUNT_ATTRS void clperm_count_histogram(const __global count_key *keys, ulong off, ulong n, ulong pos_xor,
                                                 ulong neg_xor, ulong chunk_vecs, __global uint *hist) {
    __local uint lh[COUNT_WORDS];
    /* COUNT_KEY_BITS - CLPERM_COUNT_RANGE_BITS bits of range (shifts: a division and remainder
     * together become an instruction that Oclgrind's checker of uninitialised values rejects). */
    const uint lid = (uint)get_local_id(0), g = (uint)get_group_id(0);
    const uint r = g & ((1u << (COUNT_KEY_BITS - CLPERM_COUNT_RANGE_BITS)) - 1u);
    const ulong c = g >> (COUNT_KEY_BITS - CLPERM_COUNT_RANGE_BITS);
    const uint px = (uint)pos_xor, nx = (uint)neg_xor;
#if CLPERM_COUNT_RANGE_BITS < COUNT_KEY_BITS
    /* The range's keys as they are: their high bits hr, their form the key ^ mr (the masks of
     * positive and negative keys differ in no sign bit, so one of the two candidates has the
     * sign it assumes). */
    const uint hp = r ^ (px >> CLPERM_COUNT_RANGE_BITS), hn = r ^ (nx >> CLPERM_COUNT_RANGE_BITS);
    const uint neg = (hp >> (COUNT_KEY_BITS - CLPERM_COUNT_RANGE_BITS - 1)) != 0u;
    const uint hr = neg ? hn : hp, mr = neg ? nx : px;
#define COUNT_IN(k) (((uint)(k) >> CLPERM_COUNT_RANGE_BITS) == hr)
#define COUNT_BIN(k) (((uint)(k) ^ mr) & (COUNT_B - 1u))
#else
#define COUNT_IN(k) 1
#define COUNT_BIN(k) COUNT_ORDER(k, px, nx)
#endif
    const ulong base = (ulong)r << CLPERM_COUNT_RANGE_BITS; /* the range's first value */
    for (uint i = lid; i < COUNT_WORDS; i += COUNT_WG) lh[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong first, end;
    count_vectors(off, n, &first, &end);
    const ulong vb = first + c * chunk_vecs, ve = min(end, vb + chunk_vecs);
    const __global count_vec *vecs = (const __global count_vec *)keys;
    for (ulong u = vb + lid; u < ve; u += COUNT_WG) {
        count_key k[COUNT_V];
        COUNT_VSTORE(vecs[u], 0, k);
        count_key prev = k[0];
        uint run = 1;
#pragma unroll
        for (uint t = 1; t < COUNT_V; t++) {
            if (k[t] == prev) {
                run++;
            } else {
                if (COUNT_IN(prev)) COUNT_LOCAL_ADD(COUNT_BIN(prev), run);
                prev = k[t];
                run = 1;
            }
        }
        if (COUNT_IN(prev)) COUNT_LOCAL_ADD(COUNT_BIN(prev), run);
    }
    if (c == 0) {
        /* The keys before the first whole vector and after the last (all of them where none is whole). */
        const ulong head_end = first == end ? off + n : first * COUNT_V, tail = first == end ? off + n : end * COUNT_V;
        const ulong loose = (head_end - off) + (off + n - tail);
        for (ulong i = lid; i < loose; i += COUNT_WG) {
            ulong at = i < head_end - off ? off + i : tail + (i - (head_end - off));
            count_key k = keys[at];
            if (COUNT_IN(k)) COUNT_LOCAL_ADD(COUNT_BIN(k), 1u);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < COUNT_WORDS; i += COUNT_WG) {
        const uint k = lh[i];
#if CLPERM_COUNT_PACKED
        if (k & 0xFFFFu) count_hist_add(hist, base + 2 * i, k & 0xFFFFu);
        if (k >> 16) count_hist_add(hist, base + 2 * i + 1, k >> 16);
#else
        if (k) count_hist_add(hist, base + i, k);
#endif
    }
}

#define COUNT_SWG CLPERM_COUNT_SCAN_WG
#define COUNT_STILE (4u * COUNT_SWG)

/* part[0 .. COUNT_SWG): inclusive sums in place (Hillis and Steele). */
static inline void count_part_sums(__local ulong *part, uint lid) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < COUNT_SWG; d <<= 1) {
        ulong t = lid >= d ? part[lid - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        part[lid] += t;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

static inline ulong count_of(const __global uint *hist, uint v) {
    uint2 h = vload2(v, hist);
    return (ulong)h.x | ((ulong)h.y << 32);
}

/* Work-groups of CLPERM_COUNT_SCAN_WG work-items, each for CLPERM_COUNT_SCAN_BLOCK values:
 * bins[v] = the keys whose values are below v, for v <= COUNT_T (bins[COUNT_T] is n), from
 * hist. A work-group sums the counts below its block, then scans the block, four counts a
 * work-item at a time, reading and writing whole lines. */
__kernel __attribute__((reqd_work_group_size(COUNT_SWG, 1, 1))) void clperm_count_scan(const __global uint *hist,
                                                                                     __global ulong *bins) {
#if COUNT_SWG == 1
    /* One work-item (and one block): the counts in order. */
    ulong run = 0;
    for (uint v = 0; v < COUNT_T; v++) {
        ulong c = count_of(hist, v);
        bins[v] = run;
        run += c;
    }
    bins[COUNT_T] = run;
#else
    __local ulong tile[COUNT_STILE];
    __local ulong part[COUNT_SWG];
    const uint lid = (uint)get_local_id(0), lo = (uint)get_group_id(0) * CLPERM_COUNT_SCAN_BLOCK;
    const uint hi = min(lo + CLPERM_COUNT_SCAN_BLOCK, COUNT_T);
    ulong below = 0;
    for (uint v = lid; v < lo; v += COUNT_SWG) below += count_of(hist, v);
    part[lid] = below;
    count_part_sums(part, lid);
    ulong carry = part[COUNT_SWG - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint base = lo; base < hi; base += COUNT_STILE) {
        for (uint q = 0; q < 4u; q++) {
            uint i = q * COUNT_SWG + lid;
            tile[i] = base + i < hi ? count_of(hist, base + i) : 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const ulong s = tile[4 * lid] + tile[4 * lid + 1] + tile[4 * lid + 2] + tile[4 * lid + 3];
        part[lid] = s;
        count_part_sums(part, lid);
        ulong e = carry + part[lid] - s;
        for (uint q = 0; q < 4u; q++) {
            ulong c = tile[4 * lid + q];
            tile[4 * lid + q] = e;
            e += c;
        }
        carry += part[COUNT_SWG - 1];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint q = 0; q < 4u; q++) {
            uint i = q * COUNT_SWG + lid;
            if (base + i < hi) bins[base + i] = tile[i];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (hi == COUNT_T && lid == 0) bins[COUNT_T] = carry;
#endif
}

/* The largest v in [lo, hi) with bins[v] <= p, given bins[lo] <= p < bins[hi]: the value of the
 * key at sorted position p (a value no key has shares its start with the next). Over the global
 * scan and over a work-group's window of it in local memory. */
#define COUNT_FIND(name, space)                                                                    \
    static inline uint name(const space ulong *bins, ulong p, uint lo, uint hi) {                  \
        while (hi - lo > 1u) {                                                                     \
            uint mid = (lo + hi) / 2u;                                                             \
            if (bins[mid] <= p)                                                                    \
                lo = mid;                                                                          \
            else                                                                                   \
                hi = mid;                                                                          \
        }                                                                                          \
        return lo;                                                                                 \
    }
COUNT_FIND(count_find, __global)
COUNT_FIND(count_find_local, __local)

#define COUNT_WINDOW CLPERM_COUNT_WINDOW
/* The work-group search below takes COUNT_T / COUNT_WG values a step, two steps. */
#define COUNT_GROUP_SEARCH (COUNT_WG > 1 && COUNT_T / COUNT_WG <= COUNT_WG)

/* Work-group g writes COUNT_WG COUNT_U vectors of COUNT_V keys from vector off / COUNT_V + g
 * COUNT_WG COUNT_U on, its work-items side by side, keys outside [off, off + n) untouched: the key
 * at sorted position p is the value v with bins[v] <= p < bins[v + 1]. The work-group first finds
 * the values at its first and last positions (in two steps of loads side by side) and, where the
 * scan between them fits, reads that window into local memory, where its work-items look up the
 * value of each vector's first key. The counts, read by now, are left zero for the next sort. */
__kernel COUNT_ATTRS void clperm_count_write(__global count_key *keys, ulong off, ulong n, ulong pos_xor,
                                             ulong neg_xor, const __global ulong *bins, __global uint *hist) {
    const uint px = (uint)pos_xor, nx = (uint)neg_xor, lid = (uint)get_local_id(0);
    for (size_t i = get_global_id(0); i < COUNT_T / 2u; i += get_global_size(0)) vstore4((uint4)(0u), i, hist);
    const ulong last = (off + n - 1) / COUNT_V;
    const ulong g0 = off / COUNT_V + (ulong)get_group_id(0) * COUNT_WG * CLPERM_COUNT_U;
    if (g0 > last) return; /* the whole work-group */
#if COUNT_GROUP_SEARCH
    __local ulong win[COUNT_WINDOW];
    __local uint found[2];
    const ulong gp0 = max(g0 * COUNT_V, off) - off;
    const ulong gp1 = min((g0 + (ulong)COUNT_WG * CLPERM_COUNT_U) * COUNT_V, off + n) - off - 1;
    const uint step = COUNT_T / COUNT_WG;
    if (lid < 2u) found[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    {
        ulong b = bins[lid * step];
        if (b <= gp0) atomic_inc(&found[0]);
        if (b <= gp1) atomic_inc(&found[1]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint c0 = (found[0] - 1u) * step, c1 = (found[1] - 1u) * step;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 2u) found[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < step) {
        if (bins[c0 + lid] <= gp0) atomic_inc(&found[0]);
        if (bins[c1 + lid] <= gp1) atomic_inc(&found[1]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint v0 = c0 + found[0] - 1u, span = c1 + found[1] - 1u - v0 + 2u; /* bins[v0 .. v1 + 1] */
    const int local_window = span <= COUNT_WINDOW;
    if (local_window)
        for (uint i = lid; i < span; i += COUNT_WG) win[i] = bins[v0 + i];
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    ulong next = 0;
    uint v = 0;
    count_key key = 0;
    for (uint j = 0; j < CLPERM_COUNT_U; j++) {
        const ulong u = g0 + (ulong)j * COUNT_WG + lid, at = u * COUNT_V;
        if (u > last) break;
        ulong p = max(at, off) - off;
        /* A vector's first value is looked up, but a lone work-item's vectors follow each other. */
        if (COUNT_WG > 1 || j == 0) {
#if COUNT_GROUP_SEARCH
            if (local_window) {
                v = count_find_local(win, p, 0, span - 1u);
                next = win[v + 1];
                v += v0;
            } else
#endif
            {
                v = count_find(bins, p, 0, COUNT_T);
                next = bins[v + 1];
            }
            key = count_key_of(v, px, nx);
        }
        count_key k[COUNT_V];
        for (uint t = 0; t < COUNT_V; t++) {
            p = at + t - off; /* wraps below off: such keys are not written */
            if (at + t >= off && p < n) {
                if (p >= next) {
#if COUNT_GROUP_SEARCH
                    if (local_window) {
                        uint w = count_find_local(win, p, v - v0 + 1u, span - 1u);
                        next = win[w + 1];
                        v = v0 + w;
                    } else
#endif
                    {
                        v = count_find(bins, p, v + 1, COUNT_T);
                        next = bins[v + 1];
                    }
                    key = count_key_of(v, px, nx);
                }
                k[t] = key;
            }
        }
        if (at >= off && at + COUNT_V <= off + n) {
            *(__global count_vec *)(keys + at) = COUNT_VLOAD(0, k);
        } else {
            for (uint t = 0; t < COUNT_V; t++)
                if (at + t >= off && at + t - off < n) keys[at + t] = k[t];
        }
    }
}
