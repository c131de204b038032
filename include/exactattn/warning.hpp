// SPDX-License-Identifier: MIT
// exactattn: warnings — input the library accepted and rendered, but not as well as documented
// (docs/errors.md, "Warnings"), handed to the caller rather than printed.
#pragma once

#include <functional>
#include <string>

#include "exactattn/error.hpp"

namespace exactattn {

/// A warning: author TeX outside the MathML subset, kept verbatim in an HTML page. The library
/// never prints one: it hands each to the caller's WarningSink, and the caller decides (the
/// command line prints `exactattn: warning: place: reason`; Python issues an
/// exactattn.ExactattnWarning).
struct Warning {
    Location where;
    std::string reason;

    /// `place: reason`, or the reason alone when there is no place (as Error::what()).
    [[nodiscard]] std::string str() const { return where.empty() ? reason : where.str() + ": " + reason; }
};

/// Where a library call reports its warnings: called once for each, in the order they are met
/// (the same warning again where the same text is rendered again). Empty: they are dropped.
using WarningSink = std::function<void(const Warning&)>;

}  // namespace exactattn
