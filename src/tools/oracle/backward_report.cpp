// SPDX-License-Identifier: MIT
// exactattn oracle, backward pass: a kernel's gradients compared with the certified ones, and the
// reports (docs/oracle.md, "Certified gradients"), written once for every front end.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

#include "exactattn/limits.hpp"
#include "exactattn/oracle_grad.hpp"
#include "fp8.hpp"
#include "grad_report.hpp"

namespace exactattn::oracle {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr const char* kNoBound =
    "no a-priori bound for a backward algorithm is applied yet (docs/oracle.md, \"Certified gradients\"): "
    "the errors are measured against the correctly rounded reference, not judged";

Location arg(const std::string& name) {
    Location l;
    l.context = name;
    return l;
}

std::string index_of(const GradField& f, std::int64_t at) {
    if (f.shape.size() == 1) return fmt::format("{}[{}]", f.name, at);
    return fmt::format("{}[{}, {}]", f.name, at / f.shape[1], at % f.shape[1]);
}

}  // namespace

// Shared with the batch's reports (oracle_grad_batch.cpp).
namespace detail {

std::string number(double x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    return fmt::format("{:.9g} ({:a})", x, x);
}

nlohmann::json json_number(double x) {
    if (std::isfinite(x)) return x;
    return std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf";
}

nlohmann::ordered_json field_json(const GradField& f) {
    nlohmann::ordered_json x;
    x["shape"] = f.shape;
    nlohmann::json val = nlohmann::json::array(), lo = val, hi = val, kind = val;
    for (std::size_t at = 0; at < f.val.size(); ++at) {
        val.push_back(json_number(f.val[at]));
        lo.push_back(json_number(f.lo[at]));
        hi.push_back(json_number(f.hi[at]));
        kind.push_back(f.exact[at] ? "exact" : "certified");
    }
    x["values"] = val;
    x["lo"] = lo;
    x["hi"] = hi;
    x["kind"] = kind;
    return x;
}

void charge_chars(double chars) {
    const double units = chars * kWorkPerPrintedCharacter;
    if (!charge_work(units)) throw over_work(units, "printing the gradients");
}

}  // namespace detail

namespace {

using detail::charge_chars;
using detail::field_json;
using detail::json_number;
using detail::number;

double entries(const GradReference& g) {
    double n = 0;
    for (const GradField* f : g.fields()) n += static_cast<double>(f->val.size());
    return n;
}

}  // namespace

GradComparison compare_grad(const GradReference& g, const std::string& name, const Tensor& actual) {
    const GradField* f = nullptr;
    for (const GradField* x : {&g.dq, &g.dk, &g.dv})
        if (x->name == name) f = x;
    if (f == nullptr) throw usage_error(fmt::format("'{}' is not a gradient that is compared (dq, dk, dv)", name));
    if (actual.shape != f->shape || actual.data.size() != f->val.size())
        throw shape_error(fmt::format("{} must be {} × {} (its shape in the problem)", name, f->shape[0], f->shape[1]),
                          arg(name));
    for (std::size_t at = 0; at < actual.data.size(); ++at)  // a kernel's NaN is judged; a non-value refused
        if (std::isfinite(actual.data[at]) && !representable(actual.data[at], g.format))
            throw domain_error(
                fmt::format("{}[{}, {}]: {}", name, static_cast<std::int64_t>(at) / f->shape[1],
                            static_cast<std::int64_t>(at) % f->shape[1], not_a_value(actual.data[at], g.format)),
                arg(name));
    GradComparison c;
    c.name = name;
    c.entries = static_cast<std::int64_t>(f->val.size());
    for (std::size_t at = 0; at < f->val.size(); ++at) {
        const double a = actual.data[at], r = f->val[at];
        if (a == r || (std::isnan(a) && std::isnan(r))) continue;
        ++c.differing;
        const double e = std::isfinite(a) && std::isfinite(r) ? std::fabs(a - r) / ulp(r, g.format) : kInf;
        if (c.worst < 0 || e > c.max_ulps) {
            c.max_ulps = e;
            c.worst = static_cast<std::int64_t>(at);
            c.worst_actual = a;
            c.worst_reference = r;
        }
    }
    return c;
}

std::string grad_reference_text(const GradReference& g, const std::vector<GradComparison>& compared,
                                const GradSpec* spec, const std::string& diagnosis, const Fp8Events* fp8) {
    charge_chars(entries(g) * 110 + 400);
    std::string out = fmt::format(
        "oracle grad-reference: gradients of attention with n_q = {}, n_k = {}, d = {}, d_v = {} (base {}) correctly "
        "rounded to {} (max MPFR precision {} bits; {} of {} entries exact)\n",
        g.n_q, g.n_k, g.d, g.d_v, g.base == ExpBase::E ? "e" : "2", info(g.format).name, g.max_precision,
        g.exact_entries, static_cast<std::int64_t>(entries(g)));
    for (const GradField* f : g.fields())
        for (std::size_t at = 0; at < f->val.size(); ++at)
            out += fmt::format("{} = {}  {}  in [{:.17g}, {:.17g}]\n", index_of(*f, static_cast<std::int64_t>(at)),
                               number(f->val[at]), f->exact[at] ? "exact" : "certified", f->lo[at], f->hi[at]);
    for (const GradComparison& c : compared) {
        const GradField& f = c.name == "dq" ? g.dq : c.name == "dk" ? g.dk : g.dv;
        if (c.differing == 0)
            out +=
                fmt::format("compared {}: all {} entries equal the correctly rounded reference\n", c.name, c.entries);
        else
            out += fmt::format(
                "compared {}: {} of {} entries differ from the correctly rounded reference; the largest by {:.4g} "
                "ULPs at {} (actual {}, reference {})\n",
                c.name, c.differing, c.entries, c.max_ulps, index_of(f, c.worst), number(c.worst_actual),
                number(c.worst_reference));
        if (!c.judged) continue;
        out += fmt::format("judged {}: {}; {} of {} entries over their bound ({} unbounded)", c.name,
                           c.over == 0 ? "PASS" : "FAIL", c.over, c.entries, c.unbounded);
        if (c.worst_fraction >= 0)
            out += fmt::format(", the largest share of its bound {:.4g} at {} (bound {:.6g})", c.max_fraction,
                               index_of(f, c.worst_fraction), c.worst_bound);
        if (c.first_over >= 0) out += fmt::format(", the first over at {}", index_of(f, c.first_over));
        out += "\n";
        if (c.unbounded > 0) out += fmt::format("unbounded {}: {}\n", c.name, c.unbounded_reason);
    }
    if (!compared.empty() && spec == nullptr) out += std::string(kNoBound) + "\n";
    if (spec != nullptr && !compared.empty())
        out += fmt::format("verdict: {} (the running bound of the {})\n", grads_passed(compared) ? "PASS" : "FAIL",
                           grad_spec_text(*spec, g.format));
    if (!diagnosis.empty()) out += "diagnosis: " + diagnosis + "\n";
    if (fp8 != nullptr) out += fp8_events_text(*fp8);
    return out;
}

std::string grad_reference_json(const GradReference& g, const std::vector<GradComparison>& compared,
                                const GradSpec* spec, const std::string& diagnosis, const Fp8Events* fp8) {
    charge_chars(entries(g) * 90 + 400);
    nlohmann::ordered_json j;
    j["dtype"] = info(g.format).name;
    j["base"] = g.base == ExpBase::E ? "e" : "2";
    j["n_q"] = g.n_q;
    j["n_k"] = g.n_k;
    j["d"] = g.d;
    j["d_v"] = g.d_v;
    j["max_precision"] = g.max_precision;
    j["exact_entries"] = g.exact_entries;
    nlohmann::ordered_json fields;
    for (const GradField* f : g.fields()) fields[f->name] = field_json(*f);
    j["fields"] = fields;
    if (!compared.empty()) {
        nlohmann::ordered_json cs = nlohmann::ordered_json::array();
        for (const GradComparison& c : compared) {
            nlohmann::ordered_json x = {{"name", c.name},
                                        {"entries", c.entries},
                                        {"differing", c.differing},
                                        {"max_ulps", json_number(c.max_ulps)},
                                        {"worst", c.worst}};
            if (c.judged) {
                x["over"] = c.over;
                x["unbounded"] = c.unbounded;
                x["max_bound_fraction"] = json_number(c.max_fraction);
                x["worst_fraction"] = c.worst_fraction;
                x["worst_bound"] = json_number(c.worst_bound);
                x["first_over"] = c.first_over;
                if (c.unbounded > 0) x["unbounded_reason"] = c.unbounded_reason;
            }
            cs.push_back(x);
        }
        j["compared"] = cs;
        if (spec == nullptr) {
            j["verdict"] = "not judged";
            j["why"] = kNoBound;
        } else {
            j["verdict"] = grads_passed(compared) ? "pass" : "fail";
            j["claim"] = detail::claim_json<nlohmann::json>(*spec, g.format);
            j["diagnosis"] = diagnosis;
        }
    }
    if (fp8 != nullptr) j["fp8"] = nlohmann::json(fp8_events_object(*fp8));
    return j.dump() + '\n';
}

}  // namespace exactattn::oracle
