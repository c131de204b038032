// SPDX-License-Identifier: MIT
// exactattn oracle: the certified reference of a float attention problem, and the judgement of
// a kernel's output against it (docs/oracle.md).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <memory>
#include <ostream>

#include "commands.hpp"
#include "exactattn/wording.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"

namespace exactattn::cli {

namespace {

using namespace exactattn::oracle;

struct OracleOptions {
    std::string action;  ///< reference | judge
    std::string q, k, v, mask, actual, actual_weights, actual_lse, npy;
    std::string input_dtype;  ///< the format of q, k, v (default: the files')
    std::string dtype = "float32";
    std::string scale = "sqrt-dk";
    std::string base = "e";
    std::string masked_rows = "error";
    std::string algorithm = "safe";
    std::string accumulate;  ///< default: float32, or float64 for float64
    std::string p_dtype;     ///< default: --dtype
    std::int64_t block = 64;
    std::optional<double> tolerance;
    bool causal = false, weights = false, trace = false;
    std::string format = "text";
    std::string bound;
    std::string seed = "0", dir;  ///< vectors
    std::int64_t long_keys = 100000;
};

Tensor load(const std::string& path, const char* option, std::optional<FloatFormat> declared) {
    return for_option(option, [&] { return read_tensor(path, declared); });
}

Problem load_problem(const OracleOptions& o) {
    std::optional<FloatFormat> in;
    if (!o.input_dtype.empty()) in = parse_format(o.input_dtype, option_place("--input-dtype"));
    Problem p;
    p.scale = parse_scale(o.scale, option_place("--scale"));
    p.base = parse_base(o.base, option_place("--base"));
    p.masked_rows = parse_masked_rows(o.masked_rows, option_place("--masked-rows"));
    p.q = load(o.q, "--q", in);
    p.k = load(o.k, "--k", in);
    p.v = load(o.v, "--v", in);
    if (!o.mask.empty()) {
        const Tensor m = load(o.mask, "--mask", std::nullopt);
        set_mask(p, m, option_place("--mask"));
    }
    p.causal = o.causal;
    validate(p);  // every shape and value before any work
    return p;
}

// The library places its errors at the argument names Python uses (`mask`, `out`); the command
// line names its options instead.
template <class F>
auto at_options(F&& f) -> decltype(f()) {
    static const std::pair<const char*, const char*> kOptions[] = {{"q", "--q"},
                                                                   {"k", "--k"},
                                                                   {"v", "--v"},
                                                                   {"mask", "--mask"},
                                                                   {"out", "--actual"},
                                                                   {"weights", "--actual-weights"},
                                                                   {"lse", "--actual-lse"},
                                                                   {"scale", "--scale"},
                                                                   {"tolerance_ulps", "--tolerance-ulps"}};
    try {
        return f();
    } catch (const Error& e) {
        for (const auto& [name, option] : kOptions) {
            if (e.where().context != name) continue;
            Location where = e.where();
            where.context = option;
            throw Error(e.kind(), where, e.reason());
        }
        throw;
    }
}

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

int reference_command(const OracleOptions& o, const Problem& p, FloatFormat f, std::ostream& out) {
    const Reference r = reference(p, f, o.weights);
    // About 110 characters an output line, 60 a weight or lse line (25 in JSON, a number).
    charge_printing(static_cast<double>(r.out.size()) * (o.format == "json" ? 90 : 130) +
                        static_cast<double>(r.lse.size() + r.w.size()) * (o.format == "json" ? 25 : 70),
                    fmt::format("the reference ({} outputs, {} weights)", r.out.size(), r.w.size()));
    // The .npy file last, once nothing else can fail: a refused request writes no file.
    const auto write_npy_file = [&] {
        if (o.npy.empty()) return;
        Tensor t{{r.n_q, r.d_v}, r.out, f};
        write_output_file(o.npy, write_npy(t), "--npy");
    };
    if (o.format == "json") {
        nlohmann::ordered_json j;
        j["dtype"] = info(f).name;
        j["shape"] = {r.n_q, r.d_v};
        auto list = [](const std::vector<double>& v) {
            nlohmann::json a = nlohmann::json::array();
            for (double x : v) a.push_back(json_number(x));
            return a;
        };
        j["out"] = list(r.out);
        j["out_lo"] = list(r.out_lo);
        j["out_hi"] = list(r.out_hi);
        nlohmann::json kinds = nlohmann::json::array();
        for (auto e : r.out_exact) kinds.push_back(e ? "exact" : "certified");
        j["out_kind"] = kinds;
        if (!r.out_exact_text.empty()) j["out_exact"] = r.out_exact_text;
        j["lse"] = list(r.lse);
        if (o.weights) j["weights"] = list(r.w);
        j["max_precision"] = r.max_precision;
        const std::string text = j.dump();
        write_npy_file();
        out << text << '\n';
        return 0;
    }
    write_npy_file();
    out << fmt::format("oracle reference: {} × {} outputs correctly rounded to {} (max MPFR precision {} bits)\n",
                       r.n_q, r.d_v, info(f).name, r.max_precision);
    for (std::int64_t x = 0; x < r.n_q * r.d_v; ++x)
        out << fmt::format("out[{}, {}] = {}  {}  in [{:.17g}, {:.17g}]\n", x / r.d_v, x % r.d_v, num(r.out[x]),
                           !r.out_exact[x]                                           ? std::string("certified")
                           : r.out_exact_text.empty() || r.out_exact_text[x].empty() ? std::string("exact")
                                                                                     : "exact " + r.out_exact_text[x],
                           r.out_lo[x], r.out_hi[x]);
    for (std::int64_t i = 0; i < r.n_q; ++i) out << fmt::format("lse[{}] = {}  certified\n", i, num(r.lse[i]));
    for (std::size_t x = 0; x < r.w.size(); ++x)
        out << fmt::format("weights[{}, {}] = {}\n", x / r.n_k, x % r.n_k, num(r.w[x]));
    return 0;
}

std::string entry_line(const char* what, const std::string& tensor, const Judged& e, FloatFormat f) {
    const double ulps = e.bound / ulp(e.rounded, f);
    return fmt::format(
        "{}: {}[{}, {}] = {}, exact in [{:.17g}, {:.17g}] ({}), rounded {}, error {:.3g} ULP "
        "(abs {:.3g}, rel {:.3g}), bound {:.3g} ({:.3g} ULP): {}\n",
        what, tensor, e.row, e.col, num(e.value), e.lo, e.hi, e.exact ? "exact" : "certified", num(e.rounded),
        e.ulp_error, e.abs_error, e.rel_error, e.bound, ulps, e.within ? "within" : "OVER");
}

AlgorithmSpec algorithm_spec(const OracleOptions& o, FloatFormat f) {
    AlgorithmSpec s;
    s.algorithm = parse_algorithm(o.algorithm, option_place("--algorithm"));
    s.accumulate = o.accumulate.empty() ? (f == FloatFormat::Float64 ? f : FloatFormat::Float32)
                                        : parse_format(o.accumulate, option_place("--accumulate"));
    s.p_format = o.p_dtype.empty() ? f : parse_format(o.p_dtype, option_place("--p-dtype"));
    s.block = o.block;
    if (!o.bound.empty()) s.bound = parse_bound(o.bound, option_place("--bound"));
    return s;
}

int emulate_command(const OracleOptions& o, const Problem& p, FloatFormat f, std::ostream& out) {
    const AlgorithmSpec a = algorithm_spec(o, f);
    const Emulation e = emulate(p, EmulationSpec{a.algorithm, a.accumulate, a.p_format, f, a.block}, o.trace);
    std::size_t trace_chars = 0;
    for (const auto& line : e.trace) trace_chars += line.size() + 10;
    charge_printing(static_cast<double>(e.out.data.size()) * 60 + static_cast<double>(trace_chars),
                    fmt::format("the emulation ({} outputs)", e.out.data.size()));
    const std::int64_t dv = e.out.cols();
    std::string text;
    if (o.format == "json") {
        nlohmann::ordered_json j;
        j["algorithm"] = algorithm_name(a.algorithm);
        j["accumulate"] = info(a.accumulate).name;
        j["p_dtype"] = info(a.p_format).name;
        j["block"] = a.block;
        j["dtype"] = info(f).name;
        j["shape"] = {e.out.rows(), dv};
        nlohmann::json list = nlohmann::json::array();
        for (double x : e.out.data) list.push_back(json_number(x));
        j["out"] = list;
        j["trace"] = e.trace;
        text = j.dump() + "\n";
    } else {
        text = fmt::format(
            "oracle emulate: {} softmax attention, every operation in {} (P in {}, block {}), output in {}\n",
            algorithm_name(a.algorithm), info(a.accumulate).name, info(a.p_format).name, a.block, info(f).name);
        for (std::size_t x = 0; x < e.out.data.size(); ++x)
            text += fmt::format("out[{}, {}] = {}\n", static_cast<std::int64_t>(x) / dv,
                                static_cast<std::int64_t>(x) % dv, num(e.out.data[x]));
        for (const auto& line : e.trace) text += "trace: " + line + '\n';
    }
    if (!o.npy.empty()) write_output_file(o.npy, write_npy(e.out), "--npy");  // last: nothing else can fail
    out << text;
    return 0;
}

nlohmann::ordered_json judgement_json(const Judgement& j) {
    nlohmann::ordered_json js;
    js["tensor"] = j.tensor;
    js["count"] = j.count;
    js["max_abs_ulp"] = std::isfinite(j.max_abs_ulp) ? nlohmann::json(j.max_abs_ulp) : nlohmann::json("inf");
    js["worst"] = j.worst >= 0 ? nlohmann::json({j.entries[j.worst].row, j.entries[j.worst].col}) : nlohmann::json();
    js["bound"] = j.bound;
    js["max_bound_fraction"] = j.max_bound_fraction;
    js["over"] = j.over;
    js["unbounded"] = j.unbounded;
    js["exact"] = j.exact_count;
    js["diagnosis"] = j.diagnosis;
    js["passed"] = j.passed();
    return js;
}

void judgement_text(const Judgement& j, FloatFormat f, std::ostream& out) {
    out << fmt::format(
        "Summary ({}): {} entries ({} exact, {} certified), max |ULP| {:.3g}, {} over the {} bound (largest use "
        "{:.3g} of it), {} unbounded{}\n",
        j.tensor, j.count, j.exact_count, j.count - j.exact_count, j.max_abs_ulp, j.over, j.bound, j.max_bound_fraction,
        j.unbounded, j.unbounded ? " (" + j.unbounded_reason + ")" : "");
    if (j.worst >= 0) out << entry_line("worst", j.tensor, j.entries[j.worst], f);
    if (j.first_over >= 0) out << entry_line("first over", j.tensor, j.entries[j.first_over], f);
    if (!j.diagnosis.empty()) out << "diagnosis: " << j.diagnosis << '\n';
}

int judge_command(const OracleOptions& o, const Problem& p, FloatFormat f, std::ostream& out) {
    const AlgorithmSpec s = algorithm_spec(o, f);
    if (o.tolerance) checked_tolerance(*o.tolerance, option_place("--tolerance-ulps"));
    Tensor actual = load(o.actual, "--actual", f);
    const Reference r = reference(p, f, !o.actual_weights.empty());
    std::vector<Judgement> js;
    js.push_back(judge_output(r, actual, s, o.tolerance));
    if (!js[0].passed()) js[0].diagnosis = diagnose(p, actual, s, js[0]);
    if (!o.actual_weights.empty()) {
        const Tensor w = load(o.actual_weights, "--actual-weights", f);
        js.push_back(judge_weights(r, w, s, o.tolerance));
    }
    if (!o.actual_lse.empty()) {
        const Tensor l = load(o.actual_lse, "--actual-lse", std::nullopt);
        js.push_back(judge_lse(r, l, s, o.tolerance));
    }
    bool passed = true;
    for (const auto& j : js) passed = passed && j.passed();
    if (o.format == "json") {
        nlohmann::ordered_json doc;
        doc["dtype"] = info(f).name;
        doc["algorithm"] = algorithm_name(s.algorithm);
        doc["tensors"] = nlohmann::json::array();
        for (const auto& j : js) doc["tensors"].push_back(judgement_json(j));
        doc["passed"] = passed;
        out << doc.dump() << '\n';
        return passed ? 0 : 1;
    }
    out << fmt::format("oracle judge: {} × {} outputs in {}, algorithm {} (accumulate {}, P in {}, block {})\n", r.n_q,
                       r.d_v, info(f).name, algorithm_name(s.algorithm), info(s.accumulate).name, info(s.p_format).name,
                       s.block);
    for (const auto& j : js) judgement_text(j, f, out);
    out << (passed ? "Result: PASS\n" : "Result: FAIL\n");
    return passed ? 0 : 1;
}

int vectors_command(const OracleOptions& o, FloatFormat f, std::ostream& out) {
    const auto seed = whole_number(o.seed);
    if (!seed || *seed < 0) throw usage_error("not a whole number from 0", option_place("--seed"));
    if (o.dir.empty()) throw usage_error("vectors needs --dir DIR", option_place("--dir"));
    const auto files = write_vectors(static_cast<std::uint64_t>(*seed), f, o.long_keys);
    write_files(o.dir, files);
    out << fmt::format("oracle vectors: {} in {} (seed {}, {}), manifest.json describes them\n",
                       counted(files.size(), "file"), o.dir, *seed, info(f).name);
    return 0;
}

int cmd_oracle_placed(const OracleOptions& o, std::ostream& out) {
    const FloatFormat f = parse_format(o.dtype, option_place("--dtype"));
    if (o.action == "vectors") return vectors_command(o, f, out);
    for (const auto& [value, option] : {std::pair{o.q, "--q"}, {o.k, "--k"}, {o.v, "--v"}})
        if (value.empty()) throw usage_error(fmt::format("{} needs {} FILE", o.action, option), option_place(option));
    const Problem p = load_problem(o);
    if (o.action == "judge" && o.actual.empty())
        throw usage_error("judge needs --actual FILE", option_place("--actual"));
    if (o.action == "emulate") return emulate_command(o, p, f, out);
    return o.action == "judge" ? judge_command(o, p, f, out) : reference_command(o, p, f, out);
}

int cmd_oracle(const OracleOptions& o, std::ostream& out) {
    return at_options([&] { return cmd_oracle_placed(o, out); });
}

}  // namespace

void add_oracle_command(CLI::App& app, std::function<int(std::ostream&)>& command) {
    auto o = std::make_shared<OracleOptions>();
    auto* s = app.add_subcommand("oracle", "Certified references for float attention, and a kernel's output judged");
    s->add_option("action", o->action, "reference | judge | emulate | vectors")
        ->required()
        ->check(CLI::IsMember({"reference", "judge", "emulate", "vectors"}));
    s->add_option("--q", o->q, "Q (n_q × d): .npy, .json or .csv");
    s->add_option("--k", o->k, "K (n_k × d)");
    s->add_option("--v", o->v, "V (n_k × d_v)");
    s->add_option("--seed", o->seed, "vectors: the seed (0 to 2^63 − 1)");
    s->add_option("--dir", o->dir, "vectors: the directory to write");
    s->add_option("--long-keys", o->long_keys, "vectors: keys of the long row (default 100000)")
        ->check(CLI::Range(std::int64_t{2}, std::int64_t{10'000'000}));
    s->add_option("--mask", o->mask, "n_q × n_k, nonzero = masked");
    s->add_flag("--causal", o->causal, "Key j masked for query i when j > i");
    s->add_option("--scale", o->scale, "sqrt-dk (default) | none | a number");
    s->add_option("--base", o->base, "e (default) | 2: an exp2 kernel");
    s->add_option("--masked-rows", o->masked_rows, "error | nan | zeros");
    s->add_option("--input-dtype", o->input_dtype, "The format of Q, K, V (default: the files')");
    s->add_option("--dtype", o->dtype, "The output's format: float16 | bfloat16 | float32 | float64");
    s->add_flag("--weights", o->weights, "reference: the weights too");
    s->add_option("--npy", o->npy,
                  "reference, emulate: also write the outputs to this .npy file (only when the request succeeds)");
    s->add_option("--actual", o->actual, "judge: the kernel's output (n_q × d_v)");
    s->add_option("--actual-weights", o->actual_weights, "judge: the kernel's weights (n_q × n_k)");
    s->add_option("--actual-lse", o->actual_lse, "judge: the kernel's log-sum-exp per row (n_q)");
    std::string algorithm_names;
    for (const Algorithm a : algorithms())
        algorithm_names += (algorithm_names.empty() ? "" : " | ") + std::string(algorithm_name(a));
    s->add_option("--algorithm", o->algorithm, "judge, emulate: " + algorithm_names);
    s->add_option("--accumulate", o->accumulate, "judge, emulate: the accumulator format (default float32)");
    s->add_option("--p-dtype", o->p_dtype, "judge, online: P's format before P·V (default --dtype)");
    s->add_option("--block", o->block, "judge, online: the block size")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
    s->add_flag("--trace", o->trace, "emulate: the steps where the format shows (overflow, underflow, rescaling)");
    s->add_option("--tolerance-ulps", o->tolerance, "judge: also fail past this many ULPs");
    s->add_option("--bound", o->bound, "judge: running (default: from the actual inputs) | a-priori");
    s->add_option("--format", o->format, "text | json")->check(CLI::IsMember({"text", "json"}));
    s->callback([o, &command] { command = [o](std::ostream& out) { return cmd_oracle(*o, out); }; });
}

}  // namespace exactattn::cli
