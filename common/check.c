#include "check.h"
#include "check_libs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

const char *cl_progname = "cudalab";

static void (*fatal_hook)(void);

void cl_set_fatal_hook(void (*hook)(void)) { fatal_hook = hook; }

// Once: a hook that fails fatally itself does not run again.
static void run_fatal_hook(void)
{
    void (*hook)(void) = fatal_hook;
    fatal_hook = NULL;
    if (hook)
        hook();
}

void cl_die(int code, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", cl_progname);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    run_fatal_hook();
    exit(code);
}

void cl_cuda_check(cudaError_t err, const char *call, const char *file, int line)
{
    if (err == cudaSuccess)
        return;
    const char *hint = "";
    if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorUnsupportedPtxVersion)
        hint = " (this binary has no code for this GPU: rebuild with `make clean && make`, "
               "or `make ARCH=sm_XY` for its compute capability)";
    else if (err == cudaErrorMemoryAllocation)
        hint = " (device memory: try a smaller -n)";
    fprintf(stderr, "%s: CUDA error at %s:%d: %s: %s (%s, %d)%s\n", cl_progname, file, line, call,
            cudaGetErrorString(err), cudaGetErrorName(err), (int)err, hint);
    run_fatal_hook();
    exit(CL_EXIT_CUDA);
}

// Buffers of 64 MB and more ask for 2 MB pages (Linux's transparent huge pages, which
// are often on only where asked: "madvise" mode): a 4 GB grid then takes 2,048 page
// faults, not a million. On the 16-core H100 machine, 16 threads first touching 4 GB
// took 1.3 s of kernel time this way, 2.5 s in 4 KB pages.
enum { HUGE_PAGE_BYTES = 2 << 20, HUGE_PAGES_FROM = 64 << 20 };

void *cl_host_alloc(size_t bytes, const char *what)
{
    void *p;
    if (bytes >= HUGE_PAGES_FROM) {
        size_t whole = (bytes + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
        p = aligned_alloc(HUGE_PAGE_BYTES, whole);
#ifdef MADV_HUGEPAGE
        if (p)
            madvise(p, whole, MADV_HUGEPAGE); // advice: where refused, 4 KB pages as before
#endif
    } else {
        p = malloc(bytes ? bytes : 1);
    }
    if (!p) {
        char buf[32];
        cl_die(CL_EXIT_CUDA, "out of host memory: %s needs %s", what,
               cl_format_bytes((double)bytes, buf, sizeof buf));
    }
    return p;
}

const char *cl_format_bytes(double bytes, char *buf, size_t len)
{
    static const char *units[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000.0 && u < 4) {
        bytes /= 1000.0;
        u++;
    }
    snprintf(buf, len, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
    return buf;
}

void cl_library_fail(const char *library, int status, const char *status_name, const char *call,
                     const char *file, int line)
{
    fprintf(stderr, "%s: %s error at %s:%d: %s: %s (%d)\n", cl_progname, library, file, line, call,
            status_name, status);
    exit(CL_EXIT_CUDA);
}
