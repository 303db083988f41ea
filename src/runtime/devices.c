/* Device enumeration and selection (CLPERM_DEVICE, `clperm devices` order). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl_ext.h>

#include "internal.h"

clperm_status clperm__devices_all(clperm__device_ref **out, size_t *count) {
    cl_uint nplat = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &nplat);
    *out = NULL;
    *count = 0;
    if (err == CL_PLATFORM_NOT_FOUND_KHR || nplat == 0) return CLPERM_SUCCESS;
    if (err != CL_SUCCESS) return err;
    cl_platform_id *plats = malloc(nplat * sizeof *plats);
    if (!plats) return CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    clperm_status st = CLPERM_SUCCESS;
    clperm__device_ref *refs = NULL;
    size_t n = 0;
    err = clGetPlatformIDs(nplat, plats, NULL);
    if (err != CL_SUCCESS) {
        st = err;
        goto cleanup;
    }
    for (cl_uint p = 0; p < nplat; p++) {
        cl_uint ndev = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &ndev) != CL_SUCCESS || !ndev)
            continue;
        cl_device_id *devs = malloc(ndev * sizeof *devs);
        clperm__device_ref *grown = realloc(refs, (n + ndev) * sizeof *refs);
        if (!devs || !grown) {
            free(devs);
            if (grown) refs = grown;
            st = CLPERM_ERROR_OUT_OF_HOST_MEMORY;
            goto cleanup;
        }
        refs = grown;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, ndev, devs, NULL) == CL_SUCCESS) {
            for (cl_uint d = 0; d < ndev; d++) {
                refs[n].platform = plats[p];
                refs[n].device = devs[d];
                n++;
            }
        }
        free(devs);
    }
cleanup:
    free(plats);
    if (st != CLPERM_SUCCESS) {
        free(refs);
        return st;
    }
    *out = refs;
    *count = n;
    return CLPERM_SUCCESS;
}

clperm_status clperm_device_count(size_t *count) {
    CLPERM_RETURN_IF(!count, CLPERM_ERROR_INVALID_ARGUMENT);
    clperm__device_ref *refs;
    size_t n;
    CLPERM_TRY(clperm__devices_all(&refs, &n));
    free(refs);
    *count = n;
    return CLPERM_SUCCESS;
}

static int contains_nocase(const char *hay, const char *needle, size_t nlen) {
    if (nlen == 0) return 1;
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < nlen && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == nlen) return 1;
    }
    return 0;
}

static void info_string(clperm__device_ref r, int platform, char *buf, size_t cap) {
    buf[0] = 0;
    if (platform)
        clGetPlatformInfo(r.platform, CL_PLATFORM_NAME, cap, buf, NULL);
    else
        clGetDeviceInfo(r.device, CL_DEVICE_NAME, cap, buf, NULL);
    buf[cap - 1] = 0;
}

static int selector_matches(clperm__device_ref r, const char *sel) {
    char pname[256], dname[256];
    info_string(r, 1, pname, sizeof pname);
    info_string(r, 0, dname, sizeof dname);
    const char *colon = strchr(sel, ':');
    if (colon)
        return contains_nocase(pname, sel, (size_t)(colon - sel)) &&
               contains_nocase(dname, colon + 1, strlen(colon + 1));
    return contains_nocase(pname, sel, strlen(sel)) || contains_nocase(dname, sel, strlen(sel));
}

static int device_type_of(clperm__device_ref r, cl_device_type want) {
    cl_device_type t = 0;
    clGetDeviceInfo(r.device, CL_DEVICE_TYPE, sizeof t, &t, NULL);
    return (t & want) != 0;
}

/* Picks a device: by selector when given, else the first GPU, first CPU, first of any type. */
static clperm_status pick_device(const char *selector, clperm__device_ref *picked) {
    clperm__device_ref *refs;
    size_t n;
    CLPERM_TRY(clperm__devices_all(&refs, &n));
    clperm_status st = n ? CLPERM_ERROR_DEVICE_NOT_FOUND : CLPERM_ERROR_NO_DEVICE;
    if (n && selector && *selector) {
        char *end;
        unsigned long idx = strtoul(selector, &end, 10);
        if (*end == 0 && end != selector) {
            if (idx < n) {
                *picked = refs[idx];
                st = CLPERM_SUCCESS;
            }
        } else {
            for (size_t i = 0; i < n; i++)
                if (selector_matches(refs[i], selector)) {
                    *picked = refs[i];
                    st = CLPERM_SUCCESS;
                    break;
                }
        }
    } else if (n) {
        const cl_device_type order[3] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_ALL};
        for (int k = 0; k < 3 && st != CLPERM_SUCCESS; k++)
            for (size_t i = 0; i < n; i++)
                if (device_type_of(refs[i], order[k])) {
                    *picked = refs[i];
                    st = CLPERM_SUCCESS;
                    break;
                }
    }
    free(refs);
    return st;
}

clperm_status clperm_ctx_create_device(clperm_ctx **out, const char *selector) {
    CLPERM_RETURN_IF(!out, CLPERM_ERROR_INVALID_ARGUMENT);
    clperm__device_ref r;
    CLPERM_TRY(pick_device(selector, &r));
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)r.platform, 0};
    cl_context context = clCreateContext(props, 1, &r.device, NULL, NULL, &err);
    if (!context) return err != CL_SUCCESS ? err : CLPERM_ERROR_NO_DEVICE;
    cl_command_queue queue = clCreateCommandQueue(context, r.device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (!queue) {
        clReleaseContext(context);
        return err;
    }
    clperm_status st = clperm_ctx_create(out, context, r.device, queue);
    /* The context retained both; drop our own references. */
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return st;
}

clperm_status clperm_ctx_create_default(clperm_ctx **out) {
    return clperm_ctx_create_device(out, getenv("CLPERM_DEVICE"));
}
