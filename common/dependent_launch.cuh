// Programmatic dependent launch (sm_90): a kernel launched with it may start before the
// one before it in the stream has finished, and waits for that grid (wait_for_previous_grid)
// before it reads anything the grid wrote; a kernel lets the next one launch once all its
// blocks run (let_next_grid_launch). It saves the gap between two kernels, a launch's
// latency (~1-2 us): the sort's passes and matmul's copies into padded rows use it. Both
// calls do nothing in a plain launch, and are compiled out of code for older GPUs, so
// cl_launch asks for a dependent launch only where the kernel's code has the wait.
#ifndef CUDALAB_DEPENDENT_LAUNCH_CUH
#define CUDALAB_DEPENDENT_LAUNCH_CUH

#include "check.h"
#include "launch.h"

#define CL_DEPENDENT_LAUNCH_ARCH 90

__device__ __forceinline__ void wait_for_previous_grid()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= CL_DEPENDENT_LAUNCH_ARCH * 10
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void let_next_grid_launch()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= CL_DEPENDENT_LAUNCH_ARCH * 10
    asm volatile("griddepcontrol.launch_dependents;");
#endif
}

// A launch of `kernel`; with `dependent`, as a programmatic dependent launch where the
// kernel's code waits for the grid before it (wait_for_previous_grid: code for sm_90
// and up): it may start while the kernel before it in the stream finishes. Raises the
// kernel's shared-memory allowance first where shared_bytes needs it.
template <typename... Params, typename... Args>
static void cl_launch(bool dependent, void (*kernel)(Params...), dim3 blocks, unsigned threads,
                      size_t shared_bytes, cudaStream_t stream, Args... args)
{
    const cl_kernel_fit fit = cl_kernel_fit_for((const void *)kernel, (int)threads, shared_bytes);
    cudaLaunchAttribute attribute = {};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = blocks;
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = dependent && fit.code_arch >= CL_DEPENDENT_LAUNCH_ARCH ? 1 : 0;
    CL_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, args...));
}

#endif
