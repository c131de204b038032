// SPDX-License-Identifier: MIT
// exactattn: `check --variants DIR --answers CSV` — a class graded against the variants of an
// exercise, one row per answer judged as `check` judges it, and the class report.
#include <fmt/format.h>
#include <gmpxx.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>

#include "exactattn/class_report.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "exactattn/wording.hpp"
#include "render/metrics.hpp"
#include "scenario/json.hpp"
#include "tools/check/csv.hpp"

namespace exactattn {

namespace {

namespace fs = std::filesystem;

// One variant file of the directory, loaded and run the first time a row names it.
struct VariantFile {
    std::size_t number = 0;
    std::string path;
    std::optional<Scenario> scenario;
    std::optional<std::uint64_t> seed;  ///< its variation's `seed` (or, written before that key, its title's)
};

Error line_error(const std::string& file, int line, ErrorKind kind, const std::string& reason) {
    Location where;
    where.file = file;
    where.line = line;
    return Error(kind, where, reason);
}

// A whole number written in decimal digits only, at most `max`; none otherwise.
std::optional<std::uint64_t> whole_number(const std::string& text, std::uint64_t max) {
    if (text.empty() || text.size() > 20 ||
        !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return std::nullopt;
    }
    const mpz_class n(text);
    if (n > mpz_class(std::to_string(max))) return std::nullopt;
    std::uint64_t out = 0;
    for (char c : text) out = out * 10 + static_cast<std::uint64_t>(c - '0');
    return out;
}

// The seed `variants` wrote at the end of each variant's title, "… — exercise 1, variant seed S",
// before it wrote the variation's `seed`: a directory written then is still graded.
std::optional<std::uint64_t> title_seed(const std::string& title) {
    const std::string mark = "variant seed ";
    const auto at = title.rfind(mark);
    if (at == std::string::npos) return std::nullopt;
    return whole_number(title.substr(at + mark.size()), UINT64_MAX);
}

std::vector<VariantFile> variant_files_in(const std::string& dir) {
    Location where;
    where.context = "--variants";
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        throw usage_error(
            fmt::format("{} is not a directory (give the directory `exactattn variants -o DIR` wrote)", dir), where);
    }
    std::vector<VariantFile> out;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("variant-", 0) != 0 || name.size() <= 13 || name.substr(name.size() - 5) != ".json") continue;
        const auto n = whole_number(name.substr(8, name.size() - 13), 1000000);
        if (!n || *n == 0) continue;
        out.push_back({static_cast<std::size_t>(*n), e.path().string(), std::nullopt, std::nullopt});
    }
    if (out.empty()) {
        throw usage_error(fmt::format("{} holds no variant-NN.json files (give the directory `exactattn variants -o "
                                      "DIR` wrote)",
                                      dir),
                          where);
    }
    std::sort(out.begin(), out.end(), [](const VariantFile& x, const VariantFile& y) { return x.number < y.number; });
    return out;
}

const Exercise& varied_exercise(const VariantFile& v) {
    for (const auto& e : v.scenario->exercises) {
        if (e.variation) return e;
    }
    Location where;
    where.file = v.path;
    where.pointer = "/exercises";
    throw reference_error("the file has no exercise with a variation: it is not a variant `exactattn variants` wrote",
                          where);
}

void load(VariantFile& v) {
    if (v.scenario) return;
    v.scenario = load_scenario(v.path);
    const auto& written = varied_exercise(v).variation->seed;
    v.seed = written ? written : title_seed(v.scenario->title);
}

std::string part_label(const Exercise& e, const std::string& target) {
    for (const auto& p : e.variation->parts) {
        if (p.at == target) return p.label;
    }
    return target;
}

std::string range_text(const std::vector<VariantFile>& files) {
    return files.size() == 1 ? fmt::format("variant {}", files.front().number)
                             : fmt::format("variants {} to {}", files.front().number, files.back().number);
}

// The variant a row names, or the reason it names none.
VariantFile* row_variant(std::vector<VariantFile>& files, const std::string& dir, const std::string& variant,
                         const std::string& seed, std::string& why) {
    if (!variant.empty()) {
        const auto n = whole_number(variant, 1000000);
        for (auto& f : files) {
            if (n && f.number == *n) return &f;
        }
        why = fmt::format("variant \"{}\" does not exist: {} holds {}", variant, dir, range_text(files));
        return nullptr;
    }
    if (seed.empty()) {
        why = "the row names no variant: give its variant number (column variant) or its seed (column seed)";
        return nullptr;
    }
    const auto s = whole_number(seed, UINT64_MAX);
    if (!s) {
        why = fmt::format("seed \"{}\" is out of range: a seed is a whole number from 0 to 18446744073709551615", seed);
        return nullptr;
    }
    for (auto& f : files) {
        load(f);
        if (f.seed == s) return &f;
    }
    why = fmt::format("no variant in {} has seed {} (the seeds are printed in the keys, key-NN.md)", dir, *s);
    return nullptr;
}

// The columns of a class file's header: student, answer, variant, seed and target (the last
// three optional, variant or seed required).
struct ClassColumns {
    std::optional<std::size_t> student, answer, variant, seed, target;
};
ClassColumns class_columns(const std::vector<std::string>& header, const std::string& csv) {
    for (const auto& h : header) {
        try {
            check_utf8(h, "");
        } catch (const Error& e) {
            throw line_error(csv, 1, ErrorKind::Parse, "the header is not UTF-8: " + e.reason());
        }
    }
    const auto column = [&header](const char* name) -> std::optional<std::size_t> {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end()) return std::nullopt;
        return static_cast<std::size_t>(it - header.begin());
    };
    const ClassColumns c{column("student"), column("answer"), column("variant"), column("seed"), column("target")};
    if (!c.student || !c.answer || (!c.variant && !c.seed)) {
        throw line_error(csv, 1, ErrorKind::Parse,
                         fmt::format("the header has no column \"{}\" (it needs student, answer, and variant or seed; "
                                     "target is optional)",
                                     !c.student  ? "student"
                                     : !c.answer ? "answer"
                                                 : "variant"));
    }
    return c;
}

// Why a record cannot be read: a count of fields other than the header's, or the first field
// that is not UTF-8 (the row's line places the byte in the file); none when it can be.
std::optional<std::string> record_fault(const std::vector<std::string>& rec, const std::vector<std::string>& header) {
    if (rec.size() != header.size()) return fmt::format("{} fields where the header has {}", rec.size(), header.size());
    for (std::size_t k = 0; k < rec.size(); ++k) {
        if (const auto fault = find_invalid_utf8(rec[k]))
            return fmt::format("the {} field is not UTF-8 ({}): save the class file as UTF-8", header[k],
                               fault->reason());
    }
    return std::nullopt;
}

// One run report per variant named, every row of it judged against it (`rows`: the rows of g
// whose proposal parsed, by variant); a target that names nothing refuses its row only.
void judge_by_variant(const std::map<VariantFile*, std::vector<std::size_t>>& by_variant,
                      const std::map<std::size_t, LearnerAnswer>& proposals, const std::string& csv, ClassGrade& g) {
    for (const auto& [vf, rows] : by_variant) {
        const Report rep = run_scenario(*vf->scenario);
        std::vector<LearnerAnswer> answers;
        for (auto r : rows) answers.push_back(proposals.at(r));
        try {
            auto js = judge_all(rep, answers);
            for (std::size_t k = 0; k < rows.size(); ++k) g.rows[rows[k]].judged = std::move(js[k]);
        } catch (const Error&) {
            for (std::size_t k = 0; k < rows.size(); ++k) {
                try {
                    g.rows[rows[k]].judged = judge(rep, answers[k]);
                } catch (const Error& e) {
                    g.rows[rows[k]].refusal = line_error(csv, g.rows[rows[k]].line, e.kind(),
                                                         fmt::format("{} (in {})", e.reason(), vf->path));
                }
            }
        }
    }
}

}  // namespace

std::size_t ClassGrade::refused() const {
    return static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [](const ClassRow& r) { return r.refusal.has_value(); }));
}

std::size_t ClassGrade::wrong_or_invalid() const {
    return static_cast<std::size_t>(std::count_if(
        rows.begin(), rows.end(), [](const ClassRow& r) { return !r.refusal && (!r.judged || !r.judged->correct); }));
}

ClassGrade grade_class(const std::string& directory, const std::string& csv, const std::optional<Tolerance>& tolerance,
                       const std::vector<std::string>& accept) {
    ClassGrade g;
    g.directory = directory;
    g.csv = csv;
    std::vector<VariantFile> files = variant_files_in(directory);
    g.variants = files.size();
    load(files.front());
    const Exercise& first = varied_exercise(files.front());
    g.exercise = first.id;
    g.title = first.title;

    const std::string text = read_input_file(csv);
    const detail::CsvRecords table = detail::read_csv_records(text, csv);
    if (table.records.empty()) {
        throw line_error(csv, 1, ErrorKind::Parse,
                         "no header: the first record must name the columns student, answer and variant or seed");
    }
    const auto& header = table.records.front();
    const auto [cs, ca, cv, cseed, ct] = class_columns(header, csv);

    // Each row's variant and proposal; the rows of one variant are judged together.
    std::map<VariantFile*, std::vector<std::size_t>> by_variant;
    std::map<std::size_t, LearnerAnswer> proposals;
    for (std::size_t r = 1; r < table.records.size(); ++r) {
        const auto& rec = table.records[r];
        ClassRow row;
        row.line = table.lines[r];
        const auto refuse = [&](ErrorKind kind, const std::string& why) {
            row.refusal = line_error(csv, row.line, kind, why);
        };
        if (const auto fault = record_fault(rec, header)) {
            refuse(ErrorKind::Parse, *fault);
            g.rows.push_back(std::move(row));
            continue;
        }
        row.student = rec[*cs];
        row.answer = rec[*ca];
        const std::string variant = cv ? rec[*cv] : std::string();
        const std::string seed = cseed ? rec[*cseed] : std::string();
        row.variant_text = !variant.empty() ? variant : seed;
        std::string why;
        VariantFile* vf = row_variant(files, directory, variant, seed, why);
        if (vf == nullptr) {
            refuse(ErrorKind::Reference, why);
            g.rows.push_back(std::move(row));
            continue;
        }
        load(*vf);
        const Exercise& ex = varied_exercise(*vf);
        row.variant = vf->number;
        row.seed = vf->seed.value_or(0);
        row.target = ct && !rec[*ct].empty() ? rec[*ct] : ex.variation->answer;
        row.part = part_label(ex, row.target);
        LearnerAnswer la;
        la.name = row.student;
        la.target = row.target;
        try {
            read_proposal(row.answer, la);
        } catch (const Error& e) {
            row.invalid = fmt::format("the answer does not parse: {}", e.what());
        }
        if (row.invalid.empty()) {
            CheckRequest req;
            req.ad_hoc = std::move(la);
            req.tolerance = tolerance;
            req.accept = accept;
            proposals[g.rows.size()] = select_answers(*vf->scenario, req).front();
            by_variant[vf].push_back(g.rows.size());
        }
        g.rows.push_back(std::move(row));
    }

    judge_by_variant(by_variant, proposals, csv, g);
    return g;
}

// ---------------------------------------------------------------------------------------------
// The class report.

std::string mistake_label(const std::string& id) {
    const auto plus = id.find('+');
    if (plus != std::string::npos)
        return mistake_label(id.substr(0, plus)) + " + " + mistake_label(id.substr(plus + 1));
    static const std::map<std::string, std::string> labels = {
        {"divide-by-count", "divided by the count"},
        {"forget-exp", "no exponentials"},
        {"e-instead-of-2", "e^k for 2^k"},
        {"equal-weights", "equal weights"},
        {"unnormalized-exponentials", "not normalised"},
        {"forget-renormalize", "not renormalised"},
        {"remaining-weights", "remaining positions only"},
        {"zero-score-for-removal", "zero score for removal"},
        {"delete-without-reencoding", "not re-encoded"},
        {"embeddings-instead-of-states", "embeddings for states"},
        {"drop-a", "dropped a"},
        {"forget-scale", "forgot the scale"},
        {"no-causal-mask", "no causal mask"},
        {"mask-off-by-one-late", "mask one key late"},
        {"mask-off-by-one-early", "mask one key early"},
        {"wrong-axis", "wrong softmax axis"},
        {"forget-padding-mask", "forgot the padding mask"},
        {"forget-residual", "forgot the residual"},
        {"forget-wo", "forgot W_O"},
        {"other-tied-token", "another tied token"},
        {"other-regime", "the other regime"},
        {"reference-token", "the reference token"},
    };
    const auto it = labels.find(id);
    return it == labels.end() ? id : it->second;
}

namespace {

// The outcomes of one part: right, each mistake (the most frequent first), none, invalid.
struct Outcome {
    std::string key;    ///< "right", a mistake id, "unexplained", "invalid", "refused"
    std::string label;  ///< what the table and the chart say
    std::size_t count = 0;
};

struct PartSummary {
    std::string target;
    std::string part;
    std::size_t answers = 0, right = 0, wrong = 0, invalid = 0, unexplained = 0;
    std::vector<Outcome> mistakes;  ///< the most frequent first (ties: first appearance)
};

std::vector<PartSummary> summaries(const ClassGrade& g) {
    std::vector<PartSummary> out;
    for (const auto& r : g.rows) {
        if (r.refusal) continue;
        auto it = std::find_if(out.begin(), out.end(), [&r](const PartSummary& p) { return p.target == r.target; });
        if (it == out.end()) {
            out.push_back({r.target, r.part, 0, 0, 0, 0, 0, {}});
            it = out.end() - 1;
        }
        ++it->answers;
        if (!r.judged) {
            ++it->invalid;
            continue;
        }
        if (r.judged->correct) {
            ++it->right;
            continue;
        }
        ++it->wrong;
        if (r.judged->mistake_id.empty()) {
            ++it->unexplained;
            continue;
        }
        auto m = std::find_if(it->mistakes.begin(), it->mistakes.end(),
                              [&r](const Outcome& o) { return o.key == r.judged->mistake_id; });
        if (m == it->mistakes.end()) {
            it->mistakes.push_back({r.judged->mistake_id, mistake_label(r.judged->mistake_id), 0});
            m = it->mistakes.end() - 1;
        }
        ++m->count;
    }
    // The most frequent mistake first: what the class got wrong most, at a glance.
    for (auto& p : out) {
        std::stable_sort(p.mistakes.begin(), p.mistakes.end(),
                         [](const Outcome& x, const Outcome& y) { return x.count > y.count; });
    }
    return out;
}

std::vector<Outcome> outcomes(const PartSummary& p) {
    std::vector<Outcome> out{{"right", "right", p.right}};
    for (const auto& m : p.mistakes) out.push_back(m);
    out.push_back({"unexplained", "no known mistake", p.unexplained});
    if (p.invalid > 0) out.push_back({"invalid", "does not parse", p.invalid});
    return out;
}

// A horizontal bar per outcome, longest = the class, its count at its end.
FigureBlock chart(const PartSummary& p, std::size_t index) {
    const auto rows = outcomes(p);
    constexpr double size = 9;
    constexpr double bar = 14;
    constexpr double gap = 6;
    constexpr double top = 8;
    double label_w = 0;
    for (const auto& o : rows) label_w = std::max(label_w, detail::text_width(o.label, size));
    FigureBlock fb;
    fb.label = fmt::format("class-part-{}", index + 1);
    fb.caption = Inline(fmt::format("What the class answered for {}: {} of {} right.", p.part, p.right, p.answers));
    Picture& pic = fb.picture;
    pic.width = 340;
    const double x0 = std::min(label_w, 200.0) + 10;
    const double count_room = detail::text_width(std::to_string(p.answers), size) + 8;
    const double span = pic.width - x0 - count_room - 4;
    pic.height = top + static_cast<double>(rows.size()) * (bar + gap) + 4;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Outcome& o = rows[i];
        const double y = top + static_cast<double>(i) * (bar + gap);
        const std::string label = detail::text_width(o.label, size) > x0 - 10
                                      ? detail::text_prefix(o.label, "…", x0 - 10, size) + "…"
                                      : o.label;
        pic.text(x0 - 6, y + bar - 3.5, Inline(label), Picture::Anchor::End, size);
        const double w = p.answers == 0 ? 0 : span * static_cast<double>(o.count) / static_cast<double>(p.answers);
        const std::string fill = o.key == "right"         ? "#3a7d2c"
                                 : o.key == "unexplained" ? "#7a7a7a"
                                 : o.key == "invalid"     ? "#b0b0b0"
                                                          : "#c8641e";
        if (o.count > 0) pic.box(x0, y, w, bar, fill, false);
        pic.text(x0 + w + 4, y + bar - 3.5, Inline(std::to_string(o.count)), Picture::Anchor::Start, size);
        fb.description.emplace_back(fmt::format("{}: {}", o.label, o.count));
    }
    pic.arrow(x0, top - 3, x0, pic.height - 2, false);
    return fb;
}

std::string verdict_of(const ClassRow& r) {
    return r.refusal ? "refused" : !r.judged ? "invalid" : r.judged->correct ? "right" : "wrong";
}

}  // namespace

Document class_report_document(const ClassGrade& g) {
    Document d;
    d.title = fmt::format("Class report: exercise {}", g.exercise);
    d.add(Heading{
        1, Inline(fmt::format("Class report: exercise {}{}", g.exercise, g.title.empty() ? "" : ", " + g.title))});
    std::size_t right = 0, wrong = 0, invalid = 0;
    for (const auto& r : g.rows) {
        if (r.refusal) continue;
        (!r.judged ? invalid : r.judged->correct ? right : wrong)++;
    }
    d.add(Paragraph{Inline(fmt::format(
        "{} from the class file {}, graded against {} in {}: {} right, {} wrong, {}{}.",
        counted(g.rows.size(), "answer", "answers"), g.csv, counted(g.variants, "variant", "variants"), g.directory,
        right, wrong, counted(invalid, "answer does not parse", "answers do not parse"),
        g.refused() == 0 ? "" : fmt::format("; {} refused (below)", counted(g.refused(), "row was", "rows were"))))});
    const auto parts = summaries(g);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const PartSummary& p = parts[i];
        d.add(Heading{2, Inline(fmt::format("{} ({})", p.part, p.target))});
        TableBlock t;
        t.label = fmt::format("class-part-{}-outcomes", i + 1);
        t.caption = Inline(fmt::format("Outcomes for {}: {} of {} right; {} no known mistake explains.", p.part,
                                       p.right, p.answers, counted(p.unexplained, "wrong answer", "wrong answers")));
        for (const char* h : {"outcome", "mistake id", "answers", "part"}) t.headers.emplace_back(h);
        for (const auto& o : outcomes(p)) {
            const bool is_mistake = o.key != "right" && o.key != "unexplained" && o.key != "invalid";
            t.add_row(
                {Inline(o.label), Inline(is_mistake ? o.key : ""), Inline(std::to_string(o.count)), Inline(p.target)});
        }
        d.add(std::move(t));
        d.add(chart(p, i));
    }
    TableBlock rows;
    rows.label = "class-answers";
    rows.caption = Inline("One row per answer, in the order of the class file.");
    for (const char* h :
         {"line", "student", "variant", "seed", "target", "answer", "verdict", "rule", "mistake", "feedback"}) {
        rows.headers.emplace_back(h);
    }
    for (const auto& r : g.rows) {
        const std::string feedback = r.refusal ? r.refusal->reason() : !r.judged ? r.invalid : r.judged->feedback;
        rows.add_row({Inline(std::to_string(r.line)), Inline(r.student),
                      Inline(r.variant > 0 ? std::to_string(r.variant) : r.variant_text),
                      Inline(r.variant > 0 ? std::to_string(r.seed) : ""), Inline(r.target), Inline(r.answer),
                      Inline(verdict_of(r)), Inline(r.judged ? r.judged->rule : ""),
                      Inline(r.judged ? r.judged->mistake_id : ""), Inline(feedback)});
    }
    d.add(std::move(rows));
    return d;
}

std::string class_report_json(const ClassGrade& g) {
    using detail::Json;
    Json out = Json::object();
    out["exercise"] = g.exercise;
    out["variants"] = g.variants;
    out["parts"] = Json::array();
    for (const auto& p : summaries(g)) {
        Json mistakes = Json::array();
        for (const auto& m : p.mistakes) mistakes.push_back(Json{{"id", m.key}, {"count", m.count}});
        out["parts"].push_back(Json{{"target", p.target},
                                    {"part", p.part},
                                    {"answers", p.answers},
                                    {"right", p.right},
                                    {"wrong", p.wrong},
                                    {"invalid", p.invalid},
                                    {"unexplained", p.unexplained},
                                    {"mistakes", std::move(mistakes)}});
    }
    out["rows"] = Json::array();
    for (const auto& r : g.rows) {
        Json j = Json::object();
        j["line"] = r.line;
        j["student"] = r.student;
        j["variant"] = r.variant > 0 ? Json(r.variant) : Json(nullptr);
        j["seed"] = r.variant > 0 ? Json(std::to_string(r.seed)) : Json(nullptr);
        j["target"] = r.target;
        j["answer"] = r.answer;
        j["verdict"] = verdict_of(r);
        j["rule"] = r.judged ? Json(r.judged->rule) : Json(nullptr);
        j["mistake_id"] = r.judged && !r.judged->mistake_id.empty() ? Json(r.judged->mistake_id) : Json(nullptr);
        j["mistake"] = r.judged && !r.judged->mistake.empty() ? Json(r.judged->mistake) : Json(nullptr);
        j["feedback"] = r.refusal ? r.refusal->reason() : !r.judged ? r.invalid : r.judged->feedback;
        out["rows"].push_back(std::move(j));
    }
    out["refused"] = g.refused();
    return out.dump() + "\n";
}

}  // namespace exactattn
