// reduction: the sum of n floats (SPEC §3). Input floor(10 U), so the exact sum is
// an integer the gold knows exactly; --input uniform draws U in [0, 1) instead.
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
    cl_rotating x;
    size_t n;
    float *out;
    reduction_launcher launch; // NULL: the peer
    reduction_workspace *ws;
    reduction_peer *peer;
} timed_call;

static void run_call(void *ctx, int rep)
{
    const timed_call *t = ctx;
    const float *x = cl_rotating_at(&t->x, rep);
    if (t->launch)
        t->launch(x, t->n, t->out, t->ws, 0);
    else
        reduction_peer_run(t->peer, x, t->n, t->out);
}

typedef struct {
    double ms;
    float got;
    double error;
    bool ok;
} measured;

static measured measure(const problem *p, timed_call *call, const char *name, int iters)
{
    cl_poison_device(call->out, sizeof(float));
    run_call(call, 0);
    measured m;
    CL_CUDA_CHECK(cudaMemcpy(&m.got, call->out, sizeof(float), cudaMemcpyDeviceToHost));
    cl_compare c = cl_compare_f32(&m.got, &p->gold, 1, 0.0, p->tolerance);
    cl_compare_report(name, c);
    m.ok = c.ok;
    m.error = c.max_abs_err;
    m.ms = cl_time_gpu(run_call, call, iters).median_ms;
    return m;
}

static timed_call device_setup(const problem *p)
{
    size_t bytes = p->n * sizeof(float);
    int copies = cl_rotation_count(bytes);
    cl_require_device_memory((bytes + 256) * copies, sizeof(float) * copies);
    timed_call call = {.x = cl_rotating_alloc(bytes, copies), .n = p->n};
    cl_rotating_upload(&call.x, p->x, bytes);
    CL_CUDA_CHECK(cudaMalloc((void **)&call.out, sizeof(float)));
    return call;
}

static void device_free(timed_call *call)
{
    cl_rotating_free(&call->x);
    CL_CUDA_CHECK(cudaFree(call->out));
}

// The ladder's own columns: the sum each version returned and its error.
static const cl_column result_columns[] = {
    {"result", "result", 14, "%.9g"},
    {"abs_error", "error", 9, "%.3g"},
};

static bool run_versions(const problem *p, const options *opt, float *output)
{
    timed_call call = device_setup(p);
    call.ws = reduction_workspace_create();
    cl_note("\n%zu elements (%.1f MB read per call), input %s, gold %.17g (CPU %.2f ms), "
            "tolerance %.3g, timed over %d rotating copies",
            p->n, 4.0 * p->n / 1e6, input_names[opt->input], p->gold, p->gold_ms, p->tolerance,
            call.x.copies);
    cl_ladder ladder;
    cl_ladder_begin(&ladder, result_columns, 2);
    double bytes = 4.0 * p->n; // read once; against a copy's read + write, 100% is the copy rate
    int first, last;
    cl_selected_versions(&opt->common, reduction_version_count, &first, &last);
    bool ok = true;
    for (int k = first; k <= last; k++) {
        const reduction_version *v = &reduction_versions[k];
        call.launch = v->launch;
        measured m = measure(p, &call, v->info.name, (int)opt->common.iters);
        ok = ok && m.ok;
        *output = m.got;
        cl_ladder_row(&ladder, v->info.name, k, p->n, bytes, m.ms, m.ok,
                      (cl_cell[]){CL_NUM(m.got), CL_NUM(m.error)});
    }
    call.launch = NULL;
    call.peer = reduction_peer_create(p->n);
    measured ref = measure(p, &call, "cub::DeviceReduce::Sum", (int)opt->common.iters);
    cl_ladder_peer(&ladder, "cub::DeviceReduce::Sum", p->n, bytes, ref.ms, ref.ok,
                   (cl_cell[]){CL_NUM(ref.got), CL_NUM(ref.error)});
    reduction_peer_destroy(call.peer);
    reduction_workspace_destroy(call.ws);
    device_free(&call);
    return ok && ref.ok;
}

// --- --check: the score table ------------------------------------------------------------

static bool run_check_table(const options *opt)
{
    static const size_t sizes[] = {10000, 100000, 1000000, 10000000, 100000000};
    enum { NSIZES = sizeof sizes / sizeof sizes[0] };
    const reduction_version *best = &reduction_versions[reduction_fastest_version];
    cl_score_row rows[NSIZES];
    bool ok = true;
    reduction_workspace *ws = reduction_workspace_create();
    for (int s = 0; s < NSIZES; s++) {
        problem p = make_problem(sizes[s], opt->input, (uint64_t)opt->common.seed);
        timed_call call = device_setup(&p);
        call.ws = ws;
        call.peer = reduction_peer_create(p.n);
        measured ref = measure(&p, &call, "cub::DeviceReduce::Sum", (int)opt->common.iters);
        call.launch = best->launch;
        measured mine = measure(&p, &call, best->info.name, (int)opt->common.iters);
        rows[s] = cl_score_row_for(sizes[s], ref.ms, mine.ms, ref.ok && mine.ok, 1.0);
        ok = ok && rows[s].correct;
        reduction_peer_destroy(call.peer);
        device_free(&call);
        free(p.x);
    }
    reduction_workspace_destroy(ws);
    cl_note("\nreduction score table: Ref = cub::DeviceReduce::Sum, Your = %s, median times in ms",
            best->info.name);
    cl_score_table_print("Element Count", rows, NSIZES);
    return ok;
}

int main(int argc, char **argv)
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
        .kernels =
            CL_KERNEL_LIST(reduction_versions, reduction_version_count, reduction_fastest_version),
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
