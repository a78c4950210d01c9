// Command-line parsing for every cudalab binary: one option table a binary, which
// also generates --help. The options every binary shares are built in;
// an exercise adds its own table.
#ifndef CUDALAB_CLI_H
#define CUDALAB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CL_ARG_FLAG,   // bool *: set when present
    CL_ARG_SIZE,   // size_t *: 1000000, 1e6, 16M (M = 10^6), 1Mi (2^20)
    CL_ARG_INT,    // long *
    CL_ARG_STRING, // const char **
    CL_ARG_CHOICE, // int *: index into choices
    CL_ARG_REAL,   // double *: a finite number (1, -0.5, 2e-3)
} cl_arg_kind;

typedef struct {
    char short_name;       // 0 when the option has only a long name
    const char *long_name; // without the leading "--"; NULL ends a table
    cl_arg_kind kind;
    void *dest;
    const char *metavar;        // shown in --help, e.g. "SIZE"
    const char *help;           // one line; the default is appended from dest
    double min, max;            // accepted range (SIZE, INT, REAL)
    const char *const *choices; // CHOICE: NULL-terminated names
} cl_option;

// A kernel version as listed by --help and selected by -k. Exercises keep their
// version table in the .cu file with cl_kernel_info as the first member of each
// entry, and hand it over with CL_KERNEL_LIST, so there is one list of versions.
typedef struct {
    const char *name; // "v3-float4"
    const char *idea; // one line
} cl_kernel_info;

typedef struct {
    const cl_kernel_info *first;
    int count;
    size_t stride; // bytes between entries
    int fastest;   // index of the default (fastest) version, found by its name
} cl_kernel_list;

// The list of a version table; the default version is named (so inserting a version
// cannot silently move it), and a name not in the table stops the program at once.
#define CL_KERNEL_LIST(table, n, fastest_name)                                                     \
    cl_kernel_list_make(&(table)[0].info, (n), sizeof((table)[0]), (fastest_name))
cl_kernel_list cl_kernel_list_make(const cl_kernel_info *first, int count, size_t stride,
                                   const char *fastest_name);

const cl_kernel_info *cl_kernel_at(cl_kernel_list list, int i);

// The options every binary takes.
typedef struct {
    size_t n;           // -n
    bool n_given;       // -n was on the command line (not its default)
    const char *kernel; // -k: a version's name, its number ("3" or "v3"), or "all"
    long iters;         // -i: timed repeats; 0 = automatic
    long seed;          // -S
    long device;        // -d
    bool check;         // --check: print the score table
    bool no_peer;       // --no-peer: the ladder without the peer's rows
    bool json;          // --json: one JSON object per result line
    const char *dump;   // --dump PREFIX
    // Filled in by the parser from `kernel`:
    int kernel_index; // the selected version, or -1 for "all"
    // The run's default version: the list's fastest (the parser's); an exercise whose
    // default depends on an option (matmul's precision) sets its own. --check scores
    // another version against the faster of the peer and this one.
    int default_index;
} cl_common_args;

typedef struct {
    const char *name;    // program name, e.g. "saxpy"
    const char *summary; // one line: what it computes
    const char *example; // an example command line
    size_t n_default, n_min, n_max;
    const char *n_meaning; // e.g. "elements"
    const char *n_long;    // -n's long name; NULL: "size" (--size is accepted either way)
    // The ladder's size column: what its rows' n counts ("points", "keys"); NULL: "n".
    const char *n_column;
    cl_kernel_list kernels;
    const cl_option *options; // the exercise's own, ended by an entry with long_name NULL
    const char *positional;   // metavar of one optional positional argument, or NULL
    const char **positional_dest;
} cl_program;

typedef enum { CL_PARSE_OK, CL_PARSE_HELP, CL_PARSE_ERROR } cl_parse_result;

// Parses argv. On CL_PARSE_ERROR `err` holds a message naming the flag and the
// accepted range. Does not print or exit (unit-testable).
cl_parse_result cl_parse_args(const cl_program *prog, int argc, char **argv, cl_common_args *out,
                              char *err, size_t errlen);

// cl_parse_args, then: --help prints the help and exits 0; an error prints
// "prog: message (see --help)" and exits 2. Also sets cl_progname, JSON mode and
// cl_size_column.
void cl_parse_args_or_exit(const cl_program *prog, int argc, char **argv, cl_common_args *out);

void cl_print_help(const cl_program *prog, FILE *out);

// The header of the ladder's size column (cl_program.n_column, "n" by default): the
// JSON key stays "n", the printed header says what it counts.
extern const char *cl_size_column;

// Whether the last parse set the option whose destination is `dest` (given on the command
// line, whatever its value): for an option that has no effect in some combination, which
// is then refused (exit 2) rather than ignored.
bool cl_option_given(const void *dest);

// An exercise's main: `return cl_main(argc, argv, run);`, where run is the program
// itself. `prog --batch FILE` runs each line of FILE as the program's arguments (split
// at spaces, no quoting), one after another in one process, so one CUDA context (and
// one copy-rate measurement) serves them all: creating a context takes 0.2 s alone and
// over a second with 16 programs starting at once. After each run a line
// CL_BATCH_MARK "RC" on stdout gives its exit status; a run that exits (usage error,
// CUDA error, no device) ends the batch, its line saying so: CL_BATCH_MARK "RC, the
// batch ends". No exercise has an option of its own by that name.
#define CL_BATCH_MARK "@@ cudalab batch: exit "
int cl_main(int argc, char **argv, int (*run)(int argc, char **argv));

// Parses a size: digits with an optional fraction and exponent (1e6, 2.5e3) and an
// optional suffix K, M, G, T (powers of 10) or Ki, Mi, Gi, Ti (powers of 2). The
// result must be a whole number. Returns false on anything else.
bool cl_parse_size(const char *text, double *value);

#ifdef __cplusplus
}
#endif

#endif
