/* Progress of a bench run on stderr: on a terminal one line redrawn in place, "[k/N] elapsed:
 * device, n, op variant"; otherwise the same as one line per step, so a log shows where a run
 * stands and a long --full run never looks hung. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "bench.h"

static struct {
    int total, done, tty, shown;
    double t0;
    char step[200];
} progress;

static void draw(void) {
    double s = bench_now() - progress.t0;
    int width = progress.total > 0 ? 20 : 0, fill = progress.total > 0 ? width * progress.done / progress.total : 0;
    char bar[32];
    for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
    bar[width] = 0;
    if (progress.tty) {
        fprintf(stderr, "\r\033[K[%s] %d/%d %d:%02d %.90s", bar, progress.done, progress.total, (int)s / 60,
                (int)s % 60, progress.step);
        progress.shown = 1;
    } else {
        fprintf(stderr, "[%d/%d %6.1f s] %s\n", progress.done, progress.total, s, progress.step);
    }
    fflush(stderr);
}

void bench_progress_begin(int total) {
    progress.total = total;
    progress.done = 0;
    progress.tty = isatty(STDERR_FILENO);
    progress.shown = 0;
    progress.t0 = bench_now();
    progress.step[0] = 0;
}

void bench_progress_step(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(progress.step, sizeof progress.step, fmt, ap);
    va_end(ap);
    progress.done++;
    draw();
}

void bench_progress_skip(void) { progress.done++; }

void bench_progress_hide(void) {
    if (progress.tty && progress.shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        progress.shown = 0;
    }
}

void bench_progress_show(void) {
    if (progress.tty && progress.step[0] && progress.done < progress.total) draw();
}

void bench_progress_note(const char *fmt, ...) {
    bench_progress_hide();
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    bench_progress_show();
}

void bench_progress_end(void) {
    bench_progress_hide();
    double s = bench_now() - progress.t0;
    fprintf(stderr, "%d steps in %.1f s\n", progress.done, s);
    fflush(stderr);
}
