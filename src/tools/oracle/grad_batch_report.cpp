// SPDX-License-Identifier: MIT
// exactattn oracle, the backward pass of a batch of heads (include/exactattn/oracle_grad_batch.hpp):
// the reports both front ends print of grad_batch's result, text and JSON, entries named
// (b, h, i, j) in the caller's layout.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>

#include "exactattn/oracle_grad_batch.hpp"
#include "fp8.hpp"
#include "grad_report.hpp"

namespace exactattn::oracle {

namespace {

using detail::charge_chars;
using detail::field_json;
using detail::in_caller_layout;
using detail::json_number;
using detail::number;

std::string at4(const std::string& name, const std::array<std::int64_t, 4>& at) {
    return fmt::format("{}[b={}, h={}, i={}, j={}]", name, at[0], at[1], at[2], at[3]);
}

// Entry `at` of a batch field named (b, h, i[, j]) whatever its layout.
std::string entry_name(const GradField& f, std::size_t at, Layout l) {
    const auto x = static_cast<std::int64_t>(at);
    if (f.shape.size() == 3) {
        const std::int64_t n = f.shape[2], h = f.shape[1];
        return fmt::format("{}[b={}, h={}, i={}]", f.name, x / (h * n), x / n % h, x % n);
    }
    const std::int64_t c = f.shape[3];
    const bool bnhd = l == Layout::BNHD && in_caller_layout(f.name);
    const std::int64_t h = bnhd ? f.shape[2] : f.shape[1], r = bnhd ? f.shape[1] : f.shape[2];
    const std::int64_t row = x / c, j = x % c;
    if (bnhd) return at4(f.name, {row / (r * h), row % h, row / h % r, j});
    return at4(f.name, {row / (h * r), row / r % h, row % r, j});
}

nlohmann::json json_at(const std::array<std::int64_t, 4>& at) {
    if (at[0] < 0) return nullptr;
    return nlohmann::json::array({at[0], at[1], at[2], at[3]});
}

double entries(const GradBatch& g) {
    double n = 0;
    for (const GradField& f : g.fields) n += static_cast<double>(f.val.size());
    return n;
}

const char* layout_name(Layout l) { return l == Layout::BHND ? "bhnd" : "bnhd"; }

}  // namespace

std::string grad_batch_summary(const GradBatch& g) {
    const BatchShape& s = g.shape;
    std::string out = fmt::format("gradients of a batch of {} × {} heads ({} kv heads, groups of {}), layout {}\n", s.b,
                                  s.h_q, s.h_kv, s.h_q / s.h_kv, layout_name(g.layout));
    for (const GradBatchJudgement& j : g.judged) {
        out += fmt::format("{}: {} of {} entries over their bound", j.name, j.over, j.entries);
        if (j.worst_fraction[0] >= 0)
            out += fmt::format("; worst {} at {:.3g} × its bound", at4(j.name, j.worst_fraction), j.max_fraction);
        out += "\n";
    }
    if (!g.diagnosis.empty()) out += "diagnosis: " + g.diagnosis + "\n";
    if (!g.judged.empty()) out += g.passed() ? "passed\n" : "FAILED\n";
    return out;
}

std::string grad_batch_text(const GradBatch& g, const Fp8Events* fp8) {
    charge_chars(entries(g) * 120 + 600);
    std::string out = fmt::format(
        "oracle grad-reference: gradients of {} × {} heads ({} kv heads) with n_q = {}, n_k = {}, d = {}, d_v = {} "
        "(base {}) correctly rounded to {} (max MPFR precision {} bits; {} of {} entries exact; {} summed dk/dv "
        "entries straddled a rounding boundary, {} decided by their group's problem)\n",
        g.shape.b, g.shape.h_q, g.shape.h_kv, g.shape.n_q, g.shape.n_k, g.shape.d, g.shape.d_v,
        g.base == ExpBase::E ? "e" : "2", info(g.format).name, g.max_precision, g.exact_entries,
        static_cast<std::int64_t>(entries(g)), g.straddled, g.refined);
    for (std::size_t y = 0; y < g.fields.size(); ++y) {
        const GradField& f = g.fields[y];
        for (std::size_t at = 0; at < f.val.size(); ++at)
            out += fmt::format("{} = {}  {}  in [{:.17g}, {:.17g}]{}\n", entry_name(f, at, g.layout), number(f.val[at]),
                               f.exact[at] ? "exact" : "certified", f.lo[at], f.hi[at],
                               g.rounded[y][at] ? "" : "  (not rounded: the midpoint of an enclosure that straddles)");
    }
    for (const GradBatchJudgement& j : g.judged) {
        out += fmt::format("judged {}: {}; {} of {} entries over their bound ({} unbounded)", j.name,
                           j.over == 0 ? "PASS" : "FAIL", j.over, j.entries, j.unbounded);
        if (j.worst_fraction[0] >= 0)
            out += fmt::format(", the largest share of its bound {:.4g} at {}", j.max_fraction,
                               at4(j.name, j.worst_fraction));
        if (j.first_over[0] >= 0) out += fmt::format(", the first over at {}", at4(j.name, j.first_over));
        out += "\n";
        if (j.unbounded > 0) out += fmt::format("unbounded {}: {}\n", j.name, j.unbounded_reason);
    }
    if (fp8 != nullptr) out += fp8_events_text(*fp8);
    if (!g.judged.empty())
        out += fmt::format("verdict: {} (the running bound of the {})\n", g.passed() ? "PASS" : "FAIL",
                           grad_spec_text(g.spec, g.format));
    return out + grad_batch_summary(g);
}

std::string grad_batch_json(const GradBatch& g, const Fp8Events* fp8) {
    charge_chars(entries(g) * 100 + 600);
    const BatchShape& s = g.shape;
    nlohmann::ordered_json j = {{"dtype", info(g.format).name},
                                {"base", g.base == ExpBase::E ? "e" : "2"},
                                {"layout", layout_name(g.layout)},
                                {"batch", s.b},
                                {"heads", s.h_q},
                                {"kv_heads", s.h_kv},
                                {"n_q", s.n_q},
                                {"n_k", s.n_k},
                                {"d", s.d},
                                {"d_v", s.d_v},
                                {"max_precision", g.max_precision},
                                {"exact_entries", g.exact_entries},
                                {"straddled", g.straddled},
                                {"refined", g.refined}};
    nlohmann::ordered_json fields;
    for (std::size_t y = 0; y < g.fields.size(); ++y) {
        nlohmann::ordered_json x = field_json(g.fields[y]);
        x["rounded"] = g.rounded[y];
        fields[g.fields[y].name] = x;
    }
    j["fields"] = fields;
    if (!g.judged.empty()) {
        nlohmann::ordered_json cs;
        for (const GradBatchJudgement& x : g.judged) {
            nlohmann::ordered_json c = {{"entries", x.entries},
                                        {"differing", x.differing},
                                        {"max_ulps", json_number(x.max_ulps)},
                                        {"worst", json_at(x.worst)},
                                        {"over", x.over},
                                        {"unbounded", x.unbounded},
                                        {"max_bound_fraction", json_number(x.max_fraction)},
                                        {"worst_fraction", json_at(x.worst_fraction)},
                                        {"first_over", json_at(x.first_over)}};
            if (x.unbounded > 0) c["unbounded_reason"] = x.unbounded_reason;
            cs[x.name] = c;
        }
        j["judged"] = cs;
        j["verdict"] = g.passed() ? "pass" : "fail";
        j["claim"] = detail::claim_json<nlohmann::ordered_json>(g.spec, g.format);
        j["diagnosis"] = g.diagnosis;
    }
    if (fp8 != nullptr) j["fp8"] = fp8_events_object(*fp8);
    return j.dump() + '\n';
}

}  // namespace exactattn::oracle
