/* PNG figures of the benchmark: throughput against size, one figure per operation and element
 * type, one line per device and variant, with each device's copy and gather bounds. Drawn by
 * gnuplot (Debian package gnuplot-nox), fed through a pipe. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"

static int same_series(const bench_row *a, const bench_row *b) {
    return !strcmp(a->op, b->op) && !strcmp(a->variant, b->variant) && !strcmp(a->type, b->type) &&
           !strcmp(a->device, b->device) && !strcmp(a->platform, b->platform);
}

static void quote(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) fputc(*s == '"' ? '\'' : *s, f);
    fputc('"', f);
}

/* One line per distinct series among rows matching (op, type), or the bounds when bounds is set. */
static int plot_figure(FILE *gp, const char *dir, const char *op, const char *type, const bench_row *rows,
                       size_t nrows) {
    fprintf(gp, "set output \"%s/%s_%s.png\"\n", dir, op, type);
    fprintf(gp, "set title \"%s %s\"\n", op, type);
    int first = 1, series = 0;
    /* Series heads: the first row of each series that belongs in this figure. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < nrows; i++) {
            const bench_row *r = &rows[i];
            int bound = !strcmp(r->op, "copy") || !strcmp(r->op, "gather");
            int mine = !strcmp(r->op, op) && !strcmp(r->type, type);
            if (!(mine || bound)) continue;
            /* Bounds only for devices that appear in this figure. */
            if (bound) {
                int shown = 0;
                for (size_t j = 0; j < nrows && !shown; j++)
                    shown = !strcmp(rows[j].op, op) && !strcmp(rows[j].type, type) &&
                            !strcmp(rows[j].device, r->device);
                if (!shown) continue;
            }
            size_t j = 0;
            while (j < i && !same_series(&rows[j], r)) j++;
            if (j < i) continue;
            if (pass == 0) {
                fputs(first ? "plot " : ", ", gp);
                first = 0;
                fprintf(gp, "'-' using 1:2 with linespoints %s title ", bound ? "dashtype 2" : "linewidth 2");
                char title[400];
                snprintf(title, sizeof title, "%s: %s %s", r->device, bound ? r->op : r->variant, bound ? "bound (u64)" : "");
                quote(gp, title);
                series++;
            } else {
                for (size_t k = i; k < nrows; k++)
                    if (same_series(&rows[k], r)) fprintf(gp, "%llu %.6g\n", (unsigned long long)rows[k].n, rows[k].items_per_s);
                fputs("e\n", gp);
            }
        }
        if (pass == 0) fputc('\n', gp);
    }
    return series;
}

int bench_plot(const char *dir, const bench_row *rows, size_t nrows, char *err, size_t errcap) {
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errcap, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    FILE *gp = popen("gnuplot 2>&1", "w");
    if (!gp) {
        snprintf(err, errcap, "cannot run gnuplot (Debian package gnuplot-nox)");
        return -1;
    }
    fputs("set terminal pngcairo size 1000,650 noenhanced\n"
          "set logscale x 2\nset logscale y 10\nset format x \"2^%L\"\n"
          "set xlabel \"n (items)\"\nset ylabel \"items per second\"\n"
          "set key outside bottom center horizontal maxrows 6 font \",8\"\nset grid\n",
          gp);
    int figures = 0;
    for (size_t i = 0; i < nrows; i++) {
        const bench_row *r = &rows[i];
        if (!strcmp(r->op, "copy") || !strcmp(r->op, "gather")) continue;
        size_t j = 0;
        while (j < i && !(!strcmp(rows[j].op, r->op) && !strcmp(rows[j].type, r->type))) j++;
        if (j < i) continue;
        if (plot_figure(gp, dir, r->op, r->type, rows, nrows) > 0) figures++;
    }
    int status = pclose(gp);
    if (status != 0) {
        snprintf(err, errcap, "gnuplot failed (is the Debian package gnuplot-nox installed?)");
        return -1;
    }
    if (!figures) {
        snprintf(err, errcap, "no results to plot");
        return -1;
    }
    return 0;
}
