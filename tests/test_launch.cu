// Unit tests of common/launch.h on the GPU: the architecture a kernel's code was compiled
// for (what the bulk-copy scan and the sort's dependent launches are chosen by), the
// cache's keys (kernel, device, threads, shared bytes), and the shared-memory
// allowance on every device; and the team's wait (common/team.h), which must not hold a
// CPU core while the GPU works. Exits 77 without a usable device (tests/run.sh: skipped).
#include <stdlib.h>
#include <sys/resource.h>

#include "check.h"
#include "device.h"
#include "launch.h"
#include "team.h"
#include "timing.h"
#include "unit.h"

// Writes the architecture its code was compiled for.
__global__ void report_arch(int *arch)
{
#ifdef __CUDA_ARCH__
    *arch = __CUDA_ARCH__;
#endif
}

// Touches the last word of its dynamic shared memory, so a launch needs all of it.
__global__ void use_shared(int *out, int words)
{
    extern __shared__ int shared[];
    shared[words - 1] = words;
    __syncthreads();
    *out = shared[words - 1];
}

static int *device_word;

static void test_code_arch_is_what_the_kernel_runs()
{
    CL_CUDA_CHECK(cudaMemset(device_word, 0, sizeof(int)));
    report_arch<<<1, 1>>>(device_word);
    CL_CUDA_CHECK(cudaGetLastError());
    int ran = 0;
    CL_CUDA_CHECK(cudaMemcpy(&ran, device_word, sizeof ran, cudaMemcpyDeviceToHost));
    const int code_arch = cl_kernel_code_arch((const void *)report_arch);
    printf("  report_arch ran __CUDA_ARCH__ %d; code_arch %d\n", ran, code_arch);
    EXPECT(ran > 0);
    EXPECT(code_arch * 10 == ran);
}

static void test_cache_keys()
{
    const void *kernel = (const void *)use_shared;
    const int before = cl_kernel_fit_cached();
    const cl_kernel_fit a = cl_kernel_fit_for(kernel, 128, 0);
    EXPECT(cl_kernel_fit_cached() == before + 1);
    const cl_kernel_fit again = cl_kernel_fit_for(kernel, 128, 0);
    EXPECT(cl_kernel_fit_cached() == before + 1); // the same key: no new entry
    EXPECT(again.blocks_per_sm == a.blocks_per_sm && again.resident == a.resident);
    const cl_kernel_fit wider = cl_kernel_fit_for(kernel, 1024, 0);
    EXPECT(cl_kernel_fit_cached() == before + 2);
    EXPECT(wider.blocks_per_sm <= a.blocks_per_sm);
    const cl_kernel_fit heavier = cl_kernel_fit_for(kernel, 128, 40 * 1024);
    EXPECT(cl_kernel_fit_cached() == before + 3);
    EXPECT(heavier.blocks_per_sm < a.blocks_per_sm);
    EXPECT(a.resident == a.blocks_per_sm * cl_device_current()->sm_count);
}

// A launch with `bytes` of dynamic shared memory; its error (cleared).
static cudaError_t launch_with_shared(size_t bytes)
{
    use_shared<<<1, 32, bytes>>>(device_word, (int)(bytes / sizeof(int)));
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    return err;
}

// Past 48 KB a launch needs the allowance; a later ask for less does not lower it.
static void test_shared_allowance()
{
    const size_t optin = cl_device_current()->shared_optin_bytes;
    const size_t big = optin - 1024, small = 60 * 1024;
    EXPECT(big > small);
    EXPECT(launch_with_shared(big) != cudaSuccess); // no allowance yet
    const cl_kernel_fit fit = cl_kernel_fit_for((const void *)use_shared, 32, big);
    EXPECT(fit.blocks_per_sm >= 1);
    EXPECT(launch_with_shared(big) == cudaSuccess);
    cl_kernel_fit_for((const void *)use_shared, 32, small);
    EXPECT(launch_with_shared(big) == cudaSuccess);
}

// Each device has its own entries and its own allowance (`--batch` may switch devices).
static void test_second_device()
{
    const int first = cl_device_current()->index;
    const int before = cl_kernel_fit_cached();
    cl_device_open(1 - first);
    CL_CUDA_CHECK(cudaMalloc((void **)&device_word, sizeof(int)));
    test_code_arch_is_what_the_kernel_runs();
    const size_t big = cl_device_current()->shared_optin_bytes - 1024;
    cl_kernel_fit_for((const void *)use_shared, 32, big);
    EXPECT(cl_kernel_fit_cached() == before + 2); // the arch entry and this one
    EXPECT(launch_with_shared(big) == cudaSuccess);
}

// Busy for `ns` nanoseconds of the GPU's global timer.
__global__ void busy_for(unsigned long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    while (now - start < ns);
}

static double cpu_ms(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 +
           (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
}

// cl_team_wait on a kernel of 400 ms: the process's CPU time over the wait a small part
// of it (a wait that spins takes a whole core: CPU time = wall time).
static void test_team_wait_sleeps()
{
    cl_team team;
    const cl_team_plan plan = cl_team_plan_one(cl_device_current()->index);
    cl_team_open(&team, &plan, 60);
    busy_for<<<1, 1, 0, team.local[0].compute>>>(400ull * 1000 * 1000);
    CL_CUDA_CHECK(cudaGetLastError());
    const double wall0 = cl_wall_ms(), cpu0 = cpu_ms();
    cl_team_wait(&team);
    const double wall = cl_wall_ms() - wall0, cpu = cpu_ms() - cpu0;
    printf("  cl_team_wait: %.0f ms waited, %.0f ms of CPU\n", wall, cpu);
    EXPECT(wall > 300);
    EXPECT(cpu < 0.35 * wall);
    cl_team_close(&team);
}

int main(void)
{
    cl_progname = "test_launch";
    char why[512];
    const int devices = cl_device_count_or_reason(why, sizeof why);
    if (devices == 0) {
        printf("no usable CUDA device: %s\n", why);
        return CL_EXIT_NO_DEVICE;
    }
    cl_device_open(0);
    CL_CUDA_CHECK(cudaMalloc((void **)&device_word, sizeof(int)));
    RUN_TEST(test_code_arch_is_what_the_kernel_runs);
    RUN_TEST(test_cache_keys);
    RUN_TEST(test_shared_allowance);
    RUN_TEST(test_team_wait_sleeps);
    if (devices >= 2)
        RUN_TEST(test_second_device);
    return UNIT_RESULT();
}
