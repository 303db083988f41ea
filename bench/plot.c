/* PNG figures of bench rows: one per family, op, variant and type, items per second against n,
 * one line per device and its bound (the rate the row would have at the copy's bytes per second
 * or the gather's items per second) dashed in the same colour. Drawn by gnuplot (Debian package
 * gnuplot-nox), fed through a pipe. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"

static int same_figure(const bench_row *a, const bench_row *b) {
    return !strcmp(a->family, b->family) && !strcmp(a->op, b->op) && !strcmp(a->variant, b->variant) &&
           !strcmp(a->type, b->type);
}

static int same_device(const bench_row *a, const bench_row *b) {
    return a->file == b->file && !strcmp(a->platform, b->platform) && !strcmp(a->device, b->device) &&
           !strcmp(a->driver, b->driver);
}

static void quote(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) fputc(*s == '"' ? '\'' : *s, f);
    fputc('"', f);
}

/* A file name from the figure's names: letters, digits, '-' and '.'; the rest '_'. */
static void file_name(const bench_row *r, char *buf, size_t cap) {
    snprintf(buf, cap, "%s_%s_%s_%s", r->family, r->op, r->variant, r->type);
    for (char *p = buf; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
              *p == '.'))
            *p = '_';
}

/* The points of one line, by increasing n: the rows' rates, or their bounds. */
static void points(FILE *gp, const bench_row *rows, size_t nrows, const bench_row *head, int bound) {
    uint64_t last = 0;
    for (;;) {
        const bench_row *next = NULL;
        for (size_t k = 0; k < nrows; k++) {
            const bench_row *r = &rows[k];
            if (!same_figure(r, head) || !same_device(r, head) || r->n <= last || (bound && !(r->of_bound > 0)))
                continue;
            if (!next || r->n < next->n) next = r;
        }
        if (!next) break;
        fprintf(gp, "%llu %.6g\n", (unsigned long long)next->n,
                bound ? next->items_per_s / next->of_bound : next->items_per_s);
        last = next->n;
    }
    fputs("e\n", gp);
}

/* The figure of rows like rows[first]. */
static void figure(FILE *gp, const char *dir, const bench_row *rows, size_t nrows, size_t first,
                   const char *const *files, int nfiles) {
    const bench_row *f = &rows[first];
    char name[200];
    file_name(f, name, sizeof name);
    fprintf(gp, "set output \"%s/%s.png\"\n", dir, name);
    /* Lines: the first row of each device in this figure; its bound when the rows have one. */
    const bench_row *heads[64];
    int nheads = 0, bounds = 0;
    uint64_t nmin = UINT64_MAX, nmax = 0;
    double ymin = 1e300, ymax = 0;
    for (size_t i = first; i < nrows; i++) {
        const bench_row *r = &rows[i];
        if (!same_figure(r, f)) continue;
        int seen = 0;
        for (int h = 0; h < nheads && !seen; h++) seen = same_device(heads[h], r);
        if (!seen && nheads < 64) heads[nheads++] = r;
        bounds |= r->of_bound > 0;
        double hi = r->of_bound > 0 ? r->items_per_s / r->of_bound : r->items_per_s;
        nmin = r->n < nmin ? r->n : nmin;
        nmax = r->n > nmax ? r->n : nmax;
        ymin = r->items_per_s < ymin ? r->items_per_s : ymin;
        ymin = hi < ymin ? hi : ymin;
        ymax = r->items_per_s > ymax ? r->items_per_s : ymax;
        ymax = hi > ymax ? hi : ymax;
    }
    if (!strcmp(f->family, "bound"))
        fprintf(gp, "set title \"the device's bound: %s of 64-bit items\"\n",
                !strcmp(f->op, "gather") ? "random gather" : f->op);
    else
        fprintf(gp, "set title \"%s: %s %s, %s%s\"\n", f->family, f->op, f->variant, f->type,
                bounds ? " (dashed: the device's bound at the same n)" : "");
    /* Ranges with a margin, from and to powers of two so the ticks fall on them (at every power
     * over short spans, every second one over long ones); a single n or rate still makes a figure. */
    double xlo = 1, xhi = 2;
    while (xlo * 2 <= (double)nmin) xlo *= 2;
    while (xhi < (double)nmax) xhi *= 2;
    fprintf(gp, "set xrange [%g:%g]\nset xtics %g, %d\n", xlo / 2.2, xhi * 2.2, xlo / 2, xhi / xlo > 4096 ? 4 : 2);
    /* The rates from and to whole decades, labelled at 1, 2 and 5 times each over up to three
     * decades, so that every point has a label near it. */
    double ylo = 1, yhi;
    while (ylo * 10 <= ymin) ylo *= 10;
    while (ylo > ymin && ylo > 1e-300) ylo /= 10;
    for (yhi = ylo * 10; yhi < ymax; yhi *= 10) continue;
    fprintf(gp, "set yrange [%g:%g]\nset ytics 10\n", ylo, yhi);
    for (double d = ylo; yhi / ylo <= 1000 && d < yhi; d *= 10) fprintf(gp, "set ytics add (%g, %g)\n", 2 * d, 5 * d);
    fputs("plot ", gp);
    for (int h = 0; h < nheads; h++) {
        char title[400];
        snprintf(title, sizeof title, "%s%s%s%s", heads[h]->device, nfiles > 1 ? " (" : "",
                 nfiles > 1 ? files[heads[h]->file] : "", nfiles > 1 ? ")" : "");
        fprintf(gp, "%s'-' using 1:2 with linespoints linewidth 2 pointtype 7 linecolor %d title ", h ? ", " : "",
                h + 1);
        quote(gp, title);
        if (bounds) {
            fprintf(gp, ", '-' using 1:2 with linespoints dashtype 2 pointtype 6 linecolor %d title ", h + 1);
            snprintf(title, sizeof title, "its bound (%s)", heads[h]->bound[0] ? heads[h]->bound : "none");
            quote(gp, title);
        }
    }
    fputc('\n', gp);
    for (int h = 0; h < nheads; h++) {
        points(gp, rows, nrows, heads[h], 0);
        if (bounds) points(gp, rows, nrows, heads[h], 1);
    }
}

int bench_plot(const char *dir, const bench_row *rows, size_t nrows, const char *const *files, int nfiles, char *err,
               size_t errcap) {
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errcap, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    if (!nrows) {
        snprintf(err, errcap, "no results to plot");
        return -1;
    }
    /* gnuplot's messages go to stderr, never into the rows on stdout. */
    FILE *gp = popen("gnuplot 1>&2", "w");
    if (!gp) {
        snprintf(err, errcap, "cannot run gnuplot (Debian package gnuplot-nox)");
        return -1;
    }
    fputs("set terminal pngcairo size 960,600 noenhanced font \",11\"\n"
          "set logscale x 2\nset logscale y 10\nset format x \"2^%L\"\nset format y \"%.0s %c\"\n"
          "set xlabel \"n (items)\"\nset ylabel \"items per second\"\n"

          "set key outside below left Left reverse maxrows 8\nset grid\n",
          gp);
    int figures = 0;
    for (size_t i = 0; i < nrows; i++) {
        size_t j = 0;
        while (j < i && !same_figure(&rows[j], &rows[i])) j++;
        if (j < i) continue;
        figure(gp, dir, rows, nrows, i, files, nfiles);
        figures++;
    }
    int status = pclose(gp);
    if (status != 0) {
        snprintf(err, errcap, "gnuplot failed (is the Debian package gnuplot-nox installed?)");
        return -1;
    }
    return figures ? 0 : -1;
}
