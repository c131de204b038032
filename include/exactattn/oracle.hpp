// SPDX-License-Identifier: MIT
// exactattn: an exact oracle for float attention kernels (docs/oracle.md): float formats,
// certified references, a-priori bounds per algorithm, and judgement of a kernel's output.
#pragma once

#include <gmpxx.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exactattn/error.hpp"

namespace exactattn::oracle {

/// The IEEE 754 binary formats a kernel computes in (bfloat16: float32's exponent range with an
/// 8-bit significand).
enum class FloatFormat { Float16, BFloat16, Float32, Float64 };

/// Parameters of a format: `precision` bits of significand (the implicit bit included), normal
/// exponents emin..emax (the least normal is 2^emin, the largest finite (2 − 2^(1−p))·2^emax).
struct FormatInfo {
    const char* name;
    int precision;
    int emin;
    int emax;
};

/// The parameters of `f`.
const FormatInfo& info(FloatFormat f);
/// `float16`/`f16`/`half`, `bfloat16`/`bf16`, `float32`/`f32`, `float64`/`f64`; UsageError at
/// `where` otherwise.
FloatFormat parse_format(std::string_view name, const Location& where = {});
/// u = 2^−p, the unit roundoff of round to nearest.
double unit_roundoff(FloatFormat f);
/// The least positive subnormal, 2^(emin − p + 1).
double least_subnormal(FloatFormat f);
/// The largest finite value.
double max_finite(FloatFormat f);

/// True when the double `x` (finite) is a value of `f`.
bool representable(double x, FloatFormat f);
/// `x` correctly rounded to `f` (to nearest, ties to even; subnormals; ±inf past the overflow
/// threshold). Every value of every format here is a double, so the result is exact.
double round_to(double x, FloatFormat f);
/// An exact rational correctly rounded to `f`.
double round_exact(const mpq_class& x, FloatFormat f);
/// The spacing of `f` at the representable `x`: 2^(max(e, emin) − p + 1) where 2^e ≤ |x| < 2^(e+1).
double ulp(double x, FloatFormat f);
/// The value of the bit pattern `bits` (the low 16, 32 or 64 bits) of `f`: exact.
double decode_bits(std::uint64_t bits, FloatFormat f);
/// The bit pattern of the representable `x` in `f` (NaN as the quiet NaN).
std::uint64_t encode_bits(double x, FloatFormat f);

/// A tensor of float values, each exact, stored row-major (C order) as doubles (every value
/// of every format above is one) with the format it was declared in.
struct Tensor {
    std::vector<std::int64_t> shape;
    std::vector<double> data;
    FloatFormat format = FloatFormat::Float64;
    [[nodiscard]] std::int64_t rows() const { return shape.empty() ? 1 : shape[0]; }
    [[nodiscard]] std::int64_t cols() const { return shape.size() < 2 ? 1 : shape[1]; }
};

/// Parses the bytes of a .npy file (format versions 1, 2 and 3; little- or big-endian; C or
/// Fortran order; dtypes f2, f4, f8, u2 as bfloat16 bit patterns when `declared` is bfloat16,
/// and b1, u1, i1 for masks). `declared`, when given, is the format the values must belong to
/// (and become). ParseError/ShapeError/LimitError placed at `name`: a truncated or malformed
/// header, an object or structured array, a size past limits().max_cells, checked before
/// anything is allocated, or data bytes that do not match the shape.
Tensor parse_npy(std::string_view bytes, const std::string& name, std::optional<FloatFormat> declared);
/// The bytes of a version 1.0 .npy file of `t` in its format (bfloat16 as `<u2` bit patterns).
std::string write_npy(const Tensor& t);
/// Reads a tensor from a .npy, .json (nested arrays of numbers, "nan"/"inf"/"-inf" strings) or
/// .csv file (one row a line), by the file's extension. JSON and CSV numbers are read as
/// float64, correctly rounded, and must then be values of `declared` when given.
Tensor read_tensor(const std::string& path, std::optional<FloatFormat> declared);

enum class ScaleKind { None, SqrtDk, Given };
/// The factor c of the scores c·q·k: 1, 1/√d_k (certified), or a given float.
struct Scale {
    ScaleKind kind = ScaleKind::SqrtDk;
    double value = 1;
};
/// exp(s) (base e) or 2^s (an exp2-based kernel whose scores were scaled by log2 e before).
enum class ExpBase { E, Two };
/// What a row whose every key is masked gives: an error (the default), NaN, or zeros.
enum class MaskedRows { Error, NaN, Zeros };

/// The option strings of the oracle, parsed once here for the command line and Python alike;
/// each refuses what it does not name with a UsageError placed at `where` (the caller's option).
/// `sqrt-dk`, `none` or a finite number (the whole text).
Scale parse_scale(std::string_view text, const Location& where = {});
/// A given scale that is a finite number (else a UsageError at `where`).
Scale given_scale(double c, const Location& where = {});
/// `e` or `2`.
ExpBase parse_base(std::string_view text, const Location& where = {});
/// `error`, `nan` or `zeros`.
MaskedRows parse_masked_rows(std::string_view text, const Location& where = {});
/// A tolerance in ULPs: finite and not negative (else a UsageError at `where`).
double checked_tolerance(double ulps, const Location& where = {});

/// One attention problem: Q (n_q × d), K (n_k × d), V (n_k × d_v), every value exact.
struct Problem {
    Tensor q, k, v;
    std::vector<std::uint8_t> mask;  ///< empty, or n_q × n_k with 1 = masked
    bool causal = false;             ///< key j masked for query i when j > i (top-left aligned)
    Scale scale;
    ExpBase base = ExpBase::E;
    MaskedRows masked_rows = MaskedRows::Error;
};

/// Checks shapes, masks and that every value is finite and a value of its tensor's format;
/// ShapeError / DomainError naming the tensor and the index (placed at `q`, `k`, `v`, `mask`).
void validate(const Problem& p);
/// Sets p.mask from the tensor `m`, which must be n_q × n_k for p's q and k (1 = masked where
/// nonzero); ShapeError or DomainError (a NaN) at `where` otherwise. A transposed mask of
/// the same size is refused, not read in the wrong order.
void set_mask(Problem& p, const Tensor& m, const Location& where = {});

/// What one row's bound needs, certified upper (or lower) bounds from the reference.
struct RowFacts {
    std::int64_t keys = 0;     ///< unmasked keys
    double abs_score_max = 0;  ///< ≥ max_j |c|·Σ_i |q_i k_ji|
    double score_max = 0;      ///< ≥ max_j s_j
    double score_range = 0;    ///< ≥ max_j s_j − min_j s_j
    double abs_dot_max = 0;    ///< ≥ max_j Σ_i |q_i k_ji| (before the scale: where a dot product may overflow)
    bool masked = false;       ///< every key masked
};

/// The certified reference: outputs O = softmax(c Q Kᵀ) V, weights and log-sum-exp, each
/// entry enclosed (outward doubles) and correctly rounded to `format`.
struct Reference {
    FloatFormat format = FloatFormat::Float32;
    ExpBase base = ExpBase::E;
    std::int64_t n_q = 0, n_k = 0, d_v = 0, d = 0;
    std::vector<double> out, out_lo, out_hi;  ///< n_q × d_v; rounded, and the enclosure
    std::vector<std::uint8_t> out_exact;      ///< 1 when the value is known exactly
    std::vector<std::string> out_exact_text;  ///< the exact value in the engine's notation, or ""
                                              ///< (empty unless some row is in the exact domain)
    std::vector<double> w, w_lo, w_hi;        ///< n_q × n_k (empty unless asked for)
    std::vector<double> lse, lse_lo, lse_hi;  ///< n_q: m + ln Σ exp(s − m) (log2 for base 2)
    std::vector<double> out_abs;              ///< ≥ Σ_j w_j |v_ji|, for the bounds
    std::vector<double> v_abs_max;            ///< d_v: max_j |v_ji|
    /// The running bound's sums from the actual inputs (docs/oracle.md, "The running bound"),
    /// n_q × d_v, each an upper bound: Σ_j w_j a_j |v_jc − o_c| (a_j = |c| Σ_x |q_x k_jx|),
    /// Σ_j w_j |v_jc − o_c|, Σ_j w_j (max s − s_j) |v_jc − o_c| and Σ_j |v_jc| over visible keys.
    std::vector<double> run_s1, run_s2, run_s3, run_v1;
    /// x − rounded for each output where the enclosure is narrower than a double can say (float64
    /// outputs: MPFR's x − rounded, to nearest); NaN where the enclosure's midpoint serves.
    std::vector<double> out_resid;
    std::vector<RowFacts> rows;
    std::int64_t max_precision = 53;  ///< the largest MPFR precision any entry needed
};

/// Computes the reference. `weights`: also the n_q × n_k weights. DomainError for a fully
/// masked row under MaskedRows::Error; LimitError when a rounding is not decided within
/// limits().max_precision or the problem is larger than limits().max_cells.
Reference reference(const Problem& p, FloatFormat format, bool weights);

enum class Algorithm { Naive, Safe, Online };
/// The algorithm a kernel claims: its name, the format of its scores, exponentials, sums and
/// accumulators (`accumulate`), the format of P before the P·V product (online), block size.
/// Which bound a judgement holds entries to (docs/oracle.md, "Bounds"): the a-priori worst case
/// of the algorithm (from the row's largest score and A_c), or the running bound from the
/// actual scores, exponentials and products of each row (the default; never above the a-priori).
enum class BoundKind { APriori, Running };
BoundKind parse_bound(std::string_view name, const Location& where = {});
const char* bound_name(BoundKind b);
struct AlgorithmSpec {
    Algorithm algorithm = Algorithm::Safe;
    FloatFormat accumulate = FloatFormat::Float32;
    FloatFormat p_format = FloatFormat::Float32;
    std::int64_t block = 64;
    BoundKind bound = BoundKind::Running;
};
Algorithm parse_algorithm(std::string_view name, const Location& where = {});
const char* algorithm_name(Algorithm a);
/// Every algorithm, in the order of the documentation (docs/oracle.md, "Bounds").
std::span<const Algorithm> algorithms();

/// An algorithm to emulate: every operation correctly rounded in `format` (scores as
/// fl(fl(Σ q k) · c) in index order, exponentials, sums in key order, divisions), P rounded to
/// `p_format` before P·V (online), the result rounded to `output` (docs/oracle.md, "Emulation").
struct EmulationSpec {
    Algorithm algorithm = Algorithm::Safe;
    FloatFormat format = FloatFormat::Float32;
    FloatFormat p_format = FloatFormat::Float32;
    FloatFormat output = FloatFormat::Float32;
    std::int64_t block = 64;
};
/// The emulated output and, on request, the trace: exponentials that overflow (float16's
/// for x > ln 65504 ≈ 11.09), how many underflow, fully masked rows, each online rescaling.
struct Emulation {
    Tensor out;
    std::vector<std::string> trace;
};
/// Emulates `s` on `p` (a fully masked row follows p.masked_rows; DomainError under Error).
Emulation emulate(const Problem& p, const EmulationSpec& s, bool trace);

/// The a-priori bound (docs/oracle.md, "Bounds") on |ô − o| of output (i, c) of a kernel that
/// runs `spec` and rounds its output to `ref.format`; +inf when the algorithm guarantees
/// nothing there, with the reason in `why`.
double output_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t c,
                    std::string* why = nullptr);
/// The running bound (docs/oracle.md, "The running bound") on output (i, c): from the row's
/// actual scores, weights and values; never above output_bound; +inf where it is.
double running_output_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t c,
                            std::string* why = nullptr);

/// One judged entry.
struct Judged {
    std::int64_t row = 0, col = 0;
    double value = 0;       ///< the kernel's
    double rounded = 0;     ///< the exact value correctly rounded to the format
    double lo = 0, hi = 0;  ///< the enclosure of the exact value
    bool exact = false;
    double ulp_error = 0;  ///< (value − exact)/ulp(rounded), signed
    double abs_error = 0, rel_error = 0;
    double bound = 0;     ///< absolute
    bool within = false;  ///< certified: |value − exact| ≤ bound (and ≤ the tolerance)
};

/// The judgement of one tensor.
struct Judgement {
    std::string tensor;  ///< "out", "weights", "lse"
    std::int64_t count = 0;
    std::int64_t over = 0;       ///< entries over their bound or the tolerance
    std::int64_t unbounded = 0;  ///< entries whose bound is infinite
    std::int64_t exact_count = 0;
    double max_abs_ulp = 0;
    std::int64_t worst = -1;           ///< index of the largest |ULP| error (-1: none)
    double max_bound_fraction = 0;     ///< the largest |error|/bound over bounded entries (the bound's use)
    std::int64_t worst_fraction = -1;  ///< where it is
    std::string bound;                 ///< the bound's name: "running" or "a-priori"
    std::int64_t first_over = -1;
    std::vector<Judged> entries;
    std::string unbounded_reason;
    std::string diagnosis;  ///< filled by diagnose()
    [[nodiscard]] bool passed() const { return over == 0; }
};

/// Judges the kernel's `output` (n_q × d_v, values of ref.format) against `ref` under `spec`
/// and an optional tolerance in ULPs (which only tightens). ShapeError on a shape mismatch.
Judgement judge_output(const Reference& ref, const Tensor& output, const AlgorithmSpec& spec,
                       std::optional<double> tolerance_ulps);

/// The bound on a weight ŵ_ij of a kernel that writes its weights (naive, safe), and on its
/// log-sum-exp (docs/oracle.md, "Bounds"); +inf with the reason when none holds.
double weight_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::int64_t j,
                    std::string* why = nullptr);
double lse_bound(const Reference& ref, const AlgorithmSpec& spec, std::int64_t i, std::string* why = nullptr);
/// Judges the kernel's weights (n_q × n_k; the reference must hold weights) and its per-row
/// log-sum-exp (n_q, or n_q × 1; natural log, log2 under base 2) as judge_output does outputs.
Judgement judge_weights(const Reference& ref, const Tensor& weights, const AlgorithmSpec& spec,
                        std::optional<double> tolerance_ulps);
Judgement judge_lse(const Reference& ref, const Tensor& lse, const AlgorithmSpec& spec,
                    std::optional<double> tolerance_ulps);

/// After a failed judgement: the known mistake that explains `output` (no max subtraction, a
/// scale of 1/d_k, a mask off by one, accumulation in the input format), or "".
std::string diagnose(const Problem& p, const Tensor& output, const AlgorithmSpec& spec, const Judgement& j);

/// One designed test vector: a problem kernels rarely meet but must survive.
struct VectorCase {
    std::string name;
    std::string description;
    Problem problem;
};
/// The designed cases for format `f` (docs/oracle.md, "Test vectors"): ties and near-ties,
/// scores at the exp overflow threshold, fully masked and single-key rows, a long row of
/// `long_keys` keys with one dominant key, and an exp2 kernel's exact inputs. Deterministic in `seed`.
std::vector<VectorCase> designed_cases(std::uint64_t seed, FloatFormat f, std::int64_t long_keys);
/// The files of the designed cases: per case q, k, v (and mask) .npy files, the reference
/// outputs and the bound of each algorithm as .npy, and manifest.json describing them. The
/// same seed gives the same bytes.
std::vector<std::pair<std::string, std::string>> write_vectors(std::uint64_t seed, FloatFormat f,
                                                               std::int64_t long_keys);

}  // namespace exactattn::oracle
