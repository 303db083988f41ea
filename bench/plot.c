/* PNG figures of bench rows, drawn by gnuplot (Debian package gnuplot-nox) through a pipe. Sweeps
 * over several sizes: one figure per family, op, variant and type, items per second against n,
 * one line per device and its bound (the rate the row would have at the copy's bytes per second
 * or the gather's items per second) dashed in the same colour. The default run's headline rows:
 * bar charts (bench_plot_bars). */
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

/* Whether rows like rows[i] (its figure, its device) were measured at more than one n. */
static int several_sizes(const bench_row *rows, size_t nrows, size_t i) {
    for (size_t k = 0; k < nrows; k++)
        if (same_figure(&rows[k], &rows[i]) && same_device(&rows[k], &rows[i]) && rows[k].n != rows[i].n) return 1;
    return 0;
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
    int sweeps = 0;
    for (size_t i = 0; i < nrows && !sweeps; i++) sweeps = several_sizes(rows, nrows, i);
    if (!sweeps) return 0;
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
        if (j < i || !several_sizes(rows, nrows, i)) continue;
        figure(gp, dir, rows, nrows, i, files, nfiles);
        figures++;
    }
    int status = pclose(gp);
    if (status != 0) {
        snprintf(err, errcap, "gnuplot failed (is the Debian package gnuplot-nox installed?)");
        return -1;
    }
    return figures;
}

/* ---- bar charts of the headline rows -------------------------------------------------------- */

/* The row's bound of its own bytes, in items/s; 0 without one. */
static double bound_items_per_s(const bench_row *r) {
    double of = bench_row_of_same_bytes(r);
    return of > 0 ? r->items_per_s / of : 0;
}

/* A bar's label: its % to two significant digits. */
static void bar_label(char *buf, size_t cap, double pct) {
    snprintf(buf, cap, pct >= 10 ? "%.0f%%" : pct >= 1 ? "%.1f%%" : "%.2g%%", pct);
}

/* Common settings of a bar chart: a logarithmic axis of %, so that rows at 1% and at 100% both
 * show. */
static void bars_setup(FILE *gp, const char *dir, const char *name, const char *title, double ymin, double ymax) {
    double lo = 1;
    while (lo > ymin && lo > 1e-3) lo /= 10;
    fprintf(gp,
            "reset\nset terminal pngcairo size 1280,640 noenhanced font \",11\"\nset output \"%s/%s\"\n"
            "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.85 border -1\n"
            "set boxwidth 0.9\nset grid ytics\nset key top left inside opaque\nset logscale y 10\n"
            "set ylabel \"%% of the bound of the same bytes\"\nset xtics font \",10\"\n"
            "set yrange [%g:%g]\nset xtics nomirror\nset bmargin 5\nset title ",
            dir, name, lo, ymax);
    quote(gp, title);
    fputc('\n', gp);
}

/* One device's chart: per family, the row and its peer, both as % of the row's bound. */
static int device_bars(FILE *gp, const char *dir, const bench_row *rows, size_t nrows, const bench_row *dev,
                       const char *name) {
    const bench_row *hl[64];
    int n = 0;
    double ymax = 100, ymin = 100;
    for (size_t i = 0; i < nrows && n < 64; i++)
        if (rows[i].headline && same_device(&rows[i], dev) && bound_items_per_s(&rows[i]) > 0) {
            const bench_row *r = &rows[i];
            double b = bound_items_per_s(r), a = 100 * r->items_per_s / b, p = 100 * r->peer_items_per_s / b;
            ymax = a > ymax ? a : ymax;
            ymax = p > ymax ? p : ymax;
            ymin = a < ymin ? a : ymin;
            ymin = p > 0 && p < ymin ? p : ymin;
            hl[n++] = r;
        }
    if (!n) return 0;
    bench_sort_by_family(hl, n, sizeof hl[0], bench_family_of_row);
    char title[600];
    snprintf(title, sizeof title, "%s (%s, %s): each family's row and its peer, at the headline n", dev->device,
             dev->platform, dev->driver);
    bars_setup(gp, dir, name, title, ymin, ymax * 3);
    /* Two bars per family, at x = i -/+ 1/6; their labels above them. */
    fputs("set bmargin 8\nplot '-' using 2:xtic(1) title \"clperm (rate under the family)\" linecolor rgb \"#2b6cb0\", "
          "'-' using 2 title \"its peer (named and rated under it)\" linecolor rgb \"#a0aec0\", "
          "'-' using ($0 - 1.0/6):2:3 with labels offset 0,0.7 font \",10\" notitle, "
          "'-' using ($0 + 1.0/6):2:3 with labels offset 0,0.7 font \",10\" notitle\n",
          gp);
    for (int series = 0; series < 4; series++) {
        for (int i = 0; i < n; i++) {
            const bench_row *r = hl[i];
            double b = bound_items_per_s(r);
            double rate = series % 2 ? r->peer_items_per_s : r->items_per_s, pct = 100 * rate / b;
            char label[64] = "", xt[160], size[32], r1[32], r2[32];
            if (rate > 0) bar_label(label, sizeof label, pct);
            snprintf(xt, sizeof xt, "%s %s\\n%s/s\\n%s\\n%s/s", r->family, bench_size_name(r->n, size, sizeof size),
                     bench_rate_name(r->items_per_s, r1, sizeof r1), r->peer[0] ? r->peer : "no peer",
                     bench_rate_name(r->peer_items_per_s, r2, sizeof r2));
            if (series == 0)
                fprintf(gp, "\"%s\" %.6g\n", xt, pct);
            else if (rate <= 0) /* no peer: no bar */
                fprintf(gp, series == 1 ? "x NaN\n" : "x NaN \"\"\n");
            else if (series == 1)
                fprintf(gp, "x %.6g\n", pct);
            else
                fprintf(gp, "x %.6g \"%s\"\n", pct, label);
        }
        fputs("e\n", gp);
    }
    return 1;
}

/* Several devices: per family, one bar per device, its row as % of its own bound. */
static int devices_bars(FILE *gp, const char *dir, const bench_row *rows, size_t nrows, const bench_row **devs,
                        int ndevs, const char *const *files, int nfiles) {
    const char *fams[64];
    int nf = 0;
    double ymax = 100, ymin = 100;
    for (size_t i = 0; i < nrows; i++) {
        if (!rows[i].headline || bound_items_per_s(&rows[i]) <= 0) continue;
        int seen = 0;
        for (int k = 0; k < nf && !seen; k++) seen = !strcmp(fams[k], rows[i].family);
        if (!seen && nf < 64) fams[nf++] = rows[i].family;
        double a = 100 * rows[i].items_per_s / bound_items_per_s(&rows[i]);
        ymax = a > ymax ? a : ymax;
        ymin = a < ymin ? a : ymin;
    }
    if (!nf) return 0;
    bench_sort_by_family(fams, nf, sizeof fams[0], bench_family_of_name);
    bars_setup(gp, dir, "headline_devices.png", "each family's headline row on every device, against its own bound",
               ymin, ymax * 3);
    fputs("plot ", gp);
    for (int d = 0; d < ndevs; d++) {
        char title[400];
        snprintf(title, sizeof title, "%s (%s)%s%s", devs[d]->device, devs[d]->platform, nfiles > 1 ? ", " : "",
                 nfiles > 1 ? files[devs[d]->file] : "");
        fprintf(gp, "%s'-' using 2%s title ", d ? ", " : "", d ? "" : ":xtic(1)");
        quote(gp, title);
    }
    fputc('\n', gp);
    for (int d = 0; d < ndevs; d++) {
        for (int k = 0; k < nf; k++) {
            double pct = 0;
            for (size_t i = 0; i < nrows; i++)
                if (rows[i].headline && same_device(&rows[i], devs[d]) && !strcmp(rows[i].family, fams[k]) &&
                    bound_items_per_s(&rows[i]) > 0)
                    pct = 100 * rows[i].items_per_s / bound_items_per_s(&rows[i]);
            fprintf(gp, "\"%s\" %.6g\n", fams[k], pct);
        }
        fputs("e\n", gp);
    }
    return 1;
}

int bench_plot_bars(const char *dir, const bench_row *rows, size_t nrows, const char *const *files, int nfiles,
                    char *err, size_t errcap) {
    const bench_row *devs[64];
    int ndevs = 0;
    for (size_t i = 0; i < nrows; i++) {
        if (!rows[i].headline) continue;
        int seen = 0;
        for (int d = 0; d < ndevs && !seen; d++) seen = same_device(devs[d], &rows[i]);
        if (!seen && ndevs < 64) devs[ndevs++] = &rows[i];
    }
    if (!ndevs) return 0;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errcap, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    FILE *gp = popen("gnuplot 1>&2", "w");
    if (!gp) {
        snprintf(err, errcap, "cannot run gnuplot (Debian package gnuplot-nox)");
        return -1;
    }
    int charts = 0;
    for (int d = 0; d < ndevs; d++) {
        char name[64] = "headline.png";
        if (ndevs > 1) snprintf(name, sizeof name, "headline_%d.png", d + 1);
        charts += device_bars(gp, dir, rows, nrows, devs[d], name);
    }
    if (ndevs > 1) charts += devices_bars(gp, dir, rows, nrows, devs, ndevs, files, nfiles);
    if (pclose(gp) != 0) {
        snprintf(err, errcap, "gnuplot failed (is the Debian package gnuplot-nox installed?)");
        return -1;
    }
    return charts;
}
