/* Early exits on a clperm_status, shared by the core library and the distributed layer (which
 * includes no other internal header). Not installed. */
#ifndef CLPERM_STATUS_MACROS_H
#define CLPERM_STATUS_MACROS_H

#define CLPERM_RETURN_IF(cond, code)                                                               \
    do {                                                                                           \
        if (cond) return (code);                                                                   \
    } while (0)

#define CLPERM_TRY(expr)                                                                           \
    do {                                                                                           \
        clperm_status clperm__s = (expr);                                                          \
        if (clperm__s != CLPERM_SUCCESS) return clperm__s;                                         \
    } while (0)

/* Inside a function with `clperm_status st` and a `cleanup:` label. */
#define CLPERM_CHECK(expr)                                                                         \
    do {                                                                                           \
        st = (expr);                                                                               \
        if (st != CLPERM_SUCCESS) goto cleanup;                                                    \
    } while (0)

#endif /* CLPERM_STATUS_MACROS_H */
