// SPDX-License-Identifier: MIT
// exactattn: an attention layer's trace as JSON and as tables.
#include <fmt/format.h>

#include <functional>
#include <memory>

#include "report/attention_json.hpp"
#include "exactattn/attention_report.hpp"
#include "exactattn/print.hpp"
#include "report/report_json.hpp"

namespace exactattn {

namespace detail {

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
        for (const auto& r : h.rows) {
            Json srow = Json::array();
            Json wrow = Json::array();
            for (std::size_t p = 0; p < r.marks.size(); ++p) {
                const auto s = r.scores.at(p);
                srow.push_back(s ? Json(to_ascii(*s)) : Json(nullptr));
                wrow.push_back(to_ascii(r.weights.at(p).value_or(Value())));
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

// A rows × cols matrix with labelled rows and columns; cells computed on demand.
TableBlock matrix_table(const std::string& caption, const std::vector<std::string>& row_labels,
                        const std::vector<std::string>& col_labels, std::size_t rows,
                        const std::function<Inline(std::size_t, std::size_t)>& at) {
    TableBlock tab;
    tab.caption = Inline(caption);
    tab.headers.push_back(Inline(""));
    for (const auto& c : col_labels) tab.headers.push_back(Inline().token(c));
    tab.rows = rows;
    const std::size_t cols = col_labels.size();
    tab.row = [row_labels, cols, at](std::size_t i, MathForm, std::vector<Inline>& cells) {
        cells.clear();
        cells.push_back(Inline().token(row_labels[i]));
        for (std::size_t j = 0; j < cols; ++j) cells.push_back(at(i, j));
    };
    return tab;
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
        doc.add(
            matrix_table("Scores" + head_name(t, hi) + " (masked: —)", ql, kl, nq, [h](std::size_t i, std::size_t j) {
                const auto s = h->rows[i].scores.at(j);
                return s ? Inline().value(*s) : Inline("—");
            }));
        doc.add(matrix_table(
            "Attention weights" + head_name(t, hi) + " (rows: queries, columns: keys)", ql, kl, nq,
            [h](std::size_t i, std::size_t j) { return Inline().value(h->rows[i].weights.at(j).value_or(Value())); }));
        const std::size_t dv = nq == 0 ? 0 : h->rows[0].context.size();
        doc.add(matrix_table("Outputs" + head_name(t, hi), ql, column_numbers(dv, "c"), nq,
                             [h](std::size_t i, std::size_t j) { return Inline().value(h->rows[i].context[j]); }));
    }
    auto output = std::make_shared<const Matrix>(t.output());
    const std::size_t dout = output->empty() ? 0 : (*output)[0].size();
    doc.add(matrix_table("Layer output", labels_or_numbers(query_labels, output->size()), column_numbers(dout, "y"),
                         output->size(),
                         [output](std::size_t i, std::size_t j) { return Inline().value((*output)[i][j]); }));
}

}  // namespace exactattn
