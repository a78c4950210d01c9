// transpose: B = A^T for any M x N float matrix, the CUDA-basics notes' two lessons in one
// kernel: coalesced access ("work along rows; when you need columns, transpose first")
// and shared-memory bank conflicts (pad the tile).
//
// Order of a run: options; A (random floats) and its transpose on the CPU; each selected
// version (or all) verified exactly and timed, cublasSgeam beside them; --in-place
// transposes a square A in place; --check prints the score table instead.
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "transpose.h"

typedef struct {
    cl_common_args common;
    size_t rows; // --m; 0: as -n
    bool in_place;
} options;

static const char peer_name[] = "cublasSgeam";

// --- input and gold -----------------------------------------------------------------

typedef struct {
    size_t rows, cols;
    float *a, *gold; // A (rows x cols) and A^T (cols x rows)
    double gold_ms;
} problem;

static size_t elements(const problem *p) { return p->rows * p->cols; }

static problem make_problem(size_t rows, size_t cols, uint64_t seed)
{
    problem p = {.rows = rows, .cols = cols};
    p.a = cl_host_alloc(rows * cols * sizeof(float), "A");
    p.gold = cl_host_alloc(rows * cols * sizeof(float), "A^T");
    cl_fill_uniform_f32(p.a, rows * cols, cl_rng_key(seed, 0), -1.0f, 1.0f);
    double start = cl_wall_ms();
    transpose_gold(p.a, p.gold, rows, cols);
    p.gold_ms = cl_wall_ms() - start;
    return p;
}

static void free_problem(problem *p)
{
    free(p->a);
    free(p->gold);
}

// --- one version or the peer: verify once, then time -----------------------------------

typedef struct {
    const problem *p;
    cl_rotating a; // copies of A; in place, each holds A or A^T (the work is the same)
    float *b;      // out of place: the result
    float *result; // host: the last verified result (--dump)
    bool in_place; // the versions' runs (the peer always works out of place)
    int k;         // the version being measured, or CL_PEER
    transpose_peer *peer;
    int iters;
} timed_call;

static void run_call(void *ctx, int rep)
{
    const timed_call *t = ctx;
    float *a = cl_rotating_at(&t->a, rep);
    if (t->k == CL_PEER)
        transpose_peer_run(t->peer, a, t->b, t->p->rows, t->p->cols);
    else if (t->in_place)
        transpose_versions[t->k].in_place(a, t->p->rows, 0);
    else
        transpose_versions[t->k].launch(a, t->b, t->p->rows, t->p->cols, 0);
}

// Version k or the peer: A afresh in copy 0, the result poisoned, one run verified exactly
// (a transpose moves values, it computes none), then timed. cublasSgeam cannot
// transpose in place (it allows C = A only untransposed), so with --in-place its row is
// the out-of-place transpose of the same matrix.
static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    (void)extra;
    timed_call *call = ctx;
    const problem *p = call->p;
    const size_t bytes = elements(p) * sizeof(float);
    const char *name = k == CL_PEER ? peer_name : transpose_versions[k].info.name;
    const bool in_place = call->in_place && k != CL_PEER;
    if (in_place && !transpose_versions[k].in_place) {
        cl_note("%s: works out of place only (skipped)", name);
        return (cl_measured){.skipped = true};
    }
    call->k = k;
    CL_CUDA_CHECK(cudaMemcpy(cl_rotating_at(&call->a, 0), p->a, bytes, cudaMemcpyHostToDevice));
    if (!in_place)
        cl_poison_device(call->b, bytes);
    run_call(call, 0);
    CL_CUDA_CHECK(cudaMemcpy(call->result, in_place ? cl_rotating_at(&call->a, 0) : call->b, bytes,
                             cudaMemcpyDeviceToHost));
    cl_compare c = cl_compare_f32_exact(call->result, p->gold, elements(p));
    cl_compare_report(name, c);
    return (cl_measured){.ms = cl_time_gpu(run_call, call, call->iters).median_ms, .ok = c.ok};
}

static size_t device_bytes(const problem *p, int copies)
{
    return (copies + 1) * (elements(p) * sizeof(float) + 256);
}

static timed_call device_setup(const problem *p, const options *opt)
{
    const size_t bytes = elements(p) * sizeof(float);
    const int copies = cl_rotation_count(bytes);
    cl_require_device_memory(device_bytes(p, copies), 0);
    timed_call call = {
        .p = p,
        .a = cl_rotating_alloc(bytes, copies),
        .result = cl_host_alloc(bytes, "result"),
        .in_place = opt->in_place,
        .peer = transpose_peer_create(),
        .iters = (int)opt->common.iters,
    };
    cl_rotating_upload(&call.a, p->a, bytes);
    CL_CUDA_CHECK(cudaMalloc((void **)&call.b, bytes));
    return call;
}

static void device_free(timed_call *call)
{
    cl_rotating_free(&call->a);
    CL_CUDA_CHECK(cudaFree(call->b));
    free(call->result);
    transpose_peer_destroy(call->peer);
}

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(transpose_versions, transpose_version_count, transpose_fastest_version);
}

// Bytes a transpose moves: every element read once and written once.
static double moved_bytes(const problem *p) { return 8.0 * (double)elements(p); }

static bool run_versions(const problem *p, const options *opt, float *output)
{
    timed_call call = device_setup(p, opt);
    cl_note("\nA: %zu x %zu floats%s; %.1f MB moved a call; gold %.1f ms on the CPU; results "
            "compared exactly; timed over %d rotating copies",
            p->rows, p->cols, opt->in_place ? ", transposed in place" : "", moved_bytes(p) / 1e6,
            p->gold_ms, call.a.copies);
    bool ok = cl_run_ladder(&opt->common, versions(), peer_name, elements(p), moved_bytes(p), NULL,
                            0, measure_version, &call);
    memcpy(output, call.result, elements(p) * sizeof(float));
    device_free(&call);
    return ok;
}

// --- --check: the score table ------------------------------------------------------------

static const size_t check_shapes[][2] = {
    {1024, 1024}, {4096, 4096}, {6000, 12000}, {8192, 8192}, {16384, 16384},
};
static const char *const check_labels[] = {"1024^2", "4096^2", "6000 x 12000", "8192^2", "16384^2"};
enum { CHECK_SHAPES = sizeof check_shapes / sizeof check_shapes[0] };

static cl_check_point measure_shape(void *ctx, size_t index, int k)
{
    const options *opt = ctx;
    problem p =
        make_problem(check_shapes[index][0], check_shapes[index][1], (uint64_t)opt->common.seed);
    timed_call call = device_setup(&p, opt);
    cl_check_point point = cl_check_pair(measure_version, &call, k, moved_bytes(&p));
    point.size = (double)elements(&p);
    device_free(&call);
    free_problem(&p);
    return point;
}

static bool run_check_table(const options *opt)
{
    size_t indices[CHECK_SHAPES];
    for (size_t i = 0; i < CHECK_SHAPES; i++)
        indices[i] = i;
    return cl_run_check_table_labelled(&opt->common, versions(), peer_name, "Matrix", check_labels,
                                       indices, CHECK_SHAPES, 1.25, measure_shape, (void *)opt);
}

static int run(int argc, char **argv)
{
    options opt = {0};
    const cl_option own[] = {
        {0, "m", CL_ARG_SIZE, &opt.rows, "M", "rows of A (default: as -n, a square)", 1, INT_MAX,
         NULL},
        {0, "in-place", CL_ARG_FLAG, &opt.in_place, NULL,
         "transpose a square A in place (v1, v4; cublasSgeam's row stays out of place)", 0, 0,
         NULL},
        {0},
    };
    const cl_program prog = {
        .name = "transpose",
        .summary =
            "B = A^T for an M x N float matrix: coalescing and shared-memory bank conflicts; "
            "cublasSgeam as the peer.",
        .example = "transpose -k all -n 16384",
        .n_default = 8192,
        .n_min = 1,
        .n_max = INT_MAX,
        .n_meaning = "columns of A (N)",
        .n_column = "elements",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    const size_t cols = opt.common.n, rows = opt.rows ? opt.rows : cols;
    if (opt.in_place && rows != cols)
        cl_die(CL_EXIT_USAGE, "--in-place: A must be square (here %zu x %zu)", rows, cols);
    if (opt.common.check && (opt.in_place || opt.rows))
        cl_die(CL_EXIT_USAGE,
               "--check scores the out-of-place shapes of its table; leave out --in-place and --m");
    const int named = opt.common.kernel ? opt.common.kernel_index : -1;
    if (opt.in_place && named >= 0 && !transpose_versions[named].in_place)
        cl_die(CL_EXIT_USAGE, "-k %s --in-place: %s works out of place only", opt.common.kernel,
               transpose_versions[named].info.name);
    cl_device_open((int)opt.common.device);
    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    if ((double)rows * (double)cols > (double)SIZE_MAX / 16)
        cl_die(CL_EXIT_USAGE, "A of %zu x %zu is too large to address", rows, cols);
    const size_t bytes = rows * cols * sizeof(float);
    cl_require_host_memory(3 * bytes, 0);
    cl_require_device_memory(2 * bytes, 0);
    problem p = make_problem(rows, cols, (uint64_t)opt.common.seed);
    float *output = cl_host_alloc(bytes, "output");
    bool ok = run_versions(&p, &opt, output);
    if (opt.common.dump) {
        const size_t a_shape[2] = {rows, cols}, b_shape[2] = {cols, rows};
        cl_dump_npy(opt.common.dump, "input", "<f4", p.a, sizeof(float), 2, a_shape);
        cl_dump_npy(opt.common.dump, "output", "<f4", output, sizeof(float), 2, b_shape);
        cl_dump_npy(opt.common.dump, "gold", "<f4", p.gold, sizeof(float), 2, b_shape);
    }
    free(output);
    free_problem(&p);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }
