/*
 * rng_search: finds full-period parameters for subgroup-shared binary linear generators (Thomas
 * and Luk, "GPU optimised uniform random number generation"), and proves their period.
 *
 * A generator of k words of w = 32 bits has the transition matrix A of eq. (9)-(12): word j of the
 * next state is the xor over the stages i of S_z[i,j] M_m[i,j] R_q[i,j] s. Its period is 2^n - 1
 * (n = wk) exactly when the characteristic polynomial p of A is primitive:
 *     x^(2^n - 1) = 1  and  x^((2^n - 1) / q) != 1  mod p  for every prime q dividing 2^n - 1.
 * p is found as the minimal polynomial (Berlekamp-Massey) of one bit of the states s, As, A^2 s,
 * ...: when that has degree n it is the characteristic polynomial. The primes q come from the
 * factorisations of the Fermat numbers (2^n - 1 = F_0 F_1 ... F_(log2 n - 1)), which the tool
 * checks before use: each line's factors multiply to F_k and test prime.
 *
 * Families (section 6): candidates of the correlated family (h = 2, Listing 2) so far. Under
 * constraints (14)-(19) as read here their A is mostly singular (k = 8: rank 204 to 249 of 256),
 * and 20,000 candidates gave no full period: the candidate space needs another look before the
 * search can produce tables.
 *
 *   rng_search --factors FILE --check-factors
 *   rng_search --factors FILE --selftest
 *   rng_search --factors FILE --family correlated --k K [--seed S] [--tries N]
 */
#include <gmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 32
#define MAX_K 128
#define MAX_N (W * MAX_K)
#define POLY_WORDS (MAX_N / 64 + 2)

/* ---- polynomials over GF(2): bit i is the coefficient of x^i ---- */

typedef struct poly {
    uint64_t c[POLY_WORDS];
} poly;

static int poly_bit(const poly *a, int i) { return (int)(a->c[i / 64] >> (i % 64)) & 1; }
static void poly_flip(poly *a, int i) { a->c[i / 64] ^= UINT64_C(1) << (i % 64); }

/* r = a * b mod p, with deg a, deg b < n = deg p. Horner over the bits of b. */
static void poly_mulmod(poly *r, const poly *a, const poly *b, const poly *p, int n) {
    poly acc;
    memset(&acc, 0, sizeof acc);
    int words = n / 64 + 1;
    for (int i = n - 1; i >= 0; i--) {
        /* acc = acc * x mod p */
        uint64_t carry = 0;
        for (int w = 0; w < words; w++) {
            uint64_t v = acc.c[w];
            acc.c[w] = (v << 1) | carry;
            carry = v >> 63;
        }
        if (poly_bit(&acc, n))
            for (int w = 0; w < words; w++) acc.c[w] ^= p->c[w];
        if (poly_bit(b, i))
            for (int w = 0; w < words; w++) acc.c[w] ^= a->c[w];
    }
    *r = acc;
}

/* r = x^e mod p (e >= 0), square-and-multiply from the top bit of e. */
static void poly_xpow(poly *r, const mpz_t e, const poly *p, int n) {
    poly x;
    memset(&x, 0, sizeof x);
    memset(r, 0, sizeof *r);
    poly_flip(r, 0);
    if (n == 1) { /* x mod (x + c) is c */
        x.c[0] = p->c[0] & 1;
    } else {
        poly_flip(&x, 1);
    }
    for (long i = (long)mpz_sizeinbase(e, 2) - 1; i >= 0; i--) {
        poly_mulmod(r, r, r, p, n);
        if (mpz_tstbit(e, (mp_bitcnt_t)i)) poly_mulmod(r, r, &x, p, n);
    }
}

static int poly_is_one(const poly *a) {
    if (a->c[0] != 1) return 0;
    for (int w = 1; w < POLY_WORDS; w++)
        if (a->c[w]) return 0;
    return 1;
}

/* ---- the prime factors of 2^n - 1 ---- */

#define MAX_FACTORS 64

typedef struct factors {
    int fermat_count;           /* lines read: F_0 .. F_(fermat_count - 1) */
    int count[16];              /* factors of F_k */
    mpz_t f[16][MAX_FACTORS / 4];
} factors;

static int read_factors(const char *path, factors *fs) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "rng_search: cannot open %s\n", path);
        return -1;
    }
    memset(fs, 0, sizeof *fs);
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        char *save = NULL, *tok = strtok_r(line, " \t\n", &save);
        int k = atoi(tok);
        if (k != fs->fermat_count || k >= 16) {
            fprintf(stderr, "rng_search: %s: expected F_%d, found line %d\n", path, fs->fermat_count, k);
            fclose(f);
            return -1;
        }
        while ((tok = strtok_r(NULL, " \t\n", &save)) && fs->count[k] < MAX_FACTORS / 4) {
            mpz_init_set_str(fs->f[k][fs->count[k]], tok, 10);
            fs->count[k]++;
        }
        fs->fermat_count++;
    }
    fclose(f);
    return 0;
}

/* Every line's factors multiply to F_k = 2^(2^k) + 1 and test prime. Returns the number of bad lines. */
static int check_factors(const factors *fs, int verbose) {
    int bad = 0;
    mpz_t prod, fk;
    mpz_inits(prod, fk, NULL);
    for (int k = 0; k < fs->fermat_count; k++) {
        mpz_set_ui(prod, 1);
        int prime = 1;
        for (int i = 0; i < fs->count[k]; i++) {
            mpz_mul(prod, prod, fs->f[k][i]);
            if (mpz_probab_prime_p(fs->f[k][i], 40) == 0) prime = 0;
        }
        mpz_set_ui(fk, 0);
        mpz_setbit(fk, (mp_bitcnt_t)1 << k);
        mpz_add_ui(fk, fk, 1);
        int ok = prime && mpz_cmp(prod, fk) == 0;
        if (verbose) printf("F_%d: %d factor(s), product %s, %s\n", k, fs->count[k], mpz_cmp(prod, fk) ? "WRONG" : "ok",
                            prime ? "all prime" : "NOT ALL PRIME");
        bad += !ok;
    }
    mpz_clears(prod, fk, NULL);
    return bad;
}

/* 1 when p (degree n, a power of two covered by the factor file) is primitive. */
static int is_primitive(const poly *p, int n, const factors *fs) {
    int j = 0;
    while ((1 << j) < n) j++;
    if ((1 << j) != n || j > fs->fermat_count) return -1;
    mpz_t order, e;
    mpz_inits(order, e, NULL);
    mpz_set_ui(order, 0);
    mpz_setbit(order, (mp_bitcnt_t)n);
    mpz_sub_ui(order, order, 1); /* 2^n - 1 */
    poly r;
    poly_xpow(&r, order, p, n);
    int ok = poly_is_one(&r);
    for (int k = 0; k < j && ok; k++)
        for (int i = 0; i < fs->count[k] && ok; i++) {
            mpz_divexact(e, order, fs->f[k][i]);
            poly_xpow(&r, e, p, n);
            if (poly_is_one(&r)) ok = 0;
        }
    mpz_clears(order, e, NULL);
    return ok;
}

/* Minimal polynomial of the bit sequence s[0 .. len) by Berlekamp-Massey; returns its degree. The
 * polynomial is returned reversed into the usual orientation: p(x) = x^L + c_1 x^(L-1) + ... + c_L. */
static int berlekamp_massey(const unsigned char *s, int len, poly *out) {
    poly c, b, t;
    memset(&c, 0, sizeof c);
    memset(&b, 0, sizeof b);
    poly_flip(&c, 0);
    poly_flip(&b, 0);
    int L = 0, m = 1;
    for (int i = 0; i < len; i++) {
        int d = s[i];
        for (int k = 1; k <= L; k++) d ^= poly_bit(&c, k) & s[i - k];
        if (!d) {
            m++;
            continue;
        }
        t = c;
        for (int k = 0; k + m < MAX_N + 64; k++)
            if (poly_bit(&b, k)) poly_flip(&c, k + m);
        if (2 * L <= i) {
            L = i + 1 - L;
            b = t;
            m = 1;
        } else {
            m++;
        }
    }
    memset(out, 0, sizeof *out);
    for (int k = 0; k <= L; k++)
        if (poly_bit(&c, k)) poly_flip(out, L - k);
    return L;
}

/* ---- generators: the transition matrix of eq. (9)-(12) ---- */

typedef struct generator {
    int k, h;
    unsigned q[4][MAX_K];
    int z[4][MAX_K];  /* < 0 left shift, > 0 right shift, 0 none */
    uint32_t m[4][MAX_K];
} generator;

/* One update of the state as the kernels do it: every word from the old state. */
static void generator_step(const generator *g, const uint32_t *s, uint32_t *out) {
    for (int j = 0; j < g->k; j++) {
        uint32_t acc = 0;
        for (int i = 0; i < g->h; i++) {
            uint32_t t = s[g->q[i][j]] & g->m[i][j];
            acc ^= g->z[i][j] < 0 ? t << -g->z[i][j] : t >> g->z[i][j];
        }
        out[j] = acc;
    }
}

/* A as n rows of n bits: row (j*W + b) is bit b of word j of the next state. Bit b of S_z M_m R_q s
 * is bit b + z of word q (z > 0: right shift brings higher bits down), masked. */
typedef struct matrix {
    int n;
    uint64_t *rows; /* n rows of n/64 words */
} matrix;

static int generator_matrix(const generator *g, matrix *a) {
    int n = W * g->k, words = n / 64;
    a->n = n;
    a->rows = calloc((size_t)n * (size_t)words, 8);
    if (!a->rows) return -1;
    for (int j = 0; j < g->k; j++)
        for (int i = 0; i < g->h; i++)
            for (int b = 0; b < W; b++) {
                int src = b + g->z[i][j];
                if (src < 0 || src >= W || !((g->m[i][j] >> src) & 1)) continue;
                int col = (int)g->q[i][j] * W + src;
                a->rows[(size_t)(j * W + b) * words + col / 64] ^= UINT64_C(1) << (col % 64);
            }
    return 0;
}

/* y = A x over GF(2), vectors of n bits. */
static void matrix_apply(const matrix *a, const uint64_t *x, uint64_t *y) {
    int words = a->n / 64;
    for (int r = 0; r < a->n; r++) {
        uint64_t acc = 0;
        const uint64_t *row = a->rows + (size_t)r * words;
        for (int w = 0; w < words; w++) acc ^= row[w] & x[w];
        int bit = __builtin_parityll(acc);
        if (bit) y[r / 64] |= UINT64_C(1) << (r % 64);
        else y[r / 64] &= ~(UINT64_C(1) << (r % 64));
    }
}

/* The characteristic polynomial of A when the minimal polynomial of bit 0 of A^i s0 has degree n;
 * returns that degree (n when *p is the characteristic polynomial). */
static int generator_charpoly(const matrix *a, uint64_t seed, poly *p) {
    int n = a->n, words = n / 64;
    uint64_t x[MAX_N / 64], y[MAX_N / 64];
    for (int w = 0; w < words; w++) {
        seed += 0x9E3779B97F4A7C15u;
        uint64_t z = seed;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
        x[w] = z ^ (z >> 31);
    }
    unsigned char *bits = malloc((size_t)2 * n);
    if (!bits) return -1;
    for (int i = 0; i < 2 * n; i++) {
        bits[i] = x[0] & 1;
        matrix_apply(a, x, y);
        memcpy(x, y, (size_t)words * 8);
    }
    int deg = berlekamp_massey(bits, 2 * n, p);
    free(bits);
    return deg;
}

/* ---- candidates: the correlated family (h = 2) under constraints (14)-(19) ---- */

static uint64_t rng_state;
static uint64_t rng_next(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}
static unsigned rng_below(unsigned n) { return (unsigned)(rng_next() % n); }

static void shuffle(unsigned *v, int k) {
    for (int i = 0; i < k; i++) v[i] = (unsigned)i;
    for (int i = k - 1; i > 0; i--) {
        unsigned j = rng_below((unsigned)i + 1), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* Stage 0 a left shift of z0 (one for all words, Listing 2), stage 1 a right shift z1[j], both
 * unmasked; q[0] and q[1] permutations with q[0][j] != q[1][j]. */
static void candidate_correlated(generator *g, int k) {
    memset(g, 0, sizeof *g);
    g->k = k;
    g->h = 2;
    int again;
    do {
        shuffle(g->q[0], k);
        shuffle(g->q[1], k);
        again = 0;
        for (int j = 0; j < k; j++) again |= g->q[0][j] == g->q[1][j];
    } while (again);
    int z0 = 1 + (int)rng_below(W / 2 - 1);
    for (int j = 0; j < k; j++) {
        g->z[0][j] = -z0;
        g->z[1][j] = 1 + (int)rng_below(W / 2 - 1);
        g->m[0][j] = g->m[1][j] = 0xFFFFFFFFu;
    }
}

static void print_generator(const generator *g, FILE *f) {
    fprintf(f, "k %d h %d\n", g->k, g->h);
    for (int i = 0; i < g->h; i++) {
        fprintf(f, "q%d", i);
        for (int j = 0; j < g->k; j++) fprintf(f, " %u", g->q[i][j]);
        fprintf(f, "\nz%d", i);
        for (int j = 0; j < g->k; j++) fprintf(f, " %d", g->z[i][j]);
        fprintf(f, "\n");
    }
}

/* Searches `tries` candidates; prints the first full-period one. Returns 0 when found. */
static int search(const factors *fs, int k, uint64_t seed, long tries, generator *found) {
    rng_state = seed;
    for (long t = 0; t < tries; t++) {
        generator g;
        candidate_correlated(&g, k);
        matrix a;
        if (generator_matrix(&g, &a) != 0) return -1;
        poly p;
        int deg = generator_charpoly(&a, seed ^ (uint64_t)t, &p);
        free(a.rows);
        if (deg == a.n && is_primitive(&p, a.n, fs) == 1) {
            if (found) *found = g;
            fprintf(stderr, "rng_search: full period after %ld candidate(s)\n", t + 1);
            return 0;
        }
    }
    return 1;
}

/* ---- self-test: each check can fail ---- */

static int selftest(const factors *fs) {
    int fails = 0;
#define EXPECT(cond, what)                                                                         \
    do {                                                                                           \
        int ok_ = (cond);                                                                          \
        printf("%s %s\n", ok_ ? "ok  " : "FAIL", what);                                            \
        fails += !ok_;                                                                             \
    } while (0)
    EXPECT(check_factors(fs, 0) == 0 && fs->fermat_count >= 7, "Fermat factorisations multiply back and test prime");
    /* Altering one factor must be caught. */
    factors bad = *fs;
    mpz_t one;
    mpz_init_set(one, fs->f[5][0]);
    mpz_add_ui(one, one, 2);
    bad.f[5][0][0] = one[0];
    EXPECT(check_factors(&bad, 0) == 1, "an altered factor of F_5 is rejected");
    mpz_clear(one);
    /* Degree-32 polynomials: x^32 + x^22 + x^2 + x + 1 is primitive (a standard LFSR tap set);
     * x^32 + 1 = (x + 1)^32 is not; (x^16 + x^5 + x^3 + x^2 + 1)^2 is reducible. */
    poly p;
    memset(&p, 0, sizeof p);
    int taps[] = {32, 22, 2, 1, 0};
    for (int i = 0; i < 5; i++) poly_flip(&p, taps[i]);
    EXPECT(is_primitive(&p, 32, fs) == 1, "x^32+x^22+x^2+x+1 is primitive");
    memset(&p, 0, sizeof p);
    poly_flip(&p, 32);
    poly_flip(&p, 0);
    EXPECT(is_primitive(&p, 32, fs) == 0, "x^32+1 is not primitive");
    memset(&p, 0, sizeof p);
    int sq[] = {32, 10, 6, 4, 0};
    for (int i = 0; i < 5; i++) poly_flip(&p, sq[i]);
    EXPECT(is_primitive(&p, 32, fs) == 0, "(x^16+x^5+x^3+x^2+1)^2 is not primitive");
    /* Berlekamp-Massey recovers an LFSR's polynomial from its output. */
    memset(&p, 0, sizeof p);
    for (int i = 0; i < 5; i++) poly_flip(&p, taps[i]);
    unsigned char s[200];
    uint64_t reg = 0x12345678u;
    for (int i = 0; i < 200; i++) {
        s[i] = reg & 1;
        /* s[i+32] = s[i] ^ s[i+1] ^ s[i+2] ^ s[i+22] for x^32 + x^22 + x^2 + x + 1 reversed. */
        uint64_t nb = ((reg >> 0) ^ (reg >> 10) ^ (reg >> 30) ^ (reg >> 31)) & 1;
        reg = (reg >> 1) | (nb << 31);
    }
    poly q;
    int deg = berlekamp_massey(s, 200, &q);
    poly rev;
    memset(&rev, 0, sizeof rev);
    for (int i = 0; i <= 32; i++)
        if (poly_bit(&q, i)) poly_flip(&rev, 32 - i);
    EXPECT(deg == 32 && (memcmp(&q, &p, sizeof p) == 0 || memcmp(&rev, &p, sizeof p) == 0) &&
               is_primitive(&q, 32, fs) == 1,
           "Berlekamp-Massey finds a primitive degree-32 recurrence");
    /* The matrix of eq. (9)-(12) is the generator's update. */
    generator g;
    rng_state = 7;
    candidate_correlated(&g, 8);
    matrix a;
    generator_matrix(&g, &a);
    uint32_t st[MAX_K], nx[MAX_K];
    uint64_t x[MAX_N / 64], y[MAX_N / 64];
    for (int j = 0; j < 8; j++) st[j] = (uint32_t)rng_next();
    memcpy(x, st, 32);
    int same = 1;
    for (int it = 0; it < 100; it++) {
        generator_step(&g, st, nx);
        matrix_apply(&a, x, y);
        same &= memcmp(nx, y, 32) == 0;
        memcpy(st, nx, 32);
        memcpy(x, y, 32);
    }
    free(a.rows);
    EXPECT(same, "A s equals the generator's update (k = 8, 100 steps)");
#undef EXPECT
    return fails;
}

int main(int argc, char **argv) {
    const char *factor_path = NULL, *family = "correlated";
    int k = 8, check = 0, self = 0;
    uint64_t seed = 1;
    long tries = 100000;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--factors") && v) factor_path = argv[++i];
        else if (!strcmp(argv[i], "--check-factors")) check = 1;
        else if (!strcmp(argv[i], "--selftest")) self = 1;
        else if (!strcmp(argv[i], "--family") && v) family = argv[++i];
        else if (!strcmp(argv[i], "--k") && v) k = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && v) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--tries") && v) tries = atol(argv[++i]);
        else {
            fprintf(stderr,
                    "usage: rng_search --factors FILE (--check-factors | --selftest |\n"
                    "                  --family correlated --k K [--seed S] [--tries N])\n");
            return argv[i][1] == 'h' || !strcmp(argv[i], "--help") ? 0 : 2;
        }
    }
    factors fs;
    if (!factor_path || read_factors(factor_path, &fs) != 0) {
        fprintf(stderr, "rng_search: --factors FILE is required (the Fermat factorisations)\n");
        return 2;
    }
    if (check) return check_factors(&fs, 1) ? 1 : 0;
    if (self) return selftest(&fs) ? 1 : 0;
    if (strcmp(family, "correlated") != 0 || k < 2 || k > MAX_K || (k & (k - 1))) {
        fprintf(stderr, "rng_search: only --family correlated with k a power of two 2..%d so far\n", MAX_K);
        return 2;
    }
    generator g;
    int rc = search(&fs, k, seed, tries, &g);
    if (rc == 0) print_generator(&g, stdout);
    else fprintf(stderr, "rng_search: none in %ld candidates\n", tries);
    return rc ? 1 : 0;
}
