/* Small helpers: debug logging (CLPERM_DEBUG) and bounded string formatting. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void clperm__debug(const char *fmt, ...) {
    const char *env = getenv("CLPERM_DEBUG");
    if (!env || !*env || strcmp(env, "0") == 0) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("clperm: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void clperm__appendf(char *buf, size_t cap, const char *fmt, ...) {
    size_t len = strnlen(buf, cap);
    if (len + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}
