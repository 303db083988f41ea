/* Result rows: their bound columns, the table and the JSON line they are printed as, and the
 * JSON line read back (`clperm report`). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The row's bound's rate (bytes/s of a copy, items/s of a gather) for its own bytes or item size
 * where measured, else at 8-byte items; 0 without a bound. */
static double same_bytes_rate(const bench_row *r) {
    if (!strcmp(r->bound, "copy")) return r->same_copy_bytes_per_s > 0 ? r->same_copy_bytes_per_s : r->copy_bytes_per_s;
    if (!strcmp(r->bound, "gather"))
        return r->same_gather_items_per_s > 0 ? r->same_gather_items_per_s : r->gather_items_per_s;
    return 0;
}

const char *bench_row_spread(const bench_row *r, char *buf, size_t cap) {
    if (r->max_seconds <= 0 || r->seconds <= 0)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "-%.1f/+%.1f%%", 100 * (1 - r->min_seconds / r->seconds),
                 100 * (r->max_seconds / r->seconds - 1));
    return buf;
}

double bench_row_of_same_bytes(const bench_row *r) {
    double b = same_bytes_rate(r);
    return b <= 0 ? 0 : !strcmp(r->bound, "copy") ? r->bytes_per_s / b : r->items_per_s / b;
}

void bench_row_bounds(bench_row *r, bench_bound bound, double copy_items_per_s, double copy_bytes_per_s,
                      double gather_items_per_s) {
    r->copy_items_per_s = copy_items_per_s;
    r->copy_bytes_per_s = copy_bytes_per_s;
    r->gather_items_per_s = gather_items_per_s;
    snprintf(r->bound, sizeof r->bound, "%s", bench_bound_name(bound));
    r->of_bound = 0;
    if (bound == BENCH_BOUND_COPY && copy_bytes_per_s > 0) r->of_bound = r->bytes_per_s / copy_bytes_per_s;
    if (bound == BENCH_BOUND_GATHER && gather_items_per_s > 0) r->of_bound = r->items_per_s / gather_items_per_s;
}

/* ---- writing -------------------------------------------------------------------------------- */

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_number(FILE *f, double v) {
    if (v > 0 && isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

/* The fields of a row, in the order they are written: what earlier runs wrote first, then
 * family, bound kind, fraction of the bound and the peer. */
#define ROW_STRINGS(X) X(op) X(variant) X(type) X(platform) X(device) X(driver)
#define ROW_RATES(X)                                                                                                   \
    X(seconds) X(items_per_s) X(bytes_per_s) X(copy_items_per_s) X(copy_bytes_per_s) X(gather_items_per_s)

void bench_row_json(FILE *f, const bench_row *r) {
    const char *sep = "{";
#define STRING(k)                                                                                                      \
    fprintf(f, "%s\"" #k "\":", sep);                                                                                  \
    json_string(f, r->k);                                                                                              \
    sep = ",";
#define RATE(k)                                                                                                        \
    fputs(",\"" #k "\":", f);                                                                                          \
    json_number(f, r->k);
    ROW_STRINGS(STRING)
    fprintf(f, ",\"n\":%llu,\"elem_bytes\":%d", (unsigned long long)r->n, r->elem_bytes);
    ROW_RATES(RATE)
    fprintf(f, ",\"extra_bytes\":%llu", (unsigned long long)r->extra_bytes);
    STRING(family)
    STRING(bound)
    RATE(of_bound)
    STRING(peer)
    RATE(peer_items_per_s)
    if (r->same_copy_bytes_per_s > 0) {
        RATE(same_copy_bytes_per_s)
    }
    if (r->same_gather_items_per_s > 0) {
        RATE(same_gather_items_per_s)
    }
    if (r->max_seconds > 0) {
        RATE(min_seconds)
        RATE(max_seconds)
    }
    if (r->headline) fputs(",\"headline\":true", f);
    if (r->date[0]) {
        STRING(date)
    }
    if (r->command[0]) {
        STRING(command)
    }
#undef STRING
#undef RATE
    fputs("}\n", f);
}

void bench_row_table_header(FILE *f) {
    fprintf(f, "%-28s %-15s %-29s %-4s %12s %11s %10s %9s %7s %9s %s\n", "device", "op", "variant", "type", "n",
            "median ms", "G items/s", "GB/s", "of copy", "of gather", "of same-bytes copy");
}

void bench_row_table(FILE *f, const bench_row *r) {
    char pct[16] = "", gpct[16] = "", spct[16] = "";
    if (r->copy_bytes_per_s > 0) snprintf(pct, sizeof pct, "%5.1f%%", 100.0 * r->bytes_per_s / r->copy_bytes_per_s);
    if (r->gather_items_per_s > 0)
        snprintf(gpct, sizeof gpct, "%5.1f%%", 100.0 * r->items_per_s / r->gather_items_per_s);
    if (r->same_copy_bytes_per_s > 0)
        snprintf(spct, sizeof spct, "%5.1f%%", 100.0 * r->bytes_per_s / r->same_copy_bytes_per_s);
    fprintf(f, "%-28.28s %-15s %-29s %-4s %12llu %11.4f %10.3f %9.2f %7s %9s %s\n", r->device, r->op, r->variant,
            r->type, (unsigned long long)r->n, r->seconds * 1e3, r->items_per_s * 1e-9, r->bytes_per_s * 1e-9, pct,
            gpct, spct);
}

const char *bench_size_name(uint64_t n, char *buf, size_t cap) {
    for (int k = 63; k >= 10; k--) {
        uint64_t p = UINT64_C(1) << k;
        if (n >= p - 16 && n <= p + 16) {
            if (n == p)
                snprintf(buf, cap, "2^%d", k);
            else
                snprintf(buf, cap, "2^%d%+lld", k, (long long)(n - p));
            return buf;
        }
    }
    snprintf(buf, cap, "%llu", (unsigned long long)n);
    return buf;
}

const char *bench_rate_name(double v, char *buf, size_t cap) {
    static const char prefix[] = " kMGTP";
    int p = 0;
    while (v >= 999.5 && p < 5) v /= 1000, p++;
    if (v <= 0 || !isfinite(v))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.*f %c", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v, prefix[p]);
    return buf;
}

/* src into dst, cut to fit. */
static void copy_field(char *dst, size_t cap, const char *src) {
    size_t len = strlen(src);
    if (len >= cap) len = cap - 1;
    memcpy(dst, src, len);
    dst[len] = 0;
}

/* ---- reading: one flat JSON object of strings, numbers, true, false and null ---------------- */

static const char *skip_space(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

/* A JSON string at p (after the quote) into buf; returns the character after the closing quote. */
static const char *read_string(const char *p, char *buf, size_t cap) {
    size_t len = 0;
    while (*p && *p != '"') {
        char c = *p++;
        if (c == '\\') {
            c = *p++;
            switch (c) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned v = 0;
                for (int i = 0; i < 4; i++, p++) {
                    char h = *p;
                    if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) return NULL;
                    v = v * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
                }
                c = v < 0x80 ? (char)v : '?';
                break;
            }
            case '"':
            case '\\':
            case '/': break;
            default: return NULL;
            }
        }
        if (len + 1 < cap) buf[len++] = c;
    }
    if (*p != '"') return NULL;
    if (cap) buf[len] = 0;
    return p + 1;
}

int bench_row_parse(const char *line, bench_row *r, char *err, size_t errcap) {
    memset(r, 0, sizeof *r);
    const char *p = skip_space(line);
    if (*p != '{') {
        snprintf(err, errcap, "not a JSON object");
        return -1;
    }
    p = skip_space(p + 1);
    int have_op = 0, have_n = 0, have_rate = 0, have_family = 0, have_bound = 0;
    while (*p && *p != '}') {
        char key[64], text[256];
        if (*p != '"' || !(p = read_string(p + 1, key, sizeof key))) break;
        p = skip_space(p);
        if (*p++ != ':') break;
        p = skip_space(p);
        double num = 0;
        int is_string = 0, is_null = 0;
        if (*p == '"') {
            if (!(p = read_string(p + 1, text, sizeof text))) break;
            is_string = 1;
        } else if (!strncmp(p, "null", 4)) {
            p += 4, is_null = 1;
        } else if (!strncmp(p, "true", 4)) {
            p += 4, num = 1;
        } else if (!strncmp(p, "false", 5)) {
            p += 5;
        } else {
            char *end;
            num = strtod(p, &end);
            if (end == p) break;
            p = end;
        }
#define STRING(k)                                                                                                      \
    if (is_string && !strcmp(key, #k)) copy_field(r->k, sizeof r->k, text);
#define RATE(k)                                                                                                        \
    if (!is_string && !is_null && !strcmp(key, #k)) r->k = num;
        ROW_STRINGS(STRING)
        STRING(family)
        STRING(bound)
        STRING(peer)
        STRING(date)
        STRING(command)
        ROW_RATES(RATE)
        RATE(of_bound)
        RATE(peer_items_per_s)
        RATE(same_copy_bytes_per_s)
        RATE(same_gather_items_per_s)
        RATE(min_seconds)
        RATE(max_seconds)
#undef STRING
#undef RATE
        if (!is_string && !is_null && !strcmp(key, "n")) r->n = (uint64_t)num, have_n = 1;
        if (!is_string && !is_null && !strcmp(key, "elem_bytes")) r->elem_bytes = (int)num;
        if (!is_string && !is_null && !strcmp(key, "headline")) r->headline = num != 0;
        if (!is_string && !is_null && !strcmp(key, "extra_bytes")) r->extra_bytes = (uint64_t)num;
        have_op |= is_string && !strcmp(key, "op");
        have_family |= !strcmp(key, "family");
        have_bound |= !strcmp(key, "bound");
        have_rate |= !strcmp(key, "items_per_s");
        p = skip_space(p);
        if (*p == ',')
            p = skip_space(p + 1);
        else if (*p != '}')
            break;
    }
    if (*p != '}' || !have_op || !have_n || !have_rate) {
        snprintf(err, errcap, *p != '}' ? "malformed JSON" : "not a row of clperm bench (op, n, items_per_s)");
        return -1;
    }
    /* Rows written before rows named their family and bound: both follow from the op. */
    if (!have_family) snprintf(r->family, sizeof r->family, "%s", bench_family_of(r->op));
    if (!r->family[0]) snprintf(r->family, sizeof r->family, "other");
    if (!have_bound) {
        const bench_case *c = NULL;
        for (size_t i = 0; i < bench_ncases && !c; i++)
            if (!strcmp(bench_cases[i].op, r->op) && !(bench_cases[i].flags & BENCH_HOST)) c = &bench_cases[i];
        int host = !strcmp(r->platform, "host");
        bench_row_bounds(r, c && !host ? c->bound : BENCH_BOUND_NONE, r->copy_items_per_s, r->copy_bytes_per_s,
                         r->gather_items_per_s);
    }
    return 0;
}
