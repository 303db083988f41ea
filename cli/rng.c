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
            "usage: clperm rng --raw [--family F] [--k K] [--seed S] [--stream I] [--count N]\n"
            "       clperm rng --kat\n"
            "       clperm rng --list\n"
            "\n"
            "  --raw      write one generator's u32 output to stdout, little-endian, as its k work-items\n"
            "             draw it (each draw: words 0..k-1), from the host reference (the same bits\n"
            "             as every device); forever unless --count. For `dieharder -g 200 -a`.\n"
            "  --kat      known-answer lines for every shipped table: family k seed stream, then the\n"
            "             first 16 u32 of clperm_rng_fill (tests/data/rng_kat.txt holds them)\n"
            "  --list     the shipped tables: family, k, state bits\n"
            "  --family   correlated three slowmem iterated buffered (default three)\n"
            "  --k        8 16 32 64 (default 32)\n"
            "  --seed S, --stream I   seeding (default 1, 0)\n");
}

static int family_by_name(const char *s) {
    for (int f = 1; f <= CLPERM_RNG_FAMILIES; f++)
        if (!strcmp(s, family_names[f])) return f;
    return 0;
}

static int raw(const clperm_rng_spec *spec, uint64_t seed, uint64_t stream, uint64_t count) {
    const uint64_t tables[][2] = {
#define CLPERM_RNG_X(fam, k, tab) {fam, k},
        CLPERM_RNG_TABLES(CLPERM_RNG_X)
#undef CLPERM_RNG_X
    };
    const uint64_t *params[] = {
#define CLPERM_RNG_X(fam, k, tab) (const uint64_t[]){tab},
        CLPERM_RNG_TABLES(CLPERM_RNG_X)
#undef CLPERM_RNG_X
    };
    const uint64_t *p = NULL;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (tables[i][0] == (uint64_t)spec->family && tables[i][1] == spec->k) p = params[i];
    if (!p) {
        fprintf(stderr, "clperm rng: no table for %s k=%u\n", family_names[spec->family], spec->k);
        return 2;
    }
    uint32_t s[CLPERM_RNG_MAX_K], b[CLPERM_RNG_MAX_K], nx[CLPERM_RNG_MAX_K], k = spec->k;
    for (uint32_t j = 0; j < k; j++) s[j] = clperm_rng_seed_word(seed, stream, j, &b[j]);
    uint32_t buf[4096];
    size_t fill = 0;
    for (uint64_t produced = 0; !count || produced < count;) {
        for (int pass = 0; pass < CLPERM_RNG_PASSES((int)spec->family); pass++) {
            for (uint32_t j = 0; j < k; j++) nx[j] = clperm_rng_word((int)spec->family, p[j], pass, s, &b[j]);
            memcpy(s, nx, (size_t)k * 4);
        }
        for (uint32_t j = 0; j < k && (!count || produced < count); j++, produced++) {
            buf[fill++] = s[j];
            if (fill == sizeof buf / 4) {
                if (fwrite(buf, 4, fill, stdout) != fill) return errno == EPIPE ? 0 : 1;
                fill = 0;
            }
        }
    }
    if (fill && fwrite(buf, 4, fill, stdout) != fill) return 1;
    return fflush(stdout) ? 1 : 0;
}

int rng_main(int argc, char **argv) {
    clperm_rng_spec spec = {CLPERM_RNG_FAMILY_THREE, 32};
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
                fprintf(stderr, "clperm rng: unknown family %s\n", argv[i]);
                return 2;
            }
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
            for (uint32_t k = 8; k <= 64; k *= 2) {
                clperm_rng_spec s = {(clperm_rng_family)f, k};
                if (!clperm_rng_state_bits(&s)) continue;
                if (mode == 3) {
                    printf("%-10s k=%-2u state %4u bits, period 2^%u - 1\n", family_names[f], k, clperm_rng_state_bits(&s),
                           clperm_rng_state_bits(&s));
                    continue;
                }
                uint64_t kseed = 0x2026112100000000u + (uint64_t)f * 100 + k, kstream = k * 7u;
                uint32_t out[16];
                if (clperm_rng_fill_host(&s, CLPERM_RNG_OUT_U32, out, 16, kseed, kstream) != CLPERM_SUCCESS) return 1;
                printf("%s %u 0x%016llx %llu", family_names[f], k, (unsigned long long)kseed, (unsigned long long)kstream);
                for (int i = 0; i < 16; i++) printf(" %08x", out[i]);
                printf("\n");
            }
        return 0;
    }
    usage(stderr);
    return 2;
}
