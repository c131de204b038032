// SPDX-License-Identifier: MIT
// exactattn oracle: the certified reference of a float attention problem, and the judgement of
// a kernel's output against it (docs/oracle.md).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <ostream>

#include "commands.hpp"
#include "exactattn/wording.hpp"
#include "exactattn/oracle.hpp"
#include "exactattn/oracle_grad.hpp"
#include "exactattn/oracle_grad_batch.hpp"
#include "exactattn/oracle_options.hpp"

namespace exactattn::cli {

namespace {

using namespace exactattn::oracle;

struct OracleOptions {
    std::string action;                                  ///< reference | judge | emulate | vectors | grad-reference
    std::string d_out, actual_dq, actual_dk, actual_dv;  ///< grad-reference
    std::string backward = "standard", delta_from;       ///< grad-reference, grad-emulate
    std::string q, k, v, mask, bias, actual, actual_weights, actual_lse, npy;
    std::string input_dtype;  ///< the format of q, k, v (default: the files')
    std::string dtype = "float32";
    ProblemOptions problem;
    std::string layout = "bhnd";
    std::string algorithm = "safe";
    std::string accumulate;  ///< default: float32, or float64 for float64
    std::string p_dtype;     ///< default: --dtype
    std::string stored;      ///< unfused: S and P stored in this format
    std::string p_descale = "1", fp8_overflow = "error";
    std::string ds_dtype,
        ds_descale = "1";  ///< grad-*: dS cast to 8 bits before dQ and dK  ///< 8-bit floats (docs/oracle.md)
    std::int64_t block = 64;
    std::optional<double> tolerance;
    bool weights = false, trace = false;
    int jobs = 0;
    std::string format = "text";
    std::string bound;
    std::string seed = "0", dir;  ///< vectors
    std::int64_t long_keys = 100000;
};

Tensor load(const std::string& path, const char* option, std::optional<FloatFormat> declared) {
    return for_option(option, [&] { return read_tensor(path, declared); });
}

// The problem's tensors and options (a matrix problem, or a batch of heads when q is 4-D),
// checked by the library (problem_inputs) as Python's are.
using Loaded = ProblemInputs;

Loaded load_problem(const OracleOptions& o) {
    std::optional<FloatFormat> in;
    if (!o.input_dtype.empty()) in = parse_format(o.input_dtype, option_place("--input-dtype"));
    Problem options = problem_options(o.problem);
    Tensor q = load(o.q, "--q", in), k = load(o.k, "--k", in), v = load(o.v, "--v", in);
    std::optional<Tensor> mask, bias;
    if (!o.mask.empty()) mask = load(o.mask, "--mask", std::nullopt);
    if (!o.bias.empty()) bias = load(o.bias, "--bias", std::nullopt);
    return problem_inputs(std::move(options), std::move(q), std::move(k), std::move(v), std::move(mask),
                          std::move(bias), o.layout, o.fp8_overflow);
}

// The library places its errors at the argument names Python uses (`mask`, `out`); the command
// line names its options instead.
template <class F>
auto at_options(F&& f) -> decltype(f()) {
    static const std::pair<const char*, const char*> kOptions[] = {{"q", "--q"},
                                                                   {"k", "--k"},
                                                                   {"v", "--v"},
                                                                   {"mask", "--mask"},
                                                                   {"bias", "--bias"},
                                                                   {"out", "--actual"},
                                                                   {"weights", "--actual-weights"},
                                                                   {"lse", "--actual-lse"},
                                                                   {"scale", "--scale"},
                                                                   {"base", "--base"},
                                                                   {"masked_rows", "--masked-rows"},
                                                                   {"masked_lse", "--masked-lse"},
                                                                   {"align", "--align"},
                                                                   {"softcap", "--softcap"},
                                                                   {"window", "--window-left"},
                                                                   {"layout", "--layout"},
                                                                   {"tolerance_ulps", "--tolerance-ulps"},
                                                                   {"do", "--do"},
                                                                   {"dq", "--actual-dq"},
                                                                   {"dk", "--actual-dk"},
                                                                   {"dv", "--actual-dv"},
                                                                   {"accumulate", "--accumulate"},
                                                                   {"algorithm", "--algorithm"},
                                                                   {"p_fmt", "--p-dtype"},
                                                                   {"bound", "--bound"},
                                                                   {"stored", "--stored-dtype"},
                                                                   {"storage", "--stored-dtype"},
                                                                   {"p_descale", "--p-descale"},
                                                                   {"fp8_overflow", "--fp8-overflow"},
                                                                   {"backward", "--backward"},
                                                                   {"delta_from", "--delta-from"},
                                                                   {"ds_fmt", "--ds-dtype"},
                                                                   {"ds_descale", "--ds-descale"}};
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

// The claim's options as text, parsed by the library (parse_claim) as Python's are.
std::optional<std::string> given(const std::string& text) {
    return text.empty() ? std::nullopt : std::optional<std::string>(text);
}

AlgorithmSpec algorithm_spec(const OracleOptions& o, FloatFormat f) {
    ClaimText c;
    c.algorithm = o.algorithm;
    c.accumulate = given(o.accumulate);
    c.p_format = given(o.p_dtype);
    c.block = o.block;
    c.bound = given(o.bound);
    c.stored = given(o.stored);
    c.p_descale = o.p_descale;
    c.fp8_overflow = o.fp8_overflow;
    return parse_claim(c, f);
}

int reference_command(const OracleOptions& o, const Loaded& l, FloatFormat f, std::ostream& out) {
    const References r = reference_inputs(l, f, o.weights, o.jobs);
    Tensor npy;
    if (l.batch && !o.npy.empty()) npy = batch_output(r.refs, batch_shape(*l.batch), l.batch->layout, f);
    if (!l.batch) npy = Tensor{{r.refs[0].n_q, r.refs[0].d_v}, r.refs[0].out, f};
    const std::string text =
        o.format == "json" ? reference_json(r.refs, r.batch, r.heads) : reference_text(r.refs, r.batch, r.heads);
    if (!o.npy.empty()) write_output_file(o.npy, write_npy(npy), "--npy");  // last: nothing else can fail
    out << text;
    return 0;
}

int emulate_command(const OracleOptions& o, const Loaded& l, FloatFormat f, std::ostream& out) {
    const AlgorithmSpec a = algorithm_spec(o, f);
    const EmulationSpec spec = emulation_of(a, f);
    const Emulation e = emulate_inputs(l, spec, o.trace, o.jobs);
    const std::string text = o.format == "json" ? emulation_json(e, spec) : emulation_text(e, spec);
    if (!o.npy.empty()) write_output_file(o.npy, write_npy(e.out), "--npy");  // last: nothing else can fail
    out << text;
    return 0;
}

int judge_command(const OracleOptions& o, const Loaded& l, FloatFormat f, std::ostream& out) {
    const AlgorithmSpec s = algorithm_spec(o, f);
    if (o.tolerance) checked_tolerance(*o.tolerance, option_place("--tolerance-ulps"));
    const Tensor actual = load(o.actual, "--actual", f);
    std::optional<Tensor> w, lse;
    if (!o.actual_weights.empty()) w = load(o.actual_weights, "--actual-weights", f);
    if (!o.actual_lse.empty()) lse = load(o.actual_lse, "--actual-lse", std::nullopt);
    const JudgeReport rep =
        judge_inputs(l, f, actual, w ? &*w : nullptr, lse ? &*lse : nullptr, s, o.tolerance, o.jobs);
    out << (o.format == "json" ? judge_json(rep) : judge_text(rep));
    return rep.passed() ? 0 : 1;
}

// The backward claim of grad-reference and grad-emulate: --backward, --accumulate,
// --stored-dtype (default: --dtype), --delta-from, --block and the 8-bit options, parsed by the
// library (parse_grad_claim) as Python's are.
GradSpec grad_spec(const OracleOptions& o, FloatFormat f) {
    GradClaimText c;
    c.backward = o.backward;
    c.accumulate = given(o.accumulate);
    c.storage = given(o.stored);
    c.delta_from = given(o.delta_from);
    c.block = o.block;
    c.p_format = given(o.p_dtype);
    c.p_descale = o.p_descale;
    c.fp8_overflow = o.fp8_overflow;
    c.ds_format = given(o.ds_dtype);
    c.ds_descale = o.ds_descale;
    return parse_grad_claim(c, f);
}

// --do in --input-dtype (or its file's format); an 8-bit value past the range clamped under
// --fp8-overflow saturate and counted in `events`.
Tensor load_d_out(const OracleOptions& o, Fp8Events& events) {
    if (o.d_out.empty()) throw usage_error(o.action + " needs --do FILE", option_place("--do"));
    std::optional<FloatFormat> in;
    if (!o.input_dtype.empty()) in = parse_format(o.input_dtype, option_place("--input-dtype"));
    Tensor t = load(o.d_out, "--do", in);
    saturate_tensor(t, "do", parse_fp8_overflow(o.fp8_overflow, option_place("--fp8-overflow")), events);
    return t;
}

// The certified gradients under --do, and a kernel's --actual-dq/dk/dv judged against the running
// bound of the claimed backward (docs/oracle.md, "Bounds for the backward"): exit 1 when an entry
// is over its bound or unbounded.
// A batch of heads (4-D q, --layout) is judged in one call: dk, dv the kv heads' (docs/oracle.md,
// "Gradients of a batch of heads").
int grad_command(const OracleOptions& o, const Loaded& l, FloatFormat f, std::ostream& out) {
    Fp8Events events = l.fp8;
    const Tensor d_out = load_d_out(o, events);
    const GradSpec spec = grad_spec(o, f);
    std::vector<std::pair<std::string, Tensor>> actual;
    for (const auto& [path, name, option] : {std::tuple{o.actual_dq, "dq", "--actual-dq"},
                                             {o.actual_dk, "dk", "--actual-dk"},
                                             {o.actual_dv, "dv", "--actual-dv"}})
        if (!path.empty()) actual.emplace_back(name, load(path, option, f));
    const GradsJudged j = judge_grad_inputs(l, d_out, events, f, actual, spec, o.jobs);
    const bool json = o.format == "json";
    if (j.batch) {
        out << (json ? grad_batch_json(*j.batch, j.fp8()) : grad_batch_text(*j.batch, j.fp8()));
    } else {
        const GradVerdict& v = *j.matrix;
        out << (json ? grad_reference_json(v.g, v.compared, &spec, v.diagnosis, j.fp8())
                     : grad_reference_text(v.g, v.compared, &spec, v.diagnosis, j.fp8()));
    }
    return j.passed() ? 0 : 1;
}

int grad_emulate_command(const OracleOptions& o, const Loaded& l, FloatFormat f, std::ostream& out) {
    refuse_grad_emulate_batch(l);  // before --do is read, as Python
    Fp8Events events = l.fp8;
    const Tensor d_out = load_d_out(o, events);
    const GradSpec spec = grad_spec(o, f);
    const GradEmulation e = grad_emulate_inputs(l, d_out, std::move(events), spec, f, o.trace);
    out << (o.format == "json" ? grad_emulation_json(e, spec) : grad_emulation_text(e, spec));
    return 0;
}

int vectors_command(const OracleOptions& o, FloatFormat f, std::ostream& out, Delivery& delivery) {
    const auto seed = whole_number(o.seed);
    if (!seed || *seed < 0) throw usage_error("not a whole number from 0", option_place("--seed"));
    if (o.dir.empty()) throw usage_error("vectors needs --dir DIR", option_place("--dir"));
    const auto files = write_vectors(static_cast<std::uint64_t>(*seed), f, o.long_keys);
    write_files(o.dir, files, delivery);
    out << fmt::format("oracle vectors: {} in {} (seed {}, {}), manifest.json describes them\n",
                       counted(files.size(), "file"), o.dir, *seed, info(f).name);
    return 0;
}

int cmd_oracle_placed(const OracleOptions& o, std::ostream& out, Delivery& delivery) {
    const FloatFormat f = parse_format(o.dtype, option_place("--dtype"));
    if (o.action == "vectors") return vectors_command(o, f, out, delivery);
    for (const auto& [value, option] : {std::pair{o.q, "--q"}, {o.k, "--k"}, {o.v, "--v"}})
        if (value.empty()) throw usage_error(fmt::format("{} needs {} FILE", o.action, option), option_place(option));
    const Loaded l = load_problem(o);
    if (o.action == "judge" && o.actual.empty())
        throw usage_error("judge needs --actual FILE", option_place("--actual"));
    if (o.action == "emulate") return emulate_command(o, l, f, out);
    if (o.action == "grad-reference") return grad_command(o, l, f, out);
    if (o.action == "grad-emulate") return grad_emulate_command(o, l, f, out);
    return o.action == "judge" ? judge_command(o, l, f, out) : reference_command(o, l, f, out);
}

int cmd_oracle(const OracleOptions& o, std::ostream& out, Delivery& delivery) {
    return at_options([&] { return cmd_oracle_placed(o, out, delivery); });
}

}  // namespace

void add_oracle_command(CLI::App& app, std::function<int(std::ostream&)>& command, Delivery& delivery) {
    auto o = std::make_shared<OracleOptions>();
    auto* s = app.add_subcommand("oracle", "Certified references for float attention, and a kernel's output judged");
    s->add_option("action", o->action, "reference | judge | emulate | vectors | grad-reference | grad-emulate")
        ->required()
        ->check(CLI::IsMember({"reference", "judge", "emulate", "vectors", "grad-reference", "grad-emulate"}));
    s->add_option("--q", o->q, "Q (n_q × d): .npy, .json or .csv");
    s->add_option("--k", o->k, "K (n_k × d)");
    s->add_option("--v", o->v, "V (n_k × d_v)");
    s->add_option("--do", o->d_out, "grad-reference: the upstream gradient dO (n_q × d_v, or 4-D as --q's layout)");
    s->add_option("--actual-dq", o->actual_dq, "grad-reference: a kernel's dQ, judged against the --backward bound");
    s->add_option("--actual-dk", o->actual_dk, "grad-reference: a kernel's dK, judged likewise");
    s->add_option("--actual-dv", o->actual_dv, "grad-reference: a kernel's dV, judged likewise");
    s->add_option("--backward", o->backward, "grad-reference, grad-emulate: standard (default) | flash2");
    s->add_option("--delta-from", o->delta_from,
                  "grad-reference, grad-emulate: D = rowsum(dO∘O) (o; flash2's default) or rowsum(P∘dP) (p; "
                  "standard's default)");
    s->add_option("--seed", o->seed, "vectors: the seed (0 to 2^63 − 1)");
    s->add_option("--dir", o->dir, "vectors: the directory to write");
    s->add_option("--long-keys", o->long_keys, "vectors: keys of the long row (default 100000)")
        ->check(CLI::Range(std::int64_t{2}, std::int64_t{10'000'000}));
    s->add_option("--mask", o->mask, "n_q × n_k, nonzero = masked");
    s->add_option("--bias", o->bias, "n_q × n_k (or 4-D), added to the scores (ALiBi; -inf = masked)");
    s->add_flag("--causal", o->problem.causal, "Key j masked for query i when j > i (+ n_k − n_q: --align)");
    s->add_option("--align", o->problem.align, "top-left (default) | bottom-right: the diagonal of --causal, --window");
    s->add_option("--window-left", o->problem.window_left, "Keys before the diagonal a query sees (default all)")
        ->check(CLI::Range(std::int64_t{-1}, std::int64_t{1} << 40));
    s->add_option("--window-right", o->problem.window_right, "Keys after the diagonal a query sees (default all)")
        ->check(CLI::Range(std::int64_t{-1}, std::int64_t{1} << 40));
    s->add_option("--scale", o->problem.scale, "sqrt-dk (default) | none | a number");
    s->add_option("--softcap", o->problem.softcap,
                  "The logit softcap: scores cap·tanh(c·q·k/cap) before the mask and bias (default 0: none)");
    s->add_option("--base", o->problem.base, "e (default) | 2: an exp2 kernel");
    s->add_option("--masked-rows", o->problem.masked_rows, "error | nan | zeros");
    s->add_option("--masked-lse", o->problem.masked_lse, "-inf (default) | inf: a fully masked row's lse");
    s->add_option("--layout", o->layout, "4-D inputs: bhnd (default) | bnhd");
    s->add_option("-j,--jobs", o->jobs, "4-D inputs: heads judged in parallel (default: the number of cores)")
        ->check(CLI::Range(1, 1024));
    s->add_option("--input-dtype", o->input_dtype, "The format of Q, K, V (default: the files')");
    s->add_option("--dtype", o->dtype,
                  "The output's format: float16 | bfloat16 | float32 | float64 | float8_e4m3fn | float8_e5m2");
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
    s->add_option(
        "--accumulate", o->accumulate,
        "judge, emulate, grad-*: the accumulator format (default float32, float64 for --dtype float64; never 8-bit)");
    s->add_option("--p-dtype", o->p_dtype,
                  "judge, online: P's format before P·V (default --dtype); grad-*: P cast to this format before "
                  "dV = Pᵀ·dO (default: none)");
    s->add_option("--stored-dtype", o->stored,
                  "judge, emulate, naive and safe: unfused, S and P stored in this format (PyTorch's bf16 math "
                  "attention: bfloat16); grad-*: the backward's storage format (default --dtype, float32 when "
                  "--dtype is 8-bit)");
    s->add_option("--p-descale", o->p_descale,
                  "judge, emulate, online: P·σ cast to --p-dtype, P̃·V divided by σ; grad-*: likewise P̃ᵀ·dO: a "
                  "positive number (default 1) | block (per block of keys, from its largest P)");
    s->add_option("--ds-dtype", o->ds_dtype,
                  "grad-*: dS cast to this format before dQ = dS·K and dK = dSᵀ·Q (default: none)");
    s->add_option("--ds-descale", o->ds_descale,
                  "grad-*: dS·σ cast to --ds-dtype, σ divided out: a positive number (default 1) | block (per block "
                  "of keys, from its largest |dS|)");
    s->add_option("--fp8-overflow", o->fp8_overflow,
                  "8-bit values past the range: error (default: inputs refused, casts NaN/inf) | saturate (±448, "
                  "±57344)");
    s->add_option("--block", o->block, "judge, online; grad-*, flash2: the block size")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
    s->add_flag("--trace", o->trace,
                "emulate, grad-emulate: the steps where the format shows (overflow, underflow, rescaling)");
    s->add_option("--tolerance-ulps", o->tolerance, "judge: also fail past this many ULPs");
    s->add_option("--bound", o->bound,
                  "judge: running (default: from the actual inputs) | running-ordered | a-priori | probabilistic | "
                  "probabilistic-ordered | probabilistic-ulp");
    s->add_option("--format", o->format, "text | json")->check(CLI::IsMember({"text", "json"}));
    s->callback([o, &command, &delivery] {
        command = [o, &delivery](std::ostream& out) { return cmd_oracle(*o, out, delivery); };
    });
}

}  // namespace exactattn::cli
