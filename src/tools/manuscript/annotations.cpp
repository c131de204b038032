// SPDX-License-Identifier: MIT
// exactattn: SARIF 2.1.0 and GitHub annotation lines for findings placed at their lines.
#include "exactattn/annotations.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "exactattn/error.hpp"
#include "exactattn/version.hpp"
#include "scenario/json.hpp"

namespace exactattn {

namespace {

using detail::Json;

// RFC 3986: every byte but the unreserved characters and `/` percent-encoded, so that a path
// with spaces, `#`, `%` or UTF-8 is a valid URI reference.
std::string uri_encoded(const std::string& path) {
    std::string out;
    for (const unsigned char c : path) {
        if (std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
            out += static_cast<char>(c);
        } else {
            out += fmt::format("%{:02X}", c);
        }
    }
    return out;
}

Json artifact_location(const std::string& file) {
    const std::filesystem::path p(file);
    if (p.is_absolute()) return Json{{"uri", "file://" + uri_encoded(p.lexically_normal().string())}};
    return Json{{"uri", uri_encoded(p.lexically_normal().generic_string())}, {"uriBaseId", "%SRCROOT%"}};
}

// GitHub's escaping of a workflow command's message, and of its properties.
std::string github_escaped(const std::string& text, bool property) {
    std::string out;
    for (const char c : escape_controls(text)) {
        if (c == '%') {
            out += "%25";
        } else if (property && c == ':') {
            out += "%3A";
        } else if (property && c == ',') {
            out += "%2C";
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace

std::string sarif_log(const std::vector<Annotation>& annotations, const std::vector<std::string>& files,
                      const std::string& tool_command) {
    Json rules = Json::array();
    for (const auto& r : kAnnotationRules) {
        rules.push_back({{"id", r.id},
                         {"shortDescription", {{"text", r.description}}},
                         {"defaultConfiguration", {{"level", "error"}}}});
    }
    Json artifacts = Json::array();
    for (const auto& f : files) artifacts.push_back({{"location", artifact_location(f)}});
    Json results = Json::array();
    for (const auto& a : annotations) {
        std::size_t rule = 0;
        while (rule + 1 < std::size(kAnnotationRules) && a.rule != kAnnotationRules[rule].id) ++rule;
        Json physical{{"artifactLocation", artifact_location(a.file)}};
        if (a.line > 0) {
            Json region{{"startLine", a.line}};
            if (a.column > 0) region["startColumn"] = a.column;
            physical["region"] = region;
        }
        results.push_back({{"ruleId", kAnnotationRules[rule].id},
                           {"ruleIndex", rule},
                           {"level", "error"},
                           {"message", {{"text", escape_controls(a.message)}}},
                           {"locations", Json::array({{{"physicalLocation", physical}}})}});
    }
    std::error_code ec;
    const std::string cwd = std::filesystem::current_path(ec).string();
    Json run{{"tool",
              {{"driver",
                {{"name", "exactattn"},
                 {"fullName", "exactattn " + tool_command},
                 {"semanticVersion", EXACTATTN_VERSION_STRING},
                 {"rules", rules}}}}},
             {"invocations", Json::array({{{"executionSuccessful", true}}})},
             {"originalUriBaseIds", {{"%SRCROOT%", {{"uri", "file://" + uri_encoded(cwd) + "/"}}}}},
             {"columnKind", "unicodeCodePoints"},
             {"artifacts", artifacts},
             {"results", results}};
    Json log{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
             {"version", "2.1.0"},
             {"runs", Json::array({run})}};
    return log.dump(2) + "\n";
}

std::string github_annotation(const Annotation& a) {
    std::string props = "file=" + github_escaped(a.file, true);
    if (a.line > 0) props += fmt::format(",line={}", a.line);
    if (a.column > 0) props += fmt::format(",col={}", a.column);
    props += ",title=" + github_escaped("exactattn " + a.rule, true);
    return "::error " + props + "::" + github_escaped(a.message, false);
}

int expect_line(const std::string& text, const std::string& pointer) {
    const std::string key = Json(pointer).dump();  // the pointer as a JSON string, as the file writes it
    const std::size_t at = text.find(key);
    if (at == std::string::npos) return 0;
    int line = 1;
    for (std::size_t k = 0; k < at; ++k) line += text[k] == '\n' ? 1 : 0;
    return line;
}

}  // namespace exactattn
