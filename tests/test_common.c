// Unit tests of common/: CLI parsing (bad input included), scoring, RNG, verify,
// the score table and JSON output, and the .npy and image writers.
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef CL_HAVE_PNG
#include <png.h>
#endif

#include "cudalab.h"
#include "sort.h"
#include "team.h"
#include "unit.h"

// --- CLI ------------------------------------------------------------------------

typedef struct {
    cl_kernel_info info;
    int payload;
} fake_version;

static const fake_version fake_versions[] = {
    {{"v1-naive", "first"}, 1},
    {{"v2-shared", "second"}, 2},
    {{"v3-fast", "third"}, 3},
    {{"yours", "the learner's"}, 4},
};

static long extra_int = 7, extra_off = 0, extra_named = 0;
static size_t extra_cells = 0;
static int extra_choice = 0;
static bool extra_flag = false;
static double extra_real = 1.0;
static const char *const choice_names[] = {"red", "green", NULL};
static const cl_option extra_options[] = {
    {0, "streams", CL_ARG_INT, &extra_int, "K", "streams", 1, 64, NULL},
    {0, "color", CL_ARG_CHOICE, &extra_choice, "C", "color", 0, 0, choice_names},
    {0, "managed", CL_ARG_FLAG, &extra_flag, NULL, "managed", 0, 0, NULL},
    {0, "overlap", CL_ARG_INT, &extra_off, "K", "split the job over K streams", 1, 64, NULL},
    {0, "nx", CL_ARG_INT, &extra_named, "NX",
     "grid points in x, a help line long enough to need wrapping at eighty columns (default: -n)",
     1, 4096, NULL},
    {0, "cells", CL_ARG_SIZE, &extra_cells, "N", "cells a side", 100, 16384, NULL},
    {0, "alpha", CL_ARG_REAL, &extra_real, "A", "a factor", -10, 10, NULL},
    {0},
};

static const cl_program test_program = {
    .name = "prog",
    .summary = "a test program",
    .example = "prog -n 1M",
    .n_default = 1000,
    .n_min = 1,
    .n_max = 1000000000,
    .n_meaning = "elements",
    .kernels = {&fake_versions[0].info, 4, sizeof fake_versions[0], 2},
    .options = extra_options,
};

// Parses a space-separated command line (no quoting needed by these tests).
static cl_parse_result parse(const char *line, cl_common_args *args, char *err, size_t errlen)
{
    static char buf[512];
    char *argv[32] = {"prog"};
    int argc = 1;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *tok = strtok(buf, " "); tok && argc < 31; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    extra_int = 7;
    extra_choice = 0;
    extra_flag = false;
    extra_real = 1.0;
    return cl_parse_args(&test_program, argc, argv, args, err, errlen);
}

static void test_parse_size_accepts_the_documented_forms(void)
{
    double v;
    EXPECT(cl_parse_size("1000000", &v) && v == 1e6);
    EXPECT(cl_parse_size("1e6", &v) && v == 1e6);
    EXPECT(cl_parse_size("16M", &v) && v == 16e6);
    EXPECT(cl_parse_size("1G", &v) && v == 1e9);
    EXPECT(cl_parse_size("2.5K", &v) && v == 2500);
    EXPECT(cl_parse_size("1Mi", &v) && v == 1048576);
    EXPECT(cl_parse_size("4Gi", &v) && v == 4294967296.0);
}

static void test_parse_size_rejects_junk(void)
{
    double v;
    const char *bad[] = {"-3",   "",     "abc", "1.5", "16Q", "inf", "nan",
                         "0x10", "1e30", "M",   " 5",  "5 ",  "1e-3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bool accepted = cl_parse_size(bad[i], &v);
        if (accepted)
            printf("  accepted '%s'\n", bad[i]);
        EXPECT(!accepted);
    }
}

static void test_parse_defaults_and_values(void)
{
    cl_common_args a;
    char err[256];
    EXPECT(parse("", &a, err, sizeof err) == CL_PARSE_OK);
    EXPECT(a.n == 1000 && a.seed == 1234 && a.iters == 0 && a.device == 0 && !a.check && !a.json);
    EXPECT(a.kernel_index == 2); // the fastest
    EXPECT(parse("-n 16M -i 5 -S 42 -d 1 --json --dump out/x", &a, err, sizeof err) == CL_PARSE_OK);
    EXPECT(a.n == 16000000 && a.iters == 5 && a.seed == 42 && a.device == 1);
    EXPECT(!a.check && a.json && a.dump && strcmp(a.dump, "out/x") == 0);
    EXPECT(cl_option_given(&a.n) && cl_option_given(&a.json) && !cl_option_given(&a.check));
    EXPECT(parse("-i 5 -S 42 -d 1 --check --json", &a, err, sizeof err) == CL_PARSE_OK);
    EXPECT(a.check && !cl_option_given(&a.n));
    EXPECT(parse("-n16M --size=2e3", &a, err, sizeof err) == CL_PARSE_OK && a.n == 2000);
    EXPECT(parse("--streams 3 --color green --managed", &a, err, sizeof err) == CL_PARSE_OK);
    EXPECT(extra_int == 3 && extra_choice == 1 && extra_flag);
}

// The ladder's size column is headed by what its n counts (the program's n_column), "n"
// when the program does not say.
static void test_size_column_header(void)
{
    cl_program widgets = test_program;
    widgets.n_column = "widgets";
    char *argv[] = {"prog", "-n", "5"};
    cl_common_args a;
    cl_parse_args_or_exit(&widgets, 3, argv, &a);
    EXPECT(strcmp(cl_size_column, "widgets") == 0);
    cl_parse_args_or_exit(&test_program, 3, argv, &a);
    EXPECT(strcmp(cl_size_column, "n") == 0);
}

// The default version is found by its name, wherever the table has it.
static void test_kernel_list_default_by_name(void)
{
    cl_kernel_list list = CL_KERNEL_LIST(fake_versions, 3, "v2-shared");
    EXPECT(list.fastest == 1 && list.count == 3);
    EXPECT(strcmp(cl_kernel_at(list, list.fastest)->name, "v2-shared") == 0);
    EXPECT(CL_KERNEL_LIST(fake_versions, 3, "v3-fast").fastest == 2);
}

static void test_parse_kernel_selection(void)
{
    cl_common_args a;
    char err[256];
    EXPECT(parse("-k all", &a, err, sizeof err) == CL_PARSE_OK && a.kernel_index == -1);
    EXPECT(parse("-k v2-shared", &a, err, sizeof err) == CL_PARSE_OK && a.kernel_index == 1);
    EXPECT(parse("-k 1", &a, err, sizeof err) == CL_PARSE_OK && a.kernel_index == 0);
    EXPECT(parse("--kernel v3", &a, err, sizeof err) == CL_PARSE_OK && a.kernel_index == 2);
    // A number names a version, never the learner's slot after the last one.
    EXPECT(parse("-k 4", &a, err, sizeof err) == CL_PARSE_ERROR);
    EXPECT(strstr(err, "-k 4") && strstr(err, "v1-naive"));
    EXPECT(parse("-k v4", &a, err, sizeof err) == CL_PARSE_ERROR);
    EXPECT(parse("-k yours", &a, err, sizeof err) == CL_PARSE_OK && a.kernel_index == 3);
    EXPECT(parse("-k v", &a, err, sizeof err) == CL_PARSE_ERROR);
    EXPECT(parse("-k bogus", &a, err, sizeof err) == CL_PARSE_ERROR);
}

// --check scores one version: the one -k names, the fastest without -k, never "all".
static void test_parse_check_version(void)
{
    cl_common_args a;
    char err[256];
    EXPECT(parse("--check", &a, err, sizeof err) == CL_PARSE_OK && a.check && a.kernel_index == 2);
    EXPECT(parse("--check -k 1", &a, err, sizeof err) == CL_PARSE_OK && a.kernel_index == 0);
    EXPECT(parse("-k v2-shared --check", &a, err, sizeof err) == CL_PARSE_OK &&
           a.kernel_index == 1);
    EXPECT(parse("--check -k all", &a, err, sizeof err) == CL_PARSE_ERROR);
    EXPECT(strstr(err, "-k all") && strstr(err, "--check"));
    EXPECT(parse("-k all --check", &a, err, sizeof err) == CL_PARSE_ERROR);
    EXPECT(parse("--check -k bogus", &a, err, sizeof err) == CL_PARSE_ERROR);
    // Its table has its own sizes: an -n would be ignored, so it is refused.
    EXPECT(parse("--check -n 5", &a, err, sizeof err) == CL_PARSE_ERROR);
    EXPECT(strstr(err, "-n") && strstr(err, "--check"));
    EXPECT(parse("--size 5 --check", &a, err, sizeof err) == CL_PARSE_ERROR);
}

// --no-peer leaves the peer out of the ladder; the score table cannot go without it.
static void test_parse_no_peer(void)
{
    cl_common_args a;
    char err[256];
    EXPECT(parse("-k 1", &a, err, sizeof err) == CL_PARSE_OK && !a.no_peer);
    EXPECT(parse("-k all --no-peer", &a, err, sizeof err) == CL_PARSE_OK && a.no_peer);
    EXPECT(parse("--no-peer --check", &a, err, sizeof err) == CL_PARSE_ERROR);
    EXPECT(strstr(err, "--no-peer") && strstr(err, "--check"));
}

// Every bad input is an error whose message names the flag (and the range).
static void test_parse_errors_name_the_flag(void)
{
    static const struct {
        const char *line, *must_contain;
    } cases[] = {
        {"-n -3", "-n -3"},
        {"--size -3", "--size -3"}, // the spelling typed, not the short form
        {"-n 0", "1..1000000000"},
        {"-n 0", "(e.g. 1000000, 1e6, 16M, 1Mi)"},
        {"--cells 16M", "100..16384 (e.g. 1000, 1e3, 4K, 1Ki)"}, // examples in its range
        {"-n 2G", "-n 2G"},
        {"-n 99999999999999999999999", "-n"},
        {"-n", "missing value"},
        {"--bogus", "--bogus"},
        {"-x", "-x"},
        {"-i -1", "-i -1"},
        {"-i 1.5", "-i"},
        {"-d 5000", "0..1023"},
        {"-S -1", "-S"},
        {"--streams 0", "1..64"},
        {"--color blue", "red, green"},
        {"--check=1", "--check takes no value"},
        {"stray", "stray"},
        {"--dump", "--dump"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cl_common_args a;
        char err[256];
        cl_parse_result r = parse(cases[i].line, &a, err, sizeof err);
        bool named = strstr(err, cases[i].must_contain) != NULL;
        if (r != CL_PARSE_ERROR || !named)
            printf("  '%s' -> %d, '%s'\n", cases[i].line, (int)r, err);
        EXPECT(r == CL_PARSE_ERROR && named);
    }
}

static void test_parse_help(void)
{
    cl_common_args a;
    char err[256];
    EXPECT(parse("-n 5 --help", &a, err, sizeof err) == CL_PARSE_HELP);
    EXPECT(parse("-h", &a, err, sizeof err) == CL_PARSE_HELP);
    char text[8192] = "";
    FILE *f = fmemopen(text, sizeof text - 1, "w");
    cl_print_help(&test_program, f);
    fclose(f);
    // Every option and every kernel version is listed, with defaults and ranges.
    const char *must[] = {"--size SIZE", "default 1000; 1..1000000000",
                          "--iters",     "--seed",
                          "--device",    "--check",
                          "--no-peer",   "--json",
                          "--dump",      "--streams K",
                          "1..64",       "--color",
                          "red, green",  "--managed",
                          "v1-naive",    "v2-shared",
                          "v3-fast",     "default: v3-fast",
                          "exit codes",  "prog -n 1M"};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++) {
        if (!strstr(text, must[i]))
            printf("  help lacks '%s'\n", must[i]);
        EXPECT(strstr(text, must[i]) != NULL);
    }
    // One default each: a default outside the range reads as off, a help that names its
    // default gets the range alone; every line within 80 columns.
    EXPECT(strstr(text, "(1..64; off by default)") != NULL);
    EXPECT(strstr(text, "(default: -n) (1..4096)") != NULL);
    EXPECT(strstr(text, "(default 0; 1..64)") == NULL &&
           strstr(text, "(default 0; 1..4096)") == NULL);
    for (const char *line = text; *line;) {
        const size_t len = strcspn(line, "\n");
        if (len > 80)
            printf("  help line of %zu columns: %.*s\n", len, (int)len, line);
        EXPECT(len <= 80);
        line += len + (line[len] == '\n');
    }
}

// --- scoring and output -----------------------------------------------------------

static void test_score_formula(void)
{
    EXPECT(cl_score(1.0, 0.5, 1.25, true) == 1.25);
    EXPECT(cl_score(1.0, 1.2, 1.25, true) == 1.25); // within 1.2x: full marks
    EXPECT(fabs(cl_score(1.0, 2.0, 1.25, true) - 0.625) < 1e-12);
    EXPECT(fabs(cl_score(1.0, 1.3, 1.0, true) - 1.0 / 1.3) < 1e-12);
    EXPECT(cl_score(1.0, 0.5, 1.25, false) == 0.0);
    EXPECT(cl_score(1.0, NAN, 1.25, true) == 0.0);
}

// Runs fn with stdout sent to a buffer; returns the text.
static const char *capture_stdout(void (*fn)(void))
{
    static char text[8192];
    char path[] = "/tmp/cudalab_test_XXXXXX";
    int fd = mkstemp(path);
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    fn();
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    ssize_t len = pread(fd, text, sizeof text - 1, 0);
    text[len > 0 ? len : 0] = '\0';
    close(fd);
    unlink(path);
    return text;
}

static void print_score_table(void)
{
    cl_score_row rows[2] = {
        {.label = "10000",
         .size = 1e4,
         .bytes = 8e4,
         .ref_ms = 0.016,
         .your_ms = 0.004,
         .correct = true,
         .score = 1.25,
         .marks = 1.25},
        {.label = "100000",
         .size = 1e5,
         .ref_ms = 0.020,
         .your_ms = 0.040,
         .score = 0.0,
         .marks = 1.25},
    };
    cl_score_table_print("v2-shared", "cub::Peer", "Element Count", rows, 2);
}

static void test_score_table_layout(void)
{
    cl_report_set_json(false, "t");
    const char *text = capture_stdout(print_score_table);
    // The header names the version scored and the peer.
    EXPECT(strstr(text,
                  "-------------------------------------------------------------------------\n"
                  "| Your = v2-shared, Ref = cub::Peer (median ms)                         |\n"
                  "-------------------------------------------------------------------------\n"
                  "| Element Count   | Ref Time        | Your Time       | Score           |"));
    EXPECT(
        strstr(text, "| 10000           | 0.0160          | 0.0040          | 1.25            |"));
    EXPECT(
        strstr(text, "| 100000          | 0.0200          | 0.0400          | 0 (F)           |"));
    EXPECT(
        strstr(text, "|                                   | Total score:    | 1.25/2.5        |"));
    EXPECT(strstr(text,
                  "-------------------------------------------------------------------------\n"));
}

static void print_wide_score_table(void)
{
    cl_score_row rows[1] = {{.label = "rgb",
                             .size = 1,
                             .ref_ms = 1.0,
                             .your_ms = 0.5,
                             .correct = true,
                             .score = 12,
                             .marks = 12}};
    cl_score_table_print("v3", "ref", "Scene (1024x1024, frames 0:4)", rows, 1);
}

// A size header longer than 15 characters widens the first column, and every line of
// the table (rules included) keeps one width.
static void test_score_table_wide_header(void)
{
    cl_report_set_json(false, "t");
    const char *text = capture_stdout(print_wide_score_table);
    EXPECT(strstr(text, "| Scene (1024x1024, frames 0:4) | Ref Time        |"));
    EXPECT(strstr(text, "| rgb                           | 1.0000          |"));
    size_t width = strcspn(text, "\n"), lines = 0;
    EXPECT(width == strlen("Scene (1024x1024, frames 0:4)") + 58);
    for (const char *line = text; *line; line += strcspn(line, "\n") + 1, lines++) {
        EXPECT(strcspn(line, "\n") == width);
        if (!line[strcspn(line, "\n")])
            break;
    }
    EXPECT(lines == 9);
}

static void test_score_table_json(void)
{
    cl_report_set_json(true, "t");
    const char *text = capture_stdout(print_score_table);
    cl_report_set_json(false, "t");
    EXPECT(strstr(text, "{\"exercise\":\"t\",\"table\":\"score\",\"your\":\"v2-shared\","
                        "\"ref\":\"cub::Peer\",\"size\":\"10000\",\"ref_ms\":0.016,"
                        "\"your_ms\":0.004,\"correct\":true,\"score\":1.25,\"marks\":1.25,"
                        "\"n\":10000,\"bytes\":80000,\"ref_gbps\":5,\"your_gbps\":20}\n"));
    // No bytes: no rates.
    EXPECT(strstr(text, "\"correct\":false,\"score\":0,\"marks\":1.25,\"n\":100000}\n"));
    EXPECT(strstr(text, "{\"exercise\":\"t\",\"table\":\"score_total\",\"score\":1.25,\"max\":2.5,"
                        "\"size_header\":\"Element Count\"}\n"));
}

// --check of another version than the default: scored against the faster of the peer
// and the default version, both measured at each size; the default version alone is
// scored against the peer (measured once a size).
static double check_peer_ms;
static int check_calls;
static cl_check_point fake_check(void *ctx, size_t n, int k)
{
    (void)ctx;
    check_calls++;
    const double ms[] = {5.0, 2.0, 8.0, 4.0}; // v1-naive, v2-shared (the default), v3, yours
    return (cl_check_point){
        .ref_ms = check_peer_ms, .your_ms = ms[k], .ok = true, .size = (double)n};
}
static int check_kernel;
static void print_check(void)
{
    cl_common_args a = {.kernel_index = check_kernel, .default_index = 1}; // v2-shared
    static const size_t sizes[] = {100};
    cl_run_check_table(&a, CL_KERNEL_LIST(fake_versions, 4, "v2-shared"), "cub::Peer", sizes, 1,
                       1.25, fake_check, NULL);
}
static void test_check_against_the_best(void)
{
    cl_report_set_json(false, "t");
    check_peer_ms = 10.0; // a slow peer (a course's program): yours against v2-shared's 2 ms
    check_kernel = 3;
    check_calls = 0;
    const char *text = capture_stdout(print_check);
    EXPECT(check_calls == 2);
    EXPECT(
        strstr(text, "| Your = yours, Ref = the faster of cub::Peer and v2-shared (median ms) |"));
    EXPECT(
        strstr(text, "| 100             | 2.0000          | 4.0000          | 0.62            |"));
    check_peer_ms = 1.0; // a fast peer (a library): against the peer
    text = capture_stdout(print_check);
    EXPECT(
        strstr(text, "| 100             | 1.0000          | 4.0000          | 0.31            |"));
    check_kernel = 1; // the default: against the peer alone, one call a size
    check_peer_ms = 10.0;
    check_calls = 0;
    text = capture_stdout(print_check);
    EXPECT(check_calls == 1);
    EXPECT(strstr(text, "| Your = v2-shared, Ref = cub::Peer (median ms)"));
    EXPECT(
        strstr(text, "| 100             | 10.0000         | 2.0000          | 1.25            |"));
    // A name too long for the title line: Your and Ref a line each, the table's width kept.
    check_kernel = 2;
    text = capture_stdout(print_check);
    EXPECT(!strstr(text, "Your = v3-fast, Ref") && strstr(text, "| Your = v3-fast    ") &&
           strstr(text, "| Ref = the faster of cub::Peer and v2-shared (median ms)   "));
    size_t width = strcspn(text, "\n");
    for (const char *line = text; *line; line += strcspn(line, "\n") + 1) {
        EXPECT(strcspn(line, "\n") == width);
        if (!line[strcspn(line, "\n")])
            break;
    }
}

static const cl_column row_columns[] = {
    {"kernel", "kernel", 10, NULL},
    {"time_ms", "time ms", 8, "%.3f"},
    {"n", "n", 6, NULL},
    {"ok", "verified", 8, NULL},
};
static const cl_table row_table = {"ladder", row_columns, 4};

static void print_rows(void)
{
    cl_table_header(&row_table);
    cl_table_row(&row_table,
                 (cl_cell[]){CL_STR("v1 \"q\""), CL_NUM(0.5), CL_INT(42), CL_BOOL(true)});
    cl_table_row(&row_table, (cl_cell[]){CL_STR("v2"), CL_NUM(NAN), CL_INT(7), CL_BOOL(false)});
}

static void test_table_text_and_json(void)
{
    cl_report_set_json(false, "t");
    const char *text = capture_stdout(print_rows);
    EXPECT(strstr(text, "kernel     time ms  n      verified"));
    EXPECT(strstr(text, "v1 \"q\"     0.500    42     yes"));
    EXPECT(strstr(text, "v2         -        7      NO"));
    cl_report_set_json(true, "t");
    text = capture_stdout(print_rows);
    cl_report_set_json(false, "t");
    EXPECT(strcmp(text, "{\"exercise\":\"t\",\"table\":\"ladder\",\"kernel\":\"v1 \\\"q\\\"\","
                        "\"time_ms\":0.5,\"n\":42,\"ok\":true}\n"
                        "{\"exercise\":\"t\",\"table\":\"ladder\",\"kernel\":\"v2\","
                        "\"time_ms\":null,\"n\":7,\"ok\":false}\n") == 0);
}

static void test_median_and_bytes(void)
{
    double odd[] = {5, 1, 3};
    double even[] = {4, 1, 3, 2};
    EXPECT(cl_median(odd, 3) == 3);
    EXPECT(cl_median(even, 4) == 2.5);
    char buf[32];
    EXPECT(strcmp(cl_format_bytes(7.7e9, buf, sizeof buf), "7.7 GB") == 0);
    EXPECT(strcmp(cl_format_bytes(512, buf, sizeof buf), "512 B") == 0);
}

// --- RNG ----------------------------------------------------------------------------

static void test_rng_is_splitmix64(void)
{
    // Vigna's splitmix64.c seeded with 0 starts with these outputs.
    EXPECT(cl_rng_u64(0, 0) == 0xe220a8397b1dcdafull);
    EXPECT(cl_rng_u64(0, 1) == 0x6e789e6aa1b965f4ull);
    EXPECT(cl_rng_u64(0, 2) == 0x06c45d188009454full);
    EXPECT(cl_rng_key(0, 0) == 0xe220a8397b1dcdafull);
}

static void test_rng_ranges_and_determinism(void)
{
    enum { N = 100000 };
    static float a[N], b[N];
    static int32_t c[N];
    cl_fill_uniform_f32(a, N, cl_rng_key(7, 0), -1.0f, 1.0f);
    cl_fill_uniform_f32(b, N, cl_rng_key(7, 0), -1.0f, 1.0f);
    EXPECT(memcmp(a, b, sizeof a) == 0);
    cl_fill_uniform_f32(b, N, cl_rng_key(8, 0), -1.0f, 1.0f);
    EXPECT(memcmp(a, b, sizeof a) != 0);
    double sum = 0.0;
    bool in_range = true;
    for (int i = 0; i < N; i++) {
        in_range = in_range && a[i] >= -1.0f && a[i] < 1.0f;
        sum += a[i];
    }
    EXPECT(in_range);
    EXPECT(fabs(sum / N) < 0.01); // mean 0, s.e. 0.0018
    cl_fill_below_i32(c, N, cl_rng_key(7, 1), 10);
    int counts[10] = {0};
    bool below = true;
    for (int i = 0; i < N; i++) {
        below = below && c[i] >= 0 && c[i] < 10;
        if (c[i] >= 0 && c[i] < 10)
            counts[c[i]]++;
    }
    EXPECT(below);
    for (int d = 0; d < 10; d++)
        EXPECT(abs(counts[d] - N / 10) < 500); // s.d. ~95
    double u = cl_rng_uniform_f64(3, 3);
    EXPECT(u >= 0.0 && u < 1.0);
}

// --- verify ---------------------------------------------------------------------------

static void test_compare_f32(void)
{
    float got[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    double want[4] = {1.0, 2.0, 3.0000001, 4.0};
    cl_compare c = cl_compare_f32(got, want, 4, 1e-6, 0.0);
    EXPECT(c.ok && c.n_bad == 0);
    got[2] = 3.5f;
    c = cl_compare_f32(got, want, 4, 1e-6, 0.0);
    EXPECT(!c.ok && c.first_bad == 2 && c.expected == 3.0000001 && c.got == 3.5 && c.n_bad == 1);
    got[2] = NAN; // an unwritten (poisoned) element must fail
    c = cl_compare_f32(got, want, 4, 1.0, 1.0);
    EXPECT(!c.ok && c.first_bad == 2);
}

// A tolerance an element: |got - want| <= tol[i]; the worst error over its tolerance.
static void test_compare_f32_each(void)
{
    float got[3] = {1.0f, 2.5f, -3.0f};
    const double want[3] = {1.0, 2.0, -3.25}, tol[3] = {0.0, 1.0, 0.5};
    cl_compare c = cl_compare_f32_each(got, want, tol, 3);
    EXPECT(c.ok && c.max_err_over_tol == 0.5 && c.max_abs_err == 0.5);
    got[2] = -4.0f;
    c = cl_compare_f32_each(got, want, tol, 3);
    EXPECT(!c.ok && c.first_bad == 2 && c.n_bad == 1 && c.max_err_over_tol == 1.5);
    got[2] = NAN;
    c = cl_compare_f32_each(got, want, tol, 3);
    EXPECT(!c.ok && c.first_bad == 2);
}

// A real-valued option: finite numbers in range, anything else named in the error.
static void test_parse_real(void)
{
    cl_common_args a;
    char err[256];
    EXPECT(parse("--alpha -0.5", &a, err, sizeof err) == CL_PARSE_OK && extra_real == -0.5);
    EXPECT(parse("--alpha 2e-3", &a, err, sizeof err) == CL_PARSE_OK && extra_real == 2e-3);
    EXPECT(parse("", &a, err, sizeof err) == CL_PARSE_OK && extra_real == 1.0);
    static const char *const bad[] = {"--alpha nan", "--alpha inf", "--alpha 1e400",
                                      "--alpha 11",  "--alpha 1x",  "--alpha ''"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        EXPECT(parse(bad[i], &a, err, sizeof err) == CL_PARSE_ERROR &&
               strstr(err, "expected a number in -10..10"));
}

static void test_compare_exact(void)
{
    int32_t a[5] = {1, 2, 3, 4, 5}, b[5] = {1, 2, 3, 4, 5};
    EXPECT(cl_compare_i32(a, b, 5).ok);
    b[4] = -5;
    cl_compare c = cl_compare_i32(a, b, 5);
    EXPECT(!c.ok && c.first_bad == 4 && c.expected == -5 && c.got == 5 && c.max_abs_err == 10);
    uint32_t u[2] = {0xFFFFFFFFu, 0}, v[2] = {0xFFFFFFFFu, 1};
    c = cl_compare_u32(u, v, 2);
    EXPECT(!c.ok && c.first_bad == 1);
    // Floats that must be moved unchanged: equal values pass; a NaN (a poisoned, unwritten
    // element) and the smallest change fail.
    float f[3] = {1.5f, -0.25f, 3.0f}, g[3] = {1.5f, -0.25f, 3.0f};
    EXPECT(cl_compare_f32_exact(f, g, 3).ok);
    f[1] = NAN;
    c = cl_compare_f32_exact(f, g, 3);
    EXPECT(!c.ok && c.first_bad == 1 && c.n_bad == 1);
    f[1] = -0.25f;
    f[2] = nextafterf(3.0f, 4.0f);
    EXPECT(!cl_compare_f32_exact(f, g, 3).ok);
}

static void test_fault_injection(void)
{
    int32_t a[9] = {0}, b[9] = {0};
    setenv("CUDALAB_INJECT_FAULT", "1", 1);
    cl_compare c = cl_compare_i32(a, b, 9);
    unsetenv("CUDALAB_INJECT_FAULT");
    EXPECT(!c.ok && c.first_bad == 4);
    EXPECT(cl_compare_i32(a, b, 9).ok);
}

// A fatal exit runs the hook once (laplace3d aborts its NCCL communicators there), a
// failed CUDA call as cl_die does; a removed hook does not run. Each in a child process.
static int hook_pipe[2];
static void fatal_hook_writes(void)
{
    if (write(hook_pipe[1], "h", 1) != 1)
        _exit(42);
}

// Runs fatal(), with the hook set when `hooked`, in a child (its stderr into
// stderr_path, or nowhere); its exit status and how many times the hook ran.
static void die_in_child(void (*fatal)(void), bool hooked, int *status, int *hook_runs,
                         const char *stderr_path)
{
    EXPECT(pipe(hook_pipe) == 0);
    fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
        if (!freopen(stderr_path ? stderr_path : "/dev/null", "w", stderr))
            _exit(43);
        cl_set_fatal_hook(fatal_hook_writes);
        if (!hooked)
            cl_set_fatal_hook(NULL);
        fatal();
        _exit(0);
    }
    close(hook_pipe[1]);
    int wait_status = 0;
    EXPECT(waitpid(child, &wait_status, 0) == child);
    *status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
    char buf[8];
    *hook_runs = (int)read(hook_pipe[0], buf, sizeof buf);
    close(hook_pipe[0]);
}

static void die_usage(void) { cl_die(CL_EXIT_USAGE, "a usage error"); }
static void die_cuda(void) { CL_CUDA_CHECK(cudaErrorMemoryAllocation); }

static void test_fatal_hook(void)
{
    int status, runs;
    die_in_child(die_usage, true, &status, &runs, NULL);
    EXPECT(status == CL_EXIT_USAGE && runs == 1);
    die_in_child(die_cuda, true, &status, &runs, NULL);
    EXPECT(status == CL_EXIT_CUDA && runs == 1);
    die_in_child(die_cuda, false, &status, &runs, NULL);
    EXPECT(status == CL_EXIT_CUDA && runs == 0);
}

// The sort's 32-bit counts: a workspace for more than 2^32 - 1 keys is refused (exit 3,
// with a line) before anything is allocated, so no GPU is needed to see it.
static void sort_too_large(void) { cl_sort_workspace_create((size_t)CL_SORT_MAX_KEYS + 1, 0); }

static void test_sort_refuses_more_than_32_bit_keys(void)
{
    const char *path = "/tmp/cudalab_test_sort_limit.txt";
    int status, runs;
    die_in_child(sort_too_large, true, &status, &runs, path);
    char line[256] = "";
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = 0;
        fclose(f);
    }
    remove(path);
    EXPECT(status == CL_EXIT_CUDA && runs == 1);
    EXPECT(strstr(line, "the sort takes at most 4294967295 keys") != NULL);
}

// --- files ----------------------------------------------------------------------------

static size_t read_file(const char *path, unsigned char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t len = fread(buf, 1, cap, f);
    fclose(f);
    return len;
}

static void test_npy_writer(void)
{
    const char *path = "/tmp/cudalab_test.npy";
    float data[6] = {1, 2, 3, 4, 5, 6};
    size_t shape[2] = {2, 3};
    EXPECT(cl_npy_write(path, "<f4", data, sizeof(float), 2, shape) == 0);
    unsigned char buf[512];
    size_t len = read_file(path, buf, sizeof buf);
    EXPECT(len > 10 && memcmp(buf, "\x93NUMPY\x01\x00", 8) == 0);
    size_t header_len = buf[8] | (size_t)buf[9] << 8;
    EXPECT((10 + header_len) % 64 == 0);
    EXPECT(len == 10 + header_len + sizeof data);
    EXPECT(buf[10 + header_len - 1] == '\n');
    char header[256] = "";
    memcpy(header, buf + 10, header_len < 255 ? header_len : 255);
    EXPECT(strstr(header, "'descr': '<f4'") && strstr(header, "'fortran_order': False") &&
           strstr(header, "'shape': (2, 3)"));
    EXPECT(memcmp(buf + 10 + header_len, data, sizeof data) == 0);
    size_t one = 3;
    EXPECT(cl_npy_write(path, "<i4", data, 4, 1, &one) == 0);
    read_file(path, buf, sizeof buf);
    EXPECT(strstr((char *)buf + 10, "'shape': (3,)"));
    unlink(path);
    EXPECT(cl_npy_write("/nonexistent-dir/x.npy", "<f4", data, 4, 1, &one) == -1);
}

static const uint8_t test_rgb[2 * 3 * 3] = {255, 0,  0,  0,  255, 0,  0,  0,  255,
                                            10,  20, 30, 40, 50,  60, 70, 80, 90};

static void test_ppm_writer(void)
{
    const char *path = "/tmp/cudalab_test.ppm";
    EXPECT(cl_write_ppm(path, 3, 2, test_rgb) == 0);
    unsigned char buf[256];
    size_t len = read_file(path, buf, sizeof buf);
    const char *header = "P6\n3 2\n255\n";
    EXPECT(len == strlen(header) + sizeof test_rgb);
    EXPECT(memcmp(buf, header, strlen(header)) == 0);
    EXPECT(memcmp(buf + strlen(header), test_rgb, sizeof test_rgb) == 0);
    unlink(path);
}

#ifdef CL_HAVE_PNG
static void test_png_writer(void)
{
    char path[256];
    EXPECT(cl_image_write("/tmp/cudalab_test", 3, 2, test_rgb, path, sizeof path) == 0);
    EXPECT(strcmp(path, "/tmp/cudalab_test.png") == 0);
    png_image image = {.version = PNG_IMAGE_VERSION};
    EXPECT(png_image_begin_read_from_file(&image, path));
    image.format = PNG_FORMAT_RGB;
    uint8_t pixels[sizeof test_rgb] = {0};
    EXPECT(image.width == 3 && image.height == 2);
    EXPECT(png_image_finish_read(&image, NULL, pixels, 0, NULL));
    EXPECT(memcmp(pixels, test_rgb, sizeof test_rgb) == 0);
    unlink(path);
}
#endif

// Writes text to path (a test fixture).
static void write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    fwrite(text, 1, len, f);
    fclose(f);
}

// A PPM written and read back; the P3 text form with a comment reads the same.
static void test_image_read_ppm(void)
{
    char err[256];
    cl_image image;
    EXPECT(cl_image_write_file("/tmp/cudalab_read.ppm", 3, 2, test_rgb, err, sizeof err) == 0);
    EXPECT(cl_image_read("/tmp/cudalab_read.ppm", &image, err, sizeof err) == 0);
    EXPECT(image.width == 3 && image.height == 2 && memcmp(image.rgb, test_rgb, 18) == 0);
    cl_image_free(&image);
    const char *p3 = "P3\n# a comment\n3 2\n255\n255 0 0  0 255 0  0 0 255\n"
                     "10 20 30 40 50 60 70 80 90\n";
    write_text("/tmp/cudalab_read.PPM", p3, strlen(p3));
    EXPECT(cl_image_read("/tmp/cudalab_read.PPM", &image, err, sizeof err) == 0);
    EXPECT(image.width == 3 && image.height == 2 && memcmp(image.rgb, test_rgb, 18) == 0);
    cl_image_free(&image);
    unlink("/tmp/cudalab_read.ppm");
    unlink("/tmp/cudalab_read.PPM");
}

// Each bad input is refused with a message naming the problem.
static void test_image_read_refuses(void)
{
    static const struct {
        const char *name, *content, *problem;
    } cases[] = {
        {"magic.ppm", "P5\n3 2\n255\n", "bad magic"},
        {"fields.ppm", "P6\n3\n", "bad header"},
        {"negative.ppm", "P6\n-3 2\n255\n", "bad header"},
        {"zero.ppm", "P6\n0 2\n255\n", "at least 1"},
        {"maxval.ppm", "P6\n3 2\n65535\n", "maxval 65535"},
        {"short.ppm", "P6\n3 2\n255\nabcdef", "truncated pixel data: 6 of 18 bytes"},
        {"short3.ppm", "P3\n1 1\n255\n1 2", "truncated pixel data"},
        {"value.ppm", "P3\n1 1\n255\n1 2 300", "above maxval"},
        {"huge.ppm", "P6\n40000 2\n255\n", "too large"},
        {"photo.jpg", "x", "unknown extension 'jpg'"},
        {"noext", "x", "unknown extension"},
#ifdef CL_HAVE_PNG
        {"garbage.png", "not a png at all", "not a readable PNG"},
#else
        {"garbage.png", "not a png at all", "needs libpng"},
#endif
    };
    char path[256], err[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(path, sizeof path, "/tmp/cudalab_bad_%s", cases[i].name);
        write_text(path, cases[i].content, strlen(cases[i].content));
        cl_image image = {0};
        err[0] = 0;
        int rc = cl_image_read(path, &image, err, sizeof err);
        EXPECT(rc == -1 && image.rgb == NULL);
        if (!strstr(err, cases[i].problem))
            printf("  %s: '%s' lacks '%s'\n", cases[i].name, err, cases[i].problem);
        EXPECT(strstr(err, cases[i].problem) != NULL);
        unlink(path);
    }
    cl_image image = {0};
    EXPECT(cl_image_read("/tmp/cudalab_missing.ppm", &image, err, sizeof err) == -1);
    EXPECT(strstr(err, "cannot open") != NULL);
}

// Writing by extension: unknown ones refused, and a failed write leaves no file.
static void test_image_write_file(void)
{
    char err[256];
    EXPECT(cl_image_write_file("/tmp/cudalab_w.gif", 3, 2, test_rgb, err, sizeof err) == -1);
    EXPECT(strstr(err, "unknown extension") != NULL);
    EXPECT(cl_image_write_file("/nonexistent-dir/x.ppm", 3, 2, test_rgb, err, sizeof err) == -1);
    EXPECT(strstr(err, "cannot write") != NULL);
    EXPECT(access("/nonexistent-dir/x.ppm.partial", F_OK) != 0);
#ifdef CL_HAVE_PNG
    cl_image image;
    EXPECT(cl_image_write_file("/tmp/cudalab_w.png", 3, 2, test_rgb, err, sizeof err) == 0);
    EXPECT(cl_image_read("/tmp/cudalab_w.png", &image, err, sizeof err) == 0);
    EXPECT(image.width == 3 && image.height == 2 && memcmp(image.rgb, test_rgb, 18) == 0);
    cl_image_free(&image);
    unlink("/tmp/cudalab_w.png");
#endif
}

static void test_rgba_to_rgb8(void)
{
    float rgba[8] = {0.0f, 0.5f, 1.0f, 1.0f, -1.0f, 2.0f, NAN, 0.5f};
    uint8_t rgb[6];
    cl_rgba_f32_to_rgb8(rgba, 2, rgb);
    EXPECT(rgb[0] == 0 && rgb[1] == 128 && rgb[2] == 255);
    EXPECT(rgb[3] == 0 && rgb[4] == 255 && rgb[5] == 0);
}

// The no-device line says which case it is and what to do, never "insufficient driver"
// when there is no driver at all.
static void test_no_device_reasons(void)
{
    char r[512];
    cl_no_device_reason(0, 13000, 0, NULL, "CUDA driver version is insufficient", r, sizeof r);
    EXPECT(strstr(r, "no NVIDIA driver is installed") && !strstr(r, "insufficient"));
    cl_no_device_reason(12020, 13000, 0, NULL, "CUDA driver version is insufficient", r, sizeof r);
    EXPECT(strstr(r, "supports CUDA 12.2 and this build needs 13.0"));
    cl_no_device_reason(13000, 13000, 1, "-1", "no CUDA-capable device", r, sizeof r);
    EXPECT(strstr(r, "CUDA_VISIBLE_DEVICES=-1 hides every GPU"));
    cl_no_device_reason(13000, 13000, 1, NULL, "no CUDA-capable device", r, sizeof r);
    EXPECT(strstr(r, "finds no GPU"));
    cl_no_device_reason(13000, 13000, 0, NULL, "out of memory", r, sizeof r);
    EXPECT(strstr(r, "CUDA could not start: out of memory"));
}

// The launchers' variables (common/team.h): none set is one process; mpirun's, srun's
// and torchrun's; a malformed value or a rank past the world exits 2.
static void launch_malformed(void)
{
    setenv("RANK", "x", 1);
    setenv("WORLD_SIZE", "2", 1);
    cl_launch_from_env();
}
static void launch_rank_past_world(void)
{
    setenv("RANK", "2", 1);
    setenv("WORLD_SIZE", "2", 1);
    cl_launch_from_env();
}
static void launch_no_world(void)
{
    setenv("SLURM_PROCID", "0", 1);
    cl_launch_from_env();
}

static void test_launch_from_env(void)
{
    cl_launch l = cl_launch_from_env();
    EXPECT(l.world == 1 && l.rank == 0 && l.local_rank == -1 && l.source == NULL);
    setenv("SLURM_PROCID", "3", 1);
    setenv("SLURM_NTASKS", "4", 1);
    setenv("SLURM_LOCALID", "1", 1);
    l = cl_launch_from_env();
    EXPECT(l.rank == 3 && l.world == 4 && l.local_rank == 1 &&
           strcmp(l.source, "SLURM_PROCID") == 0);
    setenv("OMPI_COMM_WORLD_RANK", "0", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    l = cl_launch_from_env(); // mpirun's come first
    EXPECT(l.rank == 0 && l.world == 2 && l.local_rank == -1);
    unsetenv("OMPI_COMM_WORLD_RANK");
    unsetenv("OMPI_COMM_WORLD_SIZE");
    unsetenv("SLURM_PROCID");
    unsetenv("SLURM_NTASKS");
    unsetenv("SLURM_LOCALID");
    setenv("RANK", "1", 1);
    setenv("WORLD_SIZE", "2", 1);
    setenv("LOCAL_RANK", "0", 1);
    l = cl_launch_from_env();
    EXPECT(l.rank == 1 && l.world == 2 && l.local_rank == 0 && strcmp(l.source, "RANK") == 0);
    unsetenv("RANK");
    unsetenv("WORLD_SIZE");
    unsetenv("LOCAL_RANK");
    int status, runs;
    die_in_child(launch_malformed, false, &status, &runs, NULL);
    EXPECT(status == CL_EXIT_USAGE);
    die_in_child(launch_rank_past_world, false, &status, &runs, NULL);
    EXPECT(status == CL_EXIT_USAGE);
    die_in_child(launch_no_world, false, &status, &runs, NULL);
    EXPECT(status == CL_EXIT_USAGE);
    l = cl_launch_from_env(); // the children's variables stayed in the children
    EXPECT(l.world == 1);
}

// The watchdog: not expired at once, expired after its limit.
static void test_watchdog(void)
{
    const cl_watchdog w = cl_watchdog_start(30);
    EXPECT(!cl_watchdog_expired(&w));
    usleep(40000);
    EXPECT(cl_watchdog_expired(&w));
    const cl_watchdog never = cl_watchdog_start(1e9);
    EXPECT(!cl_watchdog_expired(&never));
}

// The id file: written whole and read back; a path that exists is refused (exit 2, an
// earlier run's id); a reader gives up after its watchdog when no file comes, and
// finds one that a writer leaves while it waits. A file an earlier run left is stale,
// said at once: its writer (a process of this host) has ended, it was written longer ago
// than its writer waits, or it is not an id file.
static const char id_path[] = "/tmp/cudalab_test_team_id";
static void write_id_twice(void)
{
    const unsigned char id[128] = {1};
    cl_id_file_write(id_path, id, sizeof id, 60e3);
}

static cl_id_status read_id(unsigned char *got, double limit_ms, char *why)
{
    return cl_id_file_read(id_path, got, 128, limit_ms, why, 256);
}

static void test_id_file(void)
{
    unsigned char id[128], got[128];
    char why[256];
    for (int i = 0; i < 128; i++)
        id[i] = (unsigned char)(7 * i + 3);
    remove(id_path);
    cl_id_file_write(id_path, id, sizeof id, 60e3);
    EXPECT(read_id(got, 100, why) == CL_ID_READ && memcmp(id, got, sizeof id) == 0);
    int status, runs;
    die_in_child(write_id_twice, false, &status, &runs, NULL);
    EXPECT(status == CL_EXIT_USAGE);
    EXPECT(read_id(got, 100, why) == CL_ID_READ && memcmp(id, got, sizeof id) == 0);
    remove(id_path);

    const double t0 = cl_wall_ms();
    EXPECT(read_id(got, 50, why) == CL_ID_NONE);
    const double waited = cl_wall_ms() - t0;
    EXPECT(waited >= 50 && waited < 2000);

    // A writer that leaves the file while the reader waits, and lives on until it has read.
    int done[2];
    EXPECT(pipe(done) == 0);
    fflush(stdout);
    pid_t writer = fork();
    if (writer == 0) {
        close(done[1]);
        usleep(50000);
        cl_id_file_write(id_path, id, sizeof id, 60e3);
        char c;
        _exit(read(done[0], &c, 1) == 0 ? 0 : 1); // until the reader closes its end
    }
    close(done[0]);
    memset(got, 0, sizeof got);
    EXPECT(read_id(got, 10000, why) == CL_ID_READ && memcmp(id, got, sizeof id) == 0);
    close(done[1]);
    int wait_status = 0;
    EXPECT(waitpid(writer, &wait_status, 0) == writer && WIFEXITED(wait_status) &&
           WEXITSTATUS(wait_status) == 0);

    // Stale: its writer has ended (the file above, left behind).
    EXPECT(read_id(got, 10000, why) == CL_ID_STALE && strstr(why, "which has ended"));
    remove(id_path);
    // Stale: written longer before the reader started than the writer waits (1 ms).
    cl_id_file_write(id_path, id, sizeof id, 1);
    usleep(20000);
    EXPECT(read_id(got, 10000, why) == CL_ID_STALE && strstr(why, "before this rank started"));
    remove(id_path);
    // Stale: not an id file (an NCCL id alone, as earlier versions wrote it).
    FILE *f = fopen(id_path, "wb");
    EXPECT(f && fwrite(id, sizeof id, 1, f) == 1 && fclose(f) == 0);
    EXPECT(read_id(got, 10000, why) == CL_ID_STALE && strstr(why, "not an id file"));
    remove(id_path);
}

int main(void)
{
    RUN_TEST(test_parse_size_accepts_the_documented_forms);
    RUN_TEST(test_parse_size_rejects_junk);
    RUN_TEST(test_parse_defaults_and_values);
    RUN_TEST(test_kernel_list_default_by_name);
    RUN_TEST(test_no_device_reasons);
    RUN_TEST(test_parse_kernel_selection);
    RUN_TEST(test_parse_check_version);
    RUN_TEST(test_size_column_header);
    RUN_TEST(test_parse_no_peer);
    RUN_TEST(test_parse_errors_name_the_flag);
    RUN_TEST(test_parse_help);
    RUN_TEST(test_score_formula);
    RUN_TEST(test_score_table_layout);
    RUN_TEST(test_score_table_wide_header);
    RUN_TEST(test_score_table_json);
    RUN_TEST(test_check_against_the_best);
    RUN_TEST(test_table_text_and_json);
    RUN_TEST(test_median_and_bytes);
    RUN_TEST(test_rng_is_splitmix64);
    RUN_TEST(test_rng_ranges_and_determinism);
    RUN_TEST(test_compare_f32);
    RUN_TEST(test_compare_exact);
    RUN_TEST(test_compare_f32_each);
    RUN_TEST(test_parse_real);
    RUN_TEST(test_fault_injection);
    RUN_TEST(test_fatal_hook);
    RUN_TEST(test_launch_from_env);
    RUN_TEST(test_watchdog);
    RUN_TEST(test_id_file);
    RUN_TEST(test_sort_refuses_more_than_32_bit_keys);
    RUN_TEST(test_npy_writer);
    RUN_TEST(test_ppm_writer);
    RUN_TEST(test_image_read_ppm);
    RUN_TEST(test_image_read_refuses);
    RUN_TEST(test_image_write_file);
#ifdef CL_HAVE_PNG
    RUN_TEST(test_png_writer);
#endif
    RUN_TEST(test_rgba_to_rgb8);
    return UNIT_RESULT();
}
