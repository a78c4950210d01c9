#include <cusparse.h>

#include "check_libs.h"

void cl_cusparse_check(int status, const char *call, const char *file, int line)
{
    if (status != CUSPARSE_STATUS_SUCCESS)
        cl_library_fail("cuSPARSE", status, cusparseGetErrorString((cusparseStatus_t)status), call,
                        file, line);
}
