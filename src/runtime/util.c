/* Small helpers: debug logging (CLPERM_DEBUG), text builders, kernel arguments, empty calls. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int clperm__debug_level(void) {
    const char *env = getenv("CLPERM_DEBUG");
    if (!env || !*env || strcmp(env, "0") == 0) return 0;
    int level = atoi(env);
    return level > 1 ? level : 1;
}

void clperm__debug(const char *fmt, ...) {
    if (!clperm__debug_level()) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("clperm: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

clperm__buf clperm__buf_on(char *storage, size_t cap) {
    clperm__buf b = {storage, cap, 0, cap == 0};
    if (cap) storage[0] = 0;
    return b;
}

void clperm__buf_add(clperm__buf *b, const char *fmt, ...) {
    if (b->overflow) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->text + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= b->cap - b->len) {
        b->overflow = 1;
        b->text[b->len] = 0; /* what fitted before this append, never a cut option */
        return;
    }
    b->len += (size_t)n;
}

clperm_status clperm__buf_status(const clperm__buf *b) {
    return b->overflow ? CLPERM_ERROR_INTERNAL : CLPERM_SUCCESS;
}

clperm_status clperm__empty_call(clperm_ctx *ctx, cl_uint num_events, const cl_event *events, cl_event *event) {
    return event ? clEnqueueMarkerWithWaitList(ctx->queue, num_events, events, event) : CLPERM_SUCCESS;
}

void clperm__arg(clperm__args *a, const void *value, size_t size) {
    if (a->err == CL_SUCCESS) a->err = clSetKernelArg(a->kernel, a->next, size, value);
    a->next++;
}

void clperm__appendf(char *buf, size_t cap, const char *fmt, ...) {
    size_t len = strnlen(buf, cap);
    if (len + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}
