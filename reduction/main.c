// reduction: the sum of n floats (Oxford CUDA course, practical 4). Input floor(10 U), so the exact
// sum is an integer the gold knows exactly; --input uniform draws U in [0, 1) instead.
//
// Order of a run: options; input and double gold; each selected version (or all)
// verified and timed on device-resident data, cub::DeviceReduce::Sum beside them;
// --check prints the score table over 1e4..1e8 instead.
#include <math.h>
#include <stdlib.h>

#include "cudalab.h"
#include "reduction.h"

typedef struct {
    cl_common_args common;
    int input;
} options;

static const char *const input_names[] = {"integer", "uniform", NULL};
enum { INPUT_INTEGER, INPUT_UNIFORM };

// --- input, gold and tolerance --------------------------------------------------------

typedef struct {
    size_t n;
    float *x;
    double gold;
    double tolerance; // absolute
    double gold_ms;
} problem;

static problem make_problem(size_t n, int input, uint64_t seed)
{
    problem p = {.n = n, .x = cl_host_alloc(n * sizeof(float), "x")};
    uint64_t key = cl_rng_key(seed, 0);
    if (input == INPUT_INTEGER)
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            p.x[i] = (float)cl_rng_below(key, i, 10);
    else
        cl_fill_uniform_f32(p.x, n, key, 0.0f, 1.0f);
    double start = cl_wall_ms();
    p.gold = reduction_gold(p.x, n);
    p.gold_ms = cl_wall_ms() - start;
    // Integer inputs whose sum is below 2^24: every partial sum is an integer that
    // float holds exactly, so every version must be exact. Otherwise each element
    // passes through about log2(n) float additions, each off by at most 2^-24 of the
    // running sum: allow twice that bound (all inputs are >= 0, so the sum is sum|x|).
    if (input == INPUT_INTEGER && p.gold < 0x1.0p24)
        p.tolerance = 0.0;
    else
        p.tolerance = 2.0 * ceil(log2((double)n)) * 0x1.0p-24 * p.gold;
    return p;
}

// --- one version or the peer: verify once, then time ---------------------------------

typedef struct {
    const problem *p;
    cl_rotating x;
    float *out;
    float last_result;         // what the last measured call returned (--dump)
    reduction_launcher launch; // NULL: the peer
    reduction_workspace *ws;
    reduction_peer *peer;
    int iters;
} timed_call;

static void run_call(void *ctx, int rep)
{
    const timed_call *t = ctx;
    const float *x = cl_rotating_at(&t->x, rep);
    if (t->launch)
        t->launch(x, t->p->n, t->out, t->ws, 0);
    else
        reduction_peer_run(t->peer, x, t->p->n, t->out);
}

// Version k or the peer (cl_version_measure): poisons the result, runs once and
// verifies it, then times; the extra cells are the result and its error.
static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    timed_call *call = ctx;
    call->launch = k == CL_PEER ? NULL : reduction_versions[k].launch;
    cl_poison_device(call->out, sizeof(float));
    run_call(call, 0);
    CL_CUDA_CHECK(cudaMemcpy(&call->last_result, call->out, sizeof(float), cudaMemcpyDeviceToHost));
    cl_compare c = cl_compare_f32(&call->last_result, &call->p->gold, 1, 0.0, call->p->tolerance);
    cl_compare_report(k == CL_PEER ? "cub::DeviceReduce::Sum" : reduction_versions[k].info.name, c);
    if (extra) {
        extra[0] = CL_NUM(call->last_result);
        extra[1] = CL_NUM(c.max_abs_err);
    }
    return (cl_measured){.ms = cl_time_gpu(run_call, call, call->iters).median_ms, .ok = c.ok};
}

static timed_call device_setup(const problem *p, int iters)
{
    size_t bytes = p->n * sizeof(float);
    int copies = cl_rotation_count(bytes);
    cl_require_device_memory((bytes + 256) * copies, sizeof(float) * copies);
    timed_call call = {.p = p, .x = cl_rotating_alloc(bytes, copies), .iters = iters};
    cl_rotating_upload(&call.x, p->x, bytes);
    CL_CUDA_CHECK(cudaMalloc((void **)&call.out, sizeof(float)));
    call.ws = reduction_workspace_create();
    call.peer = reduction_peer_create(p->n);
    return call;
}

static void device_free(timed_call *call)
{
    cl_rotating_free(&call->x);
    CL_CUDA_CHECK(cudaFree(call->out));
    reduction_workspace_destroy(call->ws);
    reduction_peer_destroy(call->peer);
}

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(reduction_versions, reduction_version_count, reduction_fastest_version);
}

// The ladder's own columns: the sum each version returned and its error.
static const cl_column result_columns[] = {
    {"result", "result", 14, "%.9g"},
    {"abs_error", "error", 9, "%.3g"},
};

static bool run_versions(const problem *p, const options *opt, float *output)
{
    timed_call call = device_setup(p, (int)opt->common.iters);
    cl_note("\n%zu elements (%.1f MB read per call), input %s, gold %.17g (CPU %.2f ms), "
            "tolerance %.3g, timed over %d rotating copies",
            p->n, 4.0 * p->n / 1e6, input_names[opt->input], p->gold, p->gold_ms, p->tolerance,
            call.x.copies);
    // Read once; against a copy's read + write, 100% is the copy rate.
    bool ok = cl_run_ladder(&opt->common, versions(), "cub::DeviceReduce::Sum", p->n, 4.0 * p->n,
                            result_columns, 2, measure_version, &call);
    *output = call.last_result;
    device_free(&call);
    return ok;
}

// --- --check: the score table ------------------------------------------------------------

static cl_check_point measure_size(void *ctx, size_t n, int k)
{
    const options *opt = ctx;
    problem p = make_problem(n, opt->input, (uint64_t)opt->common.seed);
    timed_call call = device_setup(&p, (int)opt->common.iters);
    cl_check_point point = cl_check_pair(measure_version, &call, k, 4.0 * n);
    device_free(&call);
    free(p.x);
    return point;
}

static bool run_check_table(const options *opt)
{
    static const size_t sizes[] = {10000, 100000, 1000000, 10000000, 100000000};
    return cl_run_check_table(&opt->common, versions(), "cub::DeviceReduce::Sum", sizes, 5, 1.0,
                              measure_size, (void *)opt);
}

static int run(int argc, char **argv)
{
    options opt = {.input = INPUT_INTEGER};
    const cl_option own[] = {
        {0, "input", CL_ARG_CHOICE, &opt.input, "KIND",
         "integer: floor(10 U), exact sums; uniform: U in [0, 1), tolerance 2 log2(n) 2^-24 sum", 0,
         0, input_names},
        {0},
    };
    const cl_program prog = {
        .name = "reduction",
        .summary = "The sum of n floats: a ladder from one block to a single-pass kernel; "
                   "cub::DeviceReduce::Sum as the peer.",
        .example = "reduction -n 1e8 -k all",
        .n_default = 260817,
        .n_min = 1,
        .n_max = 100000000000,
        .n_meaning = "elements",
        .n_column = "elements",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    cl_device_open((int)opt.common.device);
    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    cl_require_host_memory(4 * opt.common.n, 4);
    cl_require_device_memory(4 * opt.common.n, 4);
    problem p = make_problem(opt.common.n, opt.input, (uint64_t)opt.common.seed);
    float output = NAN;
    bool ok = run_versions(&p, &opt, &output);
    if (opt.common.dump) {
        size_t one = 1;
        cl_dump_npy(opt.common.dump, "input", "<f4", p.x, sizeof(float), 1, &p.n);
        cl_dump_npy(opt.common.dump, "output", "<f4", &output, sizeof(float), 1, &one);
        cl_dump_npy(opt.common.dump, "gold", "<f8", &p.gold, sizeof(double), 1, &one);
    }
    free(p.x);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }
