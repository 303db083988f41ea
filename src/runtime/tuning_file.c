/* A context's tuning: the rows and a tuning file applied at creation, the values read and set one
 * at a time, and where each family's came from. Tuning files are JSON, read with cJSON where the
 * build found it (docs/tuning.md has the format):
 *   {"clperm_tuning": 1,
 *    "entries": [{"device": {"name": ..., "driver": ..., ...},
 *                 "families": {"scan": {"values": {"wg_size": 256, ...}, ...}, ...}}, ...]}
 * An entry is for the device whose name and driver version it gives exactly. A file is applied
 * whole or not at all. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

#ifdef CLPERM_HAVE_CJSON
#include <cjson/cJSON.h>
#endif

#define TUNING_FILE_MAX (16u << 20) /* bytes: larger files are refused unread */

static void say(char *msg, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, cap, fmt, ap);
    va_end(ap);
}

int clperm__tuning_file_default(char *path, size_t cap) {
    const char *env = getenv("CLPERM_TUNING_FILE");
    if (env && *env) {
        if (strcmp(env, "off") == 0) return 0;
        return snprintf(path, cap, "%s", env) < (int)cap;
    }
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    int n;
    if (xdg && *xdg)
        n = snprintf(path, cap, "%s/clperm/tuning.json", xdg);
    else if (home && *home)
        n = snprintf(path, cap, "%s/.config/clperm/tuning.json", home);
    else
        return 0;
    struct stat st;
    return n > 0 && n < (int)cap && stat(path, &st) == 0;
}

#ifdef CLPERM_HAVE_CJSON

static char *read_file(const char *path, size_t *len, char *msg, size_t cap) {
    struct stat sb;
    if (stat(path, &sb) != 0) {
        say(msg, cap, "cannot open it: %s", strerror(errno));
        return NULL;
    }
    if (sb.st_size > (off_t)TUNING_FILE_MAX) {
        say(msg, cap, "it is over %u bytes", TUNING_FILE_MAX);
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    char *buf = f ? malloc((size_t)sb.st_size + 1) : NULL;
    size_t n = buf ? fread(buf, 1, (size_t)sb.st_size + 1, f) : 0;
    int bad = !buf || ferror(f) || n > (size_t)sb.st_size;
    if (f) fclose(f);
    if (bad) {
        say(msg, cap, !f ? "cannot open it: %s" : buf ? "cannot read it whole" : "out of memory", strerror(errno));
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

static const char *string_of(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The entry of `entries` for the device of p, or NULL. */
static const cJSON *entry_for(const cJSON *entries, const clperm_profile *p) {
    const cJSON *e;
    cJSON_ArrayForEach(e, entries) {
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(e, "device");
        const char *name = string_of(dev, "name"), *driver = string_of(dev, "driver");
        if (name && driver && strcmp(name, p->device_name) == 0 && strcmp(driver, p->driver_version) == 0) return e;
    }
    return NULL;
}

/* Family values from an entry's "families" into t (a copy: the caller keeps it only on success). */
static int read_families(const cJSON *families, const clperm_profile *p, clperm__tuning *t,
                         int named[CLPERM__FAMILIES], char *msg, size_t cap) {
    if (!cJSON_IsObject(families)) {
        say(msg, cap, "the entry has no \"families\" object");
        return -1;
    }
    const cJSON *fam;
    cJSON_ArrayForEach(fam, families) {
        int f = clperm__family_index(fam->string);
        if (f < 0) {
            say(msg, cap, "unknown family \"%s\"", fam->string);
            return -1;
        }
        const cJSON *values = cJSON_GetObjectItemCaseSensitive(fam, "values");
        if (!cJSON_IsObject(values)) {
            say(msg, cap, "family \"%s\" has no \"values\" object", fam->string);
            return -1;
        }
        int *out = clperm__family_values(t, f);
        const cJSON *v;
        cJSON_ArrayForEach(v, values) {
            int i = clperm__tunable_index(f, v->string);
            if (i < 0) {
                say(msg, cap, "unknown tunable \"%s.%s\"", fam->string, v->string);
                return -1;
            }
            const clperm__tunable_def *d = &clperm__families[f].tunables[i];
            double x = cJSON_IsNumber(v) ? v->valuedouble : -1.0;
            if (!(x >= d->lo && x <= d->hi) || x != (double)(int)x || !clperm__tunable_valid(d, (int)x, p)) {
                say(msg, cap, "%s.%s is not an integer in [%d, %d]%s", fam->string, v->string, d->lo, d->hi,
                    d->flags & CLPERM_PARAM_POW2           ? ", 0 or a power of two"
                    : d->flags & CLPERM_PARAM_SG_MULTIPLE ? ", 0 or a multiple of the subgroup width"
                                                          : "");
                return -1;
            }
            out[i] = (int)x;
        }
        named[f] = 1;
    }
    return 0;
}

clperm_status clperm__tuning_file_apply(const char *path, const clperm_profile *p, clperm__tuning *t,
                                        clperm__tuning_origin origins[CLPERM__FAMILIES], char *msg, size_t cap) {
    size_t len = 0;
    char *text = read_file(path, &len, msg, cap);
    if (!text) return CLPERM_ERROR_TUNING_FILE;
    cJSON *root = cJSON_ParseWithLength(text, len);
    const char *stop = root ? NULL : cJSON_GetErrorPtr();
    size_t at = stop && stop >= text && stop <= text + len ? (size_t)(stop - text) : len;
    free(text);
    clperm__tuning copy = *t;
    int named[CLPERM__FAMILIES] = {0};
    int bad = -1;
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "clperm_tuning");
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(root, "entries");
    const cJSON *entry = NULL;
    if (!root)
        say(msg, cap, "not JSON: malformed or truncated near byte %zu of %zu", at, len);
    else if (!cJSON_IsNumber(version) || version->valuedouble != 1)
        say(msg, cap, "not a clperm tuning file of format 1 (\"clperm_tuning\": 1)");
    else if (!cJSON_IsArray(entries))
        say(msg, cap, "no \"entries\" array");
    else if (!(entry = entry_for(entries, p)))
        say(msg, cap, "no entry for \"%s\", driver \"%s\"", p->device_name, p->driver_version);
    else
        bad = read_families(cJSON_GetObjectItemCaseSensitive(entry, "families"), p, &copy, named, msg, cap);
    cJSON_Delete(root);
    if (bad) return CLPERM_ERROR_TUNING_FILE;
    *t = copy;
    for (int f = 0; f < CLPERM__FAMILIES; f++)
        if (named[f]) {
            origins[f].source = CLPERM_TUNING_FILE;
            origins[f].detail = path;
        }
    return CLPERM_SUCCESS;
}

#else /* no cJSON */

clperm_status clperm__tuning_file_apply(const char *path, const clperm_profile *p, clperm__tuning *t,
                                        clperm__tuning_origin origins[CLPERM__FAMILIES], char *msg, size_t cap) {
    (void)path, (void)p, (void)t, (void)origins;
    say(msg, cap, "this build of clperm reads no tuning files (built without cJSON, libcjson-dev)");
    return CLPERM_ERROR_UNSUPPORTED;
}

#endif

/* ---- a context's tuning ---- */

void clperm__ctx_tuning_init(clperm_ctx *ctx) {
    clperm__tuning_rows(&ctx->profile, CLPERM_TUNING_DEVICE_ROW, &ctx->tuning, ctx->tuning_origin);
    ctx->tuning_file[0] = '\0';
    char path[sizeof ctx->tuning_file], msg[512];
    if (!clperm__tuning_file_default(path, sizeof path)) return;
    memcpy(ctx->tuning_file, path, sizeof path);
    if (clperm__tuning_file_apply(ctx->tuning_file, &ctx->profile, &ctx->tuning, ctx->tuning_origin, msg,
                                  sizeof msg) == CLPERM_SUCCESS)
        clperm__debug("tuning file %s: applied its entry for \"%s\"", path, ctx->profile.device_name);
    else {
        clperm__debug("tuning file %s ignored: %s", path, msg);
        ctx->tuning_file[0] = '\0';
    }
}

/* Family and tunable by name: their indices, or CLPERM_ERROR_INVALID_PARAM. */
static clperm_status lookup(const char *family, const char *name, int *f, int *i) {
    *f = clperm__family_index(family);
    CLPERM_RETURN_IF(*f < 0, CLPERM_ERROR_INVALID_PARAM);
    *i = name ? clperm__tunable_index(*f, name) : 0;
    CLPERM_RETURN_IF(*i < 0, CLPERM_ERROR_INVALID_PARAM);
    return CLPERM_SUCCESS;
}

clperm_status clperm_ctx_get_tunable(const clperm_ctx *ctx, const char *family, const char *name, int *value) {
    CLPERM_RETURN_IF(!value || !name, CLPERM_ERROR_INVALID_ARGUMENT);
    int f, i;
    CLPERM_TRY(lookup(family, name, &f, &i));
    clperm_ctx *c = (clperm_ctx *)ctx;
    CLPERM_TRY(clperm__ctx_enter(c));
    *value = clperm__family_values(&c->tuning, f)[i];
    clperm__ctx_leave(c);
    return CLPERM_SUCCESS;
}

clperm_status clperm_ctx_set_tunable(clperm_ctx *ctx, const char *family, const char *name, int value) {
    CLPERM_RETURN_IF(!name, CLPERM_ERROR_INVALID_ARGUMENT);
    int f, i;
    CLPERM_TRY(lookup(family, name, &f, &i));
    const clperm__tunable_def *d = &clperm__families[f].tunables[i];
    CLPERM_TRY(clperm__ctx_enter(ctx));
    if (!clperm__tunable_valid(d, value, &ctx->profile)) {
        clperm__ctx_leave(ctx);
        return CLPERM_ERROR_PARAM_OUT_OF_BOUNDS;
    }
    clperm__family_values(&ctx->tuning, f)[i] = value;
    ctx->tuning_origin[f].source = CLPERM_TUNING_SET;
    ctx->tuning_origin[f].detail = "clperm_ctx_set_tunable";
    clperm__ctx_leave(ctx);
    return CLPERM_SUCCESS;
}

clperm_status clperm_ctx_tuning_source(const clperm_ctx *ctx, const char *family, clperm_tuning_source *source,
                                       const char **detail) {
    CLPERM_RETURN_IF(!source, CLPERM_ERROR_INVALID_ARGUMENT);
    int f, i;
    CLPERM_TRY(lookup(family, NULL, &f, &i));
    clperm_ctx *c = (clperm_ctx *)ctx;
    CLPERM_TRY(clperm__ctx_enter(c));
    *source = c->tuning_origin[f].source;
    if (detail) *detail = c->tuning_origin[f].detail;
    clperm__ctx_leave(c);
    return CLPERM_SUCCESS;
}

clperm_status clperm_ctx_reset_tuning(clperm_ctx *ctx, const char *family, clperm_tuning_source upto) {
    CLPERM_RETURN_IF(upto != CLPERM_TUNING_CLASS_ROW && upto != CLPERM_TUNING_VENDOR_ROW &&
                         upto != CLPERM_TUNING_DEVICE_ROW && upto != CLPERM_TUNING_DEFAULTS,
                     CLPERM_ERROR_INVALID_ARGUMENT);
    int only = family ? clperm__family_index(family) : -1;
    CLPERM_RETURN_IF(family && only < 0, CLPERM_ERROR_INVALID_PARAM);
    clperm__tuning rows;
    clperm__tuning_origin origins[CLPERM__FAMILIES];
    CLPERM_TRY(clperm__ctx_enter(ctx));
    clperm__tuning_rows(&ctx->profile, upto, &rows, origins);
    for (int f = 0; f < CLPERM__FAMILIES; f++)
        if (only < 0 || f == only) {
            memcpy(clperm__family_values(&ctx->tuning, f), clperm__family_values(&rows, f),
                   clperm__families[f].count * sizeof(int));
            ctx->tuning_origin[f] = origins[f];
        }
    clperm__ctx_leave(ctx);
    return CLPERM_SUCCESS;
}

clperm_status clperm_ctx_load_tuning(clperm_ctx *ctx, const char *path) {
    CLPERM_RETURN_IF(!path, CLPERM_ERROR_INVALID_ARGUMENT);
    char msg[512];
    CLPERM_TRY(clperm__ctx_enter(ctx));
    /* The path is kept in the context, where the origins point; a failed load keeps the last. */
    char keep[sizeof ctx->tuning_file];
    memcpy(keep, ctx->tuning_file, sizeof keep);
    int fits = snprintf(ctx->tuning_file, sizeof ctx->tuning_file, "%s", path) < (int)sizeof ctx->tuning_file;
    clperm_status st = fits ? clperm__tuning_file_apply(ctx->tuning_file, &ctx->profile, &ctx->tuning,
                                                        ctx->tuning_origin, msg, sizeof msg)
                            : CLPERM_ERROR_TUNING_FILE;
    if (!fits) snprintf(msg, sizeof msg, "the path is too long");
    if (st != CLPERM_SUCCESS) {
        clperm__debug("tuning file %s ignored: %s", path, msg);
        memcpy(ctx->tuning_file, keep, sizeof keep);
    }
    clperm__ctx_leave(ctx);
    return st;
}
