#include "launch.h"

#include <pthread.h>
#include <cuda_runtime_api.h>

#include "check.h"

// Every kernel launches with a few shapes, on a device or two: a few dozen entries.
// Past the table's end the answers are still right, only asked again each time.
enum { MAX_FITS = 256, DEFAULT_SHARED_ALLOWANCE = 48 * 1024 };

typedef struct {
    const void *kernel;
    int device;
    int threads;
    size_t dynamic_shared;
    cl_kernel_fit fit;
} fit_entry;

typedef struct {
    const void *kernel;
    int device;
    size_t allowance; // the dynamic shared memory the kernel may have on this device
} allowance_entry;

static fit_entry fits[MAX_FITS];
static int fit_count;
static allowance_entry allowances[MAX_FITS];
static int allowance_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

// Allowances only grow: a launch with a smaller shape keeps what a larger one was given.
static void allow_shared(const void *kernel, int device, size_t bytes)
{
    allowance_entry *a = NULL;
    for (int i = 0; i < allowance_count && !a; i++)
        if (allowances[i].kernel == kernel && allowances[i].device == device)
            a = &allowances[i];
    if (a && a->allowance >= bytes)
        return;
    CL_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    if (!a && allowance_count < MAX_FITS)
        a = &allowances[allowance_count++];
    if (a)
        *a = (allowance_entry){kernel, device, bytes};
}

static cl_kernel_fit ask(const void *kernel, int device, int threads, size_t dynamic_shared)
{
    cl_kernel_fit fit = {0, 0, 0};
    struct cudaFuncAttributes attributes;
    CL_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    fit.code_arch = attributes.ptxVersion;
    if (threads <= 0)
        return fit;
    // Without the attribute a block gets 48 KB of shared memory, its static part included
    // (a kernel with 128 static bytes and exactly 48 KB dynamic fails to launch).
    if (dynamic_shared + attributes.sharedSizeBytes > DEFAULT_SHARED_ALLOWANCE)
        allow_shared(kernel, device, dynamic_shared);
    int sm_count;
    CL_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    CL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit.blocks_per_sm, kernel, threads,
                                                                dynamic_shared));
    fit.resident = fit.blocks_per_sm * sm_count;
    return fit;
}

cl_kernel_fit cl_kernel_fit_for(const void *kernel, int threads, size_t dynamic_shared)
{
    int device;
    CL_CUDA_CHECK(cudaGetDevice(&device));
    pthread_mutex_lock(&lock);
    for (int i = 0; i < fit_count; i++) {
        const fit_entry *e = &fits[i];
        if (e->kernel == kernel && e->device == device && e->threads == threads &&
            e->dynamic_shared == dynamic_shared) {
            cl_kernel_fit fit = e->fit;
            pthread_mutex_unlock(&lock);
            return fit;
        }
    }
    cl_kernel_fit fit = ask(kernel, device, threads, dynamic_shared);
    if (fit_count < MAX_FITS)
        fits[fit_count++] = (fit_entry){kernel, device, threads, dynamic_shared, fit};
    pthread_mutex_unlock(&lock);
    return fit;
}

int cl_kernel_code_arch(const void *kernel) { return cl_kernel_fit_for(kernel, 0, 0).code_arch; }

int cl_kernel_fit_cached(void)
{
    pthread_mutex_lock(&lock);
    const int count = fit_count;
    pthread_mutex_unlock(&lock);
    return count;
}
