// SPDX-License-Identifier: MIT
// exactattn: `check --answers` — a class's answers from an RFC 4180 CSV file.
#include <fmt/format.h>

#include <algorithm>

#include "exactattn/check.hpp"
#include "exactattn/error.hpp"
#include "exactattn/scenario.hpp"
#include "scenario/json.hpp"
#include "tools/check/csv.hpp"

namespace exactattn {

namespace {

// RFC 4180: records end in CRLF (LF accepted), fields may be quoted with "", a quote inside a
// quoted field is doubled, and a quoted field may hold commas and line breaks.
class CsvReader {
  public:
    CsvReader(std::string_view csv, const std::string& file) : csv_(csv), file_(file) {}

    // Every record, with the line each starts on (`lines`).
    std::vector<std::vector<std::string>> records(std::vector<int>& lines) {
        while (i_ < csv_.size()) {
            const char c = csv_[i_];
            if (c == '"' && field_.empty()) {
                quoted_field();
            } else if (c == ',') {
                record_.push_back(std::move(field_));
                field_.clear();
                any_ = true;
                ++i_;
            } else if (c == '\r' || c == '\n') {
                if (c == '\r' && i_ + 1 < csv_.size() && csv_[i_ + 1] == '\n') ++i_;
                ++i_;
                end_record(lines);
                record_line_ = ++line_;
            } else if (c == '"') {
                throw fail("a quote inside an unquoted field (quote the whole field and double the quote)");
            } else {
                field_ += c;
                any_ = true;
                ++i_;
            }
        }
        end_record(lines);
        return std::move(records_);
    }

    // A ParseError at `file:line`.
    Error fail(const std::string& why) const { return fail_at(line_, why); }
    Error fail_at(int line, const std::string& why) const {
        Location where;
        where.file = file_;
        where.line = line;
        return parse_error(where, why);
    }

  private:
    void quoted_field() {
        ++i_;
        const int opened = line_;
        for (;;) {
            if (i_ >= csv_.size()) throw fail_at(opened, "a quoted field is not closed");
            if (csv_[i_] == '"') {
                if (i_ + 1 < csv_.size() && csv_[i_ + 1] == '"') {
                    field_ += '"';
                    i_ += 2;
                    continue;
                }
                ++i_;
                break;
            }
            if (csv_[i_] == '\n') ++line_;
            field_ += csv_[i_++];
        }
        if (i_ < csv_.size() && csv_[i_] != ',' && csv_[i_] != '\n' && csv_[i_] != '\r') {
            throw fail("text after a quoted field's closing quote");
        }
        any_ = true;
    }

    void end_record(std::vector<int>& lines) {
        if (any_ || !field_.empty()) {
            record_.push_back(std::move(field_));
            records_.push_back(std::move(record_));
            lines.push_back(record_line_);
        }
        record_.clear();
        field_.clear();
        any_ = false;
    }

    std::string_view csv_;
    const std::string& file_;
    std::vector<std::vector<std::string>> records_;
    std::vector<std::string> record_;
    std::string field_;
    int line_ = 1;
    int record_line_ = 1;
    std::size_t i_ = 0;
    bool any_ = false;
};

}  // namespace

namespace detail {

CsvRecords read_csv_records(std::string_view csv, const std::string& file) {
    if (csv.substr(0, 3) == "\xEF\xBB\xBF") csv.remove_prefix(3);
    CsvReader reader(csv, file);
    CsvRecords out;
    out.records = reader.records(out.lines);
    return out;
}

}  // namespace detail

std::vector<ClassAnswer> read_class_answers(std::string_view csv, const std::string& file) {
    // Spreadsheet programs start a UTF-8 CSV with a byte order mark; it is not part of the first
    // column's name.
    if (csv.substr(0, 3) == "\xEF\xBB\xBF") csv.remove_prefix(3);
    // Names and answers are copied into every report: text that is not UTF-8 (a file saved as
    // Latin-1) is refused at its line and column, as in a scenario file.
    detail::check_file_utf8(csv, file);
    CsvReader reader(csv, file);
    std::vector<int> lines;
    const auto records = reader.records(lines);
    if (records.empty()) {
        throw reader.fail_at(1, "no header: the first record must name the columns student, target and answer");
    }
    const auto& header = records.front();
    auto column = [&](const char* name) {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end()) {
            throw reader.fail_at(
                1, fmt::format("the header has no column \"{}\" (it needs student, target and answer)", name));
        }
        return static_cast<std::size_t>(it - header.begin());
    };
    const std::size_t cs = column("student");
    const std::size_t ct = column("target");
    const std::size_t ca = column("answer");
    std::vector<ClassAnswer> out;
    for (std::size_t r = 1; r < records.size(); ++r) {
        if (records[r].size() != header.size()) {
            throw reader.fail_at(lines[r],
                                 fmt::format("{} fields where the header has {}", records[r].size(), header.size()));
        }
        out.push_back(ClassAnswer{records[r][cs], records[r][ct], records[r][ca], lines[r]});
    }
    return out;
}

std::vector<ClassAnswer> load_class_answers(const std::string& path) {
    return read_class_answers(read_input_file(path), path);
}

}  // namespace exactattn
