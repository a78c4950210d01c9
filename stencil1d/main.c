// stencil1d: out[i] = the sum of the 2R + 1 inputs around i (the CUDA-basics notes'
// stencil_1d: RADIUS 3, BLOCK_SIZE 16, N 1024 ints, every input 1 so every output 7), for
// any n, any radius 1..64, ints or floats.
//
// Order of a run: options; input (n + 2R values: R extra at each end, as the notes
// have them) and gold; each selected version (or all) verified and timed, the notes'
// kernel (v2) as the reference beside them; --check prints the score table instead.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "stencil1d.h"

typedef struct {
    cl_common_args common;
    long radius;
    int type;
    int input;
    long block;
} options;

static const char *const type_names[] = {"int", "float", NULL};
static const char *const input_names[] = {"random", "ones", NULL};
enum { INPUT_RANDOM, INPUT_ONES };
static const char peer_name[] = "v2-shared (the notes' kernel)";
enum { PEER_VERSION = 1 };

// --- input, gold and tolerance --------------------------------------------------------

typedef struct {
    size_t n;
    int radius;
    stencil_type type;
    void *in;          // n + 2R values of `type`
    int32_t *gold_int; // ints: the exact sums
    double *gold_float;
    double tolerance; // floats: absolute (stencil_float_tolerance)
    double gold_ms;
} problem;

static size_t input_count(const problem *p) { return p->n + 2 * (size_t)p->radius; }

// Random ints lie in [-2^20, 2^20), so no sum of up to 129 of them (nor v4's prefix sums of
// 256) leaves int32's range; random floats in [-1, 1).
static problem make_problem(size_t n, const options *opt)
{
    problem p = {.n = n, .radius = (int)opt->radius, .type = (stencil_type)opt->type};
    const size_t count = input_count(&p);
    const uint64_t key = cl_rng_key((uint64_t)opt->common.seed, 0);
    p.in = cl_host_alloc(count * 4, "input");
    double start;
    if (p.type == STENCIL_INT) {
        int32_t *in = p.in;
        if (opt->input == INPUT_ONES)
            for (size_t i = 0; i < count; i++)
                in[i] = 1;
        else {
            cl_fill_below_i32(in, count, key, 1u << 21);
#pragma omp parallel for schedule(static)
            for (size_t i = 0; i < count; i++)
                in[i] -= 1 << 20;
        }
        p.gold_int = cl_host_alloc(n * sizeof(int32_t), "gold");
        start = cl_wall_ms();
        stencil_gold_int(in, n, p.radius, p.gold_int);
    } else {
        float *in = p.in;
        if (opt->input == INPUT_ONES)
            for (size_t i = 0; i < count; i++)
                in[i] = 1.0f;
        else
            cl_fill_uniform_f32(in, count, key, -1.0f, 1.0f);
        double max_abs = 0.0;
#pragma omp parallel for reduction(max : max_abs) schedule(static)
        for (size_t i = 0; i < count; i++)
            max_abs = fmax(max_abs, fabs(in[i]));
        p.tolerance = stencil_float_tolerance(p.radius, max_abs);
        p.gold_float = cl_host_alloc(n * sizeof(double), "gold");
        start = cl_wall_ms();
        stencil_gold_float(in, n, p.radius, p.gold_float);
    }
    p.gold_ms = cl_wall_ms() - start;
    return p;
}

static void free_problem(problem *p)
{
    free(p->in);
    free(p->gold_int);
    free(p->gold_float);
}

// --- one version or the reference: verify once, then time ---------------------------

typedef struct {
    const problem *p;
    cl_rotating in;
    void *out;
    void *result; // host: the last verified version's output (--dump, --input ones)
    stencil_args args;
    stencil_launcher launch;
    int iters;
} timed_call;

static void run_call(void *ctx, int rep)
{
    timed_call *t = ctx;
    t->args.in = cl_rotating_at(&t->in, rep);
    t->launch(&t->args, 0);
}

static cl_compare compare(const timed_call *call)
{
    const problem *p = call->p;
    if (p->type == STENCIL_INT)
        return cl_compare_i32(call->result, p->gold_int, p->n);
    return cl_compare_f32(call->result, p->gold_float, p->n, 0.0, p->tolerance);
}

// Version k or the reference (v2): poisons the output, runs once and verifies every
// element, then times; the extra cell is the largest error.
static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    timed_call *call = ctx;
    const int version = k == CL_PEER ? PEER_VERSION : k;
    call->launch = stencil_versions[version].launch;
    cl_poison_device(call->out, call->p->n * 4);
    run_call(call, 0);
    CL_CUDA_CHECK(cudaMemcpy(call->result, call->out, call->p->n * 4, cudaMemcpyDeviceToHost));
    cl_compare c = compare(call);
    cl_compare_report(k == CL_PEER ? peer_name : stencil_versions[k].info.name, c);
    if (extra)
        extra[0] = CL_NUM(c.max_abs_err);
    return (cl_measured){.ms = cl_time_gpu(run_call, call, call->iters).median_ms, .ok = c.ok};
}

static size_t device_bytes(size_t n, int radius, int copies)
{
    return copies * ((n + 2 * (size_t)radius) * 4 + 256) + n * 4;
}

static timed_call device_setup(const problem *p, const options *opt)
{
    const size_t in_bytes = input_count(p) * 4;
    int copies = cl_rotation_count(in_bytes);
    cl_require_device_memory(device_bytes(p->n, p->radius, copies), 4 * (copies + 1));
    timed_call call = {
        .p = p,
        .in = cl_rotating_alloc(in_bytes, copies),
        .result = cl_host_alloc(p->n * 4, "result"),
        .args = {.n = p->n, .radius = p->radius, .type = p->type, .block = (int)opt->block},
        .iters = (int)opt->common.iters,
    };
    cl_rotating_upload(&call.in, p->in, in_bytes);
    CL_CUDA_CHECK(cudaMalloc(&call.out, p->n * 4));
    call.args.out = call.out;
    return call;
}

static void device_free(timed_call *call)
{
    cl_rotating_free(&call->in);
    CL_CUDA_CHECK(cudaFree(call->out));
    free(call->result);
}

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(stencil_versions, stencil_version_count, stencil_fastest_version);
}

// Bytes a run moves: every input read once, every output written once.
static double moved_bytes(size_t n, int radius) { return 4.0 * (2.0 * n + 2.0 * radius); }

static const cl_column error_column[] = {{"max_abs_error", "error", 9, "%.3g"}};

// With every input 1 (--input ones) every output is 2R + 1: the notes' program prints 7s.
static void note_ones(const timed_call *call)
{
    const problem *p = call->p;
    size_t same = 0;
    for (size_t i = 0; i < p->n; i++)
        same += p->type == STENCIL_INT
                    ? ((const int32_t *)call->result)[i] == 2 * p->radius + 1
                    : ((const float *)call->result)[i] == 2.0f * p->radius + 1.0f;
    cl_note("every input 1: %zu of %zu outputs are %d (2R + 1)%s", same, p->n, 2 * p->radius + 1,
            same == p->n ? ", as the notes' program prints" : "");
}

static bool run_versions(const problem *p, const options *opt, void *output)
{
    timed_call call = device_setup(p, opt);
    char tolerance[64] = "exact";
    if (p->type == STENCIL_FLOAT)
        snprintf(tolerance, sizeof tolerance, "tolerance %.3g", p->tolerance);
    cl_note(
        "\n%zu %ss, radius %d (%d inputs an output), input %s; %.1f MB moved a call; gold %.1f ms "
        "on the CPU, %s; timed over %d rotating copies",
        p->n, type_names[p->type], p->radius, 2 * p->radius + 1, input_names[opt->input],
        moved_bytes(p->n, p->radius) / 1e6, p->gold_ms, tolerance, call.in.copies);
    bool ok = cl_run_ladder(&opt->common, versions(), peer_name, p->n, moved_bytes(p->n, p->radius),
                            error_column, 1, measure_version, &call);
    if (opt->input == INPUT_ONES)
        note_ones(&call);
    memcpy(output, call.result, p->n * 4);
    device_free(&call);
    return ok;
}

// --- --check: the score table ------------------------------------------------------------

static cl_check_point measure_size(void *ctx, size_t n, int k)
{
    const options *opt = ctx;
    problem p = make_problem(n, opt);
    timed_call call = device_setup(&p, opt);
    cl_check_point point = cl_check_pair(measure_version, &call, k, moved_bytes(n, p.radius));
    device_free(&call);
    free_problem(&p);
    return point;
}

static bool run_check_table(const options *opt)
{
    static const size_t sizes[] = {1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28};
    cl_note("radius %ld, %ss", opt->radius, type_names[opt->type]);
    return cl_run_check_table(&opt->common, versions(), peer_name, sizes, 5, 1.25, measure_size,
                              (void *)opt);
}

static int run(int argc, char **argv)
{
    options opt = {.radius = 3, .type = STENCIL_INT, .input = INPUT_RANDOM, .block = 256};
    const cl_option own[] = {
        {'r', "radius", CL_ARG_INT, &opt.radius, "R",
         "inputs each side of an output (2R + 1 summed)", 1, STENCIL_RADIUS_MAX, NULL},
        {0, "type", CL_ARG_CHOICE, &opt.type, "TYPE",
         "int (the notes', exact) or float (within a stated bound)", 0, 0, type_names},
        {0, "input", CL_ARG_CHOICE, &opt.input, "KIND",
         "random: ints in [-2^20, 2^20) or floats in [-1, 1); ones: the notes' input (every output "
         "2R + 1)",
         0, 0, input_names},
        {0, "block", CL_ARG_INT, &opt.block, "B", "threads a block of v1 and v2 (the notes: 16)", 1,
         1024, NULL},
        {0},
    };
    const cl_program prog = {
        .name = "stencil1d",
        .summary = "out[i] = in[i - R] + ... + in[i + R], the CUDA-basics notes' 1D stencil, "
                   "for any n and radius; the notes' shared-memory kernel (v2) as the reference.",
        .example = "stencil1d -k all --radius 16",
        .n_default = (size_t)1 << 28,
        .n_min = 1,
        .n_max = (size_t)1 << 34,
        .n_meaning = "outputs",
        .n_column = "outputs",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    // v1 and v2 launch a thread an output, --block a block: a grid of n / B blocks, which
    // CUDA caps at 2^31 - 1.
    const int k = opt.common.kernel_index;
    const bool block_grid = !opt.common.check && (k == -1 || k == 0 || k == 1);
    if (block_grid && cl_ceil_div(opt.common.n, (size_t)opt.block) > CL_MAX_GRID_X)
        cl_die(CL_EXIT_USAGE,
               "-n %zu --block %ld: v1 and v2 would launch %zu blocks, past CUDA's 2^31 - 1 a "
               "grid: a larger --block",
               opt.common.n, opt.block, cl_ceil_div(opt.common.n, (size_t)opt.block));
    cl_device_open((int)opt.common.device);
    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    const size_t n = opt.common.n, count = n + 2 * (size_t)opt.radius;
    const size_t gold_bytes = opt.type == STENCIL_INT ? 4 : 8;
    cl_require_host_memory(count * 4 + n * (gold_bytes + 8), gold_bytes + 12);
    cl_require_device_memory(device_bytes(n, (int)opt.radius, 1), 8);
    problem p = make_problem(n, &opt);
    void *output = cl_host_alloc(n * 4, "output");
    bool ok = run_versions(&p, &opt, output);
    if (opt.common.dump) {
        const char *dtype = p.type == STENCIL_INT ? "<i4" : "<f4";
        cl_dump_npy(opt.common.dump, "input", dtype, p.in, 4, 1, &count);
        cl_dump_npy(opt.common.dump, "output", dtype, output, 4, 1, &n);
        if (p.type == STENCIL_INT)
            cl_dump_npy(opt.common.dump, "gold", "<i4", p.gold_int, 4, 1, &n);
        else
            cl_dump_npy(opt.common.dump, "gold", "<f8", p.gold_float, 8, 1, &n);
    }
    free(output);
    free_problem(&p);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }
