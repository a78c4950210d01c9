// Status checks for the CUDA libraries the peers use. Each library's check lives
// in its own object file, so a binary links only the libraries it calls.
// Every check prints file:line, the call and the status name, then exits 3.
#ifndef CUDALAB_CHECK_LIBS_H
#define CUDALAB_CHECK_LIBS_H

#ifdef __cplusplus
extern "C" {
#endif

void cl_cublas_check(int status, const char *call, const char *file, int line);
void cl_curand_check(int status, const char *call, const char *file, int line);
void cl_cufft_check(int status, const char *call, const char *file, int line);
void cl_cusparse_check(int status, const char *call, const char *file, int line);

// Status enums are passed as int so this header needs none of the libraries' headers.
#define CL_CUBLAS_CHECK(call) cl_cublas_check((int)(call), #call, __FILE__, __LINE__)
#define CL_CURAND_CHECK(call) cl_curand_check((int)(call), #call, __FILE__, __LINE__)
#define CL_CUFFT_CHECK(call) cl_cufft_check((int)(call), #call, __FILE__, __LINE__)
#define CL_CUSPARSE_CHECK(call) cl_cusparse_check((int)(call), #call, __FILE__, __LINE__)

// Shared by the four checks: prints and exits 3 unless status is 0 (each library's success).
void cl_library_fail(const char *library, int status, const char *status_name, const char *call,
                     const char *file, int line);

#ifdef __cplusplus
}
#endif

#endif
