// renderer: draws a scene of coloured circles, strictly in index order, headless (CMU
// 15-418 assignment 2). `-r cpuref` is the CPU reference (the gold, no GPU needed),
// `-r cuda` the suite's GPU renderer (-k picks the version), `-r ref` the peer: a
// sort-based tile rasterizer on CUB.
//
// Order of a run: options and the scene; then either -c (one frame of each GPU
// renderer compared with cpuref), --check (the score table), or frames START:END,
// each cleared, advanced and rendered, timed step by step, -f writing each as PNG.
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "renderer.h"

enum { RENDER_CUDA, RENDER_CPUREF, RENDER_REF };
static const char *const renderer_names[] = {"cuda", "cpuref", "ref", NULL};
static const char peer_name[] = "ref (CUB sort-based tiles)";

typedef struct {
    cl_common_args common;
    const char *scene, *frames, *file;
    long size;
    int renderer;
    bool compare, extended;
    int start, end; // from --frames
} options;

// A renderer: cpuref, a CUDA version (its index) or the peer.
typedef struct {
    int kind, version;
} renderer_choice;

static const char *renderer_label(renderer_choice r)
{
    return r.kind == RENDER_CPUREF ? "cpuref"
           : r.kind == RENDER_REF  ? peer_name
                                   : render_versions[r.version].info.name;
}

typedef struct {
    render_scene *scene;
    int width, height;
    float *host_image;     // cpuref's image, and the GPU's when copied back
    render_device *device; // NULL for cpuref alone
} renderer_state;

typedef struct {
    double clear_ms, advance_ms, render_ms;
} frame_times;

// One frame: clear, advance to `frame`, render; each step synchronized and timed.
static frame_times run_frame(renderer_state *st, renderer_choice r, int frame)
{
    frame_times t;
    render_scene *s = st->scene;
    double t0 = cl_wall_ms();
    if (r.kind == RENDER_CPUREF) {
        render_clear_cpu(st->host_image, st->width, st->height, s->shading);
        t.clear_ms = cl_wall_ms() - t0;
        t0 = cl_wall_ms();
        render_scene_at(s, frame);
        t.advance_ms = cl_wall_ms() - t0;
        t0 = cl_wall_ms();
        render_cpu(s, st->host_image, st->width, st->height);
        t.render_ms = cl_wall_ms() - t0;
        return t;
    }
    render_device_clear(st->device, s->shading);
    CL_CUDA_CHECK(cudaDeviceSynchronize());
    t.clear_ms = cl_wall_ms() - t0;
    t0 = cl_wall_ms();
    render_scene_at(s, frame);
    render_device_upload(st->device, s);
    CL_CUDA_CHECK(cudaDeviceSynchronize());
    t.advance_ms = cl_wall_ms() - t0;
    t0 = cl_wall_ms();
    const render_circles c = render_device_circles(st->device, s->n, s->shading);
    float4 *image = (float4 *)render_device_image(st->device);
    if (r.kind == RENDER_REF)
        render_peer(c, image, st->width, st->height, st->device, 0);
    else
        render_versions[r.version].launch(c, image, st->width, st->height, st->device, 0);
    CL_CUDA_CHECK(cudaDeviceSynchronize());
    t.render_ms = cl_wall_ms() - t0;
    return t;
}

static size_t image_floats(const renderer_state *st) { return 4 * (size_t)st->width * st->height; }

static void copy_back(renderer_state *st, float *dst)
{
    CL_CUDA_CHECK(cudaMemcpy(dst, render_device_image(st->device), image_floats(st) * sizeof(float),
                             cudaMemcpyDeviceToHost));
}

// --- comparing with cpuref ------------------------------------------------------------------

// The check of a frame: the largest absolute error of each colour channel (alpha is
// ignored: the renderers may composite in another order) and the pixels off by more
// than 1e-4 in any channel; NaN counts as off.
typedef struct {
    double max_error[3];
    size_t bad_pixels;
    size_t first_bad; // pixel index, when bad_pixels > 0
} frame_compare;

static const double tolerance = 1e-4;

// Pixel by pixel, the colour channels (alpha ignored). With CUDALAB_INJECT_FAULT set
// (tests of the failure path, common/verify.h), a compare that may be faulted sees the
// red channel of pixel cl_fault_index(pixels) off by 0.5.
static frame_compare compare_frames(const float *got, const float *want, size_t pixels,
                                    bool may_fault)
{
    frame_compare c = {{0, 0, 0}, 0, 0};
    const size_t fault = may_fault ? cl_fault_index(pixels) : SIZE_MAX;
    for (size_t p = 0; p < pixels; p++) {
        bool bad = false;
        for (int ch = 0; ch < 3; ch++) {
            const double g = got[4 * p + ch] + (p == fault && ch == 0 ? 0.5 : 0.0);
            const double e = fabs(g - want[4 * p + ch]);
            if (!(e <= tolerance))
                bad = true;
            if (isnan(e) || e > c.max_error[ch])
                c.max_error[ch] = isnan(e) ? INFINITY : e;
        }
        if (bad && c.bad_pixels++ == 0)
            c.first_bad = p;
    }
    return c;
}

static const cl_column compare_columns[] = {
    {"renderer", "renderer", 28, NULL},          {"max_error_r", "max err R", 10, "%.2e"},
    {"max_error_g", "max err G", 10, "%.2e"},    {"max_error_b", "max err B", 10, "%.2e"},
    {"bad_pixels", "pixels > 1e-4", 13, "%.0f"}, {"passed", "passed", 6, NULL},
};
static const cl_table compare_table = {"compare", compare_columns, 6};

static bool report_compare(const char *who, frame_compare c, int width, const float *got,
                           const float *want)
{
    const bool ok = c.bad_pixels == 0;
    cl_table_row(&compare_table,
                 (cl_cell[]){CL_STR(who), CL_NUM(c.max_error[0]), CL_NUM(c.max_error[1]),
                             CL_NUM(c.max_error[2]), CL_NUM((double)c.bad_pixels), CL_BOOL(ok)});
    if (!ok) {
        const size_t p = c.first_bad;
        cl_note(
            "%s: first pixel off: (%zu, %zu): got (%.6f, %.6f, %.6f), cpuref (%.6f, %.6f, %.6f)",
            who, p % (size_t)width, p / (size_t)width, got[4 * p], got[4 * p + 1], got[4 * p + 2],
            want[4 * p], want[4 * p + 1], want[4 * p + 2]);
    }
    return ok;
}

// -c: frame START of cpuref, then of each renderer asked for, each compared.
static bool run_compare(renderer_state *st, const options *opt)
{
    const size_t floats = image_floats(st), pixels = floats / 4;
    float *gold = cl_host_alloc(floats * sizeof(float), "cpuref frame");
    const renderer_choice cpuref = {RENDER_CPUREF, 0};
    float *keep = st->host_image;
    st->host_image = gold;
    run_frame(st, cpuref, opt->start);
    st->host_image = keep;
    cl_note("\nframe %d of %s, %d x %d, %d circles: each renderer against cpuref", opt->start,
            st->scene->name, st->width, st->height, st->scene->n);
    cl_table_header(&compare_table);
    bool ok = true;
    renderer_choice list[16];
    int count = 0;
    if (opt->renderer == RENDER_CUDA)
        for (int k = 0; k < render_version_count; k++)
            if (opt->common.kernel_index < 0 || opt->common.kernel_index == k)
                list[count++] = (renderer_choice){RENDER_CUDA, k};
    list[count++] = (renderer_choice){RENDER_REF, 0};
    for (int i = 0; i < count; i++) {
        CL_CUDA_CHECK(cudaMemset(render_device_image(st->device), 0xFF, floats * sizeof(float)));
        run_frame(st, list[i], opt->start);
        copy_back(st, st->host_image);
        const frame_compare c = compare_frames(st->host_image, gold, pixels, true);
        ok = report_compare(renderer_label(list[i]), c, st->width, st->host_image, gold) && ok;
    }
    if (opt->common.dump) {
        size_t shape[3] = {(size_t)st->height, (size_t)st->width, 4};
        cl_dump_npy(opt->common.dump, "output", "<f4", st->host_image, sizeof(float), 3, shape);
        cl_dump_npy(opt->common.dump, "gold", "<f4", gold, sizeof(float), 3, shape);
    }
    free(gold);
    return ok;
}

// --- frames ------------------------------------------------------------------------------------

static const cl_column frame_columns[] = {
    {"frame", "frame", 6, "%.0f"},
    {"clear_ms", "clear ms", 9, "%.3f"},
    {"advance_ms", "advance ms", 10, "%.3f"},
    {"render_ms", "render ms", 10, "%.3f"},
    {"total_ms", "total ms", 9, "%.3f"},
};
static const cl_table frame_table = {"frames", frame_columns, 5};

static void write_png(const renderer_state *st, const char *base, int frame)
{
    const size_t pixels = (size_t)st->width * st->height;
    uint8_t *rgb = cl_host_alloc(3 * pixels, "frame");
    for (size_t p = 0; p < pixels; p++)
        for (int c = 0; c < 3; c++) {
            const float v = st->host_image[4 * p + c];
            rgb[3 * p + c] = (uint8_t)lrintf(255.0f * (v < 0 ? 0 : v > 1 ? 1 : v));
        }
    char name[4096], path[4200];
    snprintf(name, sizeof name, "%s_%04d", base, frame);
    if (cl_image_write(name, st->width, st->height, rgb, path, sizeof path) != 0)
        cl_die(CL_EXIT_USAGE, "-f %s: cannot write %s: %s", base, path, strerror(errno));
    free(rgb);
}

static void run_frames(renderer_state *st, renderer_choice r, const options *opt)
{
    cl_note("%s%s, %d x %d, %d circles, frames %d:%d, renderer %s",
            cl_device_current() ? "\n" : "", // apart from the device line, when there is one
            st->scene->name, st->width, st->height, st->scene->n, opt->start, opt->end,
            renderer_label(r));
    cl_table_header(&frame_table);
    frame_times all = {0, 0, 0};
    for (int f = opt->start; f < opt->end; f++) {
        const frame_times t = run_frame(st, r, f);
        all.clear_ms += t.clear_ms;
        all.advance_ms += t.advance_ms;
        all.render_ms += t.render_ms;
        cl_table_row(&frame_table, (cl_cell[]){CL_NUM(f), CL_NUM(t.clear_ms), CL_NUM(t.advance_ms),
                                               CL_NUM(t.render_ms),
                                               CL_NUM(t.clear_ms + t.advance_ms + t.render_ms)});
        if (opt->file) {
            if (r.kind != RENDER_CPUREF)
                copy_back(st, st->host_image);
            write_png(st, opt->file, f);
        }
    }
    cl_note("overall: %.3f ms (clear %.3f, advance %.3f, render %.3f)",
            all.clear_ms + all.advance_ms + all.render_ms, all.clear_ms, all.advance_ms,
            all.render_ms);
    const char *ext = cl_image_extension();
    if (opt->file && opt->end - opt->start == 1)
        cl_note("wrote %s_%04d.%s", opt->file, opt->start, ext);
    else if (opt->file && opt->end > opt->start)
        cl_note("wrote %s_%04d.%s .. %s_%04d.%s", opt->file, opt->start, ext, opt->file,
                opt->end - 1, ext);
}

// --- --check: the 72-point table ---------------------------------------------------------

static const char *const graded_scenes[] = {"rgb",        "rand10k",   "rand100k", "pattern",
                                            "snowsingle", "biglittle", "rand1M",   "micro2M"};
enum { GRADED = 6, EXTENDED = 8, CHECK_SIZE = 1024, CHECK_FRAMES = 4, CHECK_TRIES = 3 };

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(render_versions, render_version_count, render_fastest_version);
}

// Frames 0:4 of the scene, the best total of `tries` (3 unless -i says); leaves frame 3
// on the device.
static double best_of_tries(renderer_state *st, renderer_choice r, int tries)
{
    double best = INFINITY;
    for (int t = 0; t < tries; t++) {
        double total = 0;
        for (int f = 0; f < CHECK_FRAMES; f++) {
            const frame_times ft = run_frame(st, r, f);
            total += ft.clear_ms + ft.advance_ms + ft.render_ms;
        }
        best = total < best ? total : best;
    }
    return best;
}

static bool run_check(const options *opt)
{
    const int k = opt->common.kernel_index < 0 ? versions().fastest : opt->common.kernel_index;
    const int rows = opt->extended ? EXTENDED : GRADED;
    cl_score_row score[EXTENDED];
    bool ok = true;
    for (int i = 0; i < rows; i++) {
        renderer_state st = {.width = CHECK_SIZE, .height = CHECK_SIZE};
        st.scene = render_scene_create(graded_scenes[i], (uint64_t)opt->common.seed);
        const size_t floats = image_floats(&st);
        st.host_image = cl_host_alloc(floats * sizeof(float), "frame");
        float *gold = cl_host_alloc(floats * sizeof(float), "cpuref frame");
        float *keep = st.host_image;
        st.host_image = gold;
        run_frame(&st, (renderer_choice){RENDER_CPUREF, 0}, CHECK_FRAMES - 1);
        st.host_image = keep;
        st.device = render_device_create(st.scene->n, st.width, st.height);
        bool correct = true;
        double ms[2];
        const renderer_choice who[2] = {{RENDER_REF, 0}, {RENDER_CUDA, k}};
        for (int w = 0; w < 2; w++) {
            ms[w] = best_of_tries(&st, who[w],
                                  opt->common.iters > 0 ? (int)opt->common.iters : CHECK_TRIES);
            copy_back(&st, st.host_image);
            const frame_compare c = compare_frames(st.host_image, gold, floats / 4, w == 1);
            if (c.bad_pixels) {
                cl_note("%s, %s: %zu pixels off by more than 1e-4 (largest %.2e)", graded_scenes[i],
                        renderer_label(who[w]), c.bad_pixels,
                        fmax(c.max_error[0], fmax(c.max_error[1], c.max_error[2])));
                correct = false;
            }
        }
        score[i] = (cl_score_row){.size = (double)st.scene->n,
                                  .ref_ms = ms[0],
                                  .your_ms = ms[1],
                                  .correct = correct,
                                  .score = render_score(ms[0], ms[1], correct),
                                  .marks = 12};
        snprintf(score[i].label, sizeof score[i].label, "%s", graded_scenes[i]);
        ok = ok && correct;
        render_device_destroy(st.device);
        render_scene_destroy(st.scene);
        free(st.host_image);
        free(gold);
    }
    char header[64];
    snprintf(header, sizeof header, "Scene (%dx%d, frames 0:%d)", CHECK_SIZE, CHECK_SIZE,
             CHECK_FRAMES);
    cl_score_table_print(render_versions[k].info.name, peer_name, header, score, rows);
    return ok;
}

// --- main --------------------------------------------------------------------------------------

// --frames START:END, 0 <= START < END <= 100000.
static void parse_frames(options *opt)
{
    char *colon, *tail;
    errno = 0;
    const long start = strtol(opt->frames, &colon, 10);
    const long end = *colon == ':' ? strtol(colon + 1, &tail, 10) : -1;
    if (*colon != ':' || colon == opt->frames || *tail != '\0' || tail == colon + 1 || errno ||
        start < 0 || end <= start || end > 100000)
        cl_die(CL_EXIT_USAGE,
               "-b %s: frames are START:END with 0 <= START < END <= 100000 (see --help)",
               opt->frames);
    opt->start = (int)start;
    opt->end = (int)end;
}

static bool known_scene(const char *name)
{
    for (int i = 0; render_scene_names[i]; i++)
        if (!strcmp(render_scene_names[i], name))
            return true;
    return false;
}

static int run(int argc, char **argv)
{
    options opt = {.size = 1024, .frames = "0:1", .renderer = RENDER_CUDA};
    const cl_option own[] = {
        {'r', "renderer", CL_ARG_CHOICE, &opt.renderer, "R",
         "cuda (the suite's, -k picks the version), cpuref (CPU, no GPU needed) or ref (CUB)", 0, 0,
         renderer_names},
        {'s', "image-size", CL_ARG_INT, &opt.size, "SIZE", "image width and height in pixels", 1,
         16384, NULL},
        {'b', "frames", CL_ARG_STRING, &opt.frames, "START:END", "frames START .. END-1", 0, 0,
         NULL},
        {'f', "file", CL_ARG_STRING, &opt.file, "NAME",
         "write each frame to NAME_0000.png (.ppm without libpng; NAME may end in .png)", 0, 0,
         NULL},
        {'c', "compare", CL_ARG_FLAG, &opt.compare, NULL,
         "compare frame START of each GPU renderer (and ref) with cpuref (1e-4 a channel)", 0, 0,
         NULL},
        {0, "extended", CL_ARG_FLAG, &opt.extended, NULL, "--check also scores rand1M and micro2M",
         0, 0, NULL},
        {0},
    };
    const cl_program prog = {
        .name = "renderer",
        .summary = "Draws a scene of coloured circles in index order: CPU reference, the GPU "
                   "ladder and a CUB sort-based peer. SCENE (default rand10k): rgb, rgby, rand10k, "
                   "rand100k, "
                   "rand1M, micro2M, biglittle, littlebig, pattern, snow, snowsingle, "
                   "bouncingballs, hypnosis, fireworks.",
        .example = "renderer -s 1000 -c rand10k",
        .n_default = 2000000,
        .n_min = 1,
        .n_max = 2000000,
        .n_meaning = "circles: draw the scene's first N (default: all of the largest scene)",
        .kernels = versions(),
        .options = own,
        .positional = "[SCENE]",
        .positional_dest = &opt.scene,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    parse_frames(&opt);
    if (!opt.scene)
        opt.scene = "rand10k";
    if (!known_scene(opt.scene))
        cl_die(CL_EXIT_USAGE, "unknown scene '%s' (see --help for the list)", opt.scene);
    char prefix[4096];
    if (opt.file)
        opt.file = cl_frame_prefix("-f", opt.file, prefix, sizeof prefix);
    if (opt.compare && opt.renderer == RENDER_CPUREF)
        cl_die(CL_EXIT_USAGE, "-c compares a GPU renderer with cpuref: use -r cuda or -r ref");
    if (opt.common.kernel && opt.renderer != RENDER_CUDA && !opt.common.check)
        cl_die(CL_EXIT_USAGE, "-k %s: -k picks a GPU version, for -r cuda (or -c, --check)",
               opt.common.kernel);
    if (opt.common.dump && !opt.compare)
        cl_die(CL_EXIT_USAGE, "--dump %s: writes a compared frame and cpuref's: use it with -c",
               opt.common.dump);
    if (opt.common.check || opt.renderer != RENDER_CPUREF)
        cl_device_open((int)opt.common.device); // no GPU: exit 77 before anything runs
    if (opt.common.check)
        return run_check(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    renderer_state st = {.width = (int)opt.size, .height = (int)opt.size};
    st.scene = render_scene_create(opt.scene, (uint64_t)opt.common.seed);
    if (opt.common.n < (size_t)st.scene->n)
        st.scene->n = (int)opt.common.n; // the first n circles
    st.host_image = cl_host_alloc(image_floats(&st) * sizeof(float), "frame");
    if (opt.renderer != RENDER_CPUREF)
        st.device = render_device_create(st.scene->n, st.width, st.height);
    bool ok = true;
    if (opt.compare) {
        ok = run_compare(&st, &opt);
    } else {
        const int k = opt.common.kernel_index < 0 ? versions().fastest : opt.common.kernel_index;
        run_frames(&st, (renderer_choice){opt.renderer, k}, &opt);
    }
    if (st.device)
        render_device_destroy(st.device);
    render_scene_destroy(st.scene);
    free(st.host_image);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }
