// SPDX-License-Identifier: MIT
// exactattn command line: one function per subcommand (cli/cmd_<name>.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

namespace CLI {
class App;
}
#include "exactattn/annotations.hpp"
#include "exactattn/document.hpp"
#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"  // run_parallel

namespace exactattn::cli {

struct Delivery;  // cli/delivery.hpp: how one run delivers its output

/// The place of a file named on the command line, without a line: "chapter14: …".
inline Location file_place(const std::string& file) {
    Location where;
    where.file = file;
    return where;
}

/// f(), with an error that has no place placed at `file`: a refusal while a scenario's report
/// is computed or printed (the work budget's, docs/limits.md) names the file it came from. A
/// usage error (a file that cannot be read) names its file in its reason already.
template <class F>
auto placed_in_file(const std::string& file, F&& f) {
    return placed(file_place(file), std::forward<F>(f), KeepPlace::AnyOrUsage);
}

/// f(), with a limit's refusal (the work budget's above all) that names no file given `file`,
/// keeping the place it has: `chapter14: --target: printing a value … would take …`. For the
/// commands of one scenario whose refusals are placed at an option or at nothing (check,
/// variants); a usage or other error keeps its place.
template <class F>
auto limits_placed_in_file(const std::string& file, F&& f) {
    return placed(file_place(file), std::forward<F>(f), KeepPlace::AnyButFilelessLimit);
}

struct EvalOptions {
    std::string expr;
    std::string format = "ascii";
    int digits = 20;
    bool display = false;  ///< --display: the author's form of docs/notation.md, not the canonical one
};

struct RunOptions {
    std::string file = "chapter14";
    std::string format = "text";
    exactattn::RenderOptions render;  ///< --standalone, --latex-floats, --no-markdown-math
};

struct ReadOptions {
    std::string memory;
    std::string query;
    std::string readout;
    std::vector<std::string> remove;
    std::vector<std::string> zero;
    std::string format = "text";
    std::string fields;               ///< --fields: JSON keys to write, comma-separated
    bool fields_given = false;        ///< --fields was given (even as "")
    exactattn::RenderOptions render;  ///< --standalone, --latex-floats, --no-markdown-math
};

struct EncodeOptions {
    std::string scenario = "chapter14";
    std::string tokens;
    std::string format = "text";
    exactattn::RenderOptions render;  ///< --standalone, --latex-floats, --no-markdown-math
};

struct FilesOptions {
    std::vector<std::string> files;  ///< files and directories (scenario_files)
    std::size_t jobs = 0;            ///< -j N (0: the number of cores)
    std::string junit;               ///< --junit FILE (empty: none)
    std::string format;
    std::string sarif;                ///< verify --sarif FILE (empty: none)
    exactattn::RenderOptions render;  ///< --standalone, --latex-floats, --no-markdown-math
};

struct PointersOptions {
    std::string file = "chapter14";
    std::string under;  ///< --under PTR (empty: the whole report)
    std::string format = "text";
    exactattn::RenderOptions render;
};

struct CheckOptions {
    std::string file;
    std::string answer;    ///< one declared learner answer by name (default: all)
    std::string target;    ///< an ad-hoc answer: JSON pointer of the quantity …
    std::string proposed;  ///< … and the proposed value or vector
    bool ad_hoc = false;   ///< --target (with --proposed) was given, even as an empty string
    std::string answers;   ///< --answers CSV: a class's answers (student,target,answer)
    std::string variants;  ///< --variants DIR: grade the class against `variants -o DIR`
    /// Receives each class row that cannot be graded (placed at its CSV line); the command goes on.
    std::function<void(const Error&)> refused;
    std::string tolerance;            ///< --tolerance KIND:N for decimals and percentages
    std::vector<std::string> accept;  ///< --accept ID: mistakes accepted as right
    std::string format;               ///< --format (none: text, or CSV for a class's --answers)
    exactattn::RenderOptions render;  ///< --standalone, --latex-floats, --no-markdown-math
};

struct AttendOptions {
    std::string x;                        ///< the sequence X (rows), inline or @FILE
    std::string memory;                   ///< cross-attention: keys and values from this sequence
    std::vector<std::string> wq, wk, wv;  ///< one per head, or one split by columns into --heads
    std::string wo;
    int heads = 1;
    bool causal = false;
    std::string mask;                  ///< n_q × n_k of 0/1, 1 = masked
    std::vector<std::string> padding;  ///< key positions masked for every query (1-based)
    std::string scale = "none";        ///< none | sqrt-dk | an exact value
    std::string positions;             ///< a matrix added to X, or "sinusoidal" (refused)
    bool residual = false;
    bool layer_norm = false;  ///< refused with the reason
    std::string tokens;       ///< labels of the rows and columns
    std::string format = "text";
    exactattn::RenderOptions render;  ///< --standalone, --latex-floats, --no-markdown-math
};
struct RolloutOptions {
    std::string file;
    std::optional<std::string> name;  ///< --rollout (absent: the scenario's only rollout; given empty: refused)
    std::optional<int> digits;        ///< --digits: decimals of the rounded cross-entropy (default: the file's, 6)
    std::string format = "text";
    exactattn::RenderOptions render;  ///< --standalone, --latex-floats, --no-markdown-math
};
/// Writes `data` to `path` so that a failure leaves whatever was there intact: a temporary
/// file in the same directory, renamed over the target only when every byte is on disk. A
/// target that exists and is not a regular file (/dev/null, a FIFO, a terminal) is written
/// in place, since renaming over it would replace the device with a file. Errors name `option`.
void write_output_file(const std::string& path, std::string_view data, const char* option = "--output");
struct VariantsOptions {
    std::string file = "chapter14";
    std::string exercise;
    std::int64_t count = 1;
    std::string seed = "0";                   ///< a whole number from 0 to 2^64 − 1
    std::optional<std::string> variant_seed;  ///< re-create one variant from its own seed
    std::string output;                       ///< -o DIR (required)
    exactattn::WarningSink warn;              ///< the warnings of sheet.html
};
struct FigureOptions {
    std::string file = "chapter14";
    std::string figure;          ///< a declared figure's name or number
    std::string format = "svg";  ///< svg | tikz
};

/// The scenario files named by `paths`, in a deterministic order: a directory contributes every
/// regular file below it (recursively) whose name ends in `.json`, sorted by path (byte order);
/// a file (or the built-in `chapter14`) is taken as given, in the order given. A path that does
/// not exist, or a directory without any `.json` file, is a ReferenceError naming it (exit 2).
std::vector<std::string> scenario_files(const std::vector<std::string>& paths);

/// The bytes of standard input, read to its end: a manuscript given as `-`
/// (docs/manuscript.md, "Standard input"). A pipe or a redirected file is read; a terminal,
/// device or socket is refused at once (UsageError), and more than limits().max_file_bytes
/// bytes are refused (LimitError) as a file of that size is. With `work_per_byte` > 0 (what the
/// job will charge for each byte it reads, e.g. kWorkPerManuscriptByte) the reading stops as soon
/// as the bytes so far would take the job past its work budget, with the refusal that charge
/// would give ("reading <what> of more than N bytes …", LimitError): an endless pipe is refused
/// after tens of megabytes, not at max_file_bytes.
std::string read_standard_input(double work_per_byte = 0, std::string_view what = {});

/// The default number of jobs: the number of cores (std::thread::hardware_concurrency), at
/// least 1.
std::size_t default_jobs();

/// run_parallel (exactattn/limits.hpp) runs the files of a command on `--jobs` threads.

/// The place of a command-line option in an error: "--memory: …".
exactattn::Location option_place(const std::string& option);

/// Runs f, placing an error that names no file at `option`.
template <class F>
auto for_option(const std::string& option, F&& f) -> decltype(f()) {
    return placed(option_place(option), std::forward<F>(f), KeepPlace::File);
}

/// The whole number that all of `text` writes (in the range of long long), or nothing.
std::optional<long long> whole_number(const std::string& text);

/// Writes a document: rendered to `out`, or, for CSV with `-o DIR` (delivery.directory), one
/// file per table and index.csv in DIR, for Markdown with `-o DIR`, report.md and one SVG file
/// per figure (each written atomically; delivery.directory_written is set). UsageError for
/// `-o DIR` with another format.
void emit(const exactattn::Document& doc, exactattn::Format format, const exactattn::RenderOptions& options,
          std::ostream& out, Delivery& delivery);

/// Writes files into the directory `dir` (created when missing); the command's own output then
/// goes to standard output. UsageError at --output when one cannot be written; with
/// --warnings-as-errors, a warning of the command (delivery.warnings) is an error before any
/// file is written; delivery.directory_written is set when they are. All or nothing: written
/// into a temporary directory in `dir`, synced once (syncfs), then renamed into place; a
/// failure part way leaves the directory's earlier files as they were.
void write_files(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files,
                 Delivery& delivery);
/// Tests only: the rename write_files uses (null: ::rename), to fail one part way.
void set_rename_for_testing(int (*rename)(const char*, const char*));

// Each returns the exit code and writes its whole output to `out` (a buffer the caller
// flushes only on success). They throw exactattn::Error for invalid input.
/// Output that a command hands back to be written after it succeeded, straight to standard
/// output (or into the -o file) in chunks instead of through the command's buffer: for an
/// output of hundreds of megabytes (read and run --format json).
using DeferredOutput = std::function<void(std::ostream&)>;
int cmd_eval(const EvalOptions& o, std::ostream& out);
int cmd_run(const RunOptions& o, std::ostream& out, Delivery& delivery);
int cmd_read(const ReadOptions& o, std::ostream& out, Delivery& delivery);
int cmd_encode(const EncodeOptions& o, std::ostream& out, Delivery& delivery);
int cmd_verify(const FilesOptions& o, std::ostream& out);
int cmd_crosscheck(const FilesOptions& o, std::ostream& out, Delivery& delivery);
int cmd_pointers(const PointersOptions& o, std::ostream& out, Delivery& delivery);
int cmd_answers(const FilesOptions& o, std::ostream& out);
int cmd_check(const CheckOptions& o, std::ostream& out, Delivery& delivery);
int cmd_attend(const AttendOptions& o, std::ostream& out, Delivery& delivery);
int cmd_rollout(const RolloutOptions& o, std::ostream& out, Delivery& delivery);
int cmd_variants(const VariantsOptions& o, std::ostream& out, Delivery& delivery);
int cmd_figure(const FigureOptions& o, std::ostream& out);
/// The `oracle` subcommand (cli/cmd_oracle.cpp): its options, bound to `command` when chosen.
void add_oracle_command(CLI::App& app, std::function<int(std::ostream&)>& command, Delivery& delivery);
/// The options of `attend` on its subcommand (kept beside the command).
void add_attend_options(CLI::App& sub, AttendOptions& o);
void add_pointers_options(CLI::App& sub, PointersOptions& o);

/// `--format` with the report formats' names (format.hpp's table), or only those that hold prose.
void add_format_option(CLI::App& sub, std::string& format, bool prose_only = false);
/// The `manuscript check|fill|audit` family, its options owned by the callbacks it installs;
/// the chosen one is bound into `command`.
void add_manuscript_command(CLI::App& app, std::function<int(std::ostream&)>& command);
/// `verify DIR`: checks the manuscripts below the directories among `paths` (those naming an
/// exactattn-scenario) as `manuscript check` does, printing a wrong claim as `format` says
/// (`text`, or `github`: an annotation line) and adding it to `notes` and the files checked to
/// `checked`; the number of wrong claims.
std::size_t check_manuscripts_below(const std::vector<std::string>& paths, std::size_t jobs, std::ostream& out,
                                    const std::string& format, std::vector<exactattn::Annotation>& notes,
                                    std::vector<std::string>& checked);

}  // namespace exactattn::cli
