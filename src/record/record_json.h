// The Record's one JSON codec: how a Record is written (record files, the store's
// record_json column, `results show`) and read back. record/README.md shows the
// layout with an example generated from this code.
//
// Reading is strict: every problem is reported at once, each as
//   <field path>: <what is wrong>; <the rule>
// e.g. `provenance.started_at: missing; a UTC date 2026-11-29 or time
// 2026-11-29T20:30:00Z (fraction allowed, no offset)` or `headline.tput_per_gpu: is a
// string ("fast"); a number or null`. Unknown fields are errors too (a renamed field
// must not be dropped silently). Records of an older schema_version are migrated as
// they are read (schema 1: the headline is derived from `summary` by
// metrics/headline.h, the accuracy from `evals`, the deployment's new fields from
// `point`), so old record files and stores read as current Records; a newer
// schema_version is refused. Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

#include "common/status.h"
#include "record/record.h"

namespace servebench::record {

// The record as JSON, in the current schema (kSchemaVersion), keys in the documented
// order. FromJson(ToJson(r)) == r.
boost::json::object ToJson(const Record& record);

// ToJson as compact text (what record files and the store hold).
std::string ToJsonText(const Record& record);

// The record in `json` (schema 1 .. kSchemaVersion). InvalidArgument lists every
// problem, as above.
StatusOr<Record> FromJson(const boost::json::object& json);

// Parses `text` as one JSON object and reads it. InvalidArgument when the text is not
// JSON or not an object.
StatusOr<Record> FromJsonText(std::string_view text);

}  // namespace servebench::record
