// SPDX-License-Identifier: MIT
// exactattn: findings placed at a file's line for CI systems — a SARIF 2.1.0 log and GitHub
// Actions annotation lines (docs/cli.md, "Annotations for CI").
#pragma once

#include <string>
#include <vector>

namespace exactattn {

/// One finding at its place: a wrong claim of a manuscript, a failed `expect` of a scenario, a
/// wrong number of the audited unmarked prose.
struct Annotation {
    std::string file;
    int line = 0;         ///< 1-based; 0 when the finding has no line (the whole file)
    int column = 0;       ///< 1-based, in Unicode code points; 0 when none
    std::string rule;     ///< one of the rule ids of kAnnotationRules
    std::string message;  ///< one line
};

/// The rules a SARIF log declares: `wrong-claim` (a marked claim of a manuscript contradicted by
/// the exact report), `expect-mismatch` (an `expect` entry of a scenario file that the report
/// contradicts), `unmarked-wrong` (a number of the unmarked prose that the audit a book asks for
/// calls wrong).
struct AnnotationRule {
    const char* id;
    const char* description;
};
inline constexpr AnnotationRule kAnnotationRules[] = {
    {"wrong-claim", "A marked claim of a manuscript is not the exact value of the quantity it names"},
    {"expect-mismatch", "An expect entry of a scenario file is not the exact value of the quantity it names"},
    {"unmarked-wrong",
     "A number of a manuscript's unmarked prose, audited, is not the exact value of the quantity its context states "
     "(or its own arithmetic is false)"},
};

/// A SARIF 2.1.0 log of one run of `tool_command` (`manuscript check`, `verify`) over `files`
/// (every file analysed, listed as artifacts), with one `error` result per annotation. Relative
/// paths are URIs relative to %SRCROOT%, the working directory; columns count code points.
std::string sarif_log(const std::vector<Annotation>& annotations, const std::vector<std::string>& files,
                      const std::string& tool_command);

/// One GitHub Actions workflow command: `::error file=F,line=L,col=C,title=exactattn <rule>::message`,
/// with `%`, CR, LF (and in properties `:` and `,`) escaped as GitHub requires, and control
/// characters shown as `<U+001B>`.
std::string github_annotation(const Annotation& a);

/// The 1-based line of the first `"pointer"` key in a scenario file's text (its `expect`
/// entry), 0 when it is not there.
int expect_line(const std::string& text, const std::string& pointer);

}  // namespace exactattn
