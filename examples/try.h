/* TRY(call), how the examples check every call. A clperm call returns a status: 0
 * (CLPERM_SUCCESS), an OpenCL error code passed through unchanged, or one of clperm's own codes.
 * clperm_status_name and clperm_status_string describe any of them, so OpenCL's calls (and their
 * errcode_ret values) are checked the same way. On failure TRY prints the call and its status and
 * jumps to the function's `cleanup` label. */
#ifndef CLPERM_EXAMPLE_TRY_H
#define CLPERM_EXAMPLE_TRY_H

#include <clperm.h>
#include <stdio.h>

#define TRY(call)                                                                                  \
    do {                                                                                           \
        clperm_status st_ = (call);                                                                \
        if (st_ != CLPERM_SUCCESS) {                                                               \
            fprintf(stderr, "%s failed: %s: %s\n", #call, clperm_status_name(st_),                 \
                    clperm_status_string(st_));                                                    \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

#endif
