/* `clperm report`: the JSON lines of several `clperm bench --json` runs (machines, devices,
 * drivers) side by side, one table per family: each device's figure, its fraction of that
 * device's own bound, and how it compares with its peer; --plot draws them. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define MAX_FILES 64
#define CELL 27

static void usage(FILE *f) {
    fputs("usage: clperm report [--plot DIR] [--markdown] FILE...\n"
          "\n"
          "Reads the rows that `clperm bench --json` wrote (one JSON object per line; FILE \"-\" is\n"
          "stdin), from any number of runs, and prints one table per family (scan, shuffle,\n"
          "tile_sort, partition, rng, permute, ..., then the bounds): a line per op, variant, type\n"
          "and n, a column per device (the same platform, device and driver in one file), each\n"
          "cell the device's items per second, its percentage of the device's own bound measured\n"
          "in the same run (bytes per second over the copy's, or items per second over the random\n"
          "gather's; the line names which), and for the default run's headline rows the factor\n"
          "over the peer measured beside it. Rows written before rows named their family are read\n"
          "too.\n"
          "\n"
          "options:\n"
          "  --plot DIR   also draw PNG figures into DIR (gnuplot): of the default runs' headline\n"
          "               rows, a bar chart per device (each family's row and its peer against\n"
          "               the bound of the same bytes) and, with several devices, one grouped\n"
          "               across them (headline_devices.png); of rows measured at several sizes,\n"
          "               items per second against n, a line per device and its bound dashed\n"
          "               in the same colour\n"
          "  --markdown   instead of the tables, the default runs' headline rows as Markdown, a\n"
          "               table per device with when and by what command they were measured\n"
          "               (tools/performance_head.sh puts them at the head of docs/performance.md)\n"
          "  -h, --help   this text\n",
          f);
}

typedef struct report {
    bench_row *rows;
    size_t nrows, cap;
    const char *files[MAX_FILES];
    int nfiles;
} report;

static int read_file(report *rp, const char *path) {
    int from_stdin = !strcmp(path, "-");
    FILE *f = from_stdin ? stdin : fopen(path, "r");
    if (!f) {
        fprintf(stderr, "clperm report: cannot open %s\n", path);
        return -1;
    }
    char line[8192];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        const char *p = line;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (!*p) continue;
        if (rp->nrows == rp->cap) {
            size_t cap = rp->cap ? 2 * rp->cap : 256;
            bench_row *rows = realloc(rp->rows, cap * sizeof *rows);
            if (!rows) {
                fprintf(stderr, "clperm report: out of memory\n");
                rc = -1;
                break;
            }
            rp->rows = rows;
            rp->cap = cap;
        }
        char err[128];
        bench_row *r = &rp->rows[rp->nrows];
        if (bench_row_parse(line, r, err, sizeof err) != 0) {
            fprintf(stderr, "clperm report: %s:%d: %s\n", path, lineno, err);
            rc = -1;
            break;
        }
        r->file = rp->nfiles;
        rp->nrows++;
    }
    if (!from_stdin) fclose(f);
    rp->files[rp->nfiles++] = from_stdin ? "stdin" : path;
    return rc;
}

static int same_device(const bench_row *a, const bench_row *b) {
    return a->file == b->file && !strcmp(a->platform, b->platform) && !strcmp(a->device, b->device) &&
           !strcmp(a->driver, b->driver);
}

static int same_line(const bench_row *a, const bench_row *b) {
    return !strcmp(a->op, b->op) && !strcmp(a->variant, b->variant) && !strcmp(a->type, b->type) && a->n == b->n;
}

/* The devices' columns: the first row of each device, in order of appearance. */
static int columns(const report *rp, const bench_row **cols, int cap) {
    int n = 0;
    for (size_t i = 0; i < rp->nrows; i++) {
        int seen = 0;
        for (int c = 0; c < n && !seen; c++) seen = same_device(cols[c], &rp->rows[i]);
        if (!seen && n < cap) cols[n++] = &rp->rows[i];
    }
    return n;
}

/* Appends to a line of the table. */
static void put(char *line, size_t cap, const char *fmt, ...) {
    size_t len = strlen(line);
    if (len + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + len, cap - len, fmt, ap);
    va_end(ap);
}

/* Writes the line without trailing blanks. */
static void end_line(FILE *f, char *line) {
    size_t len = strlen(line);
    while (len && (line[len - 1] == ' ' || line[len - 1] == '|')) line[--len] = 0;
    fprintf(f, "%s\n", line);
    line[0] = 0;
}

static void cell(char *line, size_t cap, const bench_row *r) {
    char rate[32], pct[16] = "", x[16] = "";
    if (!r) {
        put(line, cap, " | %-*s", CELL, "");
        return;
    }
    bench_rate_name(r->items_per_s, rate, sizeof rate);
    double of = bench_row_of_same_bytes(r);
    if (of > 0) snprintf(pct, sizeof pct, "%.1f%%", 100 * of);
    if (r->peer_items_per_s > 0) snprintf(x, sizeof x, "%.2fx", r->items_per_s / r->peer_items_per_s);
    put(line, cap, " | %11s %7s %7s", rate, pct, x);
}

/* Lines of a family in the order their op, variant and type first appear, each by increasing n. */
static int line_before(const report *rp, const bench_row *a, const bench_row *b) {
    size_t fa = 0, fb = 0;
    while (strcmp(rp->rows[fa].op, a->op) || strcmp(rp->rows[fa].variant, a->variant) ||
           strcmp(rp->rows[fa].type, a->type))
        fa++;
    while (strcmp(rp->rows[fb].op, b->op) || strcmp(rp->rows[fb].variant, b->variant) ||
           strcmp(rp->rows[fb].type, b->type))
        fb++;
    return fa != fb ? fa < fb : a->n < b->n;
}

static void family_table(FILE *f, const report *rp, const char *family, const bench_row **cols, int ncols) {
    char line[8192] = "";
    int used[256], nused = 0;
    for (int c = 0; c < ncols && nused < 256; c++)
        for (size_t i = 0; i < rp->nrows; i++)
            if (!strcmp(rp->rows[i].family, family) && same_device(&rp->rows[i], cols[c])) {
                used[nused++] = c;
                break;
            }
    if (!strcmp(family, "bound"))
        fprintf(f, "\nbound\n(each device's copy and random gather of 64-bit items, items/s)\n");
    else
        fprintf(f, "\n%s\n", family);
    /* The op and variant columns as wide as their longest entry. */
    int wop = 2, wvar = 7;
    for (size_t i = 0; i < rp->nrows; i++) {
        if (strcmp(rp->rows[i].family, family)) continue;
        int lo = (int)strlen(rp->rows[i].op), lv = (int)strlen(rp->rows[i].variant);
        wop = lo > wop ? lo : wop;
        wvar = lv > wvar ? lv : wvar;
    }
    put(line, sizeof line, "%-*s %-*s %-4s %-7s %-6s", wop, "op", wvar, "variant", "type", "n", "bound");
    for (int u = 0; u < nused; u++) {
        char head[64];
        snprintf(head, sizeof head, "[%d] items/s", used[u] + 1);
        put(line, sizeof line, " | %-11s %7s %7s", head, "%", "x peer");
    }
    end_line(f, line);
    /* One line per distinct op, variant, type and n, taken in order. */
    const bench_row *done = NULL;
    for (;;) {
        const bench_row *next = NULL;
        for (size_t i = 0; i < rp->nrows; i++) {
            const bench_row *r = &rp->rows[i];
            if (strcmp(r->family, family) || (done && !line_before(rp, done, r))) continue;
            if (!next || line_before(rp, r, next)) next = r;
        }
        if (!next) break;
        char size[32];
        put(line, sizeof line, "%-*s %-*s %-4s %-7s %-6s", wop, next->op, wvar, next->variant, next->type,
            bench_size_name(next->n, size, sizeof size), next->bound[0] ? next->bound : "-");
        for (int u = 0; u < nused; u++) {
            const bench_row *found = NULL;
            for (size_t k = 0; k < rp->nrows && !found; k++)
                if (same_line(&rp->rows[k], next) && same_device(&rp->rows[k], cols[used[u]])) found = &rp->rows[k];
            cell(line, sizeof line, found);
        }
        end_line(f, line);
        done = next;
    }
}

/* The headline rows as Markdown: per device, a line saying what, when and how, then a table in
 * the headline order. 0 when there were headline rows. */
static int markdown(FILE *f, const report *rp, const bench_row **cols, int ncols) {
    int any = 0;
    for (int c = 0; c < ncols; c++) {
        const bench_row *hl[64];
        int n = 0;
        for (size_t i = 0; i < rp->nrows && n < 64; i++)
            if (rp->rows[i].headline && same_device(&rp->rows[i], cols[c])) hl[n++] = &rp->rows[i];
        if (!n) continue;
        bench_sort_by_family(hl, n, sizeof hl[0], bench_family_of_row);
        const bench_row *d = hl[0];
        fprintf(f, "%s**%s** (%s%s%s), measured %s UTC with `%s`:\n\n", any ? "\n" : "", d->device, d->platform,
                d->driver[0] ? ", driver " : "", d->driver, d->date[0] ? d->date : "(date not recorded)",
                d->command[0] ? d->command : "clperm bench");
        fputs("| family | variant | n | items/s | spread of the runs | of the same-bytes bound | x peer | peer |\n"
              "| --- | --- | --- | ---: | --- | --- | ---: | --- |\n",
              f);
        for (int i = 0; i < n; i++) {
            const bench_row *r = hl[i];
            char size[32], rate[32], spread[48] = "-", of[48] = "-", x[16] = "-";
            double frac = bench_row_of_same_bytes(r);
            if (frac > 0) snprintf(of, sizeof of, "%.1f%% %s", 100 * frac, r->bound);
            bench_row_spread(r, spread, sizeof spread);
            if (r->peer_items_per_s > 0) snprintf(x, sizeof x, "%.2f", r->items_per_s / r->peer_items_per_s);
            fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r->family, r->variant,
                    bench_size_name(r->n, size, sizeof size), bench_rate_name(r->items_per_s, rate, sizeof rate), spread,
                    of, x, r->peer[0] ? r->peer : "-");
        }
        any = 1;
    }
    return any ? 0 : -1;
}

int report_main(int argc, char **argv) {
    report rp;
    memset(&rp, 0, sizeof rp);
    const char *plot_dir = NULL;
    int rc = 0, md = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            free(rp.rows);
            return 0;
        } else if (!strcmp(argv[i], "--plot")) {
            if (i + 1 == argc) {
                fprintf(stderr, "clperm report: --plot needs DIR\n");
                rc = 2;
            } else {
                plot_dir = argv[++i];
            }
        } else if (!strcmp(argv[i], "--markdown")) {
            md = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "clperm report: unknown option \"%s\" (see clperm report --help)\n", argv[i]);
            rc = 2;
        } else if (rp.nfiles == MAX_FILES) {
            fprintf(stderr, "clperm report: at most %d files\n", MAX_FILES);
            rc = 2;
        } else if (read_file(&rp, argv[i]) != 0) {
            rc = 1;
        }
    }
    if (rc == 0 && rp.nfiles == 0) {
        usage(stderr);
        rc = 2;
    }
    if (rc == 0 && rp.nrows == 0) {
        fprintf(stderr, "clperm report: no rows in the files\n");
        rc = 1;
    }
    if (rc == 0) {
        const bench_row *cols[256];
        int ncols = columns(&rp, cols, 256);
        if (md) {
            if (markdown(stdout, &rp, cols, ncols) != 0) {
                fprintf(stderr, "clperm report: --markdown: no headline rows (of a default `clperm bench --json`)\n");
                rc = 1;
            }
            free(rp.rows);
            return rc;
        }
        printf("devices:\n");
        for (int c = 0; c < ncols; c++)
            printf("  [%d] %s (%s%s%s), %s\n", c + 1, cols[c]->device, cols[c]->platform,
                   cols[c]->driver[0] ? ", " : "", cols[c]->driver, rp.files[cols[c]->file]);
        printf("\nPer family and device: items/s; %% of the device's bound of the same bytes (a copy of as many\n"
               "bytes, or a gather of items of the same size, where the run measured it; else of 64-bit\n"
               "items); x its peer.\n");
        /* Families in the headline order, then others in order of appearance, the bounds last. */
        const char *families[64];
        int nfam = 0;
        for (size_t i = 0; i < rp.nrows; i++) {
            int seen = 0;
            for (int k = 0; k < nfam && !seen; k++) seen = !strcmp(families[k], rp.rows[i].family);
            if (!seen && nfam < 64) families[nfam++] = rp.rows[i].family;
        }
        bench_sort_by_family(families, nfam, sizeof families[0], bench_family_of_name);
        for (int k = 0; k < nfam; k++) family_table(stdout, &rp, families[k], cols, ncols);
        fflush(stdout);
        if (plot_dir) {
            char err[256] = "";
            int bars = bench_plot_bars(plot_dir, rp.rows, rp.nrows, rp.files, rp.nfiles, err, sizeof err);
            int lines = bars < 0 ? -1 : bench_plot(plot_dir, rp.rows, rp.nrows, rp.files, rp.nfiles, err, sizeof err);
            if (lines < 0 || bars + lines == 0) {
                if (!err[0]) snprintf(err, sizeof err, "nothing to draw");
                fprintf(stderr, "clperm report: --plot: %s\n", err);
                rc = 1;
            } else {
                fprintf(stderr, "figures written to %s\n", plot_dir);
            }
        }
    }
    free(rp.rows);
    return rc;
}
