// The generated parts of record/README.md: the table of every field and an example
// record, both produced from the codec's field list (record_fields.h), so the
// documentation cannot drift from what servebench writes. record_doc_test fails when
// the README differs (SERVEBENCH_UPDATE_DOCS=1 rewrites it). Pure functions.
#pragma once

#include <string>

#include "record/record.h"

namespace servebench::record {

// Markdown: one row per field (nested ones as build.date), with its rule, whether it
// is required, the schema version that added it and its meaning; then the headline
// metrics with their units.
std::string FieldTableMarkdown();

// A complete record of a simulated point, every field set as run/ sets it.
Record ExampleRecord();

// ExampleRecord as the indented JSON `results show` prints.
std::string ExampleRecordJson();

}  // namespace servebench::record
