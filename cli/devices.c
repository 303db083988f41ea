/* `clperm devices`: every platform and device with the profile clperm decides for it. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "clperm.h"

static void json_str(const char *key, const char *s, int comma) {
    printf("\"%s\":\"", key);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s >= 0x20)
            putchar(*s);
    }
    printf("\"%s", comma ? "," : "");
}

static const char *type_name(cl_device_type t) {
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    return "other";
}

static void impls(unsigned mask, char *buf, size_t cap) {
    buf[0] = 0;
    for (int i = CLPERM_SG_IMPL_LOCAL; i <= CLPERM_SG_IMPL_PTX; i++)
        if (mask & (1u << i)) {
            size_t len = strlen(buf);
            snprintf(buf + len, cap - len, "%s%s", len ? "," : "", clperm_sg_impl_name((clperm_sg_impl)i));
        }
}

static const char *const families[] = {"scan", "shuffle", "tile", "rng", "sort", "permute"};

/* Where each family's tunables came from: JSON members, or one line of the table. */
static void tuning_sources(clperm_ctx *ctx, int json) {
    const char *file = NULL;
    printf(json ? "\"tuning\":{" : "    tuning:");
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        clperm_tuning_source src = CLPERM_TUNING_DEFAULTS;
        const char *detail = "";
        if (clperm_ctx_tuning_source(ctx, families[f], &src, &detail) != CLPERM_SUCCESS) continue;
        if (src == CLPERM_TUNING_FILE) file = detail;
        if (json) {
            printf("%s\"%s\":{", f ? "," : "", families[f]);
            json_str("source", clperm_tuning_source_name(src), 1);
            json_str("detail", detail ? detail : "", 0);
            printf("}");
        } else {
            printf("%s %s %s", f ? "," : "", families[f], clperm_tuning_source_name(src));
        }
    }
    if (json)
        printf("},");
    else
        printf("%s%s\n", file ? "; file " : "", file ? file : "");
}

int devices_main(int argc, char **argv) {
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: clperm devices [--json]\n\n"
                   "Lists every OpenCL platform and device in the order CLPERM_DEVICE indices use,\n"
                   "with the profile clperm decides for each and, below it, where each family's\n"
                   "tuning came from: the defaults, a built-in row (class, vendor or device) or a\n"
                   "tuning file (CLPERM_TUNING_FILE, else ~/.config/clperm/tuning.json).\n"
                   "--json prints one JSON object per device.\n");
            return 0;
        } else {
            fprintf(stderr, "clperm devices: unknown option \"%s\"\n", argv[i]);
            return 2;
        }
    }
    size_t count = 0;
    clperm_status st = clperm_device_count(&count);
    if (st != CLPERM_SUCCESS) {
        fprintf(stderr, "clperm devices: %s\n", clperm_status_string(st));
        return 1;
    }
    if (count == 0) {
        fprintf(stderr, "clperm devices: no OpenCL device found (is an ICD such as pocl-opencl-icd installed?)\n");
        return 1;
    }
    if (!json)
        printf("%-3s %-28s %-30s %-4s %4s %8s %6s %5s %5s %-32s %-5s %-14s %-8s %s\n", "#", "platform", "device", "type",
               "CUs", "local KB", "max WG", "banks", "sg", "sg width found by", "impl", "impls", "progress", "loops");
    int rc = 0;
    for (size_t i = 0; i < count; i++) {
        char sel[32];
        snprintf(sel, sizeof sel, "%zu", i);
        clperm_ctx *ctx = NULL;
        clperm_profile p;
        st = clperm_ctx_create_device(&ctx, sel);
        if (st == CLPERM_SUCCESS) st = clperm_ctx_profile(ctx, &p);
        if (st != CLPERM_SUCCESS) {
            fprintf(stderr, "clperm devices: device %zu: %s\n", i, clperm_status_string(st));
            clperm_ctx_free(ctx);
            rc = 1;
            continue;
        }
        char im[64];
        impls(p.sg_impls_available, im, sizeof im);
        if (json) {
            printf("{\"index\":%zu,", i);
            json_str("platform", p.platform_name, 1);
            json_str("platform_version", p.platform_version, 1);
            json_str("device", p.device_name, 1);
            json_str("device_version", p.device_version, 1);
            json_str("driver", p.driver_version, 1);
            json_str("opencl_c", p.opencl_c_version, 1);
            json_str("vendor", clperm_vendor_name(p.vendor), 1);
            json_str("type", type_name(p.device_type), 1);
            printf("\"compute_units\":%u,\"global_mem_bytes\":%llu,\"max_alloc_bytes\":%llu,"
                   "\"local_mem_bytes\":%llu,\"max_work_group_size\":%zu,\"banks\":%u,"
                   "\"forward_progress\":%s,\"loop_limit\":%u,\"atomics64\":%s,\"local_report_scale\":%u,"
                   "\"sg_width\":%u,\"sg_lockstep\":%s,\"registers_per_block\":%u,",
                   p.compute_units, (unsigned long long)p.global_mem_bytes, (unsigned long long)p.max_alloc_bytes,
                   (unsigned long long)p.local_mem_bytes, p.max_work_group_size, p.banks,
                   p.forward_progress ? "true" : "false", p.loop_limit, p.atomics64 ? "true" : "false",
                   p.local_report_scale, p.sg_width, p.sg_lockstep ? "true" : "false", p.registers_per_block);
            json_str("sg_source", clperm_sg_source_name(p.sg_source), 1);
            json_str("sg_impl", clperm_sg_impl_name(p.sg_impl), 1);
            tuning_sources(ctx, 1);
            json_str("sg_impls", im, 0);
            printf("}\n");
        } else {
            char loops[24] = "any";
            if (p.loop_limit) snprintf(loops, sizeof loops, "%u", p.loop_limit);
            printf("%-3zu %-28.28s %-30.30s %-4s %4u %8llu %6zu %5u %5u %-32s %-5s %-14s %-8s %s\n", i, p.platform_name,
                   p.device_name, type_name(p.device_type), p.compute_units,
                   (unsigned long long)(p.local_mem_bytes / 1024), p.max_work_group_size, p.banks, p.sg_width,
                   clperm_sg_source_name(p.sg_source), clperm_sg_impl_name(p.sg_impl), im,
                   p.forward_progress ? "yes" : "no", loops);
            tuning_sources(ctx, 0);
        }
        clperm_ctx_free(ctx);
    }
    return rc;
}
