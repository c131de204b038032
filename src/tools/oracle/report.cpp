// SPDX-License-Identifier: MIT
// exactattn oracle: the reports (docs/oracle.md, "Reports"), text and JSON, written here once for
// the command line and Python alike, so the two front ends print the same bytes for the same
// judgement.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"
#include "fp8.hpp"

namespace exactattn::oracle {

namespace {

// Printing is charged to the job's work budget before anything is printed (docs/limits.md):
// `chars` is an upper estimate of the characters the text will have.
void charge_printing(double chars, const std::string& what) {
    const double units = chars * kWorkPerPrintedCharacter;
    if (!charge_work(units)) throw over_work(units, fmt::format("printing {}", what));
}

// NaN without a sign ("-nan" is not a value the oracle gives), ±inf as such.
std::string name_of(double x) { return std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf"; }
std::string num(double x) {
    return std::isfinite(x) ? fmt::format("{:.9g} ({:a})", x, x) : fmt::format("{} ({})", name_of(x), name_of(x));
}
nlohmann::json json_number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(name_of(x)); }

nlohmann::json json_list(const std::vector<double>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (double x : v) a.push_back(json_number(x));
    return a;
}

// The index of an entry as the report names it: [b, h, i, j] for a head of a batch, else [i, j].
nlohmann::json json_index(const Judged& e) {
    if (e.batch >= 0) return nlohmann::json::array({e.batch, e.head, e.row, e.col});
    return nlohmann::json::array({e.row, e.col});
}
std::string text_index(const Judged& e) {
    if (e.batch >= 0) return fmt::format("[b={}, h={}, i={}, j={}]", e.batch, e.head, e.row, e.col);
    return fmt::format("[{}, {}]", e.row, e.col);
}
nlohmann::json json_at(const Judgement& j, std::int64_t at) {
    return at >= 0 ? json_index(j.entries[static_cast<std::size_t>(at)]) : nlohmann::json();
}

nlohmann::ordered_json judgement_object(const Judgement& j) {
    nlohmann::ordered_json js;
    js["tensor"] = j.tensor;
    js["count"] = j.count;
    js["exact_count"] = j.exact_count;
    js["max_abs_ulp"] = json_number(j.max_abs_ulp);
    js["worst"] = json_at(j, j.worst);
    js["bound_name"] = j.bound;
    js["max_bound_fraction"] = j.max_bound_fraction;
    js["worst_fraction"] = json_at(j, j.worst_fraction);
    js["over"] = j.over;
    js["first_over"] = json_at(j, j.first_over);
    js["unbounded"] = j.unbounded;
    js["unbounded_reason"] = j.unbounded_reason;
    js["failure_probability"] = j.failure_probability;
    const auto& st = j.systematic;
    js["systematic"] = st.verdict;
    js["systematic_tests"] = {{"rows", st.rows},
                              {"toward_zero", st.toward_zero},
                              {"p_rounding", st.p_rounding},
                              {"signed_rows", st.signed_rows},
                              {"along_scale", st.along},
                              {"p_temperature", st.p_temperature},
                              {"temperature", st.temperature},
                              {"alpha", kSystematicAlpha}};
    js["diagnosis"] = j.diagnosis;
    js["passed"] = j.passed();
    return js;
}

std::string entry_line(const char* what, const std::string& tensor, const Judged& e, FloatFormat f) {
    const double ulps = e.bound / ulp(e.rounded, f);
    return fmt::format(
        "{}: {}{} = {}, exact in [{:.17g}, {:.17g}] ({}), rounded {}, error {:.3g} ULP "
        "(abs {:.3g}, rel {:.3g}), bound {:.3g} ({:.3g} ULP): {}\n",
        what, tensor, text_index(e), num(e.value), e.lo, e.hi, e.exact ? "exact" : "certified", num(e.rounded),
        e.ulp_error, e.abs_error, e.rel_error, e.bound, ulps, e.within ? "within" : "OVER");
}

std::string judgement_lines(const Judgement& j, FloatFormat f) {
    std::string out = fmt::format(
        "Summary ({}): {} entries ({} exact, {} certified), max |ULP| {:.3g}, {} over the {} bound (largest use "
        "{:.3g} of it), {} unbounded{}\n",
        j.tensor, j.count, j.exact_count, j.count - j.exact_count, j.max_abs_ulp, j.over, j.bound, j.max_bound_fraction,
        j.unbounded, j.unbounded ? " (" + j.unbounded_reason + ")" : "");
    if (j.worst >= 0) out += entry_line("worst", j.tensor, j.entries[j.worst], f);
    if (j.first_over >= 0) out += entry_line("first over", j.tensor, j.entries[j.first_over], f);
    if (j.failure_probability > 0)
        out += fmt::format(
            "bound: {} (Higham and Mary's model, λ = {:.4g}): fails with probability at most {:.3g} per entry\n",
            j.bound, probabilistic_lambda(), j.failure_probability);
    if (j.tensor == "out") {
        const auto& st = j.systematic;
        out += fmt::format(
            "systematic (sign tests over rows, false alarms at most 1e-6): {} of {} rows mostly toward zero (p = "
            "{:.3g}), {} of {} along a larger scale (p = {:.3g}): {}\n",
            st.toward_zero, st.rows, st.p_rounding, st.along, st.signed_rows, st.p_temperature,
            st.verdict.empty() ? "none found" : st.verdict);
    }
    if (!j.diagnosis.empty()) out += "diagnosis: " + j.diagnosis + '\n';
    return out;
}

std::string shape_words(const JudgeReport& r) {
    if (r.heads > 0) return fmt::format("{} × {} heads of {} × {} outputs", r.batch, r.heads, r.n_q, r.d_v);
    return fmt::format("{} × {} outputs", r.n_q, r.d_v);
}

std::int64_t entries_of(const std::vector<Reference>& heads) {
    std::int64_t n = 0;
    for (const auto& r : heads) n += static_cast<std::int64_t>(r.out.size() + r.lse.size() + r.w.size());
    return n;
}

// The name of an entry of head x (of `heads` per batch) of a reference.
std::string ref_index(std::size_t x, std::int64_t h, std::int64_t i, std::int64_t c) {
    if (h <= 0) return fmt::format("[{}, {}]", i, c);
    return fmt::format("[b={}, h={}, i={}, j={}]", static_cast<std::int64_t>(x) / h, static_cast<std::int64_t>(x) % h,
                       i, c);
}

std::string stored_words(const std::optional<FloatFormat>& stored) {
    return stored ? fmt::format(", S and P stored in {}", info(*stored).name) : std::string();
}

std::string lse_index(std::size_t x, std::int64_t h, std::int64_t i) {
    if (h <= 0) return fmt::format("[{}]", i);
    return fmt::format("[b={}, h={}, i={}]", static_cast<std::int64_t>(x) / h, static_cast<std::int64_t>(x) % h, i);
}

}  // namespace

bool JudgeReport::passed() const {
    for (const auto& j : tensors)
        if (!j.passed()) return false;
    return true;
}

std::string judgement_json(const Judgement& j) { return judgement_object(j).dump(); }

std::string judge_json(const JudgeReport& r) {
    charge_printing(400.0 * static_cast<double>(r.tensors.size() + 1), "the judgement");
    nlohmann::ordered_json doc;
    doc["dtype"] = info(r.format).name;
    doc["algorithm"] = algorithm_name(r.spec.algorithm);
    doc["accumulate"] = info(r.spec.accumulate).name;
    doc["p_dtype"] = info(r.spec.p_format).name;
    doc["block"] = r.spec.block;
    doc["stored"] = r.spec.stored ? nlohmann::json(info(*r.spec.stored).name) : nlohmann::json();
    doc["shape"] =
        r.heads > 0 ? nlohmann::json::array({r.batch, r.heads, r.n_q, r.d_v}) : nlohmann::json::array({r.n_q, r.d_v});
    doc["tensors"] = nlohmann::json::array();
    for (const auto& j : r.tensors) doc["tensors"].push_back(judgement_object(j));
    if (r.fp8) doc["fp8"] = fp8_events_object(*r.fp8);
    doc["passed"] = r.passed();
    return doc.dump() + '\n';
}

std::string judge_text(const JudgeReport& r) {
    charge_printing(800.0 * static_cast<double>(r.tensors.size() + 1), "the judgement");
    std::string out =
        fmt::format("oracle judge: {} in {}, algorithm {} (accumulate {}, P in {}, block {}{})\n", shape_words(r),
                    info(r.format).name, algorithm_name(r.spec.algorithm), info(r.spec.accumulate).name,
                    info(r.spec.p_format).name, r.spec.block, stored_words(r.spec.stored));
    for (const auto& j : r.tensors) out += judgement_lines(j, r.format);
    if (r.fp8)  // the claim's own emulation (docs/oracle.md, "8-bit floats")
        out += r.fp8->any() ? fp8_events_text(*r.fp8) : "fp8: no P-collapse, no saturation in the claim's emulation\n";
    out += r.passed() ? "Result: PASS\n" : "Result: FAIL\n";
    return out;
}

std::string reference_json(const std::vector<Reference>& heads, std::int64_t batch, std::int64_t h) {
    // About 25 characters a number, three numbers and a kind an output.
    charge_printing(static_cast<double>(entries_of(heads)) * 90, "the reference");
    const Reference r = concat_heads(heads);
    nlohmann::ordered_json j;
    j["dtype"] = info(r.format).name;
    j["shape"] = h > 0 ? nlohmann::json::array({batch, h, r.n_q, r.d_v}) : nlohmann::json::array({r.n_q, r.d_v});
    nlohmann::json kinds = nlohmann::json::array();
    for (auto e : r.out_exact) kinds.push_back(e ? "exact" : "certified");
    j["out"] = json_list(r.out);
    j["out_lo"] = json_list(r.out_lo);
    j["out_hi"] = json_list(r.out_hi);
    j["out_kind"] = kinds;
    if (!r.out_exact_text.empty()) j["out_exact"] = r.out_exact_text;
    j["lse"] = json_list(r.lse);
    if (!r.w.empty()) j["weights"] = json_list(r.w);
    j["max_precision"] = r.max_precision;
    return j.dump() + '\n';
}

std::string reference_text(const std::vector<Reference>& heads, std::int64_t batch, std::int64_t h) {
    // About 110 characters an output line, 60 a weight or lse line.
    charge_printing(static_cast<double>(entries_of(heads)) * 130, "the reference");
    const Reference& r0 = heads.at(0);
    std::int64_t precision = 53;
    for (const auto& r : heads) precision = std::max(precision, r.max_precision);
    std::string out =
        h > 0 ? fmt::format(
                    "oracle reference: {} × {} heads of {} × {} outputs correctly rounded to {} (max MPFR "
                    "precision {} bits)\n",
                    batch, h, r0.n_q, r0.d_v, info(r0.format).name, precision)
              : fmt::format("oracle reference: {} × {} outputs correctly rounded to {} (max MPFR precision {} bits)\n",
                            r0.n_q, r0.d_v, info(r0.format).name, precision);
    for (std::size_t x = 0; x < heads.size(); ++x) {
        const Reference& r = heads[x];
        for (std::int64_t at = 0; at < r.n_q * r.d_v; ++at)
            out += fmt::format(
                "out{} = {}  {}  in [{:.17g}, {:.17g}]\n", ref_index(x, h, at / r.d_v, at % r.d_v), num(r.out[at]),
                !r.out_exact[at]                                           ? std::string("certified")
                : r.out_exact_text.empty() || r.out_exact_text[at].empty() ? std::string("exact")
                                                                           : "exact " + r.out_exact_text[at],
                r.out_lo[at], r.out_hi[at]);
    }
    for (std::size_t x = 0; x < heads.size(); ++x)
        for (std::int64_t i = 0; i < heads[x].n_q; ++i)
            out += fmt::format("lse{} = {}  certified\n", lse_index(x, h, i), num(heads[x].lse[i]));
    for (std::size_t x = 0; x < heads.size(); ++x) {
        const Reference& r = heads[x];
        for (std::size_t at = 0; at < r.w.size(); ++at)
            out += fmt::format(
                "weights{} = {}\n",
                ref_index(x, h, static_cast<std::int64_t>(at) / r.n_k, static_cast<std::int64_t>(at) % r.n_k),
                num(r.w[at]));
    }
    return out;
}

namespace {
// An 8-bit format or a descale in the emulation: its fp8 section is printed (docs/oracle.md, "8-bit floats").
bool fp8_involved(const EmulationSpec& s) {
    return is_fp8(s.p_format) || is_fp8(s.output) || s.p_descale.per_block || s.p_descale.value != 1;
}
}  // namespace

std::string emulation_json(const Emulation& e, const EmulationSpec& s) {
    std::size_t trace_chars = 0;
    for (const auto& line : e.trace) trace_chars += line.size() + 10;
    charge_printing(static_cast<double>(e.out.data.size()) * 60 + static_cast<double>(trace_chars), "the emulation");
    nlohmann::ordered_json j;
    j["algorithm"] = algorithm_name(s.algorithm);
    j["accumulate"] = info(s.format).name;
    j["p_dtype"] = info(s.p_format).name;
    j["block"] = s.block;
    j["stored"] = s.stored ? nlohmann::json(info(*s.stored).name) : nlohmann::json();
    j["dtype"] = info(s.output).name;
    j["shape"] = e.out.shape.size() == 4 ? nlohmann::json(e.out.shape) : nlohmann::json{e.out.rows(), e.out.cols()};
    j["out"] = json_list(e.out.data);
    j["trace"] = e.trace;
    if (fp8_involved(s)) {
        j["p_descale"] = s.p_descale.per_block ? nlohmann::json("block") : nlohmann::json(s.p_descale.value);
        j["fp8_overflow"] = fp8_overflow_name(s.fp8_overflow);
        j["fp8"] = fp8_events_object(e.fp8);
    }
    return j.dump() + '\n';
}

std::string emulation_text(const Emulation& e, const EmulationSpec& s) {
    std::size_t trace_chars = 0;
    for (const auto& line : e.trace) trace_chars += line.size() + 10;
    charge_printing(static_cast<double>(e.out.data.size()) * 60 + static_cast<double>(trace_chars), "the emulation");
    std::string text =
        fmt::format("oracle emulate: {} softmax attention, every operation in {} (P in {}, block {}{}), output in {}\n",
                    algorithm_name(s.algorithm), info(s.format).name, info(s.p_format).name, s.block,
                    stored_words(s.stored), info(s.output).name);
    // Each entry by its index in the output as it is held (a batch's 4-D in its layout's order).
    const std::vector<std::int64_t> shape =
        e.out.shape.size() == 4 ? e.out.shape : std::vector<std::int64_t>{e.out.rows(), e.out.cols()};
    std::vector<std::int64_t> at(shape.size(), 0);
    for (std::size_t x = 0; x < e.out.data.size(); ++x) {
        auto rest = static_cast<std::int64_t>(x);
        for (std::size_t y = shape.size(); y-- > 0;) at[y] = rest % shape[y], rest /= shape[y];
        text += fmt::format("out[{}] = {}\n", fmt::join(at, ", "), num(e.out.data[x]));
    }
    for (const auto& line : e.trace) text += "trace: " + line + '\n';
    if (fp8_involved(s)) {
        text += fmt::format("fp8: P descale {}, overflow {}\n",
                            s.p_descale.per_block ? "per block" : fmt::format("{}", s.p_descale.value),
                            fp8_overflow_name(s.fp8_overflow));
        text += e.fp8.any() ? fp8_events_text(e.fp8) : "fp8: no P-collapse, no saturation\n";
    }
    return text;
}

}  // namespace exactattn::oracle
