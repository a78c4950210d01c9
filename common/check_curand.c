#include <curand.h>

#include "check_libs.h"

// cuRAND has no status-to-string function.
static const char *curand_status_name(curandStatus_t s)
{
    switch (s) {
#define NAME(x)                                                                                    \
    case x:                                                                                        \
        return #x;
        NAME(CURAND_STATUS_SUCCESS)
        NAME(CURAND_STATUS_VERSION_MISMATCH)
        NAME(CURAND_STATUS_NOT_INITIALIZED)
        NAME(CURAND_STATUS_ALLOCATION_FAILED)
        NAME(CURAND_STATUS_TYPE_ERROR)
        NAME(CURAND_STATUS_OUT_OF_RANGE)
        NAME(CURAND_STATUS_LENGTH_NOT_MULTIPLE)
        NAME(CURAND_STATUS_DOUBLE_PRECISION_REQUIRED)
        NAME(CURAND_STATUS_LAUNCH_FAILURE)
        NAME(CURAND_STATUS_PREEXISTING_FAILURE)
        NAME(CURAND_STATUS_INITIALIZATION_FAILED)
        NAME(CURAND_STATUS_ARCH_MISMATCH)
        NAME(CURAND_STATUS_INTERNAL_ERROR)
#undef NAME
    }
    return "unknown cuRAND status";
}

void cl_curand_check(int status, const char *call, const char *file, int line)
{
    if (status != CURAND_STATUS_SUCCESS)
        cl_library_fail("cuRAND", status, curand_status_name((curandStatus_t)status), call, file,
                        line);
}
