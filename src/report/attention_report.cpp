// SPDX-License-Identifier: MIT
// exactattn: an attention layer's trace as JSON and as tables.
#include <fmt/format.h>

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>

#include "report/attention_json.hpp"
#include "exactattn/attention_report.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/print.hpp"
#include "report/report_json.hpp"

namespace exactattn {

namespace detail {

namespace {

// The entries of one read's column (its scores or its weights), each distinct entry computed
// and printed once: a compact column's key fixes its entry (Column::key), other entries are
// compared by value. The 830 × 830 weights of the bomb suite's layer hold four distinct
// values, and computing, printing and freeing each cell's value was most of its time. The work
// budget is charged as if each entry were computed and printed again (WorkRecorder and
// charge_steps), so that a refusal comes where and as it would without the memo: a step that
// does not fit is run, and refused with its own message.
class ColumnMemo {
  public:
    struct Entry {
        Value value;
        std::vector<double> computed;  ///< the steps of computing it (Column::at)
        std::vector<double> printed;   ///< the steps of printing it, in the style printed
        std::string text;
        MathStyle style;    ///< the style text is printed in (JSON's: MathForm::Ascii)
        bool done = false;  ///< text, style and printed are set
    };

    explicit ColumnMemo(const Column& c) : c_(c) {}

    /// Entry j, computed now (or its computation charged again); nullptr when absent.
    Entry* at(std::size_t j) {
        const auto key = c_.key(j);
        if (key) {
            const auto it = keyed_.find(*key);
            if (it != keyed_.end()) {
                if (!charge_steps(it->second->computed)) (void)c_.at(j);  // refused as it would be
                return it->second;
            }
        }
        Entry e;
        std::optional<Value> v;
        if (key) c_.compute_factor();  // its work once, as without the memo: not the entry's
        {
            const WorkRecorder recorder(e.computed);
            v = c_.at(j);
        }
        if (!v) return nullptr;
        if (key) {
            e.value = std::move(*v);
            entries_.push_back(std::move(e));
            return keyed_.emplace(*key, &entries_.back()).first->second;
        }
        const auto it = valued_.find(*v);
        if (it != valued_.end()) return it->second;
        e.value = *v;
        e.computed.clear();  // a value compared, not computed again: its computation is charged above
        entries_.push_back(std::move(e));
        return valued_.emplace(std::move(*v), &entries_.back()).first->second;
    }

    /// The text of `e` printed by `print` in `style` (the first time: recorded; after: charged
    /// again; in another style than the first: printed as without the memo).
    static std::string text(Entry& e, const MathStyle& style, const std::function<std::string(const Value&)>& print) {
        if (!e.done) {
            const WorkRecorder recorder(e.printed);
            e.text = print(e.value);
            e.style = style;
            e.done = true;
        } else if (e.style != style) {
            return print(e.value);
        } else if (!charge_steps(e.printed)) {
            (void)print(e.value);  // refused as it would be
        }
        return e.text;
    }

  private:
    const Column& c_;
    std::deque<Entry> entries_;  // stable addresses
    std::unordered_map<std::int64_t, Entry*> keyed_;
    std::unordered_map<Value, Entry*> valued_;
};

}  // namespace

Json layer_to_json(const LayerTrace& t) {
    Json j;
    j["input"] = matrix_json(t.input);
    j["masked"] = t.masked;
    Json heads = Json::array();
    for (const auto& h : t.heads) {
        Json o;
        o["queries"] = matrix_json(h.queries);
        o["keys"] = matrix_json(h.keys);
        o["values"] = matrix_json(h.values);
        Json scores = Json::array();
        Json weights = Json::array();
        Json dens = Json::array();
        const auto ascii = [](const Value& v) { return to_ascii(v); };
        for (const auto& r : h.rows) {
            Json srow = Json::array();
            Json wrow = Json::array();
            ColumnMemo sm(r.scores);
            ColumnMemo wm(r.weights);
            Value zero;
            for (std::size_t p = 0; p < r.marks.size(); ++p) {
                ColumnMemo::Entry* s = sm.at(p);
                srow.push_back(s != nullptr ? Json(ColumnMemo::text(*s, MathForm::Ascii, ascii)) : Json(nullptr));
                ColumnMemo::Entry* w = wm.at(p);
                wrow.push_back(w != nullptr ? ColumnMemo::text(*w, MathForm::Ascii, ascii) : to_ascii(zero));
            }
            scores.push_back(srow);
            weights.push_back(wrow);
            dens.push_back(to_ascii(r.denominator));
        }
        o["scores"] = scores;
        o["denominators"] = dens;
        o["weights"] = weights;
        o["outputs"] = matrix_json(h.outputs());
        heads.push_back(o);
    }
    j["heads"] = heads;
    const Matrix concat = t.concat();
    j["concat"] = matrix_json(concat);
    j["output"] = matrix_json(t.projected ? *t.projected : concat);
    return j;
}

}  // namespace detail

std::string layer_json(const LayerTrace& t) { return detail::layer_to_json(t).dump() + "\n"; }

namespace {

std::vector<std::string> labels_or_numbers(const std::vector<std::string>& labels, std::size_t n) {
    if (labels.size() == n) return labels;
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(std::to_string(i + 1));
    return out;
}

std::string head_name(const LayerTrace& t, std::size_t h) {
    return t.heads.size() == 1 ? "" : fmt::format(" (head {})", h + 1);
}

// The cells of row i after its label, produced on demand in the style of the writer.
using RowCells = std::function<void(std::size_t i, const MathStyle& style, std::vector<Inline>& cells)>;

// A rows × cols matrix with labelled rows and columns; cells computed on demand.
TableBlock matrix_table(const std::string& caption, const std::vector<std::string>& row_labels,
                        const std::vector<std::string>& col_labels, std::size_t rows, RowCells cells_of) {
    TableBlock tab;
    tab.caption = Inline(caption);
    tab.headers.push_back(Inline(""));
    for (const auto& c : col_labels) tab.headers.push_back(Inline().token(c));
    tab.rows = rows;
    tab.row = [row_labels, cells_of = std::move(cells_of)](std::size_t i, const MathStyle& style,
                                                           std::vector<Inline>& cells) {
        cells.clear();
        cells.push_back(Inline().token(row_labels[i]));
        cells_of(i, style, cells);
    };
    return tab;
}

// Cell (i, j) for each of `cols` columns, each computed and printed by the writer.
RowCells each_cell(std::size_t cols, std::function<Inline(std::size_t, std::size_t)> at) {
    return [cols, at = std::move(at)](std::size_t i, const MathStyle&, std::vector<Inline>& cells) {
        for (std::size_t j = 0; j < cols; ++j) cells.push_back(at(i, j));
    };
}

// Row i's cells of a read's column (scores, weights; ColumnMemo): each entry's text is printed
// by the writer, with the writer's charges and places, the first time, and reused after. An
// absent entry is `absent`, or — without one.
void column_cells(const Column& c, const std::optional<Value>& absent, std::vector<Inline>& cells) {
    auto memo = std::make_shared<detail::ColumnMemo>(c);
    for (std::size_t j = 0; j < c.size(); ++j) {
        detail::ColumnMemo::Entry* e = memo->at(j);
        if (e == nullptr && !absent) {
            cells.push_back(Inline("—"));
        } else if (e == nullptr) {
            cells.push_back(Inline().value(*absent));
        } else {
            cells.push_back(Inline().math(Formula().custom([memo, e](const MathStyle& style) {
                return detail::ColumnMemo::text(*e, style,
                                                [&style](const Value& v) { return Formula(v).render(style); });
            })));
        }
    }
}

std::vector<std::string> column_numbers(std::size_t n, const char* prefix) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(fmt::format("{}{}", prefix, i + 1));
    return out;
}

}  // namespace

void add_layer(Document& doc, const LayerTrace& t, const std::vector<std::string>& query_labels,
               const std::vector<std::string>& key_labels) {
    for (std::size_t hi = 0; hi < t.heads.size(); ++hi) {
        const HeadTrace* h = &t.heads[hi];
        const std::size_t nq = h->rows.size();
        const std::size_t nk = nq == 0 ? 0 : h->rows[0].marks.size();
        const auto ql = labels_or_numbers(query_labels, nq);
        const auto kl = labels_or_numbers(key_labels, nk);
        doc.add(matrix_table("Scores" + head_name(t, hi) + " (masked: —)", ql, kl, nq,
                             [h](std::size_t i, const MathStyle&, std::vector<Inline>& cells) {
                                 column_cells(h->rows[i].scores, std::nullopt, cells);
                             }));
        doc.add(matrix_table("Attention weights" + head_name(t, hi) + " (rows: queries, columns: keys)", ql, kl, nq,
                             [h](std::size_t i, const MathStyle&, std::vector<Inline>& cells) {
                                 column_cells(h->rows[i].weights, Value(), cells);
                             }));
        const std::size_t dv = nq == 0 ? 0 : h->rows[0].context.size();
        doc.add(matrix_table(
            "Outputs" + head_name(t, hi), ql, column_numbers(dv, "c"), nq,
            each_cell(dv, [h](std::size_t i, std::size_t j) { return Inline().value(h->rows[i].context[j]); })));
    }
    auto output = std::make_shared<const Matrix>(t.output());
    const std::size_t dout = output->empty() ? 0 : (*output)[0].size();
    doc.add(matrix_table(
        "Layer output", labels_or_numbers(query_labels, output->size()), column_numbers(dout, "y"), output->size(),
        each_cell(dout, [output](std::size_t i, std::size_t j) { return Inline().value((*output)[i][j]); })));
}

}  // namespace exactattn
