// Error checking and exit codes shared by every cudalab binary.
//
// Exit codes, the same in every binary: 0 ok, 1 wrong result, 2 usage error, 3 CUDA
// or library error (out of memory included), 77 no usable CUDA device.
#ifndef CUDALAB_CHECK_H
#define CUDALAB_CHECK_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    CL_EXIT_OK = 0,
    CL_EXIT_WRONG = 1,
    CL_EXIT_USAGE = 2,
    CL_EXIT_CUDA = 3,
    CL_EXIT_NO_DEVICE = 77,
};

// The program name used as the prefix of every message (set by cl_parse_args).
extern const char *cl_progname;

// Prints "prog: message" to stderr and exits with `code`.
#if defined(__GNUC__)
__attribute__((noreturn, format(printf, 2, 3)))
#endif
void cl_die(int code, const char *fmt, ...);

// A function run once before a fatal exit (cl_die, a failed CL_CUDA_CHECK), for what must
// not outlive the process unannounced: a team of GPUs (team.h) aborts its NCCL
// communicators there, so no peer is left waiting on them. NULL removes it.
void cl_set_fatal_hook(void (*hook)(void));

// Exits 3 with file:line, the call and CUDA's error string when err != cudaSuccess.
void cl_cuda_check(cudaError_t err, const char *call, const char *file, int line);

#define CL_CUDA_CHECK(call) cl_cuda_check((call), #call, __FILE__, __LINE__)
// After a kernel launch: catches bad launch configurations at once; errors raised
// while the kernel runs surface at the next synchronizing call's check.
#define CL_LAUNCH_CHECK() cl_cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

// Host allocation that exits 3 with the size when the host is out of memory.
void *cl_host_alloc(size_t bytes, const char *what);

// Formats a byte count as "7.7 GB" (decimal units) into buf; returns buf.
const char *cl_format_bytes(double bytes, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
