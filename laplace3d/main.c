// laplace3d: Jacobi iteration for the 3D Laplace equation (the Oxford CUDA course's
// practical 3): u = 1 on the boundary, 0 inside (--input random: inside uniform in
// [0, 1) from -S); REPEAT iterations, each interior point becoming the mean of its six
// neighbours.
//
// Order of a run: options; the start grid and the CPU gold (OpenMP); the copy to the
// device; each selected version (or all) run REPEAT iterations from the start, compared
// point by point with the gold, and timed, version 2 (3D blocks) as the reference; the
// copy back. --sweep times block shapes for versions 1 and 2; --check prints the score
// table over 256^3, 512^3 and 1024^3 instead; --gpus N cuts the grid into N slabs, one a
// GPU, and runs the exchange ladder of multi_gpu.c instead.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cudalab.h"
#include "laplace3d.h"
#include "multi_gpu.h"

typedef struct {
    cl_common_args common;
    long nx, ny, nz, repeat, tblock;
    int tblock_choice; // --tblock as given: an index into tblock_names
    int input, exchange;
    const char *block;
    cl_team_args team; // --gpus, --nccl-id-file, --watchdog
    bool sweep;
    block_shape parsed_block;
} options;

static const char peer_name[] = "v2-3d-blocks (reference)";
static const char *const input_names[] = {"practical", "random", NULL};
// --tblock: auto (0, the fastest measured), or v6's iterations a pass.
static const char *const tblock_names[] = {"auto", "2", "4", "8", NULL};
enum { INPUT_PRACTICAL, INPUT_RANDOM };

static size_t points(grid_shape g) { return (size_t)g.nx * g.ny * g.nz; }

// --- the grid and its gold -------------------------------------------------------------------

typedef struct {
    grid_shape g;
    int repeat;
    float *start, *gold;
    double gold_ms;
} problem;

// The practical's start leaves every point farther than REPEAT from the boundary at
// exactly 0, so a kernel that gets the middle of a large grid wrong (a wrong
// neighbour, a stale halo) still matches the gold there; --input random fills the
// inside with the suite's generator so that every point counts.
static problem make_problem(grid_shape g, int repeat, int input, uint64_t seed)
{
    size_t n = points(g);
    problem p = {.g = g, .repeat = repeat};
    p.start = cl_host_alloc(n * sizeof(float), "grid");
    p.gold = cl_host_alloc(n * sizeof(float), "gold");
    float *scratch = cl_host_alloc(n * sizeof(float), "gold scratch");
    const uint64_t key = cl_rng_key(seed, 0);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                const size_t at = i + (size_t)g.nx * (j + (size_t)g.ny * k);
                p.start[at] = p.gold[at] =
                    laplace_start_value(g, i, j, k, input == INPUT_RANDOM, key);
            }
    double t0 = cl_wall_ms();
    laplace_gold(p.gold, scratch, g, repeat);
    p.gold_ms = cl_wall_ms() - t0;
    free(scratch);
    return p;
}

static void free_problem(problem *p)
{
    free(p->start);
    free(p->gold);
}

// rms and max error against the gold; wrong beyond float rounding (1e-6: the values
// lie in [0, 1]). The versions do the gold's float arithmetic, so the errors are 0.
// On every core from 2^28 points on (a 1024^3 grid: 10^9 points, seconds on one core).
// Below that one thread: in `make test`, 16 programs on 16 cores, threads comparing
// 512^3 grids took 3x the CPU time they saved.
enum { COMPARE_THREADS_FROM = 1 << 28 };

static cl_compare compare_grid(const float *got, const float *gold, size_t n, double *rms)
{
    cl_compare c = {.ok = true, .n = n};
    double squares = 0.0, largest = 0.0;
    size_t bad = 0, first_bad = SIZE_MAX;
#pragma omp parallel for if (n >= COMPARE_THREADS_FROM) schedule(static) \
    reduction(+ : squares, bad) reduction(max : largest) reduction(min : first_bad)
    for (size_t p = 0; p < n; p++) {
        double e = fabs((double)got[p] - gold[p]);
        squares += e * e;
        largest = isnan(e) ? INFINITY : fmax(largest, e);
        if (!(e <= 1e-6)) {
            bad++;
            first_bad = p < first_bad ? p : first_bad;
        }
    }
    c.max_abs_err = largest;
    if (bad) {
        c.ok = false, c.n_bad = bad, c.first_bad = first_bad;
        c.expected = gold[first_bad], c.got = got[first_bad];
    }
    size_t fault = cl_fault_index(n);
    if (fault != SIZE_MAX && c.ok) {
        c.ok = false, c.n_bad = 1, c.first_bad = fault;
        c.expected = gold[fault], c.got = gold[fault] + 1.0;
    }
    *rms = sqrt(squares / (double)n);
    return c;
}

// --- one version: verify once, then time -----------------------------------------------------

typedef struct {
    const problem *p;
    float *start, *in, *out; // device: the start grid (kept), the two iterates
    float *host_result;
    laplace_launcher launch;
    block_shape block;
    int iters;
} timed_call;

static void run_call(void *ctx, int rep)
{
    (void)rep;
    timed_call *t = ctx;
    t->launch(&t->in, &t->out, t->p->g, t->p->repeat, t->block, 0);
}

static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    timed_call *call = ctx;
    const int version = k == CL_PEER ? 1 : k;
    const size_t bytes = points(call->p->g) * sizeof(float);
    call->launch = laplace_versions[version].launch;
    // Both iterates start as the start grid: the boundary stays in both.
    CL_CUDA_CHECK(cudaMemcpy(call->in, call->start, bytes, cudaMemcpyDeviceToDevice));
    CL_CUDA_CHECK(cudaMemcpy(call->out, call->start, bytes, cudaMemcpyDeviceToDevice));
    run_call(call, 0);
    CL_CUDA_CHECK(cudaMemcpy(call->host_result, call->in, bytes, cudaMemcpyDeviceToHost));
    double rms;
    cl_compare c = compare_grid(call->host_result, call->p->gold, points(call->p->g), &rms);
    cl_compare_report(k == CL_PEER ? peer_name : laplace_versions[k].info.name, c);
    double ms = cl_time_gpu(run_call, call, call->iters).median_ms;
    if (extra)
        extra[0] = CL_NUM(rms);
    return (cl_measured){.ms = ms, .ok = c.ok};
}

static timed_call device_setup(const problem *p, const options *opt)
{
    size_t bytes = points(p->g) * sizeof(float);
    cl_require_device_memory(3 * bytes, 0);
    timed_call call = {.p = p, .block = opt->parsed_block, .iters = (int)opt->common.iters};
    CL_CUDA_CHECK(cudaMalloc((void **)&call.start, bytes));
    CL_CUDA_CHECK(cudaMalloc((void **)&call.in, bytes));
    CL_CUDA_CHECK(cudaMalloc((void **)&call.out, bytes));
    call.host_result = cl_host_alloc(bytes, "result");
    return call;
}

static void device_free(timed_call *call)
{
    CL_CUDA_CHECK(cudaFree(call->start));
    CL_CUDA_CHECK(cudaFree(call->in));
    CL_CUDA_CHECK(cudaFree(call->out));
    free(call->host_result);
}

// The start grid to the device, timed with events (pageable host memory, as the
// practical's program copies it).
static double upload(const timed_call *call)
{
    cudaEvent_t e0, e1;
    CL_CUDA_CHECK(cudaEventCreate(&e0));
    CL_CUDA_CHECK(cudaEventCreate(&e1));
    CL_CUDA_CHECK(cudaEventRecord(e0, 0));
    CL_CUDA_CHECK(cudaMemcpy(call->start, call->p->start, points(call->p->g) * sizeof(float),
                             cudaMemcpyHostToDevice));
    CL_CUDA_CHECK(cudaEventRecord(e1, 0));
    CL_CUDA_CHECK(cudaEventSynchronize(e1));
    float ms;
    CL_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    CL_CUDA_CHECK(cudaEventDestroy(e0));
    CL_CUDA_CHECK(cudaEventDestroy(e1));
    return ms;
}

static double download_ms(const timed_call *call)
{
    double t0 = cl_wall_ms();
    CL_CUDA_CHECK(cudaMemcpy(call->host_result, call->in, points(call->p->g) * sizeof(float),
                             cudaMemcpyDeviceToHost));
    return cl_wall_ms() - t0;
}

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(laplace_versions, laplace_version_count, laplace_fastest_version);
}

static const cl_column rms_column[] = {{"rms_error", "rms error", 10, "%.2g"}};

static double effective_bytes(const problem *p) { return 8.0 * points(p->g) * p->repeat; }

// --- --sweep: the practical's block-shape table ----------------------------------------------

static bool run_sweep(timed_call *call)
{
    static const block_shape shapes[2][7] = {
        {{16, 4, 1}, {16, 8, 1}, {32, 4, 1}, {32, 8, 1}, {64, 4, 1}, {128, 2, 1}, {256, 1, 1}},
        {{16, 4, 4}, {32, 4, 4}, {32, 4, 2}, {32, 8, 2}, {64, 4, 2}, {64, 2, 2}, {128, 2, 2}},
    };
    static const cl_column columns[] = {
        {"kernel", "kernel", 16, NULL},    {"block", "block", 10, NULL},
        {"time_ms", "time ms", 9, "%.4f"}, {"gbps", "GB/s", 7, "%.0f"},
        {"pct_copy", "% copy", 6, "%.0f"}, {"verified", "verified", 8, NULL},
    };
    static const cl_table table = {"sweep", columns, 6};
    cl_table_header(&table);
    bool ok = true;
    for (int v = 0; v < 2; v++)
        for (int s = 0; s < 7; s++) {
            char label[32];
            call->block = shapes[v][s];
            snprintf(label, sizeof label, "%dx%dx%d", call->block.x, call->block.y, call->block.z);
            cl_measured m = measure_version(call, v, NULL);
            double gbps = effective_bytes(call->p) / (m.ms * 1e-3) / 1e9;
            cl_table_row(&table, (cl_cell[]){CL_STR(laplace_versions[v].info.name), CL_STR(label),
                                             CL_NUM(m.ms), CL_NUM(gbps),
                                             CL_NUM(100.0 * gbps / cl_device_current()->copy_gbps),
                                             CL_BOOL(m.ok)});
            ok = ok && m.ok;
        }
    return ok;
}

// --- --check ------------------------------------------------------------------------------------

// A side's point; a grid that does not fit in the device's free memory has no row.
static cl_check_point check_grid(void *ctx, size_t side, int k)
{
    const options *opt = ctx;
    grid_shape g = {(int)side, (int)side, (int)side};
    size_t bytes = points(g) * sizeof(float), free_bytes, total_bytes;
    CL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (3 * bytes > free_bytes / 100 * 95) {
        cl_note("%zu^3: needs %.1f GB of device memory, %.1f GB free: row left out", side,
                3e-9 * bytes, 1e-9 * free_bytes);
        return (cl_check_point){.skipped = true};
    }
    problem p = make_problem(g, (int)opt->repeat, INPUT_RANDOM, (uint64_t)opt->common.seed);
    timed_call call = device_setup(&p, opt);
    upload(&call);
    cl_check_point point = cl_check_pair(measure_version, &call, k, effective_bytes(&p));
    point.size = (double)points(g);
    device_free(&call);
    free_problem(&p);
    return point;
}

static bool run_check_table(const options *opt)
{
    static const size_t sides[] = {256, 512, 1024};
    static const char *const labels[] = {"256^3", "512^3", "1024^3"};
    return cl_run_check_table_labelled(&opt->common, versions(), peer_name, "Grid", labels, sides,
                                       3, 1.0, check_grid, (void *)opt);
}

// --- options ------------------------------------------------------------------------------------

// "BXxBYxBZ" (or "BXxBY"): a legal block for the version -k names.
static void parse_block(options *opt)
{
    block_shape b = {0, 0, 1};
    int k = opt->common.kernel_index;
    int fields = sscanf(opt->block, "%dx%dx%d", &b.x, &b.y, &b.z);
    if (fields < 2 || b.x < 1 || b.y < 1 || b.z < 1 || b.z > 64 || (long)b.x * b.y * b.z > 1024)
        cl_die(CL_EXIT_USAGE,
               "--block %s: expected BXxBYxBZ, each >= 1, z <= 64, at most 1024 threads (see "
               "--help)",
               opt->block);
    if (k < 0 || laplace_versions[k].block == BLOCK_FIXED)
        cl_die(CL_EXIT_USAGE, "--block %s: applies to -k v1 (2D blocks) or -k v2 (3D blocks)",
               opt->block);
    if (laplace_versions[k].block == BLOCK_2D && b.z != 1)
        cl_die(CL_EXIT_USAGE, "--block %s: v1's blocks are 2D (BXxBY or BXxBYx1)", opt->block);
    opt->parsed_block = b;
}

// --gpus N > 1: the options that apply, then multi_gpu.c's ladder. Under a launcher
// that starts one process a GPU (its variables set), N must be its process count.
static int run_gpus(const options *opt, grid_shape g)
{
    const long gpus = opt->team.gpus;
    if (opt->common.kernel || opt->common.check || opt->sweep || opt->common.dump || opt->block ||
        opt->tblock || opt->common.device)
        cl_die(CL_EXIT_USAGE,
               "--gpus runs v5-zmarch-vec on GPUs 0..N-1 and prints its own table: "
               "-k, -d, --check, --sweep, --dump, --block and --tblock do not apply");
    if (opt->repeat > 100)
        cl_die(CL_EXIT_USAGE,
               "--gpus: --repeat %ld: at most 100 (the check iterates boxes grown "
               "by REPEAT on each side on the CPU)",
               opt->repeat);
    if (g.nz < gpus + 2)
        cl_die(CL_EXIT_USAGE,
               "--gpus %ld: the grid's %d inside z planes cannot give each GPU one "
               "(NZ >= %ld)",
               gpus, g.nz - 2 > 0 ? g.nz - 2 : 0, gpus + 2);
    if (opt->common.iters > 64)
        cl_die(CL_EXIT_USAGE, "--gpus: -i %ld: at most 64 timed runs", opt->common.iters);
    if (cl_launch_from_env().world > 1 && opt->exchange >= 0 && opt->exchange != EXCHANGE_NCCL)
        cl_die(CL_EXIT_USAGE,
               "--exchange %s: one process a GPU exchanges through NCCL only (m3-nccl)",
               laplace_exchange_names[opt->exchange]);
    const cl_launch launch = cl_team_launch(&opt->team);
    const laplace_gpus_options o = {
        .g = g,
        .gpus = (int)gpus,
        .repeat = (int)opt->repeat,
        .exchange = opt->exchange >= 0 ? opt->exchange : EXCHANGE_NCCL,
        .reps = opt->common.iters ? (int)opt->common.iters : 10,
        .random = opt->input == INPUT_RANDOM,
        .seed = (uint64_t)opt->common.seed,
        .id_file = opt->team.id_file,
        .watchdog_s = (int)opt->team.watchdog_s,
    };
    return laplace_run_gpus(&o, launch);
}

static int run(int argc, char **argv)
{
    options opt = {.repeat = 10, .exchange = -1, .team = CL_TEAM_ARGS_DEFAULT};
    const cl_option own[] = {
        {0, "nx", CL_ARG_INT, &opt.nx, "NX", "grid points in x (default: -n)", 1, 4096, NULL},
        {0, "ny", CL_ARG_INT, &opt.ny, "NY", "grid points in y (default: -n)", 1, 4096, NULL},
        {0, "nz", CL_ARG_INT, &opt.nz, "NZ", "grid points in z (default: -n)", 1, 4096, NULL},
        {0, "repeat", CL_ARG_INT, &opt.repeat, "R", "Jacobi iterations (the practical's: 10)", 1,
         100000, NULL},
        {0, "input", CL_ARG_CHOICE, &opt.input, "KIND",
         "practical: 1 on the boundary, 0 inside; random: inside uniform in [0, 1) from -S "
         "(--check uses it)",
         0, 0, input_names},
        {0, "tblock", CL_ARG_CHOICE, &opt.tblock_choice, "T",
         "v6's iterations a pass (auto: the fastest measured, 4)", 0, 0, tblock_names},
        {0, "block", CL_ARG_STRING, &opt.block, "BXxBYxBZ",
         "thread-block shape of -k v1 (2D) or -k v2 (3D)", 0, 0, NULL},
        {0, "sweep", CL_ARG_FLAG, &opt.sweep, NULL,
         "time block shapes for v1 and v2 (the practical's tuning table)", 0, 0, NULL},
        CL_TEAM_OPTIONS(opt.team, "cut the grid into N slabs along z, one a GPU, halo planes "
                                  "exchanged each iteration (needs NCCL; see README.md)"),
        {0, "exchange", CL_ARG_CHOICE, &opt.exchange, "HOW",
         "with --gpus: m1-host, m2-peer, m3-nccl (overlapped with the slab's inside) or all "
         "(default: m3-nccl)",
         0, 0, laplace_exchange_names},
        {0},
    };
    const cl_program prog = {
        .name = "laplace3d",
        .summary = "Jacobi iteration for the 3D Laplace equation (Oxford practical 3): from "
                   "z-marching threads to 2, 4 or 8 iterations a pass.",
        .example = "laplace3d -k all -n 512",
        .n_default = 512,
        .n_min = 1,
        .n_max = 4096,
        .n_meaning = "points a side (a cube; --nx, --ny, --nz override)",
        .n_column = "points",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    if (opt.common.check && (opt.nx || opt.ny || opt.nz))
        cl_die(CL_EXIT_USAGE, "--check times its table's own grids; leave out --nx, --ny and --nz");
    if (opt.block)
        parse_block(&opt);
    opt.tblock = atol(tblock_names[opt.tblock_choice]); // 0: auto
    laplace_set_time_block((int)opt.tblock);
    grid_shape g = {opt.nx ? (int)opt.nx : (int)opt.common.n,
                    opt.ny ? (int)opt.ny : (int)opt.common.n,
                    opt.nz ? (int)opt.nz : (int)opt.common.n};
    if (opt.team.gpus > 1)
        return run_gpus(&opt, g);
    if (opt.exchange >= 0 || opt.team.id_file || cl_option_given(&opt.team.watchdog_s))
        cl_die(CL_EXIT_USAGE,
               "--exchange, --nccl-id-file and --watchdog apply with --gpus N, N >= 2");
    cl_device_open((int)opt.common.device);
    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    size_t bytes = points(g) * sizeof(float);
    cl_require_host_memory(4 * bytes, 0);
    cl_require_device_memory(3 * bytes, 0);
    problem p = make_problem(g, (int)opt.repeat, opt.input, (uint64_t)opt.common.seed);
    timed_call call = device_setup(&p, &opt);
    double h2d_ms = upload(&call);
    cl_note("\n%d x %d x %d grid, %d iterations, input %s; gold (CPU, OpenMP) %.1f ms; copy to "
            "device %.2f ms; GB/s = 8 bytes a point an iteration",
            g.nx, g.ny, g.nz, p.repeat, input_names[opt.input], p.gold_ms, h2d_ms);
    const int t = opt.tblock ? (int)opt.tblock : laplace_default_time_block;
    const double work = laplace_temporal_work(g, t);
    if (work > 0.0)
        cl_note("v6: %d iterations a pass; the ghost zone makes it %.3f stencil evaluations for "
                "each useful one (%.1f%% redundant)",
                t, work, 100.0 * (1.0 - 1.0 / work));
    bool ok = opt.sweep ? run_sweep(&call)
                        : cl_run_ladder(&opt.common, versions(), peer_name, points(g),
                                        effective_bytes(&p), rms_column, 1, measure_version, &call);
    if (opt.common.dump) { // the output: the last version's verified result
        size_t shape[3] = {(size_t)g.nz, (size_t)g.ny, (size_t)g.nx};
        cl_dump_npy(opt.common.dump, "input", "<f4", p.start, sizeof(float), 3, shape);
        cl_dump_npy(opt.common.dump, "output", "<f4", call.host_result, sizeof(float), 3, shape);
        cl_dump_npy(opt.common.dump, "gold", "<f4", p.gold, sizeof(float), 3, shape);
    }
    cl_note("copy to host %.2f ms", download_ms(&call));
    device_free(&call);
    free_problem(&p);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }
