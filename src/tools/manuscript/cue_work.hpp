// SPDX-License-Identifier: MIT
// exactattn internal: the state Binder::cues_for's steps share (binder_cues.cpp,
// binder_fields.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>

#include "tools/manuscript/binder.hpp"

namespace exactattn::manuscript::binding {

/// The cues of one number as cues_for gathers them: its windows, its scores, and what one step
/// leaves to the next.
struct CueWork {
    Scores sc;
    Span sent, para;                     ///< its sentence and paragraph, bounded
    const Section* sec = nullptr;        ///< its section
    std::size_t sec_b = 0;               ///< where its section's window starts
    std::size_t reach = 0;               ///< how far back a paragraph's level reaches
    std::size_t field_at = 0;            ///< the nearest field word before it in its sentence
    bool named_in_sentence = false;      ///< an entity is named in its own sentence
    bool named_in_item = false;          ///< it stands in a list item of an exercise (the item names it)
    bool rows_are_positions = false;     ///< its table holds a row per position
    std::set<std::string> label_fields;  ///< the fields a formula's name states
    std::string unit;                    ///< the unit after it ("steps"), when one is
    std::size_t unit_end = 0;            ///< where that unit ends in the text
    void give(int e, double w) {
        auto& x = sc.entity[e];
        x = std::max(x, w);
    }
    void field(const std::string& f, double w) {
        auto& x = sc.field[f];
        x = std::max(x, w);
    }
    void label_field(const std::string& f) {
        field(f, 8);
        label_fields.insert(f);
    }
};

}  // namespace exactattn::manuscript::binding
