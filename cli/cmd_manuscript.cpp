// SPDX-License-Identifier: MIT
// exactattn manuscript check|fill|audit: the book's own prose against the exact engine
// (docs/manuscript.md).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>

#include "commands.hpp"
#include "exactattn/annotations.hpp"
#include "exactattn/wording.hpp"
#include "exactattn/book.hpp"
#include "exactattn/manuscript.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/value.hpp"

namespace exactattn::cli {

namespace {

struct ManuscriptCli {
    std::vector<std::string> files;
    std::string scenario;
    /// --scenario-from (repeatable): the files whose scenario the files naming none inherit, the first
    /// that names one (a chapter, then its book's project file)
    std::vector<std::string> scenario_from;
    std::size_t jobs = 0;
    std::string junit;
    bool in_place = false;
    bool output_given = false;  ///< -o was given (before or after the subcommand)
    bool strict = false;
    std::string min_coverage = "95";  ///< --strict: the lowest coverage (percent, an exact decimal) that passes
    AuditOptions audit;
    bool all = false;             ///< audit: print the verified numbers and the numbers that are not claims too
    bool diff = false;            ///< propose: a diff of the marks instead of the whole manuscript
    std::string listing;          ///< propose: where the marks' reasons and the unmarked numbers go
    std::string format = "text";  ///< check: `text` or `github` (annotation lines); fill: `manuscript` or `json`
    std::string sarif;            ///< check: write a SARIF 2.1.0 log to FILE
    std::string stdin_filename;   ///< --stdin-filename: the name, ending and directory of `-`
    bool marks_only = false;      ///< check: the marks only, whatever the files ask (a build tool audits itself)
};

// The manuscripts a command was given: `-` is standard input (docs/manuscript.md, "Standard
// input"), read whole before any work and named by --stdin-filename (default <stdin>, read as
// Markdown, a relative scenario found from the current directory); every other file is read by
// the one input reader when its turn comes. A LaTeX book named by its main file is followed by
// the chapters it \include's (book_files), each with the scenario it inherits; with --scenario-from
// FILE, a file that inherits none from a main file takes the one FILE names.
struct Inputs {
    std::vector<BookFile> files;          ///< as messages name them
    std::optional<std::size_t> stdin_at;  ///< which of them is standard input
    std::string stdin_text;

    [[nodiscard]] std::string text(std::size_t i) const {
        return stdin_at == i ? stdin_text : read_manuscript_file(files[i].file);
    }
    [[nodiscard]] std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& f : files) out.push_back(f.file);
        return out;
    }
};

std::string stdin_name(const ManuscriptCli& o) { return o.stdin_filename.empty() ? "<stdin>" : o.stdin_filename; }

// `paths` as manuscript_files expands them (a directory: its manuscripts, those naming a scenario
// when `only_named`), each LaTeX book followed by its chapters, with `-` standing for standard
// input once.
Inputs inputs(const std::vector<std::string>& paths, const ManuscriptCli& o, bool only_named) {
    std::string book_scenario;
    if (!o.scenario_from.empty()) {
        if (!o.scenario.empty()) {
            throw usage_error(
                "names the scenario of the files that name none, and --scenario names one for every "
                "file: give one of them",
                option_place("--scenario-from"));
        }
        for (std::size_t i = 0; i < o.scenario_from.size() && book_scenario.empty(); ++i) {
            const std::string& from = o.scenario_from[i];
            if (from == "-") {
                throw usage_error(
                    "names standard input, which is read as a manuscript: name the file whose "
                    "exactattn-scenario the others inherit",
                    option_place("--scenario-from"));
            }
            // confined to that file's folder; a file that cannot be read is the option's error. The
            // last one given must name a scenario; an earlier one naming none passes to the next.
            const bool last = i + 1 == o.scenario_from.size();
            book_scenario = for_option("--scenario-from", [&] {
                return last || names_scenario(from) ? inheritable_scenario(from) : std::string();
            });
        }
        only_named = false;
    }
    Inputs in;
    std::vector<std::string> named;
    auto flush = [&] {
        const auto found = book_files(manuscript_files(named, only_named));
        in.files.insert(in.files.end(), found.begin(), found.end());
        named.clear();
    };
    for (const auto& p : paths) {
        if (p != "-") {
            named.push_back(p);
            continue;
        }
        if (in.stdin_at) throw usage_error("standard input (-) is named twice; it can be read once");
        if (!named.empty()) flush();
        in.stdin_text = read_standard_input(kWorkPerManuscriptByte, "a manuscript");
        in.stdin_at = in.files.size();
        in.files.push_back({stdin_name(o), {}});
    }
    if (!named.empty()) flush();
    if (!o.stdin_filename.empty() && !in.stdin_at) {
        throw usage_error("names standard input, and no manuscript is `-`: give - to read it",
                          option_place("--stdin-filename"));
    }
    for (auto& f : in.files) {
        if (f.inherited_scenario.empty()) f.inherited_scenario = book_scenario;
    }
    return in;
}

// Checks `in`'s files, printing a line per wrong claim (an annotation line with --format github)
// and per file and the total, and adding each wrong claim to `notes`; the number of wrong claims.
std::size_t check_files(const Inputs& in, const ManuscriptCli& o, std::ostream& out, std::vector<Annotation>& notes) {
    const auto& files = in.files;
    std::vector<ManuscriptResult> results(files.size());
    run_parallel(files.size(), o.jobs == 0 ? default_jobs() : o.jobs, [&](std::size_t i) {
        const std::string& name = files[i].file;
        results[i] = check_manuscript_text(in.text(i), name, manuscript_format(name),
                                           ManuscriptOptions{o.scenario, files[i].inherited_scenario});
    });
    std::size_t claims = 0;
    std::size_t wrong = 0;
    std::size_t bad_files = 0;
    for (const auto& r : results) {
        for (const auto& c : r.claims) {
            if (c.passed) continue;
            notes.push_back({r.file, c.line, c.column, "wrong-claim", mismatch_message(c)});
            out << (o.format == "github" ? github_annotation(notes.back()) : mismatch_line(r.file, c)) << '\n';
        }
        out << fmt::format("{}: {}, {} wrong\n", escape_controls(r.file), counted(r.claims.size(), "claim"), r.wrong());
        claims += r.claims.size();
        wrong += r.wrong();
        bad_files += r.wrong() > 0 ? 1 : 0;
    }
    if (!o.junit.empty()) write_output_file(o.junit, manuscript_junit(results), "--junit");
    // "0 wrong", not "0 wrong in 0 files"; "in 1 file", not "in 1 files".
    out << fmt::format("manuscript: {} checked in {}, {} wrong{}\n", counted(claims, "claim"),
                       counted(files.size(), "file"), wrong, wrong == 0 ? "" : " in " + counted(bad_files, "file"));
    return wrong;
}

// The audit a book asks for in its files (docs/manuscript.md, "The unmarked prose of a book"):
// comment lines of a LaTeX main file or chapter, the YAML metadata blocks of a Markdown file; the
// strictest of them; refused at its line (exit 2). None under --marks-only.
AuditSetting asked_audit(const Inputs& in, const ManuscriptCli& o) {
    AuditSetting a;
    if (o.marks_only) return a;
    for (std::size_t i = 0; i < in.files.size(); ++i) {
        const std::string& file = in.files[i].file;
        read_audit_setting(in.text(i), file, manuscript_format(file), a);
    }
    // A book's project file named by --scenario-from asks as its toolchain reads it.
    for (const std::string& from : o.scenario_from) {
        const std::string name = std::filesystem::path(from).filename().string();
        if (!from.ends_with(".yml") && !from.ends_with(".yaml")) continue;
        read_project_audit_setting(read_manuscript_file(from), from, name == "myst.yml" || name == "myst.yaml", a);
    }
    return a;
}

// Audits the files `which` of `in`; each file's findings in `results`.
std::vector<AuditResult> audit_results(const Inputs& in, const std::vector<std::size_t>& which,
                                       const ManuscriptCli& o) {
    std::vector<AuditResult> results(which.size());
    run_parallel(which.size(), o.jobs == 0 ? default_jobs() : o.jobs, [&](std::size_t j) {
        const std::size_t i = which[j];
        const std::string& name = in.files[i].file;
        results[j] = audit_manuscript_text(in.text(i), name, manuscript_format(name),
                                           ManuscriptOptions{o.scenario, in.files[i].inherited_scenario}, o.audit);
    });
    return results;
}

mpq_class coverage_percent(std::size_t marked, std::size_t unmarked);
std::string percent_text(const mpq_class& p);
mpq_class threshold(const std::string& text);

// What the audited files hold together, and audit's last line:
// `manuscript audit: coverage C% (M of N numeric claims marked), W wrong in F files`.
struct AuditTotals {
    std::size_t marked = 0, unmarked = 0, wrong = 0, files = 0;
    void add(const AuditResult& r) {
        marked += r.marked, unmarked += r.unmarked.size(), wrong += r.count(AuditVerdict::Wrong), ++files;
    }
    [[nodiscard]] mpq_class coverage() const { return coverage_percent(marked, unmarked); }
    [[nodiscard]] std::string line() const {
        return fmt::format("manuscript audit: coverage {}% ({} of {} marked), {} wrong in {}", percent_text(coverage()),
                           marked, counted(marked + unmarked, "numeric claim"), wrong, counted(files, "file"));
    }
};

// `manuscript check` of a book that asks for the audit: every file checked audited as the
// toolchains' builds audit theirs, the lines of the numbers audit calls wrong printed (annotation
// lines with --format github) and added to `notes` as `unmarked-wrong`, under `strict` each
// file's coverage, then audit's total; whether the book fails it.
bool audit_fails(const Inputs& in, const AuditSetting& a, const ManuscriptCli& o, std::ostream& out,
                 std::vector<Annotation>& notes) {
    std::vector<std::size_t> which(in.files.size());
    for (std::size_t i = 0; i < which.size(); ++i) which[i] = i;
    const bool strict = a.level == AuditLevel::Strict;
    AuditTotals t;
    for (const auto& r : audit_results(in, which, o)) {
        for (const auto& f : r.unmarked) {
            if (f.verdict != AuditVerdict::Wrong) continue;
            notes.push_back({r.file, f.line, f.column, "unmarked-wrong", audit_message(f)});
            out << (o.format == "github" ? github_annotation(notes.back()) : audit_line(r.file, f)) << '\n';
        }
        if (strict) {
            out << fmt::format("{}: {} marked, {} unmarked, coverage {}%\n", escape_controls(r.file), r.marked,
                               r.unmarked.size(), percent_text(coverage_percent(r.marked, r.unmarked.size())));
        }
        t.add(r);
    }
    const std::string least = a.min_coverage.empty() ? "95" : a.min_coverage;
    out << t.line()
        << fmt::format(" (exactattn-audit: {})\n", strict ? fmt::format("strict, minimum {}%", least) : "true");
    return t.wrong > 0 || (strict && t.coverage() < threshold(least));
}

int check(const ManuscriptCli& o, std::ostream& out) {
    const Inputs in = inputs(o.files, o, o.scenario.empty());
    if (in.files.empty()) {
        throw reference_error(
            fmt::format("no manuscript found ({} naming an exactattn-scenario)", manuscript_patterns()));
    }
    const AuditSetting asked = asked_audit(in, o);  // refused before anything is checked
    std::vector<Annotation> notes;
    const std::size_t wrong = check_files(in, o, out, notes);
    const bool failed = asked.level != AuditLevel::Off && audit_fails(in, asked, o, out, notes);
    if (!o.sarif.empty()) write_output_file(o.sarif, sarif_log(notes, in.names(), "manuscript check"), "--sarif");
    return wrong == 0 && !failed ? 0 : 1;
}

// fill --format json: each placeholder with its place and what replaced it, for a build tool
// that puts the values into its own tree (the MyST plugin, share/exactattn/myst/exactattn.mjs).
std::string placeholders_json(const std::string& file, const FillResult& r) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& p : r.placeholders) {
        list.push_back(
            {{"file", file}, {"line", p.line}, {"column", p.column}, {"source", p.source}, {"filled", p.filled}});
    }
    return list.dump(2) + "\n";
}

int fill(const ManuscriptCli& o, std::ostream& out) {
    if (o.in_place && o.output_given) {
        throw usage_error("rewrites the manuscript itself, and -o names another output: give one of them",
                          option_place("--in-place"));
    }
    if (o.in_place && o.files.front() == "-") {
        throw usage_error("rewrites the manuscript's file, and standard input (-) has none: give -o FILE",
                          option_place("--in-place"));
    }
    const Inputs in = inputs(o.files, o, false);
    const std::string& file = in.files.front().file;
    const ManuscriptOptions options{o.scenario, in.files.front().inherited_scenario};
    const FillResult r = fill_manuscript_text(in.text(0), file, manuscript_format(file), options);
    if (o.format == "json") {
        if (o.in_place)
            throw usage_error("lists the placeholders and writes no manuscript", option_place("--in-place"));
        out << placeholders_json(file, r);
        return 0;
    }
    if (o.in_place) {
        write_output_file(file, r.text, "--in-place");  // through a symlink, to the file it names
        out << fmt::format("manuscript fill: {} filled in {}\n", counted(r.replaced, "placeholder"),
                           escape_controls(file));
        return 0;
    }
    out << r.text;
    return 0;
}

// The coverage marked / (marked + unmarked) as an exact fraction of 100 (none found: 100).
mpq_class coverage_percent(std::size_t marked, std::size_t unmarked) {
    if (marked + unmarked == 0) return 100;
    mpq_class p(static_cast<unsigned long>(100 * marked), static_cast<unsigned long>(marked + unmarked));
    p.canonicalize();
    return p;
}

// The coverage printed to one decimal place, correctly rounded from the exact fraction.
std::string percent_text(const mpq_class& p) { return to_fixed(Value(FieldElem(p)), 1); }

// --min-coverage: an exact decimal from 0 to 100, compared exactly (57.5 is met by 23 of 40,
// which a double computes as 57.49999999999999).
mpq_class threshold(const std::string& text) {
    const Location where = Location::named("--min-coverage");
    const Value v = placed(
        where, [&] { return parse_value(text); }, KeepPlace::Nothing);
    if (!v.is_rational() || v.rational() < 0 || v.rational() > 100) {
        throw usage_error(fmt::format("the coverage threshold is a percentage from 0 to 100; got {}", text), where);
    }
    return v.rational();
}

// One line per unmarked claim that is not verified (every one with --all), one per file, the
// total; exit 1 when a number is wrong, or under --strict below the threshold.
int audit(const ManuscriptCli& o, std::ostream& out) {
    const mpq_class least = threshold(o.min_coverage);
    const Inputs in = inputs(o.files, o, o.scenario.empty());
    const auto& files = in.files;
    std::vector<std::size_t> every(files.size());
    for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
    AuditTotals t;
    for (const auto& r : audit_results(in, every, o)) {
        std::vector<const AuditFinding*> lines;
        for (const auto& f : r.unmarked) {
            if (o.all || f.verdict != AuditVerdict::Verified) lines.push_back(&f);
        }
        if (o.all) {
            for (const auto& f : r.not_claims) lines.push_back(&f);
            std::stable_sort(lines.begin(), lines.end(), [](const AuditFinding* x, const AuditFinding* y) {
                return std::pair(x->line, x->column) < std::pair(y->line, y->column);
            });
        }
        for (const auto* f : lines) out << audit_line(r.file, *f) << '\n';
        out << fmt::format(
            "{}: {} marked, {} unmarked ({} verified, {} wrong, {} ambiguous, {} unbound), coverage {}%\n",
            escape_controls(r.file), r.marked, r.unmarked.size(), r.count(AuditVerdict::Verified),
            r.count(AuditVerdict::Wrong), r.count(AuditVerdict::Ambiguous), r.count(AuditVerdict::Unbound),
            percent_text(coverage_percent(r.marked, r.unmarked.size())));
        t.add(r);
    }
    out << t.line() << '\n';
    if (t.wrong > 0) return 1;
    return o.strict && t.coverage() < least ? 1 : 0;
}

// The lines of a text (without their line ends).
std::vector<std::string> lines_of(const std::string& t) {
    std::vector<std::string> v;
    std::size_t from = 0;
    while (from < t.size()) {
        const std::size_t e = t.find('\n', from);
        v.push_back(t.substr(from, e == std::string::npos ? std::string::npos : e - from));
        if (e == std::string::npos) break;
        from = e + 1;
    }
    return v;
}

// The manuscript with the proposed marks (or a diff of the lines they change), and the listing.
// A LaTeX book named by its main file is proposed with the chapters it \include's or \input's,
// each with the scenario it inherits: the diff and the listing cover every file.
int propose(const ManuscriptCli& o, std::ostream& out) {
    const Inputs in = inputs(o.files, o, false);
    if (in.files.size() > 1 && !o.diff) {
        throw usage_error(fmt::format("{} is a book of {} files, and one output holds one manuscript: give --diff "
                                      "(a patch of every file)",
                                      escape_controls(in.files.front().file), in.files.size()),
                          option_place("--diff"));
    }
    std::vector<std::string> texts(in.files.size());
    std::vector<ProposeResult> results(in.files.size());
    for (std::size_t i = 0; i < in.files.size(); ++i) {
        const std::string& file = in.files[i].file;
        texts[i] = in.text(i);
        results[i] = propose_marks_text(texts[i], file, manuscript_format(file),
                                        ManuscriptOptions{o.scenario, in.files[i].inherited_scenario}, o.audit);
    }
    if (!o.listing.empty()) {
        std::string listing;
        for (const auto& r : results) {
            for (const auto& l : r.listing) listing += l + "\n";
        }
        write_output_file(o.listing, listing, "--listing");
    }
    if (!o.diff) {
        out << results.front().text;
        return 0;
    }
    // A unified diff, one hunk per changed line (marks never add or remove a line); a file whose
    // lines no mark changes has no part in it.
    for (std::size_t i = 0; i < in.files.size(); ++i) {
        const auto before = lines_of(texts[i]);
        const auto after = lines_of(results[i].text);
        const std::string& file = in.files[i].file;
        bool header = false;
        for (std::size_t k = 0; k < before.size() && k < after.size(); ++k) {
            if (before[k] == after[k]) continue;
            if (!header) out << fmt::format("--- {}\n+++ {}\n", escape_controls(file), escape_controls(file));
            header = true;
            out << fmt::format("@@ -{0},1 +{0},1 @@\n-{1}\n+{2}\n", k + 1, before[k], after[k]);
        }
    }
    return 0;
}

}  // namespace

std::size_t check_manuscripts_below(const std::vector<std::string>& paths, std::size_t jobs, std::ostream& out,
                                    const std::string& format, std::vector<Annotation>& notes,
                                    std::vector<std::string>& checked) {
    std::vector<std::string> dirs;
    std::error_code ec;
    for (const auto& p : paths) {
        if (std::filesystem::is_directory(p, ec)) dirs.push_back(p);
    }
    if (dirs.empty()) return 0;
    ManuscriptCli o;
    o.jobs = jobs;
    o.format = format;
    const Inputs in = inputs(dirs, o, true);
    if (in.files.empty()) return 0;
    for (const auto& f : in.files) checked.push_back(f.file);
    return check_files(in, o, out, notes);
}

void add_manuscript_command(CLI::App& app, std::function<int(std::ostream&)>& command) {
    auto* family = app.add_subcommand("manuscript", "Check, fill or audit a book's Markdown or LaTeX text");
    family->require_subcommand(1);
    family->fallthrough();  // -o FILE after the subcommand (the options every command shares)
    auto o = std::make_shared<ManuscriptCli>();
    auto* s_check =
        family->add_subcommand("check", "Every marked claim against the exact report (exit 1 on a wrong one)");
    static const std::string kinds = manuscript_patterns();
    static const std::string kStdinHelp =
        "What standard input (-) stands for: its name in messages, its ending (the format) and its directory "
        "(where its scenario is found); default <stdin>, Markdown";
    static const std::string kScenarioFromHelp =
        "A manuscript (or a book's _quarto.yml or myst.yml) whose scenario a manuscript that names none takes (a "
        "book split over files, the metadata in one), confined to that file's folder or the working directory; "
        "given more than once, the first that names one";
    s_check->add_option("files", o->files, "Manuscripts or directories (" + kinds + "), or - for standard input")
        ->required();
    s_check->add_option("--scenario", o->scenario, "Scenario file for every manuscript (default: the one each names)");
    s_check->add_option("--scenario-from", o->scenario_from, kScenarioFromHelp)->allow_extra_args(false);
    s_check->add_option("--stdin-filename", o->stdin_filename, kStdinHelp);
    s_check->add_option("-j,--jobs", o->jobs, "Files checked in parallel (default: the number of cores)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{256}));
    s_check->add_option("--junit", o->junit, "Also write a JUnit XML report to FILE");
    s_check->add_option("--format", o->format, "text, or github: each wrong claim as a GitHub annotation line")
        ->check(CLI::IsMember({"text", "github"}));
    s_check->add_option("--sarif", o->sarif, "Also write a SARIF 2.1.0 log of the wrong claims to FILE");
    s_check->add_flag("--marks-only", o->marks_only,
                      "Check the marks only, not the audit a file asks for (exactattn-audit): for a build tool that "
                      "runs the audit itself");
    s_check->callback([o, &command] { command = [o](std::ostream& out) { return check(*o, out); }; });

    auto* s_fill = family->add_subcommand("fill", "Replace placeholders by the report's values (to -o FILE or stdout)");
    s_fill->add_option("file", o->files, "The manuscript (" + kinds + "), or - for standard input")
        ->required()
        ->expected(1);
    s_fill->add_option("--scenario", o->scenario, "Scenario file (default: the one the manuscript names)");
    s_fill->add_option("--scenario-from", o->scenario_from, kScenarioFromHelp)->allow_extra_args(false);
    s_fill->add_option("--stdin-filename", o->stdin_filename, kStdinHelp);
    s_fill->add_flag("--in-place", o->in_place, "Rewrite the manuscript itself (atomically)");
    s_fill->add_option("--format", o->format, "manuscript (the filled text), or json: each placeholder and its value")
        ->check(CLI::IsMember({"manuscript", "json"}));
    s_fill->callback([o, &command, &app, family] {
        // -o is every command's option, added to the app and to `manuscript` after this.
        for (const CLI::App* a : {static_cast<const CLI::App*>(&app), static_cast<const CLI::App*>(family)}) {
            const CLI::Option* output = a->get_option_no_throw("--output");
            o->output_given = o->output_given || (output != nullptr && output->count() > 0);
        }
        command = [o](std::ostream& out) { return fill(*o, out); };
    });

    auto* s_audit = family->add_subcommand("audit", "Unmarked numeric claims, what they equal, and the coverage");
    s_audit->add_option("files", o->files, "Manuscripts or directories, or - for standard input")->required();
    s_audit->add_option("--scenario", o->scenario, "Scenario file (default: the one each manuscript names)");
    s_audit->add_option("--scenario-from", o->scenario_from, kScenarioFromHelp)->allow_extra_args(false);
    s_audit->add_option("--stdin-filename", o->stdin_filename, kStdinHelp);
    s_audit->add_option("-j,--jobs", o->jobs, "Files audited in parallel (default: the number of cores)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{256}));
    s_audit->add_flag("--strict", o->strict, "Exit 1 when the coverage is below --min-coverage");
    s_audit->add_option("--min-coverage", o->min_coverage,
                        "Percent of numeric claims that must be marked, exactly (default 95)");
    s_audit->add_flag("--count-years{false}", o->audit.ignore_years, "Count four-digit years as claims");
    s_audit->add_flag("--count-references{false}", o->audit.ignore_sections,
                      "Count numbers after Chapter, Section, Table, Figure, §, … and in headings");
    s_audit->add_flag("--count-list-numbers{false}", o->audit.ignore_lists, "Count the numbers of ordered list items");
    s_audit->add_flag("--all", o->all, "Also print the verified numbers and the numbers that are not claims");
    s_audit->callback([o, &command] { command = [o](std::ostream& out) { return audit(*o, out); }; });

    auto* s_propose = family->add_subcommand(
        "propose", "Write the manuscript with a mark on every number audit bound (to -o FILE or stdout)");
    s_propose->add_option("file", o->files, "The manuscript (" + kinds + "), or - for standard input")
        ->required()
        ->expected(1);
    s_propose->add_option("--scenario", o->scenario, "Scenario file (default: the one the manuscript names)");
    s_propose->add_option("--scenario-from", o->scenario_from, kScenarioFromHelp)->allow_extra_args(false);
    s_propose->add_option("--stdin-filename", o->stdin_filename, kStdinHelp);
    s_propose->add_flag("--diff", o->diff, "Print a unified diff of the lines the marks change instead");
    s_propose->add_option("--listing", o->listing,
                          "Write each mark's pointer and reason, and the numbers left unmarked, to FILE");
    s_propose->callback([o, &command] { command = [o](std::ostream& out) { return propose(*o, out); }; });
}

}  // namespace exactattn::cli
