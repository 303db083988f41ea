/* clperm rng: a generator's output for external test batteries, known-answer vectors, and fills. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clperm.h"
#include "clperm_rng.h"

static const char *const family_names[] = {"auto", "correlated", "three", "slowmem", "iterated", "buffered"};

static void usage(FILE *f) {
    fprintf(f,
            "usage: clperm rng --raw [--family F] [--k K] [--scramble X] [--seed S] [--stream I] [--count N]\n"
            "       clperm rng --kat\n"
            "       clperm rng --list\n"
            "\n"
            "  --raw      write one generator's u32 output to stdout, little-endian, as its k work-items\n"
            "             draw it (each draw: words 0..k-1), from the host reference (the same bits\n"
            "             as every device); forever unless --count. For `dieharder -g 200 -a`.\n"
            "  --kat      known-answer lines for every shipped table and scrambler: family k scrambler\n"
            "             seed stream, then the first 16 u32 of clperm_rng_fill (tests/data/rng_kat.txt)\n"
            "  --list     the shipped tables: family, k, state bits\n"
            "  --family   correlated three slowmem iterated buffered (default three)\n"
            "  --k        8 16 32 64 (default 32)\n"
            "  --scramble none starstar: the output scrambler (default: the library's default, %s)\n"
            "  --seed S, --stream I   seeding (default 1, 0)\n",
            clperm_rng_scramble_name(CLPERM_RNG_DEFAULT_SCRAMBLE));
}

static int family_by_name(const char *s) {
    for (int f = 1; f <= CLPERM_RNG_FAMILIES; f++)
        if (!strcmp(s, family_names[f])) return f;
    return 0;
}

static int scramble_by_name(const char *s) {
    for (int x = CLPERM_RNG_SCRAMBLE_NONE; clperm_rng_scramble_name((clperm_rng_scramble)x); x++)
        if (!strcmp(s, clperm_rng_scramble_name((clperm_rng_scramble)x))) return x;
    return -1;
}

static int raw(const clperm_rng_spec *spec, uint64_t seed, uint64_t stream, uint64_t count) {
    uint32_t state[2 * CLPERM_RNG_MAX_K], buf[4096];
    if (clperm_rng_seed_host(spec, seed, stream, state) != CLPERM_SUCCESS) {
        fprintf(stderr, "clperm rng: no table for %s k=%u\n", family_names[spec->family], spec->k);
        return 2;
    }
    uint64_t draws = sizeof buf / 4 / spec->k; /* per chunk; 4096 is a multiple of every k */
    for (uint64_t produced = 0; !count || produced < count;) {
        clperm_rng_draw_host(spec, state, buf, draws);
        size_t m = count && count - produced < draws * spec->k ? (size_t)(count - produced) : draws * spec->k;
        if (fwrite(buf, 4, m, stdout) != m) return errno == EPIPE ? 0 : 1;
        produced += m;
    }
    return fflush(stdout) ? 1 : 0;
}

int rng_main(int argc, char **argv) {
    clperm_rng_spec spec = {CLPERM_RNG_FAMILY_THREE, 32, CLPERM_RNG_DEFAULT_SCRAMBLE};
    uint64_t seed = 1, stream = 0, count = 0;
    int mode = 0; /* 1 raw, 2 kat, 3 list */
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--raw")) mode = 1;
        else if (!strcmp(argv[i], "--kat")) mode = 2;
        else if (!strcmp(argv[i], "--list")) mode = 3;
        else if (!strcmp(argv[i], "--family") && v) {
            spec.family = (clperm_rng_family)family_by_name(argv[++i]);
            if (!spec.family) {
                fprintf(stderr, "clperm rng: unknown family %s (correlated, three, slowmem, iterated, buffered)\n",
                        argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--scramble") && v) {
            int x = scramble_by_name(argv[++i]);
            if (x < 0) {
                fprintf(stderr, "clperm rng: unknown scrambler %s\n", argv[i]);
                return 2;
            }
            spec.scramble = (clperm_rng_scramble)x;
        } else if (!strcmp(argv[i], "--k") && v) spec.k = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--seed") && v) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--stream") && v) stream = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--count") && v) count = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "clperm rng: unknown option %s\n\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (mode == 1) return raw(&spec, seed, stream, count);
    if (mode == 2 || mode == 3) {
        for (int f = 1; f <= CLPERM_RNG_FAMILIES; f++)
            for (uint32_t k = 8; k <= 64; k *= 2)
                for (int x = 0; x < (mode == 2 ? 2 : 1); x++) {
                    clperm_rng_spec s = {(clperm_rng_family)f, k, (clperm_rng_scramble)x};
                    if (!clperm_rng_state_bits(&s)) continue;
                    if (mode == 3) {
                        printf("%-10s k=%-2u state %4u bits, period 2^%u - 1\n", family_names[f], k,
                               clperm_rng_state_bits(&s), clperm_rng_state_bits(&s));
                        continue;
                    }
                    uint64_t kseed = 0x2026112100000000u + (uint64_t)f * 100 + k, kstream = k * 7u;
                    uint32_t out[16];
                    if (clperm_rng_fill_host(&s, CLPERM_RNG_OUT_U32, out, 16, kseed, kstream) != CLPERM_SUCCESS) return 1;
                    printf("%s %u %s 0x%016llx %llu", family_names[f], k, clperm_rng_scramble_name(s.scramble),
                           (unsigned long long)kseed, (unsigned long long)kstream);
                    for (int i = 0; i < 16; i++) printf(" %08x", out[i]);
                    printf("\n");
                }
        return 0;
    }
    usage(stderr);
    return 2;
}
