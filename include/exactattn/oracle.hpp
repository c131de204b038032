// SPDX-License-Identifier: MIT
// exactattn: an exact oracle for float attention kernels (docs/oracle.md): float formats,
// certified references, a-priori bounds per algorithm, and judgement of a kernel's output.
#pragma once

#include <gmpxx.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exactattn/error.hpp"

namespace exactattn::oracle {

/// The IEEE 754 binary formats a kernel computes in (bfloat16: float32's exponent range with an
/// 8-bit significand), and the two 8-bit formats of OCP FP8: E4M3 without infinities (one NaN
/// pattern S.1111.111, largest finite 448) and E5M2 (IEEE-like, largest finite 57344).
enum class FloatFormat { Float16, BFloat16, Float32, Float64, Float8E4M3FN, Float8E5M2 };

/// Parameters of a format: `precision` bits of significand (the implicit bit included), normal
/// exponents emin..emax (the least normal is 2^emin, the largest finite (2 − 2^(1−p))·2^emax).
struct FormatInfo {
    const char* name;
    int precision;
    int emin;
    int emax;
    double largest = 0;  ///< the largest finite value when it is not IEEE's (E4M3: 448); 0: IEEE's
};

/// The parameters of `f`.
const FormatInfo& info(FloatFormat f);
/// `float16`/`f16`/`half`, `bfloat16`/`bf16`, `float32`/`f32`, `float64`/`f64`,
/// `float8_e4m3fn`/`e4m3fn`, `float8_e5m2`/`e5m2`; UsageError at `where` otherwise.
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
/// threshold, which for float8_e4m3fn, a format without infinities, means "out of range": see
/// cast_fp8). Every value of every format here is a double, so the result is exact.
double round_to(double x, FloatFormat f);
/// An exact rational correctly rounded to `f`.
double round_exact(const mpq_class& x, FloatFormat f);
/// The spacing of `f` at the representable `x`: 2^(max(e, emin) − p + 1) where 2^e ≤ |x| < 2^(e+1).
double ulp(double x, FloatFormat f);
/// The value of the bit pattern `bits` (the low 16, 32 or 64 bits) of `f`: exact.
double decode_bits(std::uint64_t bits, FloatFormat f);
/// The bit pattern of the representable `x` in `f` (NaN as the quiet NaN).
std::uint64_t encode_bits(double x, FloatFormat f);

/// 8-bit floats (docs/oracle.md, "8-bit floats"). What a cast to an 8-bit format does with a
/// finite value past its range: `Error` (the default) never makes it finite: an input is refused
/// (exit 2 naming the entry), and a cast in the emulation gives float8_e4m3fn's NaN (it has no
/// infinity; PyTorch's cast gives the same) or float8_e5m2's ±inf (IEEE), named in the report;
/// `Saturate` clamps it to ±max finite (448, 57344), as FP8 kernels' saturating conversions do,
/// and the reports count it.
enum class Fp8Overflow { Error, Saturate };
/// `error` or `saturate`.
Fp8Overflow parse_fp8_overflow(std::string_view text, const Location& where = {});
const char* fp8_overflow_name(Fp8Overflow o);
/// True for float8_e4m3fn and float8_e5m2.
bool is_fp8(FloatFormat f);
/// `x` rounded to `f` (round_to), an overflow then treated as `o` says (8-bit formats; for the
/// others, round_to's ±inf).
double cast_fp8(double x, FloatFormat f, Fp8Overflow o);
/// Why the finite `x` declared in `f` is not a value of it: out of an 8-bit format's range
/// (saturation named as the remedy) or between two of its values.
std::string not_a_value(double x, FloatFormat f);
/// The descale of P before an 8-bit P·V product (FlashAttention-3 FP8, Transformer Engine):
/// P̃ = fl_p(fl(P·σ)), Σ P̃ v accumulated, divided by σ. `value` σ, a positive finite number (1:
/// none); `per_block`: σ_b = 2^⌊log2(max finite of the P format / max_j P_j)⌋ from each block's
/// largest P, and each block's P̃·V divided by its σ_b before it joins the accumulator.
struct PDescale {
    double value = 1;
    bool per_block = false;
};
/// A positive finite number, or `block`.
PDescale parse_p_descale(std::string_view text, const Location& where = {});
/// The two failure modes of 8-bit attention, counted where they happen (docs/oracle.md):
/// probabilities flushed to zero by the cast of P·σ ("P-collapse": how many, the largest P lost,
/// where) and values saturated at the largest finite value (how many, where the first was).
struct Fp8Events {
    std::int64_t collapsed = 0;
    double collapsed_max = 0;  ///< the largest P = exp(s − m) (before σ) cast to 0
    std::int64_t collapsed_row = -1, collapsed_key = -1;
    /// The head (b, h) of a batch the largest collapse is in (-1: a single head).
    std::int64_t collapsed_batch = -1, collapsed_head = -1;
    std::int64_t saturated = 0;
    std::string saturated_first;  ///< e.g. "P[0, 3]", "out[1, 0]", "q[2, 5]"
    std::int64_t overflowed = 0;  ///< casts past the range under `error` (NaN or ±inf)
    std::string overflowed_first;
    void saturate(const std::string& where);
    void overflow(const std::string& where);
    /// A probability p > 0 the cast flushed to zero at (row, key); the largest one is kept.
    void collapse(double p, std::int64_t row, std::int64_t key);
    void merge(const Fp8Events& o);
    /// These events as head (b, h) of a batch's: the largest collapse's head kept, the first
    /// saturated and overflowed values prefixed with the head ("head (b=0, h=1): P[2, 3]").
    void in_head(std::int64_t b, std::int64_t h);
    [[nodiscard]] bool any() const { return collapsed + saturated + overflowed > 0; }
};
/// The report's lines ("fp8: ..."; empty when nothing happened) and its JSON object.
std::string fp8_events_text(const Fp8Events& e);
std::string fp8_events_json(const Fp8Events& e);

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
/// A logit softcap: a finite number > 0, or 0 for none (else a UsageError at `where`).
double checked_softcap(double cap, const Location& where = {});
/// A tolerance in ULPs: finite and not negative (else a UsageError at `where`).
double checked_tolerance(double ulps, const Location& where = {});

/// Where `causal` and a sliding window put query i's diagonal: key i (top-left, PyTorch's
/// `is_causal`) or key i + n_k − n_q (bottom-right, FlashAttention ≥ 2.1 when n_q ≠ n_k).
enum class Align { TopLeft, BottomRight };
/// `top-left` or `bottom-right`.
Align parse_align(std::string_view text, const Location& where = {});
/// The log-sum-exp of a fully masked row: −inf (the log of an empty sum) or +inf (FlashAttention's
/// `softmax_lse`, which then makes exp(s − lse) zero).
enum class MaskedLse { NegInf, PosInf };
/// `-inf` or `inf`.
MaskedLse parse_masked_lse(std::string_view text, const Location& where = {});

/// One attention problem: Q (n_q × d), K (n_k × d), V (n_k × d_v), every value exact.
struct Problem {
    Tensor q, k, v;
    std::vector<std::uint8_t> mask;  ///< empty, or n_q × n_k with 1 = masked
    std::vector<double> bias;        ///< empty, or n_q × n_k added to the scores (−inf = masked)
    bool causal = false;             ///< key j masked for query i when j > i + offset (see Align)
    Align align = Align::TopLeft;    ///< the diagonal of `causal` and of the window
    std::int64_t window_left = -1;   ///< keys before the diagonal a query sees (−1: all)
    std::int64_t window_right = -1;  ///< keys after it (−1: all; `causal` makes it 0)
    Scale scale;
    /// The logit softcap (Gemma 2, FlashAttention's `softcap`): the scaled score x = c·q·k becomes
    /// cap·tanh(x/cap) before the mask and the bias; 0 = off.
    double softcap = 0;
    ExpBase base = ExpBase::E;
    MaskedRows masked_rows = MaskedRows::Error;
    MaskedLse masked_lse = MaskedLse::NegInf;
};

/// The options of a problem as a front end receives them, each parsed here once for the command
/// line and Python alike; a refusal is a UsageError placed at the option's Python name (`scale`,
/// `base`, `masked_rows`, `masked_lse`, `align`, `window`), which the command line renames to
/// its own (`--scale`, …).
struct ProblemOptions {
    std::string scale = "sqrt-dk";      ///< `sqrt-dk`, `none` or a number
    std::optional<double> scale_value;  ///< a number given as one (Python), instead of `scale`
    std::string base = "e";
    std::string masked_rows = "error";
    std::string masked_lse = "-inf";
    std::string align = "top-left";
    bool causal = false;
    std::int64_t window_left = -1, window_right = -1;
    double softcap = 0;  ///< > 0, or 0 for none (else a UsageError at `softcap`)
};
/// A problem with no tensors yet and `o` applied.
Problem problem_options(const ProblemOptions& o);

/// Which keys query i sees: 1 where neither the mask, a −inf bias, `causal` nor the window hides it.
std::vector<std::uint8_t> visible_keys(const Problem& p, std::int64_t i);
/// How many keys query i sees (the ones of visible_keys(p, i)), counted from the window alone
/// when there is no mask and no bias.
std::int64_t visible_key_count(const Problem& p, std::int64_t i);
/// The work units of the reference's double stage for query row i (docs/limits.md,
/// "Predictions that refuse"): 500 units a multiply-add over the keys the row sees (its Dot2
/// scores, exponentials, numerators and sums: d + d_v + 30 of them a key, 10 more with the
/// weights). The row is charged this as it runs; the rising precision after it charges itself.
double reference_row_work(const Problem& p, std::int64_t i, bool weights);
/// The reference's work predicted before it runs: reference_row_work over the rows and, for a
/// float64 reference, each row's step at 128 bits (which a float64 rounding nearly always needs);
/// reference() refuses up front past it. Further steps of precision are not predicted.
double reference_work(const Problem& p, FloatFormat format, bool weights);
/// The work units of emulating query row i: 3000 units an operation at a format's precision,
/// 2(d + d_v) + 6 of them a key the row sees. Charged as the row runs.
double emulation_row_work(const Problem& p, std::int64_t i);
/// The sum of emulation_row_work over the rows: emulate() refuses up front past it.
double emulation_work(const Problem& p);
/// The score bias of (i, j): 0 without a bias.
inline double bias_at(const Problem& p, std::int64_t i, std::int64_t j) {
    return p.bias.empty() ? 0.0 : p.bias[static_cast<std::size_t>(i * p.k.rows() + j)];
}

/// Checks shapes, masks and that every value is finite and a value of its tensor's format;
/// ShapeError / DomainError naming the tensor and the index (placed at `q`, `k`, `v`, `mask`).
void validate(const Problem& p);
/// Under Fp8Overflow::Saturate, every finite value of an 8-bit q, k or v past the format's range
/// clamped to ±max finite, counted and placed ("q[0, 3]"); under Error nothing changes (and
/// validate refuses such a value).
Fp8Events saturate_inputs(Problem& p, Fp8Overflow o);
/// The same for the tensors of a batch of heads (4-D: entries named by every index, "q[0, 1, 2, 3]").
Fp8Events saturate_inputs(Tensor& q, Tensor& k, Tensor& v, Fp8Overflow o);
/// The same for one tensor `name` (the backward's dO), counted in `events`.
void saturate_tensor(Tensor& t, const char* name, Fp8Overflow o, Fp8Events& events);
/// Sets p.mask from the tensor `m`, which must be n_q × n_k for p's q and k, every value 0
/// (visible) or 1 (masked); ShapeError or DomainError at `where` otherwise (a value such as −1
/// or −inf is an additive bias, not a mask: the message says so). A transposed mask of the same
/// size is refused, not read in the wrong order.
void set_mask(Problem& p, const Tensor& m, const Location& where = {});
/// Sets p.bias from `b` (n_q × n_k): finite values or −inf (a masked key); DomainError for NaN
/// or +inf, ShapeError for another shape, at `where`.
void set_bias(Problem& p, const Tensor& b, const Location& where = {});

/// What one row's bound needs, certified upper (or lower) bounds from the reference.
struct RowFacts {
    std::int64_t keys = 0;     ///< unmasked keys
    double abs_score_max = 0;  ///< ≥ max_j |c|·Σ_i |q_i k_ji|
    double score_max = 0;      ///< ≥ max_j s_j
    double score_range = 0;    ///< ≥ max_j s_j − min_j s_j
    double abs_dot_max = 0;    ///< ≥ max_j Σ_i |q_i k_ji| (before the scale: where a dot product may overflow)
    /// Under a softcap C: ≥ max_j h_j a_j, h_j ≥ sech²(c·q·k_j/C) the cap's slope at the score
    /// (docs/oracle.md, "The logit softcap"); +inf (no information) without one.
    double slope_abs_max = std::numeric_limits<double>::infinity();
    bool masked = false;  ///< every key masked
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
    /// Under a softcap: Σ_j w_j h_j a_j |v_jc − o_c| (h_j as RowFacts::slope_abs_max's), n_q × d_v,
    /// an upper bound; empty without a softcap.
    std::vector<double> run_h1;
    /// The sharper bounds' sums below (run_qa … run_pd1) are formed only for a reference that
    /// asked for them (reference(…, BoundKind): the ordered and probabilistic bounds); empty
    /// otherwise. run_g and run_gabs are always formed (the systematic tests read them).
    /// The probabilistic bound's sums of squares (docs/oracle.md, "The probabilistic bound"),
    /// n_q × d_v, with dev_j = |v_jc − o_c|: Σ_j w_j² dev_j² a_j² (any order of the dot products),
    /// Σ_j w_j² dev_j² Σ_t P_jt² (the index order's products, partial sums and score, scaled),
    /// Σ_j w_j² dev_j², Σ_j w_j² dev_j² (max s − s_j)², Σ_j w_j² v_jc², and Σ_t (Σ_{j≤t} w_j v_jc)²
    /// (key order); per row Σ_t (Σ_{j≤t} w_j)².
    std::vector<double> run_qa, run_qd, run_q2, run_q3, run_qv, run_pv, run_pd;
    /// The running bound for the declared order ("running-ordered"): Σ_j w_j dev_j σ_j, σ_j the
    /// sum of the magnitudes of the index-order dot product's products, partial sums and score
    /// (scaled); Σ_t |Σ_{j≤t} w_j v_jc| (key order); per row Σ_t Σ_{j≤t} w_j.
    std::vector<double> run_s1o, run_pv1, run_pd1;
    /// Under a softcap: Σ_j w_j dev_j h_j σ_j (S1° with the cap's slope h_j), n_q × d_v; else empty.
    std::vector<double> run_h1o;
    /// The half-ulp bound's sums ("probabilistic-ulp", docs/oracle.md, "The half-ulp bound"): the
    /// declared order's sums of squares with each magnitude |x| replaced by min(|x|, 2^⌊log2 X⌋),
    /// X the largest magnitude the kernel's result there can have (a deviation of 2^−9 relative
    /// allowed): n_q × d_v, the scores' Σ_j w_j² dev_j² (products, partial sums and score), the
    /// subtraction's, the exponential's (relative, of coefficient 1), the division's and the
    /// product's (together), and the numerator's partial sums; per row the denominator's. Formed
    /// only for BoundKind::ProbabilisticUlp (and by reference(p, format, weights)); else empty.
    std::vector<double> run_hd, run_h3, run_h2, run_hv, run_hp, run_hpd;
    /// Σ_j w_j s_j (v_jc − o_c), ∂o_c/∂(log c): the direction a temperature error moves the
    /// output (from midpoints), and an upper bound on its magnitude.
    std::vector<double> run_g, run_gabs;
    bool scale_exact = false;  ///< c is a dyadic rational (a double), so exact where representable
    double scale = 1;          ///< c (rounded to double when it is not exact)
    double softcap = 0;        ///< the problem's logit softcap (0: none), for the bounds
    bool biased = false;       ///< a finite nonzero bias is added to some score (one more rounding each)
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
/// Probabilistic: Higham and Mary's model (every rounding error an independent mean-zero random
/// variable of magnitude at most u), Hoeffding's inequality on the first-order error with λ =
/// √(2 ln(2/P)), P = 2^−40 the failure probability per entry; `ProbabilisticOrdered` takes the
/// partial sums of the declared order (dot products in index order, sums in key order).
/// `RunningOrdered`: the running bound for a kernel that sums in the declared order (Higham's
/// running error bound u Σ|partial sums| in place of γ_n Σ|terms|; naive and safe).
/// `ProbabilisticUlp`: the declared order's probabilistic bound with each rounding error at most
/// half an ulp of its result (u·2^⌊log2|x̂|⌋) instead of u|x̂|; naive and safe (docs/oracle.md,
/// "The half-ulp bound").
enum class BoundKind { APriori, Running, Probabilistic, ProbabilisticOrdered, RunningOrdered, ProbabilisticUlp };
/// The failure probability per entry of the probabilistic bounds (2^−40), and their λ.
double probabilistic_failure();
double probabilistic_lambda();
BoundKind parse_bound(std::string_view name, const Location& where = {});
const char* bound_name(BoundKind b);
/// The reference with the sums of the bound `sums_for` only (docs/oracle.md, "Speed and
/// memory"): the running bound's and the systematic tests' always, the ordered and
/// probabilistic bounds' sums (a second pass over every row's keys and products) only for those
/// bounds, the half-ulp bound's (run_hd … run_hpd) only for it. reference(p, format, weights)
/// forms them all.
Reference reference(const Problem& p, FloatFormat format, bool weights, BoundKind sums_for);
/// True when judging under `b` reads the sums that reference(…, BoundKind) forms only for it.
bool needs_sharp_sums(BoundKind b);
struct AlgorithmSpec {
    Algorithm algorithm = Algorithm::Safe;
    FloatFormat accumulate = FloatFormat::Float32;
    FloatFormat p_format = FloatFormat::Float32;
    std::int64_t block = 64;
    BoundKind bound = BoundKind::Running;
    /// Unfused attention (naive, safe): the format its scores S and weights P are stored in
    /// between the kernels (PyTorch's math attention in bfloat16 writes S = QKᵀ and P = softmax(S)
    /// as bfloat16 tensors); none: every intermediate in `accumulate`.
    std::optional<FloatFormat> stored = std::nullopt;
    /// Online with an 8-bit P: P's descale and what its cast does past the range (docs/oracle.md,
    /// "8-bit floats").
    PDescale p_descale = {};
    Fp8Overflow fp8_overflow = Fp8Overflow::Error;
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
    /// Naive, safe: each score and each weight rounded to this format when computed (unfused).
    std::optional<FloatFormat> stored = std::nullopt;
    /// Online with an 8-bit P: P's descale and what its cast does past the range (docs/oracle.md,
    /// "8-bit floats").
    PDescale p_descale = {};
    Fp8Overflow fp8_overflow = Fp8Overflow::Error;
};
/// The emulated output and, on request, the trace: exponentials that overflow (float16's
/// for x > ln 65504 ≈ 11.09), how many underflow, fully masked rows, each online rescaling.
struct Emulation {
    Tensor out;
    std::vector<std::string> trace;
    Fp8Events fp8;  ///< P-collapse and saturation, counted when a format is 8-bit
};
/// Emulates `s` on `p` (a fully masked row follows p.masked_rows; DomainError under Error).
Emulation emulate(const Problem& p, const EmulationSpec& s, bool trace);
/// The emulation of a claimed algorithm, its result rounded to `output`: the one mapping from
/// what a judgement declares to what `emulate` runs.
EmulationSpec emulation_of(const AlgorithmSpec& claim, FloatFormat output);

/// One judged entry.
struct Judged {
    std::int64_t batch = -1, head = -1;  ///< of a 4-D problem (b, h); −1 for a matrix
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
    double failure_probability = 0;  ///< per entry: 0 for the sound bounds, 2^−40 for the probabilistic
    /// The statistical verdict over all entries (docs/oracle.md, "Systematic errors"): two exact
    /// binomial sign tests over rows (one sign a query row: a row's entries share its denominator's
    /// rounding, so they are not independent), each two-sided at kSystematicAlpha / 2 (Bonferroni:
    /// a false alarm on a correct kernel with probability at most kSystematicAlpha in all), for
    /// rounding toward zero and for errors along ∂o/∂(log c) (a temperature); filled by
    /// judge_output, summed over the heads of a batch by judge_batch.
    struct Systematic {
        std::int64_t rows = 0, toward_zero = 0;   ///< rows with a majority of inexact entries one way; toward 0
        double p_rounding = 1;                    ///< the sign test's p-value
        std::int64_t signed_rows = 0, along = 0;  ///< rows where Σ_c e_c g_c ≠ 0; of them > 0
        double p_temperature = 1;
        double eg = 0, gg = 0;   ///< Σ e g and Σ g² over the entries whose g has a certain sign
        double temperature = 0;  ///< the least-squares relative scale error eg / gg
        double floor = 0;        ///< the smallest |temperature| reported (8 u_a: a rounded c is within 2 u_a)
        std::string verdict;     ///< "" or what the tests found
    } systematic;
    std::string diagnosis;  ///< filled by diagnose()
    [[nodiscard]] bool passed() const { return over == 0 && systematic.verdict.empty(); }
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

/// The tensor layouts of a batch of heads: (B, H, N, D), PyTorch's SDPA and FlashAttention's
/// varlen-free API in memory order b, h, n, d; or (B, N, H, D), FlashAttention's `flash_attn_func`.
enum class Layout { BHND, BNHD };
/// `bhnd` or `bnhd`.
Layout parse_layout(std::string_view text, const Location& where = {});

/// A batch of attention problems, one per (b, h), as models hold them: q is 4-D with H_q heads,
/// k and v with H_kv heads, H_q a multiple of H_kv (query head h reads key/value head
/// h / (H_q / H_kv): multi-head, grouped-query or multi-query attention). The mask and the bias
/// are n_q × n_k, or 4-D (B or 1, H_q or 1, n_q, n_k), broadcast over what is 1. Every other
/// field of `options` (causal, window, scale, base, fully masked rows) applies to every head.
struct Batch {
    Tensor q, k, v;
    std::optional<Tensor> mask, bias;
    Layout layout = Layout::BHND;
    Problem options;
};
/// The shape (B, H_q, n_q, d_v) of the batch's output, and the problem of head (b, h) with
/// its mask and bias; ShapeError at `q`, `k`, `v`, `mask`, `bias` or `out` naming the
/// dimension that does not match.
struct BatchShape {
    std::int64_t b = 0, h_q = 0, h_kv = 0, n_q = 0, n_k = 0, d = 0, d_v = 0;
};
BatchShape batch_shape(const Batch& batch);
Problem head_problem(const Batch& batch, const BatchShape& s, std::int64_t b, std::int64_t h);
/// The (n_q × d_v) slice of head (b, h) of a 4-D output `out` in the batch's layout
/// (B, H_q, n_q, d_v or B, n_q, H_q, d_v), ShapeError at `name` on another shape; and the
/// inverse, heads' matrices written into one 4-D tensor in that layout.
Tensor head_slice(const Tensor& out, Layout layout, const BatchShape& s, std::int64_t b, std::int64_t h,
                  std::int64_t cols, const char* name);
/// Runs `f(b, h)` for every head on `threads` threads (0: the hardware's), sharing the calling
/// thread's limits and work budget; the first error any head raises is rethrown (the head named).
void for_each_head(const BatchShape& s, int threads, const std::function<void(std::int64_t, std::int64_t)>& f);

/// The reports of the oracle (docs/oracle.md, "Reports"): one text and one JSON for the command
/// line and Python alike, so the two print the same bytes for the same judgement. Each charges
/// its printing to the work budget first (LimitError past max_work).
struct JudgeReport {
    FloatFormat format = FloatFormat::Float32;
    AlgorithmSpec spec;
    std::int64_t n_q = 0, d_v = 0;
    std::int64_t batch = 0, heads = 0;  ///< of a 4-D problem; 0 for a matrix
    std::vector<Judgement> tensors;     ///< out, then weights and lse when judged
    /// An online claim with an 8-bit P (matrices): P-collapse and saturation in the claim's own
    /// emulation, named in the report (docs/oracle.md, "8-bit floats"); they do not fail it.
    std::optional<Fp8Events> fp8;
    [[nodiscard]] bool passed() const;
};
/// The failure modes of an 8-bit claim on `p`, from its emulation with output format `f`
/// (judge_problem's JudgeReport::fp8); nothing unless the claim is online with an 8-bit P.
std::optional<Fp8Events> claimed_fp8_events(const Problem& p, const AlgorithmSpec& spec, FloatFormat f);
std::string judge_text(const JudgeReport& r);
std::string judge_json(const JudgeReport& r);
/// The JSON object of one tensor's judgement (judge_json's "tensors" entries).
std::string judgement_json(const Judgement& j);
/// A reference of one problem, or of every head of a batch (row-major over b, h).
std::string reference_text(const std::vector<Reference>& heads, std::int64_t batch, std::int64_t h);
std::string reference_json(const std::vector<Reference>& heads, std::int64_t batch, std::int64_t h);
std::string emulation_text(const Emulation& e, const EmulationSpec& s);
std::string emulation_json(const Emulation& e, const EmulationSpec& s);

/// The whole judgement of one kernel call, as both front ends make it: the reference of `p`
/// rounded to `f`, `out` judged (and diagnosed when it fails), `weights` and `lse` when given.
JudgeReport judge_problem(const Problem& p, FloatFormat f, const Tensor& out, const Tensor* weights, const Tensor* lse,
                          const AlgorithmSpec& spec, std::optional<double> tolerance_ulps);
/// The heads' references as one: out, its enclosure, exactness and exact text, lse and weights
/// concatenated in (b, h) order, the largest precision; the shape fields of the first head.
Reference concat_heads(const std::vector<Reference>& heads);
/// The outputs of every head's reference as one 4-D tensor in `layout`, in format `f`.
Tensor batch_output(const std::vector<Reference>& refs, const BatchShape& s, Layout layout, FloatFormat f);
/// The reference of every head of a batch (row-major over b, h), heads in parallel.
std::vector<Reference> reference_batch(const Batch& batch, FloatFormat f, bool weights, int threads);
/// `s` emulated on every head of a batch, heads in parallel on `threads` threads (0: every
/// core): the output in the batch's layout (4-D), each head's trace lines prefixed with its head
/// ("head (b=0, h=1): ..."), the 8-bit events summed with their heads; an error names its head.
Emulation emulate_batch(const Batch& batch, const EmulationSpec& s, bool trace, int threads);
/// judge_problem for every head of a batch, heads in parallel on `threads` threads (0: the
/// hardware's): one judgement of the 4-D output whose worst entry is named (b, h, i, j); `lse`,
/// when given, is (B, H_q, n_q) in either layout (FlashAttention's `softmax_lse`).
JudgeReport judge_batch(const Batch& batch, FloatFormat f, const Tensor& out, const Tensor* lse,
                        const AlgorithmSpec& spec, std::optional<double> tolerance_ulps, int threads);

/// The family-wise false-alarm rate of the systematic tests (10^−6: each of the two at half of
/// it), and the two-sided binomial sign test's p-value of k successes in n trials at 1/2.
constexpr double kSystematicAlpha = 1e-6;
double sign_test_p(std::int64_t k, std::int64_t n);
/// The p-values, temperature and verdict of `s` from its counts and sums (judge_output; again
/// after the heads of a batch are summed).
void systematic_verdict(Judgement::Systematic& s);

/// After a failed judgement: the known mistake that explains `output`, each a hypothesis
/// re-emulated and kept only when it fits the output far better than the declared algorithm
/// (docs/oracle.md, "Diagnoses"), or "".
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
