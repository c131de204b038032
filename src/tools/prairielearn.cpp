// SPDX-License-Identifier: MIT
// exactattn: the variants of an exercise as a PrairieLearn question (docs/variants.md,
// "PrairieLearn"): info.json, question.html and a standard-library-only server.py that judges
// an answer as `check` does, by exact rational arithmetic on the values written into it.
#include <fmt/format.h>

#include <gmpxx.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "exactattn/answer_entry.hpp"
#include "exactattn/check.hpp"
#include "exactattn/error.hpp"
#include "exactattn/print.hpp"
#include "exactattn/variants.hpp"
#include "report/report_json.hpp"
#include "scenario/json.hpp"
#include "tools/check/mistakes.hpp"
#include "tools/lms_html.hpp"

namespace exactattn {

namespace {

using detail::Json;

/// The most decimal places a submission may have (server.py's MAX_PLACES): every irrational value
/// is written as an enclosure that no decimal of at most this many places, moved by the tolerance,
/// falls into, so server.py decides every comparison it is asked.
constexpr int max_places = 40;

mpz_class pow10(int k) {
    mpz_class p;
    mpz_ui_pow_ui(p.get_mpz_t(), 10, static_cast<unsigned long>(k));
    return p;
}

/// n / 10^k written as an exact decimal (`-0.000123`), which Python's Fraction reads back exactly.
std::string decimal_text(const mpz_class& n, int k) {
    const bool negative = sgn(n) < 0;
    std::string digits = mpz_class(abs(n)).get_str();
    if (static_cast<int>(digits.size()) <= k) digits.insert(0, static_cast<std::size_t>(k) + 1 - digits.size(), '0');
    const std::size_t point = digits.size() - static_cast<std::size_t>(k);
    std::string out = (negative ? "-" : "") + digits.substr(0, point);
    if (k > 0) out += "." + digits.substr(point);
    return out;
}

mpz_class floor_of(const mpq_class& q) {
    mpz_class f;
    mpz_fdiv_q(f.get_mpz_t(), q.get_num_mpz_t(), q.get_den_mpz_t());
    return f;
}

/// Whether the open interval (a, b) holds a multiple of 10^-places.
bool holds_decimal(const mpq_class& a, const mpq_class& b, int places) {
    const mpq_class scale(pow10(places));
    return mpq_class(floor_of(a * scale) + 1) < b * scale;
}

/// A value for server.py: "p/q" when it is rational, else ["lo", "hi"], decimals with lo < t < hi
/// such that no decimal s of at most max_places places has s − E or s + E inside (lo, hi) (E the
/// tolerance): then |s − t| ≤ E is decided by comparing s ± E with lo and hi. An irrational t ± E
/// is no such decimal, so a fine enough enclosure always separates it.
Json value_json(const Real& t, const mpq_class& tolerance) {
    if (t.exact && t.exact->is_rational()) return t.exact->rational().get_str();
    for (std::int64_t bits = 320; bits <= 40000; bits *= 2) {
        const RationalInterval iv = t.at(bits);
        const int k = static_cast<int>(bits * 3 / 10);  // decimals as fine as the enclosure
        const mpq_class scale(pow10(k));
        const mpz_class lo = floor_of(iv.lo * scale);
        const mpz_class hi = floor_of(iv.hi * scale) + 1;
        const mpq_class l(lo, pow10(k));
        const mpq_class h(hi, pow10(k));
        if (holds_decimal(l - tolerance, h - tolerance, max_places) ||
            holds_decimal(l + tolerance, h + tolerance, max_places)) {
            continue;
        }
        return Json::array({decimal_text(lo, k), decimal_text(hi, k)});
    }
    throw domain_error("a value of the answer cannot be told from a decimal of 40 places at the tolerance's distance");
}

/// A string of the Python source: a JSON string is a Python string literal.
std::string py(const std::string& s) { return Json(s).dump(); }

/// A deterministic UUID (version 4 layout) from the set: the same set gives the same info.json.
std::string question_uuid(const VariantSet& set) {
    std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over what names the set
    const std::string key = fmt::format("exactattn prairielearn\n{}\n{}\n{}\n{}", set.source, set.exercise.id, set.seed,
                                        set.variants.size());
    for (unsigned char c : key) h = (h ^ c) * 0x100000001b3ULL;
    SplitMix64 rng(h);
    const std::uint64_t a = rng.next();
    const std::uint64_t b = rng.next();
    const std::string hex = fmt::format("{:016x}{:016x}", (a & ~0xf000ULL) | 0x4000ULL,
                                        (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL);
    return fmt::format("{}-{}-{}-{}-{}", hex.substr(0, 8), hex.substr(8, 4), hex.substr(12, 4), hex.substr(16, 4),
                       hex.substr(20));
}

const Json& answer_json(const Json& doc, const VariantSet& set) {
    Location where;
    where.file = set.source;
    where.pointer = set.exercise.variation->answer;
    const Json& j = detail::resolve_pointer(doc, set.exercise.variation->answer, where);
    if (j.is_array() || j.is_object() || j.is_null()) {
        throw shape_error("the answer of a PrairieLearn question is one number; this pointer names a row or nothing",
                          where);
    }
    return j;
}

std::string label_of(const Variation& var) {
    for (const auto& p : var.parts) {
        if (p.at == var.answer) return p.label;
    }
    return "the answer";
}

/// One variant as server.py's data: what generate() shows and grade() compares with.
Json variant_json(const VariantSet& set, const Variant& v) {
    const Variation& var = *set.exercise.variation;
    const Json doc = detail::report_to_json(v.report);
    Location where;
    where.file = set.source;
    where.pointer = var.answer;
    const Value answer = detail::json_value(answer_json(doc, set), where);
    const std::string ascii = to_ascii(answer);
    const bool with_a = ascii.find('a') != std::string::npos;
    Json out = Json::object();
    out["number"] = static_cast<std::int64_t>(v.number);
    out["seed"] = std::to_string(v.seed);
    out["prompt"] = detail::lms_html(inline_markdown(v.report.scenario.exercises.front().prompt));
    out["ask"] = "Give " + detail::lms_html(inline_markdown(label_of(var))) + " as a decimal number.";
    out["decimal"] = to_significant(answer, 15);
    out["exact"] =
        fmt::format("{}{} (≈ {})", to_unicode(answer), with_a ? " with a = ln 2" : "", to_significant(answer, 15));
    out["recreate"] = fmt::format("exactattn variants {} --exercise {} --variant-seed {} -o DIR", set.source,
                                  set.exercise.id, v.seed);
    const mpq_class tolerance = var.tolerance.rational();
    out["answer"] = value_json(Real::of(answer), tolerance);
    // Every wrong method of the registry, in the order `check` tries them; one that gives the
    // right value is left out, as `check` skips it (it cannot be told from the right method).
    const auto wrong = detail::mistaken_answers(v.report, doc, var.answer, wrong_method_ids(), where);
    Json mistakes = Json::array();
    for (std::size_t i = 0; i < wrong.by_id.size(); ++i) {
        const auto& [id, values] = wrong.by_id[i];
        if (values.size() != 1 || !values.front()) continue;
        const Real& m = *values.front();
        if (m.exact && *m.exact == answer) continue;
        Json entry = Json::object();
        entry["id"] = id;
        entry["explain"] = wrong.explain[i];
        entry["value"] = value_json(m, tolerance);
        mistakes.push_back(std::move(entry));
    }
    out["mistakes"] = std::move(mistakes);
    return out;
}

// The grader. Kept to Python's standard library (re, fractions): the question runs in any
// PrairieLearn course without packages. @NAME@ markers are filled in below.
constexpr const char* server_template =
    R"PY(# exactattn: a PrairieLearn question written by `exactattn variants` (docs/variants.md,
# "PrairieLearn"). Standard library only. generate() picks a variant from PrairieLearn's
# variant_seed by integer arithmetic; grade() judges the answer as `exactattn check` does, by
# exact rational arithmetic, and names the registered mistake that reproduces a wrong answer.
import re
from fractions import Fraction

QUESTION = @QUESTION@

# The declared absolute tolerance E: a decimal s is right when |s - t| <= E, the boundary
# included, as in `exactattn check --tolerance absolute:E` and the Moodle export. An integer or
# a fraction p/q is an exact form, right only when it equals t.
TOLERANCE = Fraction(@TOLERANCE@)
TOLERANCE_TEXT = @TOLERANCE_TEXT@
# A decimal may have at most this many places (exponent and percent sign counted): every
# irrational value below is an enclosure ["lo", "hi"] (lo < t < hi) that no such decimal, moved
# by E, falls into, so every comparison is decided.
MAX_PLACES = @MAX_PLACES@

# Per variant: its number and seed, the prompt and the request (HTML, math as \(...\)), the answer
# correctly rounded to 15 significant digits (what PrairieLearn shows), the exact value, and each
# value as "p/q" or ["lo", "hi"]; the registered mistakes in the order `check` tries them.
VARIANTS = @VARIANTS@

_INTEGER = re.compile(r"[+-]?[0-9]+")
_FRACTION = re.compile(r"([+-]?[0-9]+)\s*/\s*([0-9]+)")
_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]{1,6}))?")
_PERCENT = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?%")


def read_answer(text):
    """The submission as (exact Fraction, form), form "exact" or "decimal"; ValueError otherwise."""
    t = text.strip()
    if _INTEGER.fullmatch(t):
        return Fraction(int(t)), "exact"
    m = _FRACTION.fullmatch(t)
    if m:
        if int(m.group(2)) == 0:
            raise ValueError("a fraction's denominator is 0")
        return Fraction(int(m.group(1)), int(m.group(2))), "exact"
    m = _DECIMAL.fullmatch(t)
    percent = m is None
    if percent:
        m = _PERCENT.fullmatch(t)
    if m is None or not (m.group(2) or m.group(3)):
        raise ValueError("write a decimal number (1.134, -0.5, 2.5e-3, 12.5%) or a fraction p/q")
    sign, whole, frac = m.group(1), m.group(2), m.group(3) or ""
    exponent = -2 if percent else int(m.group(4) or 0)
    if len(frac) - exponent > MAX_PLACES:
        raise ValueError("at most %d decimal places, please" % MAX_PLACES)
    if exponent > 400:
        raise ValueError("the number is too large")
    value = Fraction(int((whole or "0") + frac)) * Fraction(10) ** (exponent - len(frac))
    return (-value if sign == "-" else value), "decimal"


def _compare(x, value):
    """-1, 0 or 1 as x is below, equal to or above the value; None where it cannot decide."""
    if isinstance(value, str):
        v = Fraction(value)
        return (x > v) - (x < v)
    if x <= Fraction(value[0]):
        return -1
    if x >= Fraction(value[1]):
        return 1
    return None


def _matches(s, form, value):
    if form == "exact":
        return isinstance(value, str) and s == Fraction(value)
    low, high = _compare(s - TOLERANCE, value), _compare(s + TOLERANCE, value)
    if low is None or high is None:
        raise ValueError("the answer cannot be decided against the exact value")
    return low <= 0 <= high


def _distance_text(s, value):
    """|s - t| as `check` prints a distance: whole when whole, to the unit from 1000, else 3
    significant figures in fixed notation, rounded half to even, trailing zeros dropped."""
    if isinstance(value, str):
        d = abs(s - Fraction(value))
    else:
        d = abs(s - (Fraction(value[0]) + Fraction(value[1])) / 2)
    if d.denominator == 1:
        return str(d.numerator)
    if d >= 1000:
        return str(round(d))
    e = 0
    while d >= Fraction(10) ** (e + 1):
        e += 1
    while d < Fraction(10) ** e:
        e -= 1
    k = 2 - e
    n = round(d * Fraction(10) ** k)
    if n == 1000:
        n, k = 100, k - 1
    if k <= 0:
        return str(n * 10 ** (-k))
    text = "%d.%0*d" % (n // 10 ** k, k, n % 10 ** k)
    return text.rstrip("0").rstrip(".")


def judge(variant, text):
    """(score, feedback, mistake id or None) for the submission `text` to `variant`."""
    s, form = read_answer(text)
    rule = TOLERANCE_TEXT if form == "decimal" else "exact value"
    if _matches(s, form, variant["answer"]):
        return 1, "Right (%s)." % rule, None
    for mistake in variant["mistakes"]:
        if _matches(s, form, mistake["value"]):
            return 0, "Wrong: %s." % mistake["explain"], mistake["id"]
    far = _distance_text(s, variant["answer"])
    return 0, "Wrong: no known mistake reproduces it; it is %s from the exact value." % far, None


def generate(data):
    variant = VARIANTS[int(data["variant_seed"]) % len(VARIANTS)]
    for key in ("number", "seed", "prompt", "ask", "exact", "recreate"):
        data["params"][key] = variant[key]
    data["correct_answers"]["answer"] = float(variant["decimal"])


def parse(data):
    try:
        read_answer(data["raw_submitted_answers"].get("answer", ""))
    except ValueError as error:
        data["format_errors"]["answer"] = str(error)


def grade(data):
    variant = VARIANTS[int(data["params"]["number"]) - 1]
    try:
        score, feedback, mistake = judge(variant, data["raw_submitted_answers"].get("answer", ""))
    except ValueError as error:
        data["format_errors"]["answer"] = str(error)
        return
    data["partial_scores"]["answer"] = {"score": score, "weight": 1, "feedback": feedback}
    data["score"] = score
    data["feedback"]["answer"] = feedback
    if mistake is not None:
        data["feedback"]["mistake"] = mistake
)PY";

/// The template with each @NAME@ replaced by its text, in one pass (a replacement is not read
/// again, so a file name holding "@" changes nothing else).
std::string fill(const std::string& text, const std::map<std::string, std::string>& with) {
    std::string out;
    std::size_t i = 0;
    for (std::size_t at = text.find('@'); at != std::string::npos; at = text.find('@', i)) {
        const std::size_t end = text.find('@', at + 1);
        const auto found = end == std::string::npos ? with.end() : with.find(text.substr(at + 1, end - at - 1));
        if (found == with.end()) {
            out += text.substr(i, at + 1 - i);
            i = at + 1;
            continue;
        }
        out += text.substr(i, at - i) + found->second;
        i = end + 1;
    }
    return out + text.substr(i);
}

}  // namespace

std::vector<OutputFile> prairielearn_files(const VariantSet& set) {
    const Variation& var = *set.exercise.variation;
    const std::string title =
        fmt::format("Exercise {}{}", set.exercise.id, set.exercise.title.empty() ? "" : " — " + set.exercise.title);
    Json info = Json::object();
    info["uuid"] = question_uuid(set);
    info["type"] = "v3";
    info["title"] = title;
    info["topic"] = "Attention";
    info["tags"] = Json::array({"exactattn", "variants"});
    info["gradingMethod"] = "Internal";
    info["singleVariant"] = set.variants.size() == 1;
    info["partialCredit"] = false;

    const std::string html = fmt::format(
        "<!-- {} variant{} of seed {}, written by exactattn variants (docs/variants.md). -->\n"
        "<pl-question-panel>\n"
        "  <p>{{{{{{params.prompt}}}}}}</p>\n"
        "  <p>{{{{{{params.ask}}}}}}</p>\n"
        "</pl-question-panel>\n"
        "<pl-number-input answers-name=\"answer\" label=\"Answer:\"></pl-number-input>\n"
        "<pl-submission-panel>{{{{feedback.answer}}}}</pl-submission-panel>\n"
        "<pl-answer-panel>\n"
        "  <p>Exact value: {{{{params.exact}}}}.</p>\n"
        "  <p>Variant {{{{params.number}}}}, seed {{{{params.seed}}}}: <code>{{{{params.recreate}}}}</code></p>\n"
        "</pl-answer-panel>\n",
        set.variants.size(), set.variants.size() == 1 ? "" : "s", set.seed);

    Json variants = Json::array();
    for (const auto& v : set.variants) variants.push_back(variant_json(set, v));
    const mpq_class tolerance = var.tolerance.rational();
    const std::string server =
        fill(server_template,
             {{"QUESTION", py(fmt::format("{}: {} variant{} of seed {}, from {}", title, set.variants.size(),
                                          set.variants.size() == 1 ? "" : "s", set.seed, set.source))},
              {"TOLERANCE", py(tolerance.get_str())},
              {"TOLERANCE_TEXT", py("absolute tolerance " + tolerance.get_str())},
              {"MAX_PLACES", std::to_string(max_places)},
              {"VARIANTS", variants.dump(1)}});
    return {{"info.json", info.dump(2) + "\n"}, {"question.html", html}, {"server.py", server}};
}

}  // namespace exactattn
