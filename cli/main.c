/* The clperm command-line tool. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "clperm.h"

static void usage(FILE *f) {
    fprintf(f,
            "clperm %s: random permutations, conflict-free local-memory sorting and subgroup-shared\n"
            "random number generators for OpenCL devices.\n"
            "\n"
            "usage: clperm COMMAND [options]\n"
            "\n"
            "commands:\n"
            "  devices [--json]   every OpenCL platform and device, with the profile clperm decides\n"
            "                     for it (subgroup width and how it was found, local memory, ...)\n"
            "  bench [options]    measure clperm on every device: by default one row per family\n"
            "                     beside its bound (the device's copy or random gather) and its\n"
            "                     peer, and a summary; --full every variant and size;\n"
            "                     `clperm bench --help` lists the options\n"
            "  report FILE...     `clperm bench --json` results of several runs side by side, one\n"
            "                     table per family (--plot DIR: PNG figures); `clperm report --help`\n"
            "  tune [options]     search each family's tunables on a device and write a tuning\n"
            "                     file (CLPERM_TUNING_FILE); `clperm tune --help` lists the options\n"
            "  quality [options]  the paper's statistical tests (chi-squared at n = 5, MMD) on a\n"
            "                     sample of permutations; `clperm quality --help` lists the options\n"
            "  rng [options]      a generator's raw output for dieharder (--raw), known-answer\n"
            "                     vectors (--kat), the shipped tables (--list); `clperm rng --help`\n"
            "  version            print the version\n"
            "  help               this text\n"
            "\n"
            "environment:\n"
            "  CLPERM_DEVICE          default device: an index from `clperm devices` or a name part\n"
            "  CLPERM_SUBGROUP_WIDTH  override the subgroup width (verified after the build)\n"
            "  CLPERM_CACHE_DIR       program cache directory, or \"off\" (default ~/.cache/clperm)\n"
            "  CLPERM_TUNING_FILE     tuning file from `clperm tune`, or \"off\" (default\n"
            "                         ~/.config/clperm/tuning.json where it exists)\n"
            "  CLPERM_DEBUG           log the library's decisions to stderr; 2: also every program\n"
            "                         built, its options and the compiler's log (NVIDIA: with\n"
            "                         registers and spills per kernel)\n",
            clperm_version());
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "devices")) return devices_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench")) return bench_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "report")) return report_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "tune")) return tune_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "quality")) return quality_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "rng")) return rng_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("clperm %s\n", clperm_version());
        return 0;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "clperm: unknown command \"%s\"\n\n", cmd);
    usage(stderr);
    return 2;
}
