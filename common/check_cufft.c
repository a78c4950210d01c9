#include <cufft.h>

#include "check_libs.h"

// cuFFT has no status-to-string function.
static const char *cufft_status_name(cufftResult s)
{
    switch (s) {
#define NAME(x)                                                                                    \
    case x:                                                                                        \
        return #x;
        NAME(CUFFT_SUCCESS)
        NAME(CUFFT_INVALID_PLAN)
        NAME(CUFFT_ALLOC_FAILED)
        NAME(CUFFT_INVALID_TYPE)
        NAME(CUFFT_INVALID_VALUE)
        NAME(CUFFT_INTERNAL_ERROR)
        NAME(CUFFT_EXEC_FAILED)
        NAME(CUFFT_SETUP_FAILED)
        NAME(CUFFT_INVALID_SIZE)
        NAME(CUFFT_UNALIGNED_DATA)
        NAME(CUFFT_INVALID_DEVICE)
        NAME(CUFFT_NO_WORKSPACE)
        NAME(CUFFT_NOT_IMPLEMENTED)
        NAME(CUFFT_NOT_SUPPORTED)
        NAME(CUFFT_MISSING_DEPENDENCY)
        NAME(CUFFT_NVRTC_FAILURE)
        NAME(CUFFT_NVJITLINK_FAILURE)
        NAME(CUFFT_NVSHMEM_FAILURE)
#undef NAME
    }
    return "unknown cuFFT status";
}

void cl_cufft_check(int status, const char *call, const char *file, int line)
{
    if (status != CUFFT_SUCCESS)
        cl_library_fail("cuFFT", status, cufft_status_name((cufftResult)status), call, file, line);
}
