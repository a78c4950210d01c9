// find_repeats: all indices i with A[i] == A[i+1], ascending, and their count
// (CMU 15-418 assignment 2), A[i] = rand % 10. Built from the suite's scan, then fused into it.
//
// Order of a run: options; input and gold; each selected version (or all) verified
// (count and every index) and timed on device-resident data, with
// cub::DeviceSelect::If beside them; --check prints the score table instead.
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "find_repeats.h"
#include "scan.h"

typedef struct {
    cl_common_args common;
    bool extended;
    bool example;
} options;

// The CMU 15-418 handout's example: {1,2,2,1,1,1,3,5,3,3} -> {1,3,4,8}.
static const int32_t handout_example[] = {1, 2, 2, 1, 1, 1, 3, 5, 3, 3};

typedef struct {
    size_t n, count;
    int32_t *a, *gold;
} problem;

static problem make_problem(size_t n, uint64_t seed, bool example)
{
    if (example)
        n = sizeof handout_example / sizeof handout_example[0];
    problem p = {.n = n};
    p.a = cl_host_alloc(n * sizeof(int32_t), "A");
    p.gold = cl_host_alloc(n * sizeof(int32_t), "gold");
    if (example)
        memcpy(p.a, handout_example, sizeof handout_example);
    else
        cl_fill_below_i32(p.a, n, cl_rng_key(seed, 0), 10);
    p.count = find_repeats_gold(p.a, n, p.gold);
    return p;
}

static void free_problem(problem *p)
{
    free(p->a);
    free(p->gold);
}

typedef struct {
    const problem *p;
    cl_rotating a, indices;
    int32_t *count;
    int32_t *host_indices; // the last measured call's output (--dump)
    find_repeats_workspace *ws;
    find_repeats_launcher launch; // NULL: the peer
    find_repeats_peer *peer;
    int iters;
} timed_call;

static void run_call(void *ctx, int rep)
{
    const timed_call *t = ctx;
    const int32_t *a = cl_rotating_at(&t->a, rep);
    int32_t *indices = cl_rotating_at(&t->indices, rep);
    if (t->launch)
        t->launch(a, t->p->n, indices, t->count, t->ws, 0);
    else
        find_repeats_peer_run(t->peer, a, t->p->n, indices, t->count);
}

// Version k or the peer (cl_version_measure): poisons indices and count, runs once
// and checks the count and every index, then times.
static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    (void)extra;
    timed_call *call = ctx;
    const char *name = k == CL_PEER ? "cub::DeviceSelect::If" : find_repeats_versions[k].info.name;
    call->launch = k == CL_PEER ? NULL : find_repeats_versions[k].launch;
    cl_poison_device(call->indices.base, call->indices.pitch * call->indices.copies);
    cl_poison_device(call->count, sizeof(int32_t));
    run_call(call, 0);
    int32_t count, want = (int32_t)call->p->count;
    CL_CUDA_CHECK(cudaMemcpy(&count, call->count, sizeof count, cudaMemcpyDeviceToHost));
    cl_compare c = cl_compare_i32(&count, &want, 1);
    cl_compare_report(name, c); // the count
    if (c.ok && count > 0) {
        CL_CUDA_CHECK(cudaMemcpy(call->host_indices, call->indices.base, count * sizeof(int32_t),
                                 cudaMemcpyDeviceToHost));
        c = cl_compare_i32(call->host_indices, call->p->gold, (size_t)count);
        cl_compare_report(name, c); // the indices
    }
    return (cl_measured){.ms = cl_time_gpu(run_call, call, call->iters).median_ms, .ok = c.ok};
}

static timed_call device_setup(const problem *p, int iters)
{
    size_t bytes = p->n * sizeof(int32_t);
    int copies = cl_rotation_count(bytes + p->count * sizeof(int32_t));
    cl_require_device_memory(2 * (bytes + 256) * copies + find_repeats_workspace_bytes(p->n) +
                                 bytes,
                             2 * sizeof(int32_t) * copies + 3 * sizeof(int32_t));
    timed_call call = {.p = p,
                       .a = cl_rotating_alloc(bytes, copies),
                       .indices = cl_rotating_alloc(bytes, copies),
                       .iters = iters};
    cl_rotating_upload(&call.a, p->a, bytes);
    CL_CUDA_CHECK(cudaMalloc((void **)&call.count, sizeof(int32_t)));
    call.host_indices = cl_host_alloc(bytes, "indices");
    call.ws = find_repeats_workspace_create(p->n);
    call.peer = find_repeats_peer_create(p->n);
    return call;
}

static void device_free(timed_call *call)
{
    cl_rotating_free(&call->a);
    cl_rotating_free(&call->indices);
    CL_CUDA_CHECK(cudaFree(call->count));
    free(call->host_indices);
    find_repeats_workspace_destroy(call->ws);
    find_repeats_peer_destroy(call->peer);
}

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(find_repeats_versions, find_repeats_version_count,
                          find_repeats_fastest_version);
}

static bool run_versions(const problem *p, const options *opt)
{
    timed_call call = device_setup(p, (int)opt->common.iters);
    cl_note("\n%zu elements of rand %% 10, %zu repeats; GB/s counts A read once and the "
            "indices written; timed over %d rotating copies; v3-bulk runs %s",
            p->n, p->count, call.a.copies, cl_scan_bulk_path());
    bool ok = cl_run_ladder(&opt->common, versions(), "cub::DeviceSelect::If", p->n,
                            4.0 * (p->n + p->count), NULL, 0, measure_version, &call);
    if (opt->common.dump) {
        cl_dump_npy(opt->common.dump, "input", "<i4", p->a, sizeof(int32_t), 1, &p->n);
        cl_dump_npy(opt->common.dump, "output", "<i4", call.host_indices, sizeof(int32_t), 1,
                    &p->count);
        cl_dump_npy(opt->common.dump, "gold", "<i4", p->gold, sizeof(int32_t), 1, &p->count);
    }
    device_free(&call);
    return ok;
}

static cl_check_point measure_size(void *ctx, size_t n, int k)
{
    const options *opt = ctx;
    problem p = make_problem(n, (uint64_t)opt->common.seed, false);
    timed_call call = device_setup(&p, (int)opt->common.iters);
    const double bytes = 4.0 * (p.n + p.count);
    cl_check_point point = cl_check_pair(measure_version, &call, k, bytes);
    device_free(&call);
    free_problem(&p);
    return point;
}

static bool run_check_table(const options *opt)
{
    static const size_t sizes[] = {10000,    100000,   1000000,  2000000,
                                   10000000, 20000000, 40000000, 256000000};
    return cl_run_check_table(&opt->common, versions(), "cub::DeviceSelect::If", sizes,
                              opt->extended ? 8 : 4, 1.25, measure_size, (void *)opt);
}

static int run(int argc, char **argv)
{
    options opt = {0};
    const cl_option own[] = {
        {0, "extended", CL_ARG_FLAG, &opt.extended, NULL,
         "--check also at 10M, 20M, 40M and 256M elements", 0, 0, NULL},
        {0, "example", CL_ARG_FLAG, &opt.example, NULL,
         "run on the CMU 15-418 handout's example {1,2,2,1,1,1,3,5,3,3} (expects {1,3,4,8}) "
         "instead of -n",
         0, 0, NULL},
        {0},
    };
    const cl_program prog = {
        .name = "find_repeats",
        .summary = "All indices i with A[i] == A[i+1], ascending, and their count: flags + "
                   "scan + scatter, then fused; cub::DeviceSelect::If as the peer.",
        .example = "find_repeats -n 16M -k all",
        .n_default = 16000000,
        .n_min = 1,
        .n_max = 2000000000,
        .n_meaning = "elements",
        .n_column = "elements",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    cl_device_open((int)opt.common.device);
    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    cl_require_host_memory(12 * opt.common.n, 12);
    problem p = make_problem(opt.common.n, (uint64_t)opt.common.seed, opt.example);
    bool ok = run_versions(&p, &opt);
    free_problem(&p);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }
