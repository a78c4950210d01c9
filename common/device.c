#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "report.h"
#include "timing.h"

static cl_device_info device;
static int device_open;

const cl_device_info *cl_device_current(void) { return device_open ? &device : NULL; }

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
} copy_work;

static void run_copy(void *ctx, int rep)
{
    (void)rep;
    copy_work *w = ctx;
    CL_CUDA_CHECK(cudaMemcpyAsync(w->dst, w->src, w->bytes, cudaMemcpyDeviceToDevice, 0));
}

// The rate "% of copy" compares with: a device-to-device cudaMemcpy of >= 256 MB,
// bytes read + written.
static double measure_copy_gbps(void)
{
    size_t free_bytes, total_bytes;
    CL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    size_t bytes = (size_t)512 << 20;
    while (bytes > ((size_t)16 << 20) && 2 * bytes > free_bytes / 2)
        bytes /= 2;
    copy_work w = {.bytes = bytes};
    CL_CUDA_CHECK(cudaMalloc(&w.dst, bytes));
    CL_CUDA_CHECK(cudaMalloc((void **)&w.src, bytes));
    CL_CUDA_CHECK(cudaMemset(w.dst, 1, bytes));
    CL_CUDA_CHECK(cudaMemset((void *)w.src, 2, bytes));
    cl_timing t = cl_time_gpu(run_copy, &w, 20);
    CL_CUDA_CHECK(cudaFree(w.dst));
    CL_CUDA_CHECK(cudaFree((void *)w.src));
    return 2.0 * (double)bytes / (t.median_ms * 1e-3) / 1e9;
}

static const cl_column summary_columns[] = {
    {"device", "device", 24, NULL},        {"index", "index", 5, NULL},
    {"sm_count", "SMs", 4, NULL},          {"cc", "cc", 4, NULL},
    {"memory_gb", "memory GB", 9, "%.1f"}, {"l2_mb", "L2 MB", 5, "%.0f"},
    {"copy_gbps", "copy GB/s", 9, "%.0f"},
};

static void version_text(int v, char *out, size_t len)
{
    snprintf(out, len, "%d.%d", v / 1000, v % 1000 / 10);
}

void cl_no_device_reason(int driver_version, int runtime_version, int no_device,
                         const char *visible, const char *error_text, char *out, size_t len)
{
    char driver[16], runtime[16];
    version_text(driver_version, driver, sizeof driver);
    version_text(runtime_version, runtime, sizeof runtime);
    if (driver_version == 0)
        snprintf(out, len,
                 "no NVIDIA driver is installed; the kernels need an NVIDIA GPU and its driver "
                 "(the CPU parts run without: make test, renderer -r cpuref, mosaic --mode cpu)");
    else if (driver_version < runtime_version)
        snprintf(out, len,
                 "the NVIDIA driver supports CUDA %s and this build needs %s: update the driver, "
                 "or build with a CUDA toolkit no newer than %s",
                 driver, runtime, driver);
    else if (no_device && visible)
        snprintf(out, len, "CUDA_VISIBLE_DEVICES=%s hides every GPU: unset it or name a GPU",
                 visible);
    else if (no_device)
        snprintf(out, len, "the NVIDIA driver (CUDA %s) finds no GPU in this machine", driver);
    else
        snprintf(out, len, "CUDA could not start: %s", error_text);
}

int cl_device_count_or_reason(char *why, size_t len)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    // No driver, an old driver (both cudaErrorInsufficientDriver), no GPU
    // (cudaErrorNoDevice) or any other failure to start CUDA: no usable device. The
    // count is unset on error.
    if (err == cudaSuccess && count > 0)
        return count;
    int driver_version = 0, runtime_version = 0;
    cudaDriverGetVersion(&driver_version); // 0 when no driver is installed
    cudaRuntimeGetVersion(&runtime_version);
    cl_no_device_reason(driver_version, runtime_version,
                        err == cudaErrorNoDevice || (err == cudaSuccess && count <= 0),
                        getenv("CUDA_VISIBLE_DEVICES"), cudaGetErrorString(err), why, len);
    return 0;
}

// The device's line (a JSON object with --json), printed by every run.
static const cl_device_info *print_device(int index)
{
    cl_table table = {"device", summary_columns, 7};
    char cc[8];
    snprintf(cc, sizeof cc, "%d.%d", device.cc_major, device.cc_minor);
    if (!cl_report_json())
        printf("%s: device %d: %s, %d SMs, cc %s, %.1f GB, L2 %.0f MB, copy %.0f GB/s "
               "(cudaMemcpy D2D, read + write)\n",
               cl_progname, index, device.name, device.sm_count, cc, device.total_bytes / 1e9,
               device.l2_bytes / 1e6, device.copy_gbps);
    else
        cl_table_row(&table,
                     (cl_cell[]){CL_STR(device.name), CL_INT(index), CL_INT(device.sm_count),
                                 CL_STR(cc), CL_NUM(device.total_bytes / 1e9),
                                 CL_NUM(device.l2_bytes / 1e6), CL_NUM(device.copy_gbps)});
    return &device;
}

const cl_device_info *cl_device_open(int index)
{
    char reason[512];
    const int count = cl_device_count_or_reason(reason, sizeof reason);
    if (count == 0) {
        fprintf(stderr, "%s: no usable CUDA device: %s\n", cl_progname, reason);
        exit(CL_EXIT_NO_DEVICE);
    }
    if (index < 0 || index >= count)
        cl_die(CL_EXIT_USAGE, "-d %d: expected a device index in 0..%d (%d CUDA device%s here)",
               index, count - 1, count, count == 1 ? "" : "s");
    CL_CUDA_CHECK(cudaSetDevice(index));
    if (device_open && device.index == index) // a batch's next run (cl_main): measured once
        return print_device(index);
    // By default a program waiting for the GPU spins on its core. CUDALAB_BLOCKING_SYNC=1
    // makes it sleep until the GPU is done (a few microseconds later to wake; GPU times
    // come from events, so the tables do not change): for many programs sharing the
    // cores, as tests/run.sh runs them.
    const char *blocking = getenv("CUDALAB_BLOCKING_SYNC");
    if (blocking && strcmp(blocking, "0") != 0)
        CL_CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    struct cudaDeviceProp prop;
    CL_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
    device.index = index;
    snprintf(device.name, sizeof device.name, "%s", prop.name);
    device.sm_count = prop.multiProcessorCount;
    device.cc_major = prop.major;
    device.cc_minor = prop.minor;
    device.total_bytes = prop.totalGlobalMem;
    device.l2_bytes = (size_t)prop.l2CacheSize;
    device.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    device.shared_optin_bytes = prop.sharedMemPerBlockOptin;
    device.shared_sm_bytes = prop.sharedMemPerMultiprocessor;
    device.shared_reserved_bytes = prop.reservedSharedMemPerBlock;
    int memory_khz; // cudaDeviceProp lost its memory clock in CUDA 13; the attribute stays
    CL_CUDA_CHECK(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, index));
    device.dram_rated_gbps = 2.0 * memory_khz * 1e3 * (prop.memoryBusWidth / 8) / 1e9;
    device.concurrent_managed_access = prop.concurrentManagedAccess;
    device_open = 1;
    device.copy_gbps = measure_copy_gbps();
    return print_device(index);
}

void cl_require_device_memory(size_t bytes, size_t bytes_per_n)
{
    size_t free_bytes, total_bytes;
    CL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Keep a margin for the context, library workspaces and fragmentation.
    size_t usable = free_bytes / 100 * 95;
    if (bytes <= usable)
        return;
    char need[32], have[32], hint[64] = "";
    if (bytes_per_n > 0)
        snprintf(hint, sizeof hint, ": try -n %zu or less", usable / bytes_per_n);
    cl_die(CL_EXIT_CUDA, "needs %s of device memory, %s free%s",
           cl_format_bytes((double)bytes, need, sizeof need),
           cl_format_bytes((double)free_bytes, have, sizeof have), hint);
}

void cl_require_host_memory(size_t bytes, size_t bytes_per_n)
{
    double physical = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    double usable = physical * 0.8;
    if (physical <= 0 || (double)bytes <= usable)
        return;
    char need[32], have[32], hint[64] = "";
    if (bytes_per_n > 0)
        snprintf(hint, sizeof hint, ": try -n %.0f or less", usable / (double)bytes_per_n);
    cl_die(CL_EXIT_CUDA, "needs %s of host memory, %s in this machine%s",
           cl_format_bytes((double)bytes, need, sizeof need),
           cl_format_bytes(physical, have, sizeof have), hint);
}

unsigned cl_grid_blocks(size_t n, size_t per_block, const char *what)
{
    const size_t blocks = cl_ceil_div(n, per_block);
    if (blocks > CL_MAX_GRID_X)
        cl_die(CL_EXIT_USAGE,
               "%s: %zu blocks of %zu for %zu items, past a launch's 2^31 - 1 blocks: a smaller "
               "size or more a block",
               what, blocks, per_block, n);
    return (unsigned)blocks;
}

int cl_rotation_count(size_t bytes)
{
    size_t l2 = device_open ? device.l2_bytes : ((size_t)64 << 20);
    if (bytes == 0)
        return 1;
    size_t sets = (3 * l2 + bytes - 1) / bytes;
    return sets < 1 ? 1 : sets > 4096 ? 4096 : (int)sets;
}

void cl_poison_device(void *ptr, size_t bytes) { CL_CUDA_CHECK(cudaMemset(ptr, 0xFF, bytes)); }

cl_rotating cl_rotating_alloc(size_t bytes, int copies)
{
    cl_rotating r = {.pitch = (bytes + 255) / 256 * 256, .copies = copies};
    if (r.pitch == 0)
        r.pitch = 256;
    CL_CUDA_CHECK(cudaMalloc((void **)&r.base, r.pitch * (size_t)copies));
    return r;
}

void cl_rotating_upload(const cl_rotating *r, const void *host, size_t bytes)
{
    CL_CUDA_CHECK(cudaMemcpy(r->base, host, bytes, cudaMemcpyHostToDevice));
    // Doubling device-to-device copies: log2(copies) calls instead of one each. Each is
    // a 2D copy of `bytes` a row, so the padding between copies, which nothing wrote,
    // is never read.
    for (int have = 1; have < r->copies;) {
        int more = have < r->copies - have ? have : r->copies - have;
        CL_CUDA_CHECK(cudaMemcpy2D(r->base + (size_t)have * r->pitch, r->pitch, r->base, r->pitch,
                                   bytes, (size_t)more, cudaMemcpyDeviceToDevice));
        have += more;
    }
}

void cl_rotating_copy(const cl_rotating *dst, const cl_rotating *src, size_t bytes)
{
    CL_CUDA_CHECK(cudaMemcpy2D(dst->base, dst->pitch, src->base, src->pitch, bytes,
                               (size_t)src->copies, cudaMemcpyDeviceToDevice));
}

void *cl_rotating_at(const cl_rotating *r, int rep)
{
    return r->base + (size_t)(rep % r->copies) * r->pitch;
}

void cl_rotating_free(cl_rotating *r)
{
    CL_CUDA_CHECK(cudaFree(r->base));
    r->base = NULL;
}

void *cl_scratch_reserve(cl_device_scratch *s, size_t bytes)
{
    if (bytes == 0)
        bytes = 1; // CUB may ask for none; a valid pointer all the same
    if (s->ptr && bytes <= s->bytes)
        return s->ptr;
    CL_CUDA_CHECK(cudaFree(s->ptr));
    s->ptr = NULL;
    cl_require_device_memory(bytes, 0);
    CL_CUDA_CHECK(cudaMalloc(&s->ptr, bytes));
    s->bytes = bytes;
    return s->ptr;
}

void cl_scratch_free(cl_device_scratch *s)
{
    CL_CUDA_CHECK(cudaFree(s->ptr));
    s->ptr = NULL;
    s->bytes = 0;
}
