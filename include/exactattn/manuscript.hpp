// SPDX-License-Identifier: MIT
// exactattn: manuscripts — the book's own prose checked, filled and audited against the exact
// report of its scenario (docs/manuscript.md).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace exactattn {

/// The two source formats a manuscript may be written in, told apart by its file name
/// (`.tex`, `.ltx`: LaTeX; anything else: pandoc Markdown, Quarto, MyST).
enum class ManuscriptFormat { Markdown, Latex };

/// The one list of manuscript file names (docs/manuscript.md): the endings a directory's
/// manuscripts have, each with its format.
struct ManuscriptExtension {
    std::string_view extension;
    ManuscriptFormat format;
};
inline constexpr std::array<ManuscriptExtension, 5> kManuscriptExtensions{{
    {".md", ManuscriptFormat::Markdown},
    {".markdown", ManuscriptFormat::Markdown},
    {".qmd", ManuscriptFormat::Markdown},
    {".tex", ManuscriptFormat::Latex},
    {".ltx", ManuscriptFormat::Latex},
}};
/// The list as help texts show it: `*.md, *.markdown, *.qmd, *.tex, *.ltx`.
std::string manuscript_patterns();

/// The format of a manuscript named `path` (Markdown unless its ending is a LaTeX one).
ManuscriptFormat manuscript_format(const std::string& path);

/// How a manuscript is read.
struct ManuscriptOptions {
    /// A scenario file (or `chapter14`) that overrides the one the manuscript names; empty:
    /// the manuscript's own (front matter `exactattn-scenario:` or the magic comment
    /// `% exactattn-scenario: FILE`), relative to the manuscript's directory.
    std::string scenario;
    /// The scenario of the LaTeX file that \include's or \input's this one (book_files), or of
    /// the file `--scenario-from` names (inheritable_scenario), used when this one names none: a
    /// book names its scenario once, in its main file. Checked where it was named: not again.
    std::string inherited_scenario;
};

/// One manuscript of a book, with the scenario it inherits from the file that includes it.
struct BookFile {
    std::string file;
    std::string inherited_scenario;  ///< empty: none (a file named on the command line)
};
/// `files`, each LaTeX manuscript followed by the chapters it `\include`s and `\input`s
/// (recursively, depth first, each file once; a name is relative to the directory of the main
/// file, as TeX reads it when latexmk runs there; `.tex` added to a name without an ending; a name
/// ending in neither `.tex` nor `.ltx` is not a chapter and is skipped; the preamble's, comments'
/// and verbatim's are not read). A chapter is read only from inside the directory of the file
/// named in `files` that leads to it (symbolic links resolved): one outside it, one that does not
/// exist or one that includes itself is refused (UsageError at the `\include`).
std::vector<BookFile> book_files(const std::vector<std::string>& files);

/// The scenario the manuscript `file` names, as the files of its book inherit it (`--scenario-from`:
/// a book's project file, `_quarto.yml`, a Quarto directory's `_metadata.yml` or `myst.yml` (its
/// `project:` map), names it for every chapter; a pandoc build's files that name none take the one
/// its metadata names): an absolute path, or `chapter14`. It is confined as `file`'s own (to
/// `file`'s folder, for a `_metadata.yml` its Quarto project's, or the working directory), so a
/// file that inherits it is not checked again. UsageError placed at `file` when it names none or
/// one outside those folders.
std::string inheritable_scenario(const std::string& file);

/// Whether `file` (a manuscript, or a book's `_quarto.yml` or `myst.yml`: docs/manuscript.md,
/// "Books") names a scenario (errors as inheritable_scenario's, but none for naming none).
bool names_scenario(const std::string& file);

/// One marked claim and its verdict.
struct ClaimVerdict {
    int line = 0;    ///< 1-based line of the mark
    int column = 0;  ///< 1-based column (code points) of the mark
    std::string pointer;
    std::string written;  ///< the claim as written between the mark's brackets
    std::string exact;    ///< the report's value (ascii; a vector as `[a/2, a/4]`)
    bool passed = false;
    /// Why it failed: which link of a chain, which entry, the decimal rule used.
    std::string detail;
};

/// The verdicts of one manuscript, in the order its marks stand.
struct ManuscriptResult {
    std::string file;
    std::string scenario;  ///< the scenario file it was checked against
    std::vector<ClaimVerdict> claims;
    /// The claims that did not hold.
    [[nodiscard]] std::size_t wrong() const;
};

/// Checks every mark of a manuscript's text. The scenario is loaded and run once. Throws
/// exactattn::Error (exit 2) for bad input: a malformed or unclosed mark, a pointer that
/// resolves to nothing (naming the nearest existing pointers), a written value that does not
/// parse, a missing scenario; each placed at `file:line:column`.
ManuscriptResult check_manuscript_text(std::string_view text, const std::string& file, ManuscriptFormat format,
                                       const ManuscriptOptions& options = {});
/// Work units charged per byte of a manuscript read (its scans for code, marks, placeholders and
/// numbers), before the scan starts: a megabyte costs about 2·10^9 units, 1.5 % of the default
/// budget, so the default budget admits manuscripts of up to about 68 MB. Standard input is
/// refused as soon as what it has sent so far is past that (an endless pipe is not read to
/// max_file_bytes).
inline constexpr double kWorkPerManuscriptByte = 2000;

/// The bytes of the manuscript at `path`, read by the one input reader (read_input_file: a
/// FIFO, device or directory refused at once, a file past max_file_bytes refused unread).
std::string read_manuscript_file(const std::string& path);

/// Reads `path` and checks it (UsageError when it cannot be read).
ManuscriptResult check_manuscript(const std::string& path, const ManuscriptOptions& options = {});

/// The manuscripts named by `paths`: a directory contributes every regular file below it with
/// an ending of kManuscriptExtensions (sorted by path) that names a scenario (when
/// `only_with_marks`); a file is taken as given. ReferenceError for a path that does not exist.
std::vector<std::string> manuscript_files(const std::vector<std::string>& paths, bool only_with_marks = false);

/// The mark-up of one manuscript as a whole line per mismatch, in the command's format:
/// `file:line:col: pointer: written W, exact E (detail)`.
std::string mismatch_line(const std::string& file, const ClaimVerdict& v);
/// The same without its place: `pointer: written W, exact E (detail)` (an annotation's message).
std::string mismatch_message(const ClaimVerdict& v);

/// The JUnit XML of checked manuscripts: one <testsuite> per file, one <testcase> per claim
/// named `line:col pointer`.
std::string manuscript_junit(const std::vector<ManuscriptResult>& results);

/// One placeholder as `fill` replaced it (`manuscript fill --format json`).
struct FilledPlaceholder {
    int line = 0;        ///< 1-based line of the placeholder
    int column = 0;      ///< 1-based column (code points)
    std::string source;  ///< the placeholder as written (`{{/reads/example-14.1/weights}}`)
    std::string filled;  ///< what replaced it, in the manuscript's format
};
/// How `fill` renders a placeholder's value.
struct FillResult {
    std::string text;                             ///< the manuscript with every placeholder replaced
    std::size_t replaced = 0;                     ///< how many placeholders
    std::vector<FilledPlaceholder> placeholders;  ///< each replacement, in text order
};
/// Replaces every placeholder (`{{/pointer}}`, `{{/pointer digits=6}}`, `{{/pointer approx}}`,
/// `{{table /reads/NAME}}` in Markdown; `\exactvalue{/pointer}`, `\exactvalue[digits=6]{…}` in
/// LaTeX) by the value rendered for the format (docs/manuscript.md). Errors as for check.
FillResult fill_manuscript_text(std::string_view text, const std::string& file, ManuscriptFormat format,
                                const ManuscriptOptions& options = {});

/// What audit says of one unmarked number (docs/manuscript.md, "How audit binds a number").
enum class AuditVerdict {
    Verified,   ///< bound to one quantity by its context, and equal to it
    Wrong,      ///< bound, and unequal
    Ambiguous,  ///< several quantities of different values fit its context equally
    Unbound,    ///< nothing in the scenario fits its context (or it cannot be read)
    NotAClaim,  ///< a section number, a year, an attribute, a list number, a citation, …
};
/// The verdict's name as printed: `verified`, `wrong`, `ambiguous`, `unbound`, `not a claim`.
const char* audit_verdict_name(AuditVerdict v);

/// A quantity a number was bound to (or, when ambiguous, one that fits).
struct AuditQuantity {
    std::string pointer;
    std::string value;        ///< its exact value, as `pointers` prints it
    std::string description;  ///< what it is, in words (`pointers`)
};

/// One number-like claim of the prose that no mark covers.
struct AuditFinding {
    int line = 0;
    int column = 0;
    std::string text;                 ///< the claim as it stands
    std::vector<std::string> equals;  ///< pointers of the quantities it equals (empty: none)
    AuditVerdict verdict = AuditVerdict::Unbound;
    std::vector<AuditQuantity> bound;  ///< the quantity bound (first), or the ones that fit when ambiguous
    std::string reason;                ///< the cues that bound it, or why it is not a claim
    std::string detail;                ///< wrong: which entry or link differs
};
/// What `audit` found in one manuscript.
struct AuditResult {
    std::string file;
    std::size_t marked = 0;  ///< marked claims
    std::vector<AuditFinding> unmarked;
    std::vector<AuditFinding> not_claims;  ///< numbers that are not claims, with the reason
    /// marked / (marked + unmarked); 1 when the manuscript holds no numeric claim.
    [[nodiscard]] double coverage() const;
    /// The unmarked claims with this verdict.
    [[nodiscard]] std::size_t count(AuditVerdict v) const;
};
/// Options of audit: which numbers are not claims.
struct AuditOptions {
    bool ignore_years = true;      ///< four-digit integers 1000-2099
    bool ignore_sections = true;   ///< numbers after Chapter/Section/Table/Figure/Example/§/equation
    bool ignore_citations = true;  ///< `et al., 2015`, `(2019)`, `§3.1`, `[@key]`
    bool ignore_lists = true;      ///< the `1.` of an ordered list item
};
/// Lists every unmarked number-like claim of the manuscript's text with the pointers of the
/// report whose value it equals. The scenario is run once.
AuditResult audit_manuscript_text(std::string_view text, const std::string& file, ManuscriptFormat format,
                                  const ManuscriptOptions& options = {}, const AuditOptions& audit = {});

/// One line per finding: `file:line:col: written 1/3; weight of … (/reads/example-14.1/weights/1)
/// is 1/4` for a wrong number, `file:line:col: 1/4 verified: … (/pointer)`, `… ambiguous: …`,
/// `… unbound: …`, `… not a claim: …`.
std::string audit_line(const std::string& file, const AuditFinding& f);

/// The finding's line without its place (`written 1/3; weight of … is 1/4`): the message of
/// its GitHub annotation and SARIF result.
std::string audit_message(const AuditFinding& f);

/// The audit a manuscript asks for in its own text (docs/manuscript.md, "LaTeX books").
enum class AuditLevel {
    Off,     ///< marked claims only
    Wrong,   ///< also an unmarked number audit calls wrong fails the check
    Strict,  ///< also a coverage below the minimum
};
struct AuditSetting {
    AuditLevel level = AuditLevel::Off;
    std::string min_coverage;  ///< the highest minimum coverage asked for, a decimal percentage as written; empty: none
};
/// Merges into `into` the comment lines `% exactattn-audit: true|strict` (`false`, `no`, `off`,
/// `yes`, `on`; any case, optionally quoted) and `% exactattn-audit-min-coverage: P` (digits and
/// a decimal point, 0 to 100) of a LaTeX manuscript, keeping the strictest level and the highest
/// minimum, so that one file's `false` does not turn off what another asked for. A value that is
/// none of these is a UsageError placed at its key.
void read_audit_setting(std::string_view latex, const std::string& file, AuditSetting& into);
/// The same for a manuscript of either format: LaTeX's comment lines as above; Markdown's top-level
/// keys `exactattn-audit:` and `exactattn-audit-min-coverage:` in the file's YAML metadata blocks
/// (the front matter and any later block, as pandoc finds them), the last of each key in the file
/// being the file's (as pandoc merges its blocks), merged into `into` keeping the strictest. A
/// value that is no setting is a UsageError placed at its key.
void read_audit_setting(std::string_view text, const std::string& file, ManuscriptFormat format, AuditSetting& into);
/// The same for a book's project file, which is YAML: the top-level keys of a Quarto
/// `_quarto.yml` or `_metadata.yml` (`myst` false), the keys of the top-level map `project:` of a
/// MyST `myst.yml` (`myst` true), as those toolchains read them (the last of each key).
void read_project_audit_setting(std::string_view yaml, const std::string& file, bool myst, AuditSetting& into);

/// The manuscript with a mark on every number audit bound (verified or wrong), and the list of
/// what was marked, why, and what was left unmarked.
struct ProposeResult {
    std::string text;
    std::size_t marked = 0;
    std::vector<std::string> listing;  ///< `file:line:col: marked W as /pointer (reason)` or `… left unmarked: …`
};
ProposeResult propose_marks_text(std::string_view text, const std::string& file, ManuscriptFormat format,
                                 const ManuscriptOptions& options = {}, const AuditOptions& audit = {});

}  // namespace exactattn
