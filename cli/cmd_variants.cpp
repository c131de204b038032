// SPDX-License-Identifier: MIT
// exactattn variants: N variants of an exercise, their keys, a sheet and a Moodle XML export.
#include <fmt/format.h>

#include <gmpxx.h>

#include <algorithm>
#include <ostream>

#include "commands.hpp"
#include "exactattn/wording.hpp"
#include "exactattn/error.hpp"
#include "exactattn/variants.hpp"

namespace exactattn::cli {

namespace {

// A seed is any 64-bit unsigned integer, written in decimal; anything else (a sign, 2^64, a
// fraction) is refused rather than wrapped or clamped into some other seed.
std::uint64_t seed_argument(const std::string& text, const char* option) {
    Location where;
    where.context = option;
    const bool digits = !text.empty() && text.size() <= 20 &&
                        std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    const mpz_class n = digits ? mpz_class(text) : mpz_class(-1);
    if (!digits || n > mpz_class("18446744073709551615")) {
        throw usage_error(
            fmt::format("expected a seed, a whole number from 0 to 18446744073709551615; got \"{}\"", text), where);
    }
    std::uint64_t out = 0;
    for (char c : text) out = out * 10 + static_cast<std::uint64_t>(c - '0');
    return out;
}

}  // namespace

int cmd_variants(const VariantsOptions& o, std::ostream& out, Delivery& delivery) {
    if (o.output.empty()) {
        Location where;
        where.context = "--output";
        throw usage_error(
            "variants writes many files (scenario files, keys, a sheet, Moodle XML): give -o DIR, a "
            "directory (created when missing)",
            where);
    }
    VariantRequest request;
    request.exercise = o.exercise;
    request.count = o.count;
    request.seed = o.variant_seed ? seed_argument(*o.variant_seed, "--variant-seed") : seed_argument(o.seed, "--seed");
    request.variant_seed = o.variant_seed.has_value();
    const VariantSet set = draw_variants(load_scenario(o.file), request);
    const auto files = variant_files(set, o.warn);
    std::vector<std::pair<std::string, std::string>> named;
    for (const auto& f : files) named.emplace_back(f.name, f.text);
    write_files(o.output, named, delivery);
    for (const auto& v : set.variants) {
        out << fmt::format("variant {}: seed {}, {}\n", v.number, v.seed, counted(v.draws, "draw"));
    }
    out << fmt::format("variants: {} of exercise {} written to {} ({})\n", counted(set.variants.size(), "variant"),
                       set.exercise.id, o.output, counted(files.size(), "file"));
    return 0;
}

}  // namespace exactattn::cli
