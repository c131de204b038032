// SPDX-License-Identifier: MIT
// exactattn command line: one function per subcommand (cli/cmd_<name>.cpp).
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}
#include "exactattn/document.hpp"

namespace exactattn::cli {

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
    std::string fields;         ///< --fields: JSON keys to write, comma-separated
    bool fields_given = false;  ///< --fields was given (even as "")
    exactattn::RenderOptions render;  ///< --standalone, --latex-floats, --no-markdown-math
};

struct EncodeOptions {
    std::string scenario = "chapter14";
    std::string tokens;
    std::string format = "text";
    exactattn::RenderOptions render;  ///< --standalone, --latex-floats, --no-markdown-math
};

struct FilesOptions {
    std::vector<std::string> files;
    std::string format;
    exactattn::RenderOptions render;  ///< --standalone, --latex-floats, --no-markdown-math
};

struct CheckOptions {
    std::string file;
    std::string answer;    ///< one declared learner answer by name (default: all)
    std::string target;    ///< an ad-hoc answer: JSON pointer of the quantity …
    std::string proposed;  ///< … and the proposed value or vector
    bool ad_hoc = false;   ///< --target (with --proposed) was given, even as an empty string
    std::string format = "text";
    exactattn::RenderOptions render;  ///< --standalone, --latex-floats, --no-markdown-math
};

struct AttendOptions {
    std::string x;       ///< the sequence X (rows), inline or @FILE
    std::string memory;  ///< cross-attention: keys and values from this sequence
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
/// Writes a document: rendered to `out`, or, for CSV with `-o DIR`, one file per table and
/// index.csv in DIR (each written atomically). UsageError for `-o DIR` with another format.
void emit(const exactattn::Document& doc, exactattn::Format format, const exactattn::RenderOptions& options,
          std::ostream& out);

// Each returns the exit code and writes its whole output to `out` (a buffer the caller
// flushes only on success). They throw exactattn::Error for invalid input.
int cmd_eval(const EvalOptions& o, std::ostream& out);
int cmd_run(const RunOptions& o, std::ostream& out);
/// Output that a command hands back to be written after it succeeded, straight to standard
/// output (or into the -o file) in chunks instead of through the command's buffer: for an
/// output of hundreds of megabytes (read --format json).
using DeferredOutput = std::function<void(std::ostream&)>;
int cmd_read(const ReadOptions& o, std::ostream& out, DeferredOutput& deferred);
int cmd_encode(const EncodeOptions& o, std::ostream& out);
int cmd_verify(const FilesOptions& o, std::ostream& out);
int cmd_crosscheck(const FilesOptions& o, std::ostream& out);
int cmd_answers(const FilesOptions& o, std::ostream& out);
int cmd_check(const CheckOptions& o, std::ostream& out);
int cmd_attend(const AttendOptions& o, std::ostream& out);
/// The options of `attend` on its subcommand (kept beside the command).
void add_attend_options(CLI::App& sub, AttendOptions& o);

}  // namespace exactattn::cli
