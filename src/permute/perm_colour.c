/* The scheduled permutation's colourings, on the host: the König colouring of the rows'
 * bipartite multigraph (Section 7) and the conflict-free schedule of each row-wise step's local
 * permutation (Section 6), both by Euler splits. */
#include <stdlib.h>
#include <string.h>

#include "perm_internal.h"

/* ---------------------------------------------------------------------------------------------
 * The König colouring of the rows' multigraph.
 *
 * Level l of log2(cols) holds 2^l colour classes, each a d-regular multigraph (d = cols >> l)
 * between the source rows and the destination rows. Items are kept in two orders, class-major:
 * the A order (class, source row, d items) and the B order (class, destination row, d items).
 * Items 2m and 2m+1 of the A order share a source row ("u-pair" m), items 2j and 2j+1 of the
 * B order a destination row (a v-pair). Every item has one u-partner and one v-partner, so the
 * pairs form even cycles; giving the two items of every pair different bits splits each row and
 * each destination row evenly, and the bit is the next binary digit of the colour.
 *
 * The cycles are walked with many walks at once (their loads overlap in memory): a walk gives
 * the item it enters bit 0 and its u-partner bit 1, then follows the u-partner's v-pair. Walks
 * may meet on one cycle; each is then a segment with its own frame, and the frames are reconciled
 * afterwards by a union-find with parity over the constraints at the segments' ends.
 * ------------------------------------------------------------------------------------------- */

#define UNSET 0xFFFFFFFFu

typedef struct upair {
    uint32_t vp[2]; /* A positions of the v-partners of items 2m and 2m+1 */
    uint32_t sw;    /* segment << 1 | o, o the bit of item 2m in the segment's frame; UNSET */
} upair;

typedef struct link {
    uint32_t a, b; /* segments (their start pairs) */
    uint32_t parity; /* flip(a) ^ flip(b) */
} link;

typedef struct colour_level {
    uint32_t rows, cols, d;
    uint64_t z; /* items per class: rows * d */
    const uint32_t *ea, *ab;
    uint32_t *ea2, *ab2, *na;
    upair *pr;
    uint32_t *uf;   /* union-find parent, indexed by segment */
    uint8_t *ufp;   /* parity to the parent */
    int failed;     /* out of memory in a worker */
} colour_level;

static uint32_t uf_find(uint32_t *uf, uint8_t *ufp, uint32_t x, uint8_t *parity) {
    uint8_t p = 0;
    uint32_t r = x;
    while (uf[r] != r) {
        p ^= ufp[r];
        r = uf[r];
    }
    /* Path compression, keeping each node's parity to the root. */
    uint8_t q = p;
    while (uf[x] != x) {
        uint32_t next = uf[x];
        uint8_t px = ufp[x];
        uf[x] = r;
        ufp[x] = q;
        q ^= px;
        x = next;
    }
    *parity = p;
    return r;
}

static void uf_union(uint32_t *uf, uint8_t *ufp, uint32_t a, uint32_t b, uint8_t parity) {
    uint8_t pa, pb;
    uint32_t ra = uf_find(uf, ufp, a, &pa), rb = uf_find(uf, ufp, b, &pb);
    if (ra == rb) return; /* consistent by construction: the cycles are even */
    uf[ra] = rb;
    ufp[ra] = (uint8_t)(pa ^ pb ^ parity);
}

/* Bit of item k (an A position) in its segment's frame. */
static inline uint32_t frame_bit(const upair *pr, uint32_t k) { return (pr[k >> 1].sw & 1u) ^ (k & 1u); }

enum { WALKS = 32 };

/* Walks the cycles of the pairs [first, last) (whole classes), segments numbered by their start
 * pairs, and resolves the segments' frames: afterwards uf/ufp hold each segment's flip (after
 * uf_find). Returns -1 when out of memory. */
static int walk_classes(colour_level *L, uint32_t first, uint32_t last) {
    upair *pr = L->pr;
    size_t nlinks = 0, cap = 1024;
    link *links = malloc(cap * sizeof *links);
    if (!links) return -1;
    uint32_t cur[WALKS], seg[WALKS];
    int active = 0;
    uint32_t scan = first;
    /* Every slot holds a walk: cur is the item whose v-pair is followed next (bit 1 in frame). */
    for (;;) {
        while (active < WALKS) {
            while (scan < last && pr[scan].sw != UNSET) scan++;
            if (scan == last) break;
            pr[scan].sw = scan << 1; /* item 2m gets bit 0 */
            L->uf[scan] = scan;
            L->ufp[scan] = 0;
            seg[active] = scan;
            cur[active] = 2 * scan + 1;
            __builtin_prefetch(&pr[pr[scan].vp[1] >> 1]);
            active++;
            scan++;
        }
        if (!active) break;
        for (int s = 0; s < active;) {
            uint32_t e = cur[s];
            uint32_t nxt = pr[e >> 1].vp[e & 1];
            upair *np = &pr[nxt >> 1];
            if (np->sw == UNSET) {
                np->sw = seg[s] << 1 | (nxt & 1u); /* nxt gets bit 0 */
                uint32_t out = nxt ^ 1u;
                cur[s] = out;
                __builtin_prefetch(&pr[np->vp[out & 1] >> 1]);
                s++;
                continue;
            }
            /* Met a segment (maybe its own): e has bit 1, so flip(s) ^ flip(t) = frame bit of nxt. */
            if (nlinks == cap) {
                link *grown = realloc(links, 2 * cap * sizeof *links);
                if (!grown) {
                    free(links);
                    return -1;
                }
                links = grown;
                cap *= 2;
            }
            links[nlinks].a = seg[s];
            links[nlinks].b = np->sw >> 1;
            links[nlinks].parity = frame_bit(pr, nxt);
            nlinks++;
            cur[s] = cur[active - 1];
            seg[s] = seg[active - 1];
            active--;
        }
    }
    /* The start of each segment: its item 2m (bit 0) and that item's v-partner differ. */
    for (uint32_t m = first; m < last; m++) {
        if ((pr[m].sw >> 1) != m) continue;
        uint32_t z = pr[m].vp[0];
        uint8_t parity = (uint8_t)(1u ^ frame_bit(pr, z));
        uf_union(L->uf, L->ufp, m, pr[z >> 1].sw >> 1, parity);
    }
    for (size_t i = 0; i < nlinks; i++) uf_union(L->uf, L->ufp, links[i].a, links[i].b, (uint8_t)links[i].parity);
    free(links);
    /* Final frames: o of every pair with its segment's flip. */
    for (uint32_t m = first; m < last; m++) {
        uint8_t flip;
        uf_find(L->uf, L->ufp, pr[m].sw >> 1, &flip);
        pr[m].sw = (pr[m].sw & ~1u) | ((pr[m].sw & 1u) ^ flip);
    }
    return 0;
}

enum { AHEAD = 16 }; /* items the random accesses are prefetched ahead */

/* v-pairs: every B pair tells its two items their v-partners. */
static void level_vpairs(void *arg, uint64_t begin, uint64_t end) {
    colour_level *L = arg;
    for (uint64_t j = begin; j < end; j++) {
        if (j + AHEAD < end) {
            __builtin_prefetch(&L->pr[L->ab[2 * (j + AHEAD)] >> 1], 1);
            __builtin_prefetch(&L->pr[L->ab[2 * (j + AHEAD) + 1] >> 1], 1);
        }
        uint32_t a = L->ab[2 * j], b = L->ab[2 * j + 1];
        L->pr[a >> 1].vp[a & 1] = b;
        L->pr[b >> 1].vp[b & 1] = a;
    }
}

/* Walks over whole classes: [begin, end) counts classes. */
static void level_walks(void *arg, uint64_t begin, uint64_t end) {
    colour_level *L = arg;
    uint64_t pairs = L->z / 2;
    for (uint64_t m = begin * pairs; m < end * pairs; m++) L->pr[m].sw = UNSET;
    if (begin < end && walk_classes(L, (uint32_t)(begin * pairs), (uint32_t)(end * pairs)) != 0) L->failed = 1;
}

/* The split of the A order: pair i of the block (class c, row u) sends its bit-0 item to
 * position i of block (2c, u) and its bit-1 item to block (2c+1, u); [begin, end) counts blocks
 * (class-major, rows blocks a class). */
static void level_split_a(void *arg, uint64_t begin, uint64_t end) {
    colour_level *L = arg;
    const uint64_t half = L->d / 2, zh = L->z / 2;
    uint64_t c = begin / L->rows, u = begin % L->rows;
    for (uint64_t b = begin; b < end; b++) {
        uint64_t k = b * L->d, zero = c * L->z + u * half;
        for (uint64_t i = 0; i < half; i++, k += 2) {
            uint32_t o = L->pr[k >> 1].sw & 1u; /* bit of item k */
            uint64_t p0 = o ? zero + i + zh : zero + i, p1 = o ? zero + i : zero + i + zh;
            L->na[k] = (uint32_t)p0 | o << 31;
            L->na[k + 1] = (uint32_t)p1 | (o ^ 1u) << 31;
            L->ea2[p0] = L->ea[k];
            L->ea2[p1] = L->ea[k + 1];
        }
        if (++u == L->rows) u = 0, c++;
    }
}

/* The same for the B order, which keeps A positions (mapped through na, whose top bit is the
 * item's bit). */
static void level_split_b(void *arg, uint64_t begin, uint64_t end) {
    colour_level *L = arg;
    const uint64_t half = L->d / 2, zh = L->z / 2, last = end * L->d;
    uint64_t c = begin / L->rows, v = begin % L->rows;
    for (uint64_t b = begin; b < end; b++) {
        uint64_t k = b * L->d, zero = c * L->z + v * half;
        for (uint64_t i = 0; i < half; i++, k += 2) {
            if (k + 2 * AHEAD < last) {
                __builtin_prefetch(&L->na[L->ab[k + 2 * AHEAD]]);
                __builtin_prefetch(&L->na[L->ab[k + 2 * AHEAD + 1]]);
            }
            uint32_t na = L->na[L->ab[k]], nb = L->na[L->ab[k + 1]];
            L->ab2[na >> 31 ? zero + i + zh : zero + i] = na & 0x7FFFFFFFu;
            L->ab2[na >> 31 ? zero + i : zero + i + zh] = nb & 0x7FFFFFFFu;
        }
        if (++v == L->rows) v = 0, c++;
    }
}

/* Level 0's orders: the A order holds each source row's items by destination row, the B order
 * each destination row's items (as A positions) by source row. Pairs then join items whose rows
 * are near on both sides, so a walk moves in small steps over the (source row, destination row)
 * grid and every phase touches memory near where it last did; the stable splits keep both orders
 * sorted at every level. */
typedef struct colour_init {
    uint32_t rows, cols;
    const uint32_t *p, *q; /* destinations and their inverse */
    uint32_t *ea, *ab, *posa;
    int failed;
} colour_init;

/* Counting sort of the cols items[] by keys[] < rows, into out[] (stable). */
static void sort_row(const uint32_t *items, uint32_t *out, uint32_t cols, uint32_t rows, const uint32_t *keys,
                     uint32_t *count) {
    memset(count, 0, ((size_t)rows + 1) * 4);
    for (uint32_t j = 0; j < cols; j++) count[keys[j] + 1]++;
    for (uint32_t r = 0; r < rows; r++) count[r + 1] += count[r];
    for (uint32_t j = 0; j < cols; j++) out[count[keys[j]]++] = items[j];
}

/* side 0: the A order of source rows [begin, end); side 1: the B order of destination rows. */
static void init_orders(colour_init *I, uint64_t begin, uint64_t end, int side) {
    const uint32_t cols = I->cols, rows = I->rows;
    uint32_t *count = malloc(((size_t)rows + 1) * 4), *keys = malloc((size_t)cols * 4);
    uint32_t *items = malloc((size_t)cols * 4), *sorted = malloc((size_t)cols * 4);
    if (!count || !keys || !items || !sorted) {
        I->failed = 1;
    } else {
        for (uint64_t r = begin; r < end; r++) {
            uint64_t base = r * cols;
            for (uint32_t j = 0; j < cols; j++) {
                items[j] = side ? I->q[base + j] : (uint32_t)(base + j);
                keys[j] = side ? items[j] / cols : I->p[base + j] / cols;
            }
            sort_row(items, sorted, cols, rows, keys, count);
            for (uint32_t j = 0; j < cols; j++) {
                if (side) {
                    I->ab[base + j] = I->posa[sorted[j]];
                } else {
                    I->ea[base + j] = sorted[j];
                    I->posa[sorted[j]] = (uint32_t)(base + j);
                }
            }
        }
    }
    free(count), free(keys), free(items), free(sorted);
}

static void init_a(void *arg, uint64_t begin, uint64_t end) { init_orders(arg, begin, end, 0); }
static void init_b(void *arg, uint64_t begin, uint64_t end) { init_orders(arg, begin, end, 1); }

clperm_status clperm__perm_colour(uint32_t rows, uint32_t cols, const uint32_t *p, const uint32_t *q, uint32_t *at,
                                  int threads, const clperm__progress *pg) {
    uint64_t n = (uint64_t)rows * cols;
    CLPERM_RETURN_IF(cols == 0 || (cols & (cols - 1)) || rows == 0 || n > UINT32_MAX / 2,
                     CLPERM_ERROR_INVALID_ARGUMENT);
    if (cols == 1) {
        for (uint32_t u = 0; u < rows; u++) at[u] = u;
        return CLPERM_SUCCESS;
    }
    clperm_status st = CLPERM_SUCCESS;
    uint32_t *ea = malloc(n * 4), *ea2 = malloc(n * 4), *ab = malloc(n * 4), *ab2 = malloc(n * 4);
    uint32_t *na = malloc(n * 4), *uf = malloc(n / 2 * 4);
    uint8_t *ufp = malloc(n / 2);
    upair *pr = malloc(n / 2 * sizeof *pr);
    if (!ea || !ea2 || !ab || !ab2 || !na || !uf || !ufp || !pr) {
        st = CLPERM_ERROR_OUT_OF_HOST_MEMORY;
        goto cleanup;
    }
    colour_init init = {rows, cols, p, q, ea, ab, na, 0};
    clperm__parallel_for(threads, rows, init_a, &init);
    clperm__parallel_for(threads, rows, init_b, &init);
    if (init.failed) {
        st = CLPERM_ERROR_OUT_OF_HOST_MEMORY;
        goto cleanup;
    }
    uint32_t levels = 0;
    while ((1u << levels) < cols) levels++;
    for (uint32_t l = 0; l < levels; l++) {
        colour_level L = {rows, cols, cols >> l, (uint64_t)rows * (cols >> l), ea, ab, ea2, ab2, na, pr, uf, ufp, 0};
        clperm__parallel_for(threads, n / 2, level_vpairs, &L);
        clperm__parallel_for(threads, UINT64_C(1) << l, level_walks, &L);
        if (L.failed) {
            st = CLPERM_ERROR_OUT_OF_HOST_MEMORY;
            goto cleanup;
        }
        clperm__parallel_for(threads, n / L.d, level_split_a, &L);
        clperm__parallel_for(threads, n / L.d, level_split_b, &L);
        uint32_t *t = ea;
        ea = ea2;
        ea2 = t;
        t = ab;
        ab = ab2;
        ab2 = t;
        clperm__progress_report(pg, (double)(l + 1) / levels);
    }
    memcpy(at, ea, n * 4);
cleanup:
    free(ea), free(ea2), free(ab), free(ab2), free(na), free(uf), free(ufp), free(pr);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * The schedule of one row-wise step: the bank multigraph of a local permutation, coloured.
 * ------------------------------------------------------------------------------------------- */

struct clperm__sched_ws {
    uint32_t max_len, w;
    uint32_t *lst, *tmp;     /* item lists */
    uint32_t *apos, *bpos;   /* per item: position in the bank orders of the current range */
    uint32_t *aord, *bord;   /* the range ordered by source bank, by destination bank */
    uint8_t *bit;
    uint32_t *cnt;           /* w * w */
    int32_t *match_v, *seen; /* Kuhn's matching */
    uint32_t *stack;         /* ranges still to colour: (offset, degree) */
};

clperm__sched_ws *clperm__sched_ws_new(uint32_t max_len, uint32_t w) {
    clperm__sched_ws *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    ws->max_len = max_len;
    ws->w = w;
    size_t n = max_len ? max_len : 1;
    ws->lst = malloc(n * 4);
    ws->tmp = malloc(n * 4);
    ws->apos = malloc(n * 4);
    ws->bpos = malloc(n * 4);
    ws->aord = malloc(n * 4);
    ws->bord = malloc(n * 4);
    ws->bit = malloc(n);
    ws->cnt = malloc((size_t)w * w * 4);
    ws->match_v = malloc((size_t)w * 4);
    ws->seen = malloc((size_t)w * 4);
    ws->stack = malloc((2 * n + 64) * 4);
    if (!ws->lst || !ws->tmp || !ws->apos || !ws->bpos || !ws->aord || !ws->bord || !ws->bit || !ws->cnt ||
        !ws->match_v || !ws->seen || !ws->stack) {
        clperm__sched_ws_free(ws);
        return NULL;
    }
    return ws;
}

void clperm__sched_ws_free(clperm__sched_ws *ws) {
    if (!ws) return;
    free(ws->lst), free(ws->tmp), free(ws->apos), free(ws->bpos), free(ws->aord), free(ws->bord);
    free(ws->bit), free(ws->cnt), free(ws->match_v), free(ws->seen), free(ws->stack);
    free(ws);
}

/* Splits the range lst[off .. off + w*d) (d even, a d-regular bank multigraph) into two
 * d/2-regular halves, the first half first: pairs of items sharing a source bank and pairs
 * sharing a destination bank form even cycles, 2-coloured by walking them. */
static void euler_split(clperm__sched_ws *ws, const uint16_t *pi, uint32_t off, uint32_t d) {
    const uint32_t w = ws->w, len = w * d;
    uint32_t *lst = ws->lst + off, *aord = ws->aord, *bord = ws->bord, *apos = ws->apos, *bpos = ws->bpos;
    uint32_t *tmp = ws->tmp;
    uint8_t *bit = ws->bit;
    /* Orders by bank: each bank has exactly d items of the range. */
    uint32_t fa[64], fb[64];
    for (uint32_t b = 0; b < w; b++) fa[b] = fb[b] = b * d;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t pa = fa[lst[i] & (w - 1)]++, pb = fb[pi[lst[i]] & (w - 1)]++;
        aord[pa] = i;
        apos[i] = pa;
        bord[pb] = i;
        bpos[i] = pb;
    }
    /* Partners: apos now holds each item's u-partner, bpos its v-partner. */
    for (uint32_t i = 0; i < len; i++) apos[i] = aord[apos[i] ^ 1u];
    for (uint32_t i = 0; i < len; i++) bpos[i] = bord[bpos[i] ^ 1u];
    memset(bit, 2, len);
    for (uint32_t s = 0; s < len; s++) {
        if (bit[s] != 2) continue;
        uint32_t i = s;
        do {
            uint32_t up = apos[i];
            bit[i] = 0;
            bit[up] = 1;
            i = bpos[up];
        } while (i != s);
    }
    uint32_t z = 0, o = len / 2;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t b = bit[i], at = z ^ ((z ^ o) & (0u - b));
        tmp[at] = lst[i];
        z += 1u - b;
        o += b;
    }
    memcpy(lst, tmp, len * 4);
}

static int kuhn(clperm__sched_ws *ws, uint32_t u, int32_t stamp) {
    const uint32_t w = ws->w;
    for (uint32_t v = 0; v < w; v++) {
        if (!ws->cnt[u * w + v] || ws->seen[v] == stamp) continue;
        ws->seen[v] = stamp;
        if (ws->match_v[v] < 0 || kuhn(ws, (uint32_t)ws->match_v[v], stamp)) {
            ws->match_v[v] = (int32_t)u;
            return 1;
        }
    }
    return 0;
}

/* Moves a perfect matching of the range's bank multigraph (d odd) to its end: w items with
 * distinct source banks and distinct destination banks. */
static int peel_matching(clperm__sched_ws *ws, const uint16_t *pi, uint32_t off, uint32_t d) {
    const uint32_t w = ws->w, len = w * d;
    uint32_t *lst = ws->lst + off;
    memset(ws->cnt, 0, (size_t)w * w * 4);
    for (uint32_t i = 0; i < len; i++) ws->cnt[(lst[i] & (w - 1)) * w + (pi[lst[i]] & (w - 1))]++;
    for (uint32_t v = 0; v < w; v++) ws->match_v[v] = -1, ws->seen[v] = -1;
    for (uint32_t u = 0; u < w; u++)
        if (!kuhn(ws, u, (int32_t)u)) return -1; /* a regular bipartite multigraph has one */
    /* cnt now marks the matched (u, v) pairs still to take. */
    memset(ws->cnt, 0, (size_t)w * w * 4);
    for (uint32_t v = 0; v < w; v++) ws->cnt[(uint32_t)ws->match_v[v] * w + v] = 1;
    uint32_t keep = 0, taken = 0;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t *c = &ws->cnt[(lst[i] & (w - 1)) * w + (pi[lst[i]] & (w - 1))];
        if (*c) {
            *c = 0;
            ws->tmp[len - w + taken++] = lst[i];
        } else {
            ws->tmp[keep++] = lst[i];
        }
    }
    memcpy(lst, ws->tmp, len * 4);
    return taken == w ? 0 : -1;
}

/* Orders a group of g items (distinct source banks modulo g, distinct destination banks modulo
 * g) so that each half is distinct modulo g/2, and then each quarter modulo g/4 (the banks that
 * 4-, 8- and 16-byte items see). Items whose banks agree modulo g/2 must fall in different
 * halves; these constraints, one per side per item, form even cycles, 2-coloured by walking. */
static void order_group(const uint16_t *pi, uint32_t *grp, uint32_t w) {
    uint32_t out[64];
    uint8_t pos_u[64], pos_v[64], bu[64], bv[64];
    int8_t side[64];
    for (uint32_t g = w; g >= 4 && g * 4 > w; g /= 2) {
        const uint32_t h = g / 2;
        for (uint32_t blk = 0; blk < w; blk += g) {
            uint32_t *b = grp + blk;
            for (uint32_t i = 0; i < g; i++) {
                bu[i] = (uint8_t)(b[i] & (g - 1));
                bv[i] = (uint8_t)(pi[b[i]] & (g - 1));
                pos_u[bu[i]] = (uint8_t)i;
                pos_v[bv[i]] = (uint8_t)i;
                side[i] = -1;
            }
            for (uint32_t s = 0; s < g; s++) {
                if (side[s] >= 0) continue;
                uint32_t i = s;
                do {
                    uint32_t j = pos_u[bu[i] ^ h]; /* the same source bank modulo h */
                    side[i] = 0;
                    side[j] = 1;
                    i = pos_v[bv[j] ^ h]; /* the same destination bank modulo h */
                } while (side[i] < 0);
            }
            uint32_t lo = 0, hi = h;
            for (uint32_t i = 0; i < g; i++) out[side[i] ? hi++ : lo++] = b[i];
            memcpy(b, out, g * 4);
        }
    }
}

int clperm__perm_schedule(clperm__sched_ws *ws, uint32_t len, uint32_t w, const uint16_t *pi, uint32_t *sched) {
    if (w != ws->w || w < 2 || w > 64 || (w & (w - 1)) || len == 0 || len % w || len > ws->max_len ||
        len > CLPERM_PERM_SCHED_MASK + 1)
        return -1;
    /* pi must be a permutation (the plan builds it so; checked all the same). */
    memset(ws->bit, 0, len);
    for (uint32_t j = 0; j < len; j++) {
        if (pi[j] >= len || ws->bit[pi[j]]) return -1;
        ws->bit[pi[j]] = 1;
    }
    for (uint32_t j = 0; j < len; j++) ws->lst[j] = j;
    /* Ranges to colour, each a d-regular bank multigraph of w * d items. */
    uint32_t top = 0;
    ws->stack[top++] = 0;
    ws->stack[top++] = len / w;
    while (top) {
        uint32_t d = ws->stack[--top], off = ws->stack[--top];
        if (d == 1) {
            order_group(pi, ws->lst + off, w);
            continue;
        }
        if (d % 2) {
            if (peel_matching(ws, pi, off, d) != 0) return -1;
            ws->stack[top++] = off + w * (d - 1);
            ws->stack[top++] = 1;
            ws->stack[top++] = off;
            ws->stack[top++] = d - 1;
            continue;
        }
        euler_split(ws, pi, off, d);
        ws->stack[top++] = off;
        ws->stack[top++] = d / 2;
        ws->stack[top++] = off + w * d / 2;
        ws->stack[top++] = d / 2;
    }
    for (uint32_t t = 0; t < len; t++) sched[t] = ws->lst[t] | (uint32_t)pi[ws->lst[t]] << CLPERM_PERM_SCHED_SHIFT;
    return 0;
}
