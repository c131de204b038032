// SPDX-License-Identifier: MIT
// exactattn read: one attention read from the command line.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <ostream>
#include <set>

#include "commands.hpp"
#include "delivery.hpp"
#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"

namespace exactattn::cli {

namespace {

// The items of a list separated by commas or spaces ("1,2 3").
std::vector<std::string> split_list(const std::string& a) {
    std::vector<std::string> parts;
    std::string cur;
    for (char c : a) {
        if (c == ',' || c == ' ') {
            if (!cur.empty()) parts.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) parts.push_back(cur);
    return parts;
}

std::vector<std::size_t> parse_positions(const std::vector<std::string>& args, const char* option, std::size_t n) {
    std::vector<std::size_t> out;
    for (const auto& a : args) {
        for (const auto& part : split_list(a)) {
            const auto p = whole_number(part);
            if (!p) {
                throw usage_error(fmt::format("\"{}\" is not a position (a whole number from 1 to {})", part, n),
                                  option_place(option));
            }
            out.push_back(checked_position(mpz_class(std::to_string(*p)), n, "memory", option_place(option)));
        }
    }
    return out;
}

}  // namespace

int cmd_read(const ReadOptions& o, std::ostream& out, Delivery& delivery) {
    std::vector<std::string> fields;
    if (o.fields_given) {
        for_option("--fields", [&] {
            if (o.format != "json") throw usage_error("--fields selects keys of the JSON output: give --format json");
            fields = split_list(o.fields);
            if (fields.empty()) throw usage_error("give at least one field, e.g. weights,context,denominator");
            check_read_json_fields(fields);
            return 0;
        });
    }
    auto memory = std::make_shared<Memory>(for_option("--memory", [&] { return load_memory_argument(o.memory); }));
    ReadRequest req;
    req.query = for_option("--query", [&] { return parse_vector(o.query); });
    if (!o.readout.empty()) req.readout = for_option("--readout", [&] { return parse_vector(o.readout); });
    const std::size_t n = memory->rows();
    const auto removed = parse_positions(o.remove, "--remove", n);
    const auto zeroed = parse_positions(o.zero, "--zero", n);
    req.marks.assign(n, Mark::Included);
    for (auto p : zeroed) req.marks[p - 1] = Mark::Zeroed;
    for (auto p : removed) {
        if (req.marks[p - 1] == Mark::Zeroed) {
            Location where;
            where.context = "--remove";
            throw usage_error(fmt::format("position {} is given to both --remove and --zero", p), where);
        }
        req.marks[p - 1] = Mark::Removed;
    }
    // The read's own refusals (a field combination of memory entries) are placed at the memory
    // they come from when the library gave no place; a decimal rounding past max_precision at
    // the format that prints decimals (the default, text, does too), as eval does.
    auto t = std::make_shared<ReadTrace>(for_option("--memory", [&] { return attend(*memory, req); }));
    const std::string format_option = "--format " + o.format;
    if (o.format == "json") {
        // Hundreds of megabytes for 10^6 positions: written by the caller after this command
        // succeeded, in chunks, not held here. The decimals (the one part that can fail) are
        // computed now, so that a failure still writes nothing.
        for_option(format_option.c_str(), [&] {
            for (const auto& c : t->context) (void)to_fixed(c, 6);
            if (t->readout) (void)to_fixed(*t->readout, 6);
            return 0;
        });
        delivery.deferred = [memory, t, fields](std::ostream& os) { write_read_json(*memory, *t, os, fields); };
        return 0;
    }
    for_option(format_option.c_str(), [&] {
        emit(read_document(*memory, *t, req.readout), parse_format(o.format), o.render, out, delivery);
        return 0;
    });
    return 0;
}

}  // namespace exactattn::cli
