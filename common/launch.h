// What the runtime says about a kernel on the current device, asked once per (kernel,
// device, block shape) and kept for the process: the architecture its code was
// compiled for, the shared memory it is allowed, and how many of its blocks an SM holds.
//
// Two rules follow from it, and every launcher in the suite keeps them:
// - A path that needs an instruction set (the bulk-copy engine, dependent launches) is
//   chosen by what the kernel was compiled for, not by what the GPU is. A build for
//   sm_80 running on an H100 runs its sm_80 code (through the PTX), where the sm_90-only
//   body is compiled out; asking the GPU would pick a path whose code is not there.
// - Nothing about a device is cached per process: `--batch` may switch devices between
//   runs, and each device has its own answers (and its own copy of each kernel's
//   shared-memory allowance).
#ifndef CUDALAB_LAUNCH_H
#define CUDALAB_LAUNCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    // The architecture the kernel's code was compiled for, as __CUDA_ARCH__ / 10
    // (cudaFuncAttributes.ptxVersion): 90 where sm_90 code runs, 80 where a build for
    // sm_80 runs on a newer GPU.
    int code_arch;
    int blocks_per_sm; // resident blocks an SM at the threads and shared bytes asked (0: none)
    int resident;      // blocks_per_sm times the SM count: the grid of a persistent kernel
} cl_kernel_fit;

// The facts above for `kernel` on the current device at `threads` a block and
// `dynamic_shared` bytes of dynamic shared memory. Raises the kernel's dynamic
// shared-memory allowance on this device first when dynamic_shared is more than the
// default 48 KB (exit 3 if the device cannot give it). threads == 0 asks for code_arch
// alone (blocks_per_sm and resident are 0).
cl_kernel_fit cl_kernel_fit_for(const void *kernel, int threads, size_t dynamic_shared);

// The kernel's code_arch on the current device.
int cl_kernel_code_arch(const void *kernel);

// How many (kernel, device, shape) answers are kept, for a test of the keys.
int cl_kernel_fit_cached(void);

#ifdef __cplusplus
}
#endif

#endif
