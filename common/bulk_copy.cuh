// Asynchronous copies into shared memory: sm_80's per-thread cp.async (below), and
// Hopper's bulk-copy engine (the TMA: cp.async.bulk, plain and tensor forms) and the
// mbarriers that say when its copies have landed: one thread asks for a whole run of
// bytes, or a whole 2D tile, between global and shared memory; the other threads spend
// no instructions on addresses. The scan (scan.cuh) streams its tiles through it,
// tridiag's v6 prefetches the next system with it, and matmul's v9 loads its tiles with
// the tensor form (tensor_load_2d), and the sort (sort.cu) has the L2 prefetch the
// keys of a tile ahead. sm_90 only: CL_HAVE_BULK_COPY is defined where the
// code is compiled for it, and a host launcher asks the kernel's compiled architecture
// (cl_kernel_fit_for(...).code_arch >= CL_BULK_COPY_ARCH, launch.h) before launching a
// kernel that uses it: in a build for an older GPU the kernel's body is compiled out,
// also when that build runs on an H100. Device code only.
#ifndef CUDALAB_BULK_COPY_CUH
#define CUDALAB_BULK_COPY_CUH

#include "launch.h"

// The first architecture with the bulk-copy engine, as cl_kernel_fit's code_arch.
#define CL_BULK_COPY_ARCH 90

__device__ __forceinline__ unsigned shared_address(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

// --- sm_80's cp.async: a thread's own copies global -> shared -------------------------
//
// A copy that does not hold a register or stall the thread: the data lands in shared
// memory while the thread goes on; a thread commits its copies in groups and waits until
// at most N groups are still in flight. matmul's v5-v8 stage their tiles with it, the sort
// (sort.cu) a tile's values. On older GPUs (a fat build's 7.5) each copies through a
// register, synchronously, and the commits and waits are nothing.
// CL_SM80: this pass compiles for compute capability 8.0 or later (cp.async here;
// matmul's mma.sync and ldmatrix), or for the host; 0 in a fat build's 7.5 pass.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define CL_SM80 0
#else
#define CL_SM80 1
#endif

// 16 bytes; `bytes` < 16 fills the rest of the chunk with zeros (global's part unread).
__device__ __forceinline__ void copy_async_16(void *shared, const void *global, int bytes)
{
#if CL_SM80
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(shared)),
                 "l"(global), "r"(bytes));
#else
    for (int i = 0; i < 16; i++)
        static_cast<char *>(shared)[i] = i < bytes ? static_cast<const char *>(global)[i] : 0;
#endif
}
// The same for one 4-byte element (cp.async's smallest): `bytes` 0 writes a zero.
__device__ __forceinline__ void copy_async_4(void *shared, const void *global, int bytes)
{
#if CL_SM80
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address(shared)),
                 "l"(global), "r"(bytes));
#else
    *static_cast<float *>(shared) = bytes ? *static_cast<const float *>(global) : 0.0f;
#endif
}
__device__ __forceinline__ void copy_async_commit()
{
#if CL_SM80
    asm volatile("cp.async.commit_group;\n");
#endif
}
// Waits until at most `pending` of this thread's committed groups are still in flight.
template <int pending> __device__ __forceinline__ void copy_async_wait()
{
#if CL_SM80
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending));
#endif
}
// Waits for all of this thread's copies, committed or not.
__device__ __forceinline__ void copy_async_wait_all()
{
#if CL_SM80
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= CL_BULK_COPY_ARCH * 10
#define CL_HAVE_BULK_COPY 1
__device__ __forceinline__ void mbarrier_init(unsigned long long *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count)
                 : "memory");
}
// Makes the initialized barriers visible to the bulk-copy engine.
__device__ __forceinline__ void mbarrier_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// The one arrival a phase expects, announcing `bytes` that copies will complete.
__device__ __forceinline__ void mbarrier_arrive_expect_bytes(unsigned long long *bar,
                                                             unsigned bytes)
{
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)),
        "r"(bytes)
        : "memory");
}
// One plain arrival (a consumer saying it is done with a buffer).
__device__ __forceinline__ void mbarrier_arrive(unsigned long long *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}
__device__ __forceinline__ void mbarrier_wait_parity(unsigned long long *bar, unsigned parity)
{
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;"
                     " selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(shared_address(bar)), "r"(parity)
                     : "memory");
}
// global -> shared, `bytes` a multiple of 16, both addresses 16-byte aligned; completes
// `bytes` of the barrier's expected count.
__device__ __forceinline__ void bulk_load(void *dst, const void *src, unsigned bytes,
                                          unsigned long long *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                 "%2, [%3];" ::"r"(shared_address(dst)),
                 "l"(src), "r"(bytes), "r"(shared_address(bar))
                 : "memory");
}
// The tensor form (TMA): the box at (x, y) of the 2D tensor a tensor map describes
// (x along its contiguous rows), into `dst` laid out (and swizzled) as the map says;
// parts of the box outside the tensor arrive as zeros and still count their bytes.
// `map` must be a __grid_constant__ kernel parameter or in global memory.
__device__ __forceinline__ void tensor_load_2d(void *dst, const void *map, int x, int y,
                                               unsigned long long *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(shared_address(dst)),
                 "l"(map), "r"(x), "r"(y), "r"(shared_address(bar))
                 : "memory");
}
// A hint: the L2 fetches `bytes` (a multiple of 16) from `src` (16-byte aligned) ahead of
// the loads that will want them; nothing waits for it.
__device__ __forceinline__ void bulk_prefetch_l2(const void *src, unsigned bytes)
{
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(bytes) : "memory");
}
// shared -> global, one bulk group per call.
__device__ __forceinline__ void bulk_store(void *dst, const void *src, unsigned bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n\t"
                 "cp.async.bulk.commit_group;" ::"l"(dst),
                 "r"(shared_address(src)), "r"(bytes)
                 : "memory");
}
// Waits until all but the newest PENDING bulk stores have read their shared memory.
template <int PENDING> __device__ __forceinline__ void bulk_store_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(PENDING) : "memory");
}
__device__ __forceinline__ void bulk_store_wait_all()
{
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
// Orders this thread's plain shared-memory writes before later bulk-copy reads of them.
__device__ __forceinline__ void fence_shared_for_bulk_copy()
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
#endif

#endif
