#include <cublas_api.h>

#include "check_libs.h"

void cl_cublas_check(int status, const char *call, const char *file, int line)
{
    if (status != CUBLAS_STATUS_SUCCESS)
        cl_library_fail("cuBLAS", status, cublasGetStatusString((cublasStatus_t)status), call, file,
                        line);
}
