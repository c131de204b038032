// SPDX-License-Identifier: MIT
// exactattn command line: argument parsing (CLI11) and the error → exit code contract.
//
// Three steps: make the application (every subcommand, then the options they all share, so no
// subcommand can miss one), dispatch to cmd_<name>, and deliver: the whole output goes to
// standard output or, atomically, to the -o file only when the command succeeded; every error
// becomes one line on stderr and exit code 2.
#include "app.hpp"

#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <new>
#include <ostream>
#include <sstream>
#include <unordered_set>

#include "commands.hpp"
#include "exactattn/version.hpp"
#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/out_of_memory.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/scenario.hpp"

namespace exactattn::cli {

void add_format_option(CLI::App& sub, std::string& format, bool prose_only) {
    sub.add_option("--format", format, format_choices(prose_only))->check(CLI::IsMember(format_names(prose_only)));
}

namespace {

/// The parsed command line: one options struct per subcommand, and the shared ones.
struct Parsed {
    std::string output;         ///< -o FILE (empty: standard output)
    std::string preamble_file;  ///< --preamble FILE (empty: none)
    RenderOptions render;
    EvalOptions eval;
    RunOptions run;
    ReadOptions read;
    EncodeOptions encode;
    FilesOptions verify;
    FilesOptions cross;
    FilesOptions answers;
    CheckOptions check;
    AttendOptions attend;
    RolloutOptions rollout;
    VariantsOptions variants;
    FigureOptions figure;
    PointersOptions pointers;
    std::int64_t max_work = 0;                  ///< --max-work N (0: the default)
    bool warnings_as_errors = false;            ///< --warnings-as-errors
    std::function<int(std::ostream&)> command;  ///< the chosen subcommand, bound to its options
    DeferredOutput deferred;                    ///< written after the command's buffer, if set
};

/// -j N and --junit FILE of the commands that run a whole book (verify, crosscheck).
void add_book_options(CLI::App& sub, FilesOptions& o) {
    sub.add_option("-j,--jobs", o.jobs, "Files run in parallel (default: the number of cores)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{256}));
    sub.add_option("--junit", o.junit, "Also write a JUnit XML report to FILE");
}

/// Builds the application into `app`, binding every option into `p`.
void make_app(CLI::App& app, Parsed& p) {
    app.set_version_flag("--version", "exactattn " EXACTATTN_VERSION_STRING);
    app.require_subcommand(0, 1);

    auto* s_eval = app.add_subcommand("eval", "Evaluate an expression exactly");
    s_eval->add_option("expr", p.eval.expr, "Expression, e.g. '2^(1/2)/(2+2^(1/2))'")->required();
    s_eval->add_option("--format", p.eval.format, "ascii|unicode|latex|mathml|decimal|json")
        ->check(CLI::IsMember({"ascii", "unicode", "latex", "mathml", "decimal", "json"}));
    s_eval->add_flag("--display", p.eval.display,
                     "The display form ((3√2 − 2)/7, 2^1100) instead of the canonical one");
    s_eval->add_option("--digits", p.eval.digits, "Significant digits for decimal (1-100000)")
        ->check(CLI::Range(1, 100000));
    s_eval->callback([&p] { p.command = [&p](std::ostream& o) { return cmd_eval(p.eval, o); }; });

    auto* s_run = app.add_subcommand("run", "Run a scenario file (or the built-in chapter14)");
    s_run->add_option("file", p.run.file, "Scenario JSON file, or chapter14");
    add_format_option(*s_run, p.run.format);
    s_run->callback([&p] { p.command = [&p](std::ostream& o) { return cmd_run(p.run, o, p.deferred); }; });

    auto* s_read = app.add_subcommand("read", "One attention read with a full trace");
    s_read->add_option("--memory", p.read.memory, "Memory rows, e.g. [[a,0],[0,a]], or @FILE")->required();
    s_read->add_option("--query", p.read.query, "Query vector, e.g. [1,0]")->required();
    s_read->add_option("--readout", p.read.readout, "Readout coefficients, e.g. [1,2]");
    s_read->add_option("--remove", p.read.remove, "Positions to remove (1-based)");
    s_read->add_option("--zero", p.read.zero, "Positions whose score is set to 0 (1-based)");
    add_format_option(*s_read, p.read.format);
    auto* fields = s_read->add_option("--fields", p.read.fields,
                                      "JSON only: the keys to write, e.g. weights,context,denominator (default: all)");
    s_read->callback([&p, fields] {
        p.read.fields_given = fields->count() > 0;
        p.command = [&p](std::ostream& o) { return cmd_read(p.read, o, p.deferred); };
    });

    auto* s_enc = app.add_subcommand("encode", "Encoder states for a token list");
    s_enc->add_option("--scenario", p.encode.scenario, "Scenario file, or chapter14");
    s_enc->add_option("--tokens", p.encode.tokens, "Tokens separated by spaces")->required();
    add_format_option(*s_enc, p.encode.format);
    s_enc->callback([&p] { p.command = [&p](std::ostream& o) { return cmd_encode(p.encode, o); }; });

    auto* s_verify = app.add_subcommand("verify", "Check every expect entry of scenario files");
    s_verify->add_option("files", p.verify.files, "Scenario files or directories (every *.json below)")->required();
    add_book_options(*s_verify, p.verify);
    p.verify.format = "text";
    s_verify
        ->add_option("--format", p.verify.format,
                     "text, or github: each mismatch and wrong claim as a GitHub annotation line")
        ->check(CLI::IsMember({"text", "github"}));
    s_verify->add_option("--sarif", p.verify.sarif, "Also write a SARIF 2.1.0 log of the mismatches to FILE");
    s_verify->callback([&p] { p.command = [&p](std::ostream& o) { return cmd_verify(p.verify, o); }; });

    p.cross.format = "markdown";
    auto* s_cross = app.add_subcommand("crosscheck", "Exact results against an independent double path");
    s_cross->add_option("files", p.cross.files, "Scenario files or directories (every *.json below), or chapter14")
        ->required();
    add_book_options(*s_cross, p.cross);
    add_format_option(*s_cross, p.cross.format);
    s_cross->callback([&p] { p.command = [&p](std::ostream& o) { return cmd_crosscheck(p.cross, o); }; });

    p.answers.format = "markdown";
    auto* s_answers = app.add_subcommand("answers", "Exercise answer key of a scenario");
    s_answers->add_option("file", p.answers.files, "Scenario file, or chapter14")->required()->expected(1);
    add_format_option(*s_answers, p.answers.format, /*prose_only=*/true);
    s_answers->callback([&p] { p.command = [&p](std::ostream& o) { return cmd_answers(p.answers, o); }; });

    auto* s_check = app.add_subcommand("check", "Judge learner answers (exit 0 right, 1 wrong)");
    auto* check_file = s_check->add_option("file", p.check.file, "Scenario file, or chapter14");
    auto* answer = s_check->add_option("--answer", p.check.answer, "One declared learner answer by name");
    add_format_option(*s_check, p.check.format);
    auto* target = s_check->add_option("--target", p.check.target,
                                       "JSON pointer of the quantity, e.g. /reads/example-14.1/weights");
    auto* proposed = s_check->add_option("--proposed", p.check.proposed, "The proposed value, e.g. '[2/3,1/3,1/3]'");
    auto* answers =
        s_check->add_option("--answers", p.check.answers, "A class's answers: CSV with columns student,target,answer");
    auto* variants_dir =
        s_check->add_option("--variants", p.check.variants,
                            "With --answers: grade the class against the directory `exactattn variants -o DIR` wrote");
    variants_dir->needs(answers);
    variants_dir->excludes(check_file);
    s_check->add_option("--tolerance", p.check.tolerance,
                        "For decimals: decimal-places:N, significant-figures:N, absolute:E or relative:E");
    s_check->add_option("--accept", p.check.accept, "A mistake accepted as right (remaining-weights)")
        ->check(CLI::IsMember({"remaining-weights"}));
    // An ad-hoc answer (--target with --proposed), a declared one (--answer) and a class's CSV
    // exclude each other: silently ignoring one of them would judge something not asked for.
    target->needs(proposed);
    proposed->needs(target);
    answer->excludes(target);
    answer->excludes(proposed);
    answers->excludes(target);
    answers->excludes(proposed);
    answers->excludes(answer);
    s_check->callback([&p, target, check_file, variants_dir] {
        // The scenario, or the variants directory instead (a class on variants).
        if (check_file->count() == 0 && variants_dir->count() == 0) {
            throw CLI::RequiredError("file (a scenario file, or --variants DIR with --answers)");
        }
        p.check.ad_hoc = target->count() > 0;
        // A refusal while the report is computed, judged or printed names the scenario file
        // (a class CSV's rows are placed at their lines already), as `run`'s does.
        p.command = [&p](std::ostream& o) {
            return limits_placed_in_file(p.check.file, [&] { return cmd_check(p.check, o); });
        };
    });

    auto* s_attend = app.add_subcommand("attend", "One exact attention layer (Chapter 15)");
    add_attend_options(*s_attend, p.attend);
    s_attend->callback([&p] { p.command = [&p](std::ostream& o) { return cmd_attend(p.attend, o); }; });

    auto* s_rollout = app.add_subcommand("rollout", "A decoder rollout: teacher forcing and generation step by step");
    s_rollout->add_option("file", p.rollout.file, "Scenario file with a decoder")->required();
    s_rollout->add_option("--rollout", p.rollout.name, "The declared rollout (default: the only one)");
    s_rollout->add_option("--digits", p.rollout.digits, "Decimals of the rounded cross-entropy (1-100)")
        ->check(CLI::Range(1, 100));
    add_format_option(*s_rollout, p.rollout.format);
    s_rollout->callback([&p] { p.command = [&p](std::ostream& o) { return cmd_rollout(p.rollout, o); }; });
    auto* s_var = app.add_subcommand("variants", "Variants of an exercise: scenario files, keys, a sheet, Moodle XML");
    s_var->add_option("file", p.variants.file, "Scenario file, or chapter14");
    s_var->add_option("--exercise", p.variants.exercise, "The exercise's id (or exercise-<id>)")->required();
    auto* count = s_var->add_option("--count", p.variants.count, "Number of variants (1-1000)");
    auto* seed = s_var->add_option("--seed", p.variants.seed, "Master seed (0 to 2^64 - 1; default 0)");
    auto* vseed = s_var->add_option("--variant-seed", p.variants.variant_seed,
                                    "Re-create the one variant of this seed (printed in its key)");
    vseed->excludes(seed);
    vseed->excludes(count);
    s_var->callback([&p] {
        // A refusal while the variants are drawn, keyed or printed names the scenario file.
        p.command = [&p](std::ostream& o) {
            return limits_placed_in_file(p.variants.file, [&] { return cmd_variants(p.variants, o); });
        };
    });
    auto* s_figure = app.add_subcommand("figure", "One declared figure of a scenario, as SVG or TikZ");
    s_figure->add_option("file", p.figure.file, "Scenario file, or chapter14")->required();
    s_figure->add_option("--figure", p.figure.figure, "The figure's name or number, e.g. 14.1")->required();
    s_figure->add_option("--format", p.figure.format, "svg|tikz")->check(CLI::IsMember({"svg", "tikz"}));
    s_figure->callback([&p] { p.command = [&p](std::ostream& o) { return cmd_figure(p.figure, o); }; });
    auto* s_pointers =
        app.add_subcommand("pointers", "Every quantity of a scenario's report: pointer, value, what it is");
    add_pointers_options(*s_pointers, p.pointers);
    s_pointers->callback([&p] { p.command = [&p](std::ostream& o) { return cmd_pointers(p.pointers, o); }; });
    add_oracle_command(app, p.command);

    add_manuscript_command(app, p.command);

    // Shared options, added once every subcommand exists: each subcommand gets its own copy,
    // so `-o` is accepted after any of them, and before them (the built-in run).
    const char* output_help = "Write the output to FILE (atomically: the old file stays on failure)";
    app.add_option("-o,--output", p.output, output_help);
    const char* warnings_help = "The first warning (author TeX kept verbatim in HTML) is an error: exit 2, no output";
    app.add_flag("--warnings-as-errors", p.warnings_as_errors, warnings_help);
    const char* work_help = "The work budget of the command, in work units (docs/limits.md; default 2^37)";
    const auto work_range = CLI::Range(std::int64_t{1}, std::int64_t{1} << 62);
    app.add_option("--max-work", p.max_work, work_help)->check(work_range);
    for (auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        sub->add_option("-o,--output", p.output, output_help);
        sub->add_option("--max-work", p.max_work, work_help)->check(work_range);
        sub->add_flag("--standalone", p.render.standalone, "LaTeX: a complete document with its preamble");
        sub->add_option("--preamble", p.preamble_file,
                        "LaTeX with --standalone: add the lines of FILE to the preamble");
        sub->add_flag("--latex-floats", p.render.latex_floats,
                      "LaTeX: tables as floats (default: placed where they stand)");
        sub->add_flag(
            "--no-markdown-math", [&p](std::int64_t) { p.render.markdown_math = false; },
            "Markdown: Unicode values instead of $...$ math");
        sub->add_flag("--warnings-as-errors", p.warnings_as_errors, warnings_help);
        if (sub->get_name() != "eval") {
            sub->add_option("--max-width", p.render.max_width,
                            "Elide long integers so each value fits N columns (0: every digit)")
                ->check(CLI::Range(std::size_t{0}, std::size_t{100000}));
        }
    }
    app.add_flag("--standalone", p.render.standalone, "LaTeX: a complete document with its preamble");
}

// --preamble FILE: the author's preamble lines, read whole (valid UTF-8) before any work; they
// belong in a complete document, so the option goes with --standalone.
std::string read_preamble(const std::string& path, bool standalone) {
    const Location where = option_place("--preamble");
    if (!standalone) throw usage_error("--preamble adds to a complete document's preamble: give --standalone", where);
    return placed(
        where,
        [&] {
            std::string text = read_input_file(path);  // the one reader: no FIFO, device or oversized file
            check_utf8(text, "the preamble");
            return text;
        },
        KeepPlace::Nothing);
}

Error output_error(const std::string& path, const std::string& what, int err, const char* option) {
    Location where;
    where.context = option;
    return usage_error(fmt::format("cannot write {}: {}: {}", path, what, std::strerror(err)), where);
}

// Writes all of `data` to `fd` (a write cut short or interrupted goes on); 0, or the errno.
int write_fully(int fd, std::string_view data) {
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t w = ::write(fd, data.data() + done, data.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno;
        done += static_cast<std::size_t>(w);
    }
    return 0;
}

}  // namespace

Location option_place(const std::string& option) { return Location::named(option); }

std::optional<long long> whole_number(const std::string& text) {
    std::size_t used = 0;
    long long n = 0;
    try {
        n = std::stoll(text, &used);
    } catch (const std::exception&) {  // no digits, or out of range
        return std::nullopt;
    }
    if (used != text.size()) return std::nullopt;
    return n;
}

void write_output_file(const std::string& named, std::string_view data, const char* option) {
    auto output_error = [option](const std::string& path, const std::string& what, int err) {
        return cli::output_error(path, what, err, option);
    };
    // A symbolic link is written through, to the file it names (as `>` does): the temporary file
    // is made beside that file and renamed over it, and the link stays a link.
    std::string path = named;
    struct stat link {};
    if (::lstat(named.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
        std::error_code ec;
        const auto target = std::filesystem::canonical(named, ec);
        if (!ec) path = target.string();
    }
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) throw output_error(path, "it is a directory", EISDIR);
    auto write_all = [&](int fd, const std::string& name) {
        if (const int e = write_fully(fd, data); e != 0) {
            ::close(fd);
            if (name != path) ::unlink(name.c_str());
            throw output_error(path, "write failed", e);
        }
    };
    if (exists && !S_ISREG(st.st_mode)) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) throw output_error(path, "open failed", errno);
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        write_all(fd, path);
        if (::close(fd) != 0) throw output_error(path, "close failed", errno);
        return;
    }
    std::string tmp = path + ".tmp-XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) throw output_error(path, "cannot create a file beside it", errno);
    // mkstemp creates 0600; give the file the mode an ordinary create would (or the old file's).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, exists ? (st.st_mode & 07777) : (0666 & ~mask));
    write_all(fd, tmp);
    if (::fsync(fd) != 0 && errno != EINVAL) {
        const int e = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        throw output_error(path, "sync failed", e);
    }
    if (::close(fd) != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        throw output_error(path, "close failed", e);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        throw output_error(path, "rename failed", e);
    }
}

namespace {

// The command's warnings (docs/cli.md, "Warnings"): each distinct one once, in the order met,
// from any of the command's threads (crosscheck -j N).
struct Warnings {
    std::mutex lock;
    std::vector<Warning> met;
    std::unordered_set<std::string> lines;  // met's lines: a note of many commands stays linear
    bool as_errors = false;                 // --warnings-as-errors

    void add(const Warning& w) {
        const std::lock_guard<std::mutex> hold(lock);
        if (lines.insert(w.str()).second) met.push_back(w);
    }
    // Each warning as one line on stderr.
    void print(std::ostream& err) {
        const std::lock_guard<std::mutex> hold(lock);
        for (const auto& w : met) err << "exactattn: warning: " << escape_controls(w.str()) << '\n';
        met.clear();
    }
    // With --warnings-as-errors, the first warning is the command's error, at its place: exit 2,
    // nothing written.
    void refuse() {
        const std::lock_guard<std::mutex> hold(lock);
        if (!as_errors || met.empty()) return;
        const Warning first = met.front();
        met.clear();
        throw parse_error(first.where, first.reason + " (--warnings-as-errors: nothing written)");
    }
};
Warnings* g_warnings = nullptr;  // the running command's (run() sets it)

/// One line on stderr for an error; returns the exit code.
int report_error(std::ostream& err, std::string message, std::optional<ErrorKind>* kind, ErrorKind k, int code) {
    for (auto& c : message) c = c == '\n' ? ' ' : c;  // CLI11 wraps some of its messages
    // Names echoed from files and arguments may hold control characters (an escape sequence
    // would restyle the terminal, a CR hide the message): they are shown as <U+001B>.
    err << "exactattn: " << escape_controls(message) << '\n';
    err.flush();
    if (kind != nullptr) *kind = k;
    return code;
}

}  // namespace

int run(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
    return run(args, out, err, nullptr);
}

namespace {
bool g_csv_directory_written = false;  // set by emit(): -o DIR was used as a CSV directory
std::string g_output_directory;        // -o DIR: the directory that receives emit()'s files
}  // namespace

void refuse_warnings() {
    if (g_warnings != nullptr) g_warnings->refuse();
}

void emit(const Document& doc, Format format, const RenderOptions& options, std::ostream& out) {
    if (g_output_directory.empty()) {
        out << render(doc, format, options);
        return;
    }
    if (format == Format::Markdown) {
        // The report links each figure's SVG file, written beside it.
        const std::filesystem::path dir(g_output_directory);
        write_output_file((dir / "report.md").string(), render(doc, format, options));
        for (const auto& b : doc.blocks) {
            if (const auto* fb = std::get_if<FigureBlock>(&b)) {
                write_output_file((dir / figure_file_name(*fb)).string(), render_svg(*fb));
            }
        }
        g_csv_directory_written = true;
        return;
    }
    if (format != Format::Csv) {
        Location where;
        where.context = "--output";
        throw usage_error(fmt::format("{} is a directory: -o DIR writes one CSV file per table (--format csv), or "
                                      "report.md and its figures (--format markdown); other formats go to one file",
                                      g_output_directory),
                          where);
    }
    for (const auto& f : csv_files(doc)) {
        write_output_file((std::filesystem::path(g_output_directory) / f.name).string(), f.text);
    }
    g_csv_directory_written = true;
}

// All or nothing: every destination is checked first (a directory cannot be replaced by a
// file), the files are written into a fresh temporary directory inside DIR, and only when all
// of them are complete and on disk are they renamed into place. A failure removes the temporary
// directory (and DIR when this call created it), so it leaves no file of the set behind.
namespace {
int (*g_rename)(const char*, const char*) = ::rename;

// Writes `data` to the new file `path` inside write_files' private temporary directory: no one
// else opens it, so it needs neither a temporary name of its own nor a sync of its own (the set
// is synced once, sync_files). Throws the output error at `path`.
void write_new_file(const std::string& path, std::string_view data) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // less the umask
    if (fd < 0) throw output_error(path, "cannot create the file", errno, "--output");
    if (const int e = write_fully(fd, data); e != 0) {
        ::close(fd);
        throw output_error(path, "write failed", e, "--output");
    }
    if (::close(fd) != 0) throw output_error(path, "close failed", errno, "--output");
}

// Puts every file written into `tmp` on disk before any is renamed into place: one syncfs of
// the directory's file system, not an fsync a file (a thousand variants are two thousand files,
// and two thousand fsyncs took 6 s of wall time on 2.7 s of CPU). Where syncfs is missing or
// fails, each file is synced, so the set is on disk either way; returns 0 or the errno.
int sync_files(const std::string& tmp, const std::vector<std::pair<std::string, std::string>>& files) {
    const int dir = ::open(tmp.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return errno;
#ifdef __linux__
    if (::syncfs(dir) == 0) {
        ::close(dir);
        return 0;
    }
#endif
    int failed = 0;
    for (const auto& f : files) {
        const int fd = ::openat(dir, f.first.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0 || (::fdatasync(fd) != 0 && errno != EINVAL)) failed = failed != 0 ? failed : errno;
        if (fd >= 0) ::close(fd);
    }
    ::close(dir);
    return failed;
}

// The renames into `dir` made durable: one fsync of the directory (best effort: the files are
// complete whether or not it succeeds, and a directory that cannot be synced is no error).
void sync_directory(const std::string& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)::fsync(fd);
    ::close(fd);
}
}  // namespace

void set_rename_for_testing(int (*rename)(const char*, const char*)) {
    g_rename = rename != nullptr ? rename : ::rename;
}

void write_files(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files) {
    refuse_warnings();
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool existed = fs::exists(dir, ec);
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir)) {
        throw output_error(dir, "cannot create the directory", ec ? ec.value() : ENOTDIR, "--output");
    }
    const auto abandon = [&](const std::string& tmp) {
        std::error_code ignored;
        if (!tmp.empty()) fs::remove_all(tmp, ignored);
        if (!existed) fs::remove(dir, ignored);  // only if empty: nothing of the caller's is removed
    };
    for (const auto& f : files) {
        const std::string dest = (fs::path(dir) / f.first).string();
        struct stat st {};
        if (::stat(dest.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
            abandon("");
            throw output_error(dest, "it is a directory", EISDIR, "--output");
        }
    }
    std::string tmp = (fs::path(dir) / ".exactattn-XXXXXX").string();
    if (::mkdtemp(tmp.data()) == nullptr) {
        const int e = errno;
        abandon("");
        throw output_error(dir, "cannot create a temporary directory in it", e, "--output");
    }
    try {
        for (const auto& [name, text] : files) write_new_file((fs::path(tmp) / name).string(), text);
        if (const int e = sync_files(tmp, files); e != 0) throw output_error(tmp, "sync failed", e, "--output");
    } catch (const Error& e) {
        abandon(tmp);
        // Placed at the destination, not at the temporary directory the caller never named.
        std::string reason = e.reason();
        const auto at = reason.find(tmp);
        if (at != std::string::npos) reason.replace(at, tmp.size(), dir);
        throw Error(e.kind(), e.where(), reason);
    } catch (...) {
        abandon(tmp);
        throw;
    }
    // All or nothing: the files of an earlier set that this one replaces are first moved aside
    // into the temporary directory, then the new ones renamed in; a rename that fails part way
    // takes the new ones out and puts the old ones back, so the directory holds the old set
    // or the new one, never neither (a rename within one directory is atomic).
    const fs::path old_dir = fs::path(tmp) / ".old";
    std::vector<std::size_t> moved_aside, moved_in;
    const auto undo = [&](const std::string& dest, const char* what, int e) {
        std::error_code ignored;
        for (auto i : moved_in) fs::remove(fs::path(dir) / files[i].first, ignored);
        bool restored = true;
        for (auto i : moved_aside)
            restored = g_rename((old_dir / std::to_string(i)).c_str(), (fs::path(dir) / files[i].first).c_str()) == 0 &&
                       restored;
        if (restored) abandon(tmp);  // else the earlier files stay in tmp rather than be lost
        return output_error(dest, what, e, "--output");
    };
    if (!fs::create_directory(old_dir, ec)) {
        const int e = ec ? ec.value() : EEXIST;
        abandon(tmp);
        throw output_error(dir, "cannot create a temporary directory in it", e, "--output");
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string dest = (fs::path(dir) / files[i].first).string();
        struct stat st {};
        if (::lstat(dest.c_str(), &st) != 0) continue;  // nothing to keep
        if (g_rename(dest.c_str(), (old_dir / std::to_string(i)).c_str()) != 0)
            throw undo(dest, "cannot move the earlier file aside", errno);
        moved_aside.push_back(i);
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string dest = (fs::path(dir) / files[i].first).string();
        if (g_rename((fs::path(tmp) / files[i].first).c_str(), dest.c_str()) != 0)
            throw undo(dest, "rename failed", errno);
        moved_in.push_back(i);
    }
    fs::remove_all(old_dir, ec);
    fs::remove(tmp, ec);
    sync_directory(dir);
    g_csv_directory_written = true;
}

int run(std::span<const std::string> args, std::ostream& out, std::ostream& err, std::optional<ErrorKind>* kind) {
    if (kind != nullptr) kind->reset();
    CLI::App app{
        "exactattn: exact arithmetic for the mathematics of attention (a = ln 2).\n"
        "With no arguments, prints the built-in Chapter 14 scenario.",
        "exactattn"};
    Parsed p;
    std::vector<std::string> argv(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
    std::ostringstream buffer;
    int code = 0;
    Warnings warnings;
    g_warnings = &warnings;
    struct Forget {  // the global names this call's warnings only while it runs
        ~Forget() { g_warnings = nullptr; }
    } const forget;
    try {
        make_app(app, p);
        app.parse(argv);
        if (!p.command) p.command = [&p](std::ostream& o) { return cmd_run(p.run, o, p.deferred); };  // no subcommand
        // -o DIR: one CSV file per table (emit); any other output to a directory is refused.
        g_csv_directory_written = false;
        std::error_code ec;
        g_output_directory.clear();
        if (!p.output.empty() && std::filesystem::is_directory(p.output, ec)) {
            g_output_directory = p.output;
            p.render.figure_files = true;  // a Markdown report links the SVG files written beside it
        }
        if (!p.preamble_file.empty()) p.render.preamble = read_preamble(p.preamble_file, p.render.standalone);
        warnings.as_errors = p.warnings_as_errors;
        p.render.warn = [&warnings](const Warning& w) { warnings.add(w); };
        p.variants.warn = p.render.warn;
        p.run.render = p.read.render = p.encode.render = p.answers.render = p.cross.render = p.check.render =
            p.rollout.render = p.render;
        p.attend.render = p.pointers.render = p.render;
        p.variants.output = p.output;
        // A class row that cannot be graded: its one placed line, and the class goes on.
        p.check.refused = [&err](const Error& e) { err << "exactattn: " << escape_controls(e.what()) << '\n'; };
        set_limit_audience(LimitAudience::CommandLine);  // refusals name --max-work
        // The command is one job with one work budget (docs/limits.md, "The work budget").
        Limits budgeted = limits();
        if (p.max_work > 0) budgeted.max_work = p.max_work;
        const ScopedLimits scoped(budgeted);
        const WorkBudget job;
        // EXACTATTN_REPORT_WORK=1: the work the command spent, on standard error, however it
        // ends (docs/limits.md: how far honest work stays from the budget is measured so).
        struct ReportWork {
            const WorkBudget& job;
            std::ostream& err;
            ~ReportWork() {
                if (std::getenv("EXACTATTN_REPORT_WORK") == nullptr) return;
                err << fmt::format("exactattn: work: {:.3g} of {} work units (limits: max_work)\n", job.spent(),
                                   limits().max_work);
            }
        } const report_work{job, err};
        code = p.command(buffer);
        warnings.refuse();
        warnings.print(err);
        // Standard output that cannot be written (`> /dev/full`) is an error, exit 2, whatever
        // the command: a lost write never exits 0.
        const auto check_out = [&out] {
            out.flush();
            if (!out) {
                const int e = errno;
                throw usage_error(
                    fmt::format("cannot write standard output: {}", e != 0 ? std::strerror(e) : "write failed"));
            }
        };
        if (g_csv_directory_written) {  // the files are written; the command's summary to stdout
            out << buffer.view();
            check_out();
            return code;
        }
        if (!p.output.empty()) {
            if (p.deferred) p.deferred(buffer);
            write_output_file(p.output, buffer.view());
            return code;
        }
        out << buffer.view();  // no copy: a report can be hundreds of megabytes
        if (p.deferred) p.deferred(out);
        check_out();
        return code;
    } catch (const CLI::CallForHelp&) {
        out << app.help();
        return 0;
    } catch (const CLI::CallForAllHelp&) {
        out << app.help("", CLI::AppFormatMode::All);
        return 0;
    } catch (const CLI::CallForVersion&) {
        out << "exactattn " EXACTATTN_VERSION_STRING "\n";
        return 0;
    } catch (const CLI::ParseError& e) {
        // CLI11 uses its own exit codes; the contract says 2 for every usage error.
        return report_error(err, fmt::format("usage: {} (see exactattn --help)", e.what()), kind, ErrorKind::Usage, 2);
    } catch (const Error& e) {
        return report_error(err, e.what(), kind, e.kind(), static_cast<int>(e.exit_code()));
    } catch (const std::bad_alloc&) {
        return report_error(err, out_of_memory_reason(), kind, ErrorKind::Limit, 2);
    } catch (const std::length_error&) {
        return report_error(err, too_large_reason(), kind, ErrorKind::Limit, 2);
    } catch (const std::exception& e) {
        return report_error(err, fmt::format("internal error: {}", e.what()), nullptr, ErrorKind::Usage, 2);
    }
}

}  // namespace exactattn::cli
