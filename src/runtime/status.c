/* Status names and messages, generated from the one list in clperm.h. */
#include "internal.h"

#define CLPERM__CL_STATUS_MAP(X)                                                                   \
    X(CL_DEVICE_NOT_FOUND, "no OpenCL device of the requested type")                               \
    X(CL_DEVICE_NOT_AVAILABLE, "OpenCL device not available")                                      \
    X(CL_COMPILER_NOT_AVAILABLE, "OpenCL compiler not available")                                  \
    X(CL_MEM_OBJECT_ALLOCATION_FAILURE, "device memory allocation failed")                         \
    X(CL_OUT_OF_RESOURCES, "device out of resources")                                              \
    X(CL_OUT_OF_HOST_MEMORY, "OpenCL runtime out of host memory")                                  \
    X(CL_BUILD_PROGRAM_FAILURE, "OpenCL program build failed")                                     \
    X(CL_INVALID_VALUE, "OpenCL: invalid value")                                                   \
    X(CL_INVALID_DEVICE, "OpenCL: invalid device")                                                 \
    X(CL_INVALID_CONTEXT, "OpenCL: invalid context")                                               \
    X(CL_INVALID_COMMAND_QUEUE, "OpenCL: invalid command queue")                                   \
    X(CL_INVALID_MEM_OBJECT, "OpenCL: invalid memory object")                                      \
    X(CL_INVALID_BINARY, "OpenCL: invalid program binary")                                         \
    X(CL_INVALID_BUILD_OPTIONS, "OpenCL: invalid build options")                                   \
    X(CL_INVALID_PROGRAM, "OpenCL: invalid program")                                               \
    X(CL_INVALID_KERNEL_NAME, "OpenCL: invalid kernel name")                                       \
    X(CL_INVALID_KERNEL_ARGS, "OpenCL: kernel arguments not set")                                  \
    X(CL_INVALID_WORK_GROUP_SIZE, "OpenCL: invalid work-group size")                               \
    X(CL_INVALID_GLOBAL_WORK_SIZE, "OpenCL: invalid global work size")                             \
    X(CL_INVALID_EVENT_WAIT_LIST, "OpenCL: invalid event wait list")                               \
    X(CL_INVALID_EVENT, "OpenCL: invalid event")                                                   \
    X(CL_INVALID_BUFFER_SIZE, "OpenCL: invalid buffer size")

const char *clperm_status_name(clperm_status status) {
    switch (status) {
#define CLPERM_X_NAME(name, value, msg)                                                            \
    case value: return "CLPERM_" #name;
        CLPERM_STATUS_MAP(CLPERM_X_NAME)
#undef CLPERM_X_NAME
#define CLPERM_X_CLNAME(name, msg)                                                                 \
    case name: return #name;
        CLPERM__CL_STATUS_MAP(CLPERM_X_CLNAME)
#undef CLPERM_X_CLNAME
    default: return status < 0 && status > -1000 ? "CL_ERROR" : "CLPERM_UNKNOWN_STATUS";
    }
}

const char *clperm_status_string(clperm_status status) {
    switch (status) {
#define CLPERM_X_MSG(name, value, msg)                                                             \
    case value: return msg;
        CLPERM_STATUS_MAP(CLPERM_X_MSG)
#undef CLPERM_X_MSG
#define CLPERM_X_CLMSG(name, msg)                                                                  \
    case name: return msg;
        CLPERM__CL_STATUS_MAP(CLPERM_X_CLMSG)
#undef CLPERM_X_CLMSG
    default: return status < 0 && status > -1000 ? "OpenCL error" : "unknown status";
    }
}

const char *clperm_version(void) { return CLPERM_VERSION_STRING; }
